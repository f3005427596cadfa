"""The register tiles the default prefers: tile sizes from a matrix product's or a conv's
shape and the target's vector registers, and the cache facts they are measured against
(the preferred values of register_tiles.py's decisions)."""

from __future__ import annotations

import math
from collections.abc import Collection

from ir.schedule.hardware import CoreFacts, HardwareParams
from ir.schedule.schedule import Stage, tensor_reads
from ir.te.program import TEProgram
from ir.te.tensor import Tensor

DEPTHWISE_ACCUMULATORS = 8  # vectors a blocked depthwise conv's column tile accumulates
MAX_UNROLLED_STEPS = 256  # vector statements a depthwise tile's unrolled window may make
# A matrix product copies a right-hand input into column panels at run time (one pass over
# it) when each panel serves this many rows and the product has this much work
# (multiply-adds): below, the copy and its thread launch cost more than the strided reads
# (measured: 7 x 1000 x 1000 twice as slow packed, 128 x 96 x 40 a third slower).
PACK_MIN_ROWS = 32
PACK_MIN_WORK = 1 << 22
# Independent accumulators a typical core's register tile should keep (two FMA pipes of
# 4-cycle latency need 8 in flight, and a few more hide the loads); the functions below
# take the target's as `chains`.
FMA_CHAINS = CoreFacts().fma_chains
GEMV_VECTORS = 4  # the widest matrix-product column tile, in vectors (few output rows)
# Vectors a conv tile's inner loop keeps live beside its accumulators and weight vectors:
# a float conv one input broadcast at a time (each feeds its column's FMAs, then dies: so
# the compiled AVX2 loop of 2 x 6 float accumulators keeps 15 registers), an integer dot
# product also its pair products and a vector of ones.
FLOAT_CONV_SCRATCH = 1
INTEGER_CONV_SCRATCH = 3
# The WORD form (int16 weights, qnn.conv2d_nchwc) loads each step's weights twice over
# (one vector per pair of products) and broadcasts both pairs' data: 2 more than the
# byte forms. At 3, AVX2 took 5 columns and LLVM spilled 5 of the 10 accumulators on
# every step (ResNet-50's int8 convs, Zen 3); 4 columns run 0-13% faster.
WORD_CONV_SCRATCH = 5
# A conv vectorized over output channels (NCHW) keeps 3: with 1, its AVX2 tiles of 2 x 6
# ran at two thirds of the speed of 2 x 5 (3x3 convs over 64 x 56 x 56 and 128 x 28 x 28).
CHANNEL_CONV_SCRATCH = 3


# A float conv in NCHW[b]c on a target of 32 vector registers (AVX-512) keeps this many
# output channel blocks in its register tile, each weight vector feeding 6 columns: on an
# Emerald Rapids host (two 512-bit FMA pipes) 4 x 6 beat 2 x 7 on ResNet-50's convs over
# 56, 28 and 14 columns by 8-33%; over 7 columns, where the 4 blocks' weights of a 3 x 3
# conv take 1.2 MB, it was 25% slower (hence the L2 condition). A float matrix product
# there takes as many column vectors (6 rows x 4 vectors rather than 8 x 2).
WIDE_TILE_BLOCKS = 4
WIDE_TILE_REGISTERS = 32
# The convs that take it, by their scratch vectors, and their most accumulators (0: as
# many as the registers hold): an 8-bit dot product's (VNNI) 4 x 6 ran slower than 4 x 5,
# which was 1.1-1.7x faster than 2 x 7 on ResNet-50's int8 convs over 56 columns.
WIDE_TILE_ACCUMULATORS = {FLOAT_CONV_SCRATCH: 0, INTEGER_CONV_SCRATCH: 20}

# The register tiles the decisions offer: up to this many vectors of channels or columns,
# this many rows or columns of a tile.
MAX_TILE_VECTORS = 4
MAX_TILE_ROWS = 16
MAX_TILE_COLUMNS = 16
OUTERMOST = ("rows", "channel_blocks")  # a conv's outer tile loops: which goes first
PANEL_PACKINGS = ("in_place", "packed")  # a right-hand input that is not constant


def divisor_at_most(extent: int, limit: int) -> int:
    """The largest divisor of `extent` that is at most `limit` (1 at least)."""
    for candidate in range(min(extent, limit), 0, -1):
        if extent % candidate == 0:
            return candidate
    return 1


def _register_columns(
    width: int, vectors: int, registers: int, chains: int, scratch: int, cap: int = 14
) -> int:
    """How many output columns a conv tile keeps in registers next to `vectors` channel
    vectors: up to `cap` accumulators (about 14), fewer where the weight vectors and
    `scratch` other vectors beside them would not fit in `registers`; of those, the tile
    whose full tiles and tail take the fewest issue slots (an FMA's, or two loads of an
    operand), a tile of fewer than `chains` accumulators costing as many FMAs as `chains`
    (its FMAs wait on each other); on a tie, one without a tail, then the widest. With
    AVX2's 16 registers and 2 vectors that is 6 columns for rows of 56 and 28 (tails of 2
    and 4) and 5 for 14 and 7. Measured on ResNet-50's convs at 56 and 28 columns (Zen 3):
    6 columns were 2-13% faster than 4 without a tail (one conv 2% slower) and up to 12%
    faster than 5 (one 1% slower); at 7 columns, 5 beat 6 (a tail of 1) by up to 9%. The
    loads decide the wide AVX-512 tiles of 4 vectors: 6 columns at 56, not 4 (14% faster
    on this Emerald Rapids)."""
    limit = max(1, min(cap, _accumulators(registers, vectors + scratch)) // vectors)
    if width <= limit:
        return width

    def half_slots(columns: int) -> int:
        # A tile step issues its FMAs and loads its weight vectors and broadcasts: two
        # loads go in the issue slot of one FMA.
        def step(cols: int) -> int:
            return 2 * max(cols * vectors, chains) + vectors + cols

        full, tail = divmod(width, columns)
        return full * step(columns) + (step(tail) if tail else 0)

    return min(range(limit, 0, -1), key=lambda columns: (half_slots(columns), width % columns > 0))


def strided_rows_fit_l1(rows: int, stride_bytes: int, core: CoreFacts) -> bool:
    """Whether `rows` cache lines `stride_bytes` apart stay in half of `core`'s L1 data
    cache (the other half is the other operand's): a stride of a multiple of the line
    maps them to a fraction of the cache's sets (with 64 sets of 64-byte lines, a
    multiple of 4 KiB maps them to one set)."""
    line, sets = core.cache_line_bytes, core.l1_sets
    lines = sets * core.l1_ways
    if stride_bytes % line == 0:
        lines = core.l1_ways * (sets // math.gcd(stride_bytes // line, sets))
    return rows <= lines // 2


def _accumulators(registers: int, operands: int) -> int:
    """How many accumulator vectors fit in `registers` beside `operands` other live vectors
    (a register tile's loaded operand vectors and a broadcast): more would spill."""
    return max(1, registers - operands)


def blocked_conv_register_tile(
    blocks: int,
    width: int,
    block: int,
    lanes: int,
    registers: int = 32,
    chains: int = FMA_CHAINS,
    scratch: int = FLOAT_CONV_SCRATCH,
    block_weight_bytes: int = 0,
    l2_bytes: int = CoreFacts().l2_bytes,
) -> tuple[int, int]:
    """The register tile of a conv in NCHW[b]c with `blocks` output channel blocks of
    `block` channels and `width` output columns, on a target of `registers` vector
    registers: (channel blocks, columns) per tile, about 14 accumulator registers (2
    channel vectors x 7 columns, or 1 x 14; 2 x 6 with 16 registers), `scratch` vectors
    left for the inner loop's other values (INTEGER_CONV_SCRATCH for a dot product,
    WORD_CONV_SCRATCH for one of int16 weights).

    A float or 8-bit dot-product conv on a target of 32 registers takes WIDE_TILE_BLOCKS
    blocks and as many columns as the registers hold beside them (4 x 6; an 8-bit one up
    to WIDE_TILE_ACCUMULATORS) where the weights of those blocks (`block_weight_bytes`
    each: every input channel and window position) take at most half of the core's L2
    (`l2_bytes`: they are read again for every output row) and a row holds two of its
    tiles (at 7 columns, 4 x 4 and a tail of 3 ran 2-5% slower than 2 x 7)."""
    if (
        registers >= WIDE_TILE_REGISTERS
        and scratch in WIDE_TILE_ACCUMULATORS
        and block <= lanes
        and blocks % WIDE_TILE_BLOCKS == 0
        and WIDE_TILE_BLOCKS * block_weight_bytes <= l2_bytes // 2
    ):
        cap = WIDE_TILE_ACCUMULATORS[scratch] or registers
        columns = _register_columns(width, WIDE_TILE_BLOCKS, registers, chains, scratch, cap)
        if width >= 2 * columns:
            return WIDE_TILE_BLOCKS, columns
    block_tile = 2 if block <= lanes and blocks % 2 == 0 else 1
    vectors = block_tile * max(1, block // lanes)
    return block_tile, _register_columns(width, vectors, registers, chains, scratch)


def channel_conv_register_tile(
    out_channels: int, width: int, lanes: int, registers: int = 32, chains: int = FMA_CHAINS
) -> tuple[int, int]:
    """The register tile of a conv vectorized over output channels in vectors of `lanes`:
    (channels, columns) per tile, about 14 accumulator registers (fewer with 16)."""
    vectors = 2 if out_channels % (2 * lanes) == 0 else 1
    columns = _register_columns(width, vectors, registers, chains, CHANNEL_CONV_SCRATCH)
    return vectors * lanes, columns


def depthwise_register_tile(height: int, width: int, lanes: int) -> tuple[int, int]:
    """The register tile of a depthwise conv vectorized over output columns: (rows,
    columns) per tile, up to two vectors of columns and about 8 accumulator vectors (each
    multiply-add loads its own input vector, so a larger tile only adds register
    pressure), the rows a divisor of `height` (a row tail would be guarded)."""
    col_tile = min(width, 2 * lanes)
    vectors = -(-col_tile // lanes)
    return divisor_at_most(height, max(1, 8 // vectors)), col_tile


def gemm_register_tile(
    rows: int,
    cols: int,
    lanes: int,
    registers: int = 32,
    chains: int = FMA_CHAINS,
    wide: bool = False,
) -> tuple[int, int]:
    """The register tile of a matrix product's output of `rows` x `cols`: (rows, columns)
    per tile, the columns two vectors wide (or all of them when fewer), up to 8 rows (6
    with 16 vector registers, which must also hold the column vectors and a broadcast).
    The rows are a divisor of `rows` unless the largest one is at most half the limit:
    then the limit, the last tile shorter (a row tail: ViT's 197 x 768 x 2304 dense layer
    ran 2.0-2.5x faster than with tiles of one row). Where the rows leave fewer than `chains`
    accumulators, up to `GEMV_VECTORS` vectors wide, but only a width that divides the
    columns: a column tail cost more than the wider tile saved (4 x 1024 x 1024 with 3
    vectors and a tail: 173 GFLOPS against 183 with 2).

    A `wide` product (float32) on a target of 32 registers whose columns split into tiles
    of WIDE_TILE_BLOCKS vectors, with rows for two tiles or more, takes that many vectors
    and as many rows as the registers hold beside them (6 x 4 vectors: ViT's dense layers
    ran 1.14-1.22x faster than 8 x 2 on an Emerald Rapids)."""
    if wide and registers >= WIDE_TILE_REGISTERS and cols % (WIDE_TILE_BLOCKS * lanes) == 0:
        wide_rows = _accumulators(registers, WIDE_TILE_BLOCKS + 1) // WIDE_TILE_BLOCKS
        if rows >= 2 * wide_rows:
            return wide_rows, WIDE_TILE_BLOCKS * lanes
    col_tile = min(cols, 2 * lanes)
    vectors = -(-col_tile // lanes)
    row_limit = max(1, min(8, _accumulators(registers, vectors + 1) // vectors))
    row_tile = divisor_at_most(rows, row_limit)
    if 2 * row_tile <= row_limit < rows:
        # Rows without a divisor near the limit (a prime count, as ViT's 197 tokens):
        # full tiles and one shorter last tile rather than a tile of one or two rows.
        return row_limit, col_tile
    for wider in range(min(GEMV_VECTORS, -(-chains // row_tile)), vectors, -1):
        fits = _accumulators(registers, wider + 1) // wider >= row_tile
        if fits and cols % (wider * lanes) == 0:
            return row_tile, wider * lanes
    return row_tile, col_tile


def channel_vector_lanes(
    program: TEProgram, stage: Stage, hardware: HardwareParams, constant_inputs: Collection[str]
) -> int:
    """The vector width (lanes) when a conv vectorizes output channels (weights packed
    channel-innermost, one input value broadcast per column), else 0: whenever its
    weight is a constant and it is not grouped. Measured on the standard workloads this
    beats vectorizing columns, which needs unit-stride columns and wide rows. Channel
    counts the full width does not divide (40, 129, 1000 classes on AVX-512) use
    full-width vectors where they fill one, the last channel tile shorter (1.25-5x faster
    than half-width vectors or vectors over columns: `bench/results/defaults_ab_*`);
    fewer channels, half-width vectors where those divide them. In a grouped conv
    (depthwise included) the input channel follows the output channel's group, which
    the vectorizer cannot prove uniform over a vector: every multiply-add gathered (the
    grouped 1x1 convs of light_shufflenet ran at 12-13 GFLOPS that way, 23-100 with
    vectors over columns)."""
    if stage.op.tag != "conv2d" or len(program.inputs) < 2:
        return 0
    weight = program.inputs[1]
    if weight.name not in constant_inputs or weight.ndim != 4:
        return 0
    out_channels, group_channels, _, _ = weight.shape
    lanes = hardware.lanes(stage.op.dtype)
    data = program.inputs[0]
    if group_channels <= 1 or data.ndim != 4 or data.shape[1] != group_channels:
        return 0  # depthwise or grouped: see the docstring
    if out_channels >= lanes:
        return lanes
    half = lanes // 2
    return half if half >= min(4, lanes) and out_channels % half == 0 else 0


def tensors_read(stage: Stage) -> list[Tensor]:
    """The tensors `stage`'s body reads, each once, in the order first read."""
    return list({id(r.tensor): r.tensor for r in tensor_reads(stage.op.body)}.values())


def right_operand_streams(compute: Stage, col_tile: int, core: CoreFacts) -> bool:
    """Whether a matrix product (dense, matmul, batch_matmul) computed by `compute`, with
    its row tiles outside its column panels of `col_tile`, would read a right-hand side
    too big to stay in a core's cache once per row tile: unbatched, the columns leaving
    a narrower last panel (panels that divide them already run outside the row tiles),
    and the right-hand side over `core`'s L2. The default runs such products' column
    panels outside the row tiles."""
    *batch, _, columns = (axis.extent for axis in compute.op.axes)
    if compute.op.tag not in ("dense", "matmul", "batch_matmul") or columns % col_tile == 0:
        return False
    if math.prod(batch) != 1:
        return False  # the batches run in parallel; the panels would take their place
    right = tensors_read(compute)[-1]
    itemsize: int = right.nbytes // max(1, math.prod(right.shape))
    reduction: int = math.prod(axis.extent for axis in compute.op.reduce_axes)
    return reduction * columns * itemsize > core.l2_bytes
