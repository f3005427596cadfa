"""Default schedules: what every fused function gets when nothing has been tuned.

Steps 1, 3 and 4 are the rules of `ir.schedule.rules`, which the search space runs too,
each taking the choice its rule prefers (`PreferredChoices`); step 2 is written here.

Step 1. Inline elementwise and injective stages into their readers, except a padding
        stage feeding a matrix-product-like stage that is not a depthwise conv, and a
        stage computing exp, log, erf, ... that several stages read (rules/inline.py).
Step 2. A matrix-product-like output (conv2d, dense, matmul, batch_matmul) is register
        tiled: the output stage is split into tiles, outer tiles run in parallel and the
        reduction is computed per tile into a local accumulator, spatial tile innermost
        and vectorized, the other tile axis unrolled. A dense/matmul weight that is a
        constant input is repacked so the vectorized axis is contiguous. A depthwise
        conv tiles rows x columns, its window unrolled; in NCHW[b]c it tiles columns,
        each a vector of the channel block.
Step 3. An output whose producers are needed a row at a time (softmax's and layer_norm's
        statistics) computes them per row inside its row loop when its rows are long
        enough (rules/rows.py).
Step 4. Every other stage: parallel over its fused outer spatial loops, reductions
        inside, the innermost spatial loop vectorized, a long reduction along rows first
        reduced into a vector of partial results per row (rules/generic.py).
"""

from __future__ import annotations

import math
from collections.abc import Collection

from ir.schedule.hardware import HardwareParams
from ir.schedule.rules.analysis import GEMM_TAGS, is_depthwise_conv, work
from ir.schedule.rules.choices import PreferredChoices
from ir.schedule.rules.generic import generic_rule
from ir.schedule.rules.inline import inline_rule
from ir.schedule.rules.loops import MIN_PARALLEL_WORK, BuildContext
from ir.schedule.rules.rows import rows_rule
from ir.schedule.schedule import Schedule, Stage, loop_extents, tensor_reads
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
CACHE_LINE_BYTES, L1_SETS, L1_WAYS = 64, 64, 8  # x86's L1 data cache: 32 KiB, 8-way
# Independent accumulators a register tile should keep: two FMA pipes of 4-cycle latency
# need 8 in flight, and a few more hide the loads.
FMA_CHAINS = 10
GEMV_VECTORS = 4  # the widest matrix-product column tile, in vectors (few output rows)
CONV_BROADCASTS = 3  # input broadcasts a conv tile's inner loop keeps in flight
CORE_CACHE_BYTES = 1 << 20  # what one core's L2 keeps between passes (1-2 MiB on x86 servers)


def _divisor_at_most(extent: int, limit: int) -> int:
    for candidate in range(min(extent, limit), 0, -1):
        if extent % candidate == 0:
            return candidate
    return 1


def _register_columns(width: int, vectors: int, registers: int) -> int:
    """How many output columns a conv tile keeps in registers next to `vectors` channel
    vectors: about 14 accumulators, fewer where the weight vectors and the input
    broadcasts beside them would not fit in `registers`. A divisor of `width` (no column
    tail) when it keeps at least `FMA_CHAINS` accumulators, else the most columns, with
    a tail (on AVX2, 2 x 5 with tails beat 2 x 4 without by 3-10% on every standard
    conv, and 2 x 6 spilled)."""
    spare = vectors + CONV_BROADCASTS
    limit = max(1, min(14, _accumulators(registers, spare)) // vectors)
    if width <= limit:
        return width
    tile = _divisor_at_most(width, limit)
    return tile if tile * vectors >= min(FMA_CHAINS, limit * vectors) else limit


def _strided_rows_fit_l1(rows: int, stride_bytes: int) -> bool:
    """Whether `rows` cache lines `stride_bytes` apart stay in half of a typical L1 data
    cache (the other half is the other operand's): a stride of a multiple of the line
    maps them to a fraction of the cache's sets (at a multiple of 4 KiB, to one set of
    8 lines)."""
    lines = L1_SETS * L1_WAYS
    if stride_bytes % CACHE_LINE_BYTES == 0:
        lines = L1_WAYS * (L1_SETS // math.gcd(stride_bytes // CACHE_LINE_BYTES, L1_SETS))
    return rows <= lines // 2


def _accumulators(registers: int, operands: int) -> int:
    """How many accumulator vectors fit in `registers` beside `operands` other live vectors
    (a register tile's loaded operand vectors and a broadcast): more would spill."""
    return max(1, registers - operands)


def blocked_conv_register_tile(
    blocks: int, width: int, block: int, lanes: int, registers: int = 32
) -> tuple[int, int]:
    """The register tile of a conv in NCHW[b]c with `blocks` output channel blocks of
    `block` channels and `width` output columns, on a target of `registers` vector
    registers: (channel blocks, columns) per tile, about 14 accumulator registers (2
    channel vectors x 7 columns, or 1 x 14; 2 x 5 with 16 registers)."""
    block_tile = 2 if block <= lanes and blocks % 2 == 0 else 1
    vectors = block_tile * max(1, block // lanes)
    return block_tile, _register_columns(width, vectors, registers)


def channel_conv_register_tile(
    out_channels: int, width: int, lanes: int, registers: int = 32
) -> tuple[int, int]:
    """The register tile of a conv vectorized over output channels in vectors of `lanes`:
    (channels, columns) per tile, about 14 accumulator registers (fewer with 16)."""
    vectors = 2 if out_channels % (2 * lanes) == 0 else 1
    return vectors * lanes, _register_columns(width, vectors, registers)


def depthwise_register_tile(height: int, width: int, lanes: int) -> tuple[int, int]:
    """The register tile of a depthwise conv vectorized over output columns: (rows,
    columns) per tile, up to two vectors of columns and about 8 accumulator vectors (each
    multiply-add loads its own input vector, so a larger tile only adds register
    pressure), the rows a divisor of `height` (a row tail would be guarded)."""
    col_tile = min(width, 2 * lanes)
    vectors = -(-col_tile // lanes)
    return _divisor_at_most(height, max(1, 8 // vectors)), col_tile


def gemm_register_tile(rows: int, cols: int, lanes: int, registers: int = 32) -> tuple[int, int]:
    """The register tile of a matrix product's output of `rows` x `cols`: (rows, columns)
    per tile, the columns two vectors wide (or all of them when fewer), up to 8 rows (6
    with 16 vector registers, which must also hold the column vectors and a broadcast).
    The rows are a divisor of `rows` unless the largest one is at most half the limit:
    then the limit, the last tile shorter (a row tail: ViT's 197 x 768 x 2304 dense layer
    ran 2.0-2.5x faster than with tiles of one row). Where the rows leave fewer than `FMA_CHAINS`
    accumulators, up to `GEMV_VECTORS` vectors wide, but only a width that divides the
    columns: a column tail cost more than the wider tile saved (4 x 1024 x 1024 with 3
    vectors and a tail: 173 GFLOPS against 183 with 2)."""
    col_tile = min(cols, 2 * lanes)
    vectors = -(-col_tile // lanes)
    row_limit = max(1, min(8, _accumulators(registers, vectors + 1) // vectors))
    row_tile = _divisor_at_most(rows, row_limit)
    if 2 * row_tile <= row_limit < rows:
        # Rows without a divisor near the limit (a prime count, as ViT's 197 tokens):
        # full tiles and one shorter last tile rather than a tile of one or two rows.
        return row_limit, col_tile
    for wider in range(min(GEMV_VECTORS, -(-FMA_CHAINS // row_tile)), vectors, -1):
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


def _tensors_read(stage: Stage) -> list[Tensor]:
    """The tensors `stage`'s body reads, each once, in the order first read."""
    return list({id(r.tensor): r.tensor for r in tensor_reads(stage.op.body)}.values())


def right_operand_streams(compute: Stage, col_tile: int) -> bool:
    """Whether a matrix product (dense, matmul, batch_matmul) computed by `compute`, with
    its row tiles outside its column panels of `col_tile`, would read a right-hand side
    too big to stay in a core's cache once per row tile: unbatched, the columns leaving
    a narrower last panel (panels that divide them already run outside the row tiles),
    and the right-hand side over CORE_CACHE_BYTES. The default runs such products'
    column panels outside the row tiles."""
    *batch, _, columns = (axis.extent for axis in compute.op.axes)
    if compute.op.tag not in ("dense", "matmul", "batch_matmul") or columns % col_tile == 0:
        return False
    if math.prod(batch) != 1:
        return False  # the batches run in parallel; the panels would take their place
    right = _tensors_read(compute)[-1]
    itemsize: int = right.nbytes // max(1, math.prod(right.shape))
    reduction: int = math.prod(axis.extent for axis in compute.op.reduce_axes)
    return reduction * columns * itemsize > CORE_CACHE_BYTES


class _DefaultScheduler:
    def __init__(
        self, program: TEProgram, hardware: HardwareParams, constant_inputs: Collection[str]
    ) -> None:
        self.schedule = Schedule(program)
        self.hardware = hardware
        self.constant_inputs = frozenset(constant_inputs)

    def run(self) -> Schedule:
        sch = self.schedule
        context = BuildContext(sch, PreferredChoices(), self.hardware, self.constant_inputs)
        # Step 1.
        inline_rule(context)
        # Steps 2 and 3, outputs first so producers can be attached to their tiles or rows.
        done: set[str] = set()
        for name in [n for n, s in sch.stages.items() if s.is_output]:
            anchor = self._gemm_anchor(name)
            if anchor is not None:
                done |= self.tile_gemm(name, anchor)
            else:
                done |= rows_rule(context, name)
        # Step 4.
        for name, stage in list(sch.stages.items()):
            if name not in done and stage.attach.kind == "root":
                generic_rule(context, name)
        return sch

    def _gemm_anchor(self, output: str) -> str | None:
        """The matrix-product stage an output reads (directly or inlined), if it owns it."""
        sch = self.schedule
        stage = sch.stages[output]
        if stage.op.tag in GEMM_TAGS:
            return output if len(stage.op.axes) >= 2 else None
        candidates = [
            name
            for name in sch._stages_read_by(output)
            if sch.stages[name].op.tag in GEMM_TAGS and sch.stages[name].attach.kind == "root"
        ]
        if len(candidates) != 1:
            return None
        anchor = candidates[0]
        if len(sch.stages[output].op.axes) < 2:
            return None  # a matrix-vector product: the generic schedule
        readers = [r for r in sch.readers(anchor) if sch.stages[r].attach.kind != "inline"]
        inline_readers = [r for r in sch.readers(anchor) if sch.stages[r].attach.kind == "inline"]
        # Every reader must end up in the output stage.
        if any(r != output for r in readers):
            return None
        if any(r not in sch._stages_read_by(output) for r in inline_readers):
            return None
        return anchor

    def _parallel(self, name: str, fused: str, stage: Stage) -> None:
        """Run stage `name`'s loop `fused` in parallel when `work` (the stage doing the
        arithmetic) has enough of it and the loop more than one iteration."""
        sch = self.schedule
        if work(stage) >= MIN_PARALLEL_WORK and loop_extents(sch.stages[name])[0][fused] > 1:
            sch.parallel(name, fused)

    def _rows_outermost(self) -> bool:
        """Whether a channel-vectorized conv walks output rows outermost (each row for
        every block of output channels) rather than channel blocks outermost (each block
        over every row). Blocks outermost read the whole input once per block, rows
        outermost read the whole weight once per row: rows go outermost when the input is
        too big to stay in a core's cache between blocks and the weight, at most half the
        input, is small enough to stay. Inside a network the input arrives from memory
        (measured on light_resnet50's 1x1 convs over 256 x 56 x 56 inputs: 30% faster in
        sequence; convs with small inputs or big weights were slower that way)."""
        data, weight = self.schedule.program.inputs[:2]
        return data.nbytes > CORE_CACHE_BYTES and 2 * weight.nbytes <= data.nbytes

    def _order_conv_tiles(
        self, output: str, anchor: str, outer: tuple[str, str, str, str], inner: tuple[str, ...]
    ) -> None:
        """Order a conv's tile loops (batch, row, channel block, column tile) rows or
        channel blocks outermost (see `_rows_outermost`), then `inner`; the fused outer
        loops run in parallel when there is enough work."""
        sch = self.schedule
        n, y, k_outer, x_outer = outer
        if self._rows_outermost():
            sch.reorder(output, n, y, k_outer, x_outer, *inner)
            fused = sch.fuse(output, sch.fuse(output, n, y), k_outer)
        else:
            sch.reorder(output, n, k_outer, y, x_outer, *inner)
            fused = sch.fuse(output, sch.fuse(output, n, k_outer), y)
        self._parallel(output, fused, sch.stages[anchor])

    def tile_conv_channels(self, output: str, anchor: str, lanes: int) -> set[str]:
        """Conv with output channels in vectors of `lanes`: each (c, ry, rx) step loads one
        vector of packed weights and broadcasts one input value per output column."""
        sch = self.schedule
        n, k, y, x = (axis.name for axis in sch.stages[output].op.axes)
        out_channels, width = sch.stages[output].op.shape[1], sch.stages[output].op.shape[3]
        channel_tile, col_tile = channel_conv_register_tile(
            out_channels, width, lanes, self.hardware.registers
        )
        vectors = channel_tile // lanes
        k_outer, k_inner = sch.split(output, k, factor=channel_tile)
        x_outer, x_inner = sch.split(output, x, factor=col_tile)
        if out_channels % channel_tile:
            # A shorter last channel tile: its loop stays its own, to be partitioned; the
            # parallel loop is the fused rows, or the channel tiles themselves where they
            # go outermost (see `_order_conv_tiles`) and their full ones fill the cores.
            full_tiles = out_channels // channel_tile
            if self._rows_outermost() or full_tiles < 2 * self.hardware.num_cores:
                sch.reorder(output, n, y, k_outer, x_outer, k_inner, x_inner)
                self._parallel(output, sch.fuse(output, n, y), sch.stages[anchor])
            else:
                sch.reorder(output, k_outer, n, y, x_outer, k_inner, x_inner)
                self._parallel(output, k_outer, sch.stages[anchor])
        else:
            self._order_conv_tiles(output, anchor, (n, y, k_outer, x_outer), (k_inner, x_inner))
        sch.vectorize(output, x_inner)
        sch.compute_at(anchor, output, x_outer)
        local = sch.stages[anchor]
        ln, lk, ly, lx = (axis.name for axis in local.op.axes)
        rc, ry, rx = (axis.name for axis in local.op.reduce_axes)
        sch.reorder(anchor, ln, ly, rc, ry, rx, lx, lk)
        sch.unroll(anchor, lx)
        if vectors > 1:
            lk_outer, lk_inner = sch.split(anchor, lk, factor=lanes)
            sch.unroll(anchor, lk_outer)
            sch.vectorize(anchor, lk_inner)
        else:
            sch.vectorize(anchor, lk)
        weight = sch.program.inputs[1]
        _, group_channels, kernel_h, kernel_w = weight.shape
        sch.layout_rewrite(
            weight.name,
            [
                [-(-out_channels // channel_tile), channel_tile],  # zero-padded
                [group_channels],
                [kernel_h],
                [kernel_w],
            ],
            [0, 2, 3, 4, 1],
        )
        return {output, anchor}

    def tile_conv_columns(self, output: str, anchor: str) -> set[str]:
        """Depthwise conv (each output channel reads one input channel, so channels share
        nothing): output columns in vectors, a tile of rows x columns accumulated in
        registers; each (ry, rx) step loads one input vector per row and column vector and
        broadcasts one weight."""
        sch = self.schedule
        n, k, y, x = (axis.name for axis in sch.stages[output].op.axes)
        height, width = sch.stages[output].op.shape[2:]
        lanes = self.hardware.lanes(sch.stages[output].op.dtype)
        row_tile, col_tile = depthwise_register_tile(height, width, lanes)
        y_outer, y_inner = sch.split(output, y, factor=row_tile)
        x_outer, x_inner = sch.split(output, x, factor=col_tile)
        sch.reorder(output, n, k, y_outer, x_outer, y_inner, x_inner)
        # A column tail keeps its own loop (outside the parallel one), so it is partitioned.
        fused = sch.fuse(output, sch.fuse(output, n, k), y_outer)
        self._parallel(output, fused, sch.stages[anchor])
        sch.vectorize(output, x_inner)
        sch.compute_at(anchor, output, x_outer)
        local = sch.stages[anchor]
        ln, lk, ly, lx = (axis.name for axis in local.op.axes)
        reduces = [axis.name for axis in local.op.reduce_axes]
        sch.reorder(anchor, ln, lk, *reduces, ly, lx)
        # The whole window unrolled: one straight run of multiply-adds per tile (measured
        # 1.5x over a rolled window on 3x3 convs 56-112 wide); a big window only its rows.
        window = [axis.extent for axis in local.op.reduce_axes]
        unrolled = reduces if math.prod(window) * row_tile <= MAX_UNROLLED_STEPS else reduces[-1:]
        for axis in (*unrolled, ly):
            sch.unroll(anchor, axis)
        sch.vectorize(anchor, lx)
        return {output, anchor}

    def tile_conv_blocked(self, output: str, anchor: str) -> set[str]:
        """Conv in NCHW[b]c: each (input channel, ry, rx) step loads one block vector of
        weights per output-channel block in the tile and broadcasts one input value per
        output column; outputs are stored as contiguous blocks."""
        sch = self.schedule
        n, k, y, x, kb = (axis.name for axis in sch.stages[output].op.axes)
        blocks, width, block = (sch.stages[output].op.shape[i] for i in (1, 3, 4))
        lanes = self.hardware.lanes(sch.stages[output].op.dtype)
        block_tile, col_tile = blocked_conv_register_tile(
            blocks, width, block, lanes, self.hardware.registers
        )
        k_outer, k_inner = sch.split(output, k, factor=block_tile)
        x_outer, x_inner = sch.split(output, x, factor=col_tile)
        self._order_conv_tiles(output, anchor, (n, y, k_outer, x_outer), (k_inner, x_inner, kb))
        sch.vectorize(output, kb)
        sch.compute_at(anchor, output, x_outer)
        local = sch.stages[anchor]
        ln, lk, ly, lx, lkb = (axis.name for axis in local.op.axes)
        rco, ry, rx, rci = (axis.name for axis in local.op.reduce_axes)
        sch.reorder(anchor, ln, ly, rco, ry, rx, rci, lk, lx, lkb)
        sch.unroll(anchor, lk)
        sch.unroll(anchor, lx)
        sch.vectorize(anchor, lkb)
        return {output, anchor}

    def tile_depthwise_blocked(self, output: str, anchor: str) -> set[str]:
        """Depthwise conv in NCHW[b]c: a block of channels is one vector (or several), a
        tile of output columns accumulated in registers; each (ry, rx) step loads one
        weight vector and one input vector per column. Rows of channel blocks run in
        parallel."""
        sch = self.schedule
        n, k, y, x, c = (axis.name for axis in sch.stages[output].op.axes)
        width, block = sch.stages[output].op.shape[3:]
        lanes = self.hardware.lanes(sch.stages[output].op.dtype)
        per_block = -(-block // lanes)
        col_tile = min(width, max(1, DEPTHWISE_ACCUMULATORS // per_block))
        x_outer, x_inner = sch.split(output, x, factor=col_tile)
        sch.reorder(output, n, k, y, x_outer, x_inner, c)
        fused = sch.fuse(output, sch.fuse(output, n, k), y)
        self._parallel(output, fused, sch.stages[anchor])
        self._vectorize_block(output, c, block, lanes)
        sch.compute_at(anchor, output, x_outer)
        local = sch.stages[anchor]
        ln, lk, ly, lx, lc = (axis.name for axis in local.op.axes)
        reduces = [axis.name for axis in local.op.reduce_axes]
        sch.reorder(anchor, ln, lk, ly, *reduces, lx, lc)
        window = math.prod(axis.extent for axis in local.op.reduce_axes)
        unrolled = reduces if window * col_tile * per_block <= MAX_UNROLLED_STEPS else []
        for axis in (*unrolled, lx):
            sch.unroll(anchor, axis)
        self._vectorize_block(anchor, lc, block, lanes)
        return {output, anchor}

    def _vectorize_block(self, stage: str, axis: str, block: int, lanes: int) -> None:
        """Vectorize a channel block axis: whole, or in unrolled vectors of `lanes`."""
        if block > lanes and block % lanes == 0:
            outer, inner = self.schedule.split(stage, axis, factor=lanes)
            self.schedule.unroll(stage, outer)
            self.schedule.vectorize(stage, inner)
        else:
            self.schedule.vectorize(stage, axis)

    def tile_gemm(self, output: str, anchor: str) -> set[str]:
        sch = self.schedule
        if output == anchor:
            anchor = sch.cache_write(output, "local")
        if sch.stages[anchor].op.tag == "conv2d_nchwc":
            return self.tile_conv_blocked(output, anchor)
        if sch.stages[anchor].op.tag == "depthwise_conv2d_nchwc":
            return self.tile_depthwise_blocked(output, anchor)
        channel_lanes = channel_vector_lanes(
            sch.program, sch.stages[anchor], self.hardware, self.constant_inputs
        )
        if channel_lanes:
            return self.tile_conv_channels(output, anchor, channel_lanes)
        if is_depthwise_conv(sch.program, sch.stages[anchor]):
            return self.tile_conv_columns(output, anchor)
        out_stage = sch.stages[output]
        compute = sch.stages[anchor]
        tag = compute.op.tag
        dtype = compute.op.dtype
        lanes = self.hardware.lanes(dtype)
        axes = [axis.name for axis in out_stage.op.axes]
        extents = [axis.extent for axis in out_stage.op.axes]
        folds_rows = self._folds_batch_into_rows(compute)
        if folds_rows:
            axes = [self._fuse_all(output, axes[:-1]), axes[-1]]
            extents = [math.prod(extents[:-1]), extents[-1]]
        if tag == "conv2d":
            # (n, k, y, x): vectorize output columns, register-tile output channels.
            row_axis, col_axis = axes[1], axes[3]
            col_extent, row_extent = extents[3], extents[1]
            col_tile = min(col_extent, 2 * lanes)
            row_tile = _divisor_at_most(row_extent, 8 if col_tile > lanes // 2 else 16)
            outer_axes = [axes[0], None, axes[2]]
        else:
            row_axis, col_axis = axes[-2], axes[-1]
            row_extent, col_extent = extents[-2], extents[-1]
            row_tile, col_tile = gemm_register_tile(
                row_extent, col_extent, lanes, self.hardware.registers
            )
            outer_axes = [*axes[:-2], None]
        row_outer, row_inner = sch.split(output, row_axis, factor=row_tile)
        col_outer, col_inner = sch.split(output, col_axis, factor=col_tile)
        outer = [row_outer if a is None else a for a in outer_axes]
        col_tail = col_extent % col_tile != 0
        if row_extent % row_tile != 0 or right_operand_streams(compute, col_tile):
            attach = self._order_gemm_tails(
                output,
                compute,
                outer[:-1],
                row_outer,
                col_outer,
                (row_inner, col_inner),
                col_tail,
            )
        else:
            if tag != "conv2d" and not col_tail:
                # Column panels outside row tiles: one panel of the right-hand side stays
                # in cache while the row tiles stream past it.
                outer = [*outer[:-1], col_outer, outer[-1]]
                order = [*outer, row_inner, col_inner]
            else:
                order = [*outer, col_outer, row_inner, col_inner]
            sch.reorder(output, *order)
            # A column tail keeps its own loop, so it is partitioned, not guarded.
            fused = self._fuse_all(output, outer)
            if col_outer not in outer and loop_extents(sch.stages[output])[0][fused] == 1:
                # One row tile and a column tail: the column panels are the only parallel
                # work.
                self._parallel(output, col_outer, compute)
            else:
                self._parallel(output, fused, compute)
            attach = col_outer if col_outer not in outer else fused
        sch.vectorize(output, col_inner)
        sch.compute_at(anchor, output, attach)
        # The accumulator: reductions outside, the spatial tile inside.
        local = sch.stages[anchor]
        spatial = [axis.name for axis in local.op.axes]
        reduces = [axis.name for axis in local.op.reduce_axes]
        if folds_rows:
            spatial = [self._fuse_all(anchor, spatial[:-1]), spatial[-1]]
        if tag == "conv2d":
            inner_row, inner_col = spatial[1], spatial[3]
        else:
            inner_row, inner_col = spatial[-2], spatial[-1]
        others = [axis for axis in spatial if axis not in (inner_row, inner_col)]
        sch.reorder(anchor, *others, *reduces, inner_row, inner_col)
        if row_tile > 1:
            sch.unroll(anchor, inner_row)
        sch.vectorize(anchor, inner_col)
        handled = {output, anchor}
        if (
            not self._pack_weight(anchor, col_tile)
            and row_extent >= PACK_MIN_ROWS
            and work(compute) >= PACK_MIN_WORK
        ):
            handled |= self._pack_right_operand(anchor, col_tile)
        return handled

    def _folds_batch_into_rows(self, compute: Stage) -> bool:
        """Whether a dense or matmul product of one row per batch is a product of its
        batch as rows: with one right-hand matrix for all of them, [B, 1, K] x [K, N] is
        [B, K] x [K, N] (a sequence-first attention projection, [197, 1, 768] x [768,
        2304] in ViT's export, ran as 197 products of one row: 2.5x slower). Only one
        axis may have more than one row: the tiles of a fused loop are then its own."""
        if compute.op.tag not in ("dense", "matmul") or len(compute.op.axes) < 3:
            return False
        leading = [axis.extent for axis in compute.op.axes[:-1]]
        if leading[-1] != 1 or sum(1 for extent in leading if extent > 1) != 1:
            return False
        weight_input = compute.op.attr("weight_input")
        inputs = self.schedule.program.inputs
        if weight_input is None or int(weight_input) >= len(inputs):
            return False
        return inputs[int(weight_input)].ndim == 2

    def _fuse_all(self, stage: str, axes: list[str]) -> str:
        """Fuse `axes` (adjacent, outermost first) of `stage` into one loop; its name."""
        fused = axes[0]
        for axis in axes[1:]:
            fused = self.schedule.fuse(stage, fused, axis)
        return fused

    def _order_gemm_tails(
        self,
        output: str,
        compute: Stage,
        batch: list[str],
        row_outer: str,
        col_outer: str,
        inner: tuple[str, str],
        col_tail: bool,
    ) -> str:
        """Order a matrix product's tile loops when the last row tile is shorter, or the
        last column panel is narrower and the right-hand side does not stay in a core's
        cache (panels outside row tiles read it once per panel, not once per row tile:
        777 x 513 x 1000 and 1024 x 1000 x 1024 ran 1.3-1.6x faster): the loops with a
        tail stay loops of their own (lowering partitions each into
        guard-free full tiles and one shorter tile), the batch loops (and column panels
        without a tail) before them are fused and run in parallel, else the first loop of
        its own does. Column panels go outside the row tiles (one panel of the right-hand
        side stays in cache while the row tiles stream past it) unless, without batch
        loops, there are more row tiles than panels and too few panels to give each core
        two. Returns the loop the accumulator is computed at."""
        sch = self.schedule
        extents = loop_extents(sch.stages[output])[0]
        panels, row_tiles = extents[col_outer], extents[row_outer]
        panels_first = bool(batch) or panels >= row_tiles or panels >= 2 * self.hardware.num_cores
        loops = [col_outer, row_outer] if panels_first else [row_outer, col_outer]
        sch.reorder(output, *batch, *loops, *inner)
        fused_axes = [*batch, col_outer] if panels_first and not col_tail else list(batch)
        own = [loop for loop in loops if loop not in fused_axes]
        if fused_axes:
            fused = self._fuse_all(output, fused_axes)
            if loop_extents(sch.stages[output])[0][fused] > 1:
                self._parallel(output, fused, compute)
                return own[-1]
        self._parallel(output, own[0], compute)
        return own[-1]

    def _pack_weight(self, anchor: str, col_tile: int) -> bool:
        """Repack a constant dense/matmul weight so the vectorized axis is contiguous;
        whether it did."""
        sch = self.schedule
        stage = sch.stages[anchor]
        if stage.op.tag not in ("dense", "matmul") or stage.op.attr("weight_input") is None:
            return False
        weight_index = int(stage.op.attr("weight_input"))
        if weight_index >= len(sch.program.inputs):
            return False
        tensors = _tensors_read(stage)
        if len(tensors) < 2:
            return False
        weight = tensors[1]
        if weight.name not in self.constant_inputs or weight.ndim != 2:
            return False
        rows, cols = weight.shape
        if stage.op.tag == "dense":
            # weight[N, K] -> [ceil(N / t), K, t], zero-padded
            panels = -(-rows // col_tile)
            sch.layout_rewrite(weight.name, [[panels, col_tile], [cols]], [0, 2, 1])
        else:
            # weight[K, N] -> [ceil(N / t), K, t], zero-padded
            panels = -(-cols // col_tile)
            sch.layout_rewrite(weight.name, [[rows], [panels, col_tile]], [1, 0, 2])
        return True

    def _pack_right_operand(self, anchor: str, col_tile: int) -> set[str]:
        """Copy a matmul/batch_matmul's right-hand input, once per call, into column
        panels [batch..., panel, k, col_tile] so each step of the reduction loads the
        tile's columns from one cache line, next to the previous step's. Only an input
        the schedule may not repack ahead of time, and only where reading it in place
        is slow: a transposed input (each vector a gather), or a panel whose rows do
        not stay in the L1 cache (see `_strided_rows_fit_l1`). The packing stage's
        name, if it made one."""
        sch = self.schedule
        stage = sch.stages[anchor]
        if stage.op.tag not in ("matmul", "batch_matmul") or len(stage.op.reduce_axes) != 1:
            return set()
        reads = tensor_reads(stage.op.body)
        tensors = _tensors_read(stage)
        inputs = {t.name for t in sch.program.inputs}
        if len(tensors) != 2 or tensors[1].name not in inputs:
            return set()
        (read,) = [r for r in reads if r.tensor is tensors[1]]
        col_var = stage.op.axes[-1].var
        reduce_var = stage.op.reduce_axes[0].var
        dims = [
            next((d for d, i in enumerate(read.indices) if i is v), None)
            for v in (col_var, reduce_var)
        ]
        col_dim, reduce_dim = dims
        if col_dim is None or reduce_dim is None:
            return set()
        shape = read.tensor.shape
        if col_dim == len(shape) - 1:
            row_bytes = read.tensor.nbytes // math.prod(shape[: reduce_dim + 1])
            if shape[col_dim] <= col_tile or _strided_rows_fit_l1(shape[reduce_dim], row_bytes):
                return set()
        packed = sch.cache_read(read.tensor.name, "global", [anchor])
        axes = [axis.name for axis in sch.stages[packed].op.axes]
        batch = [a for d, a in enumerate(axes) if d not in (col_dim, reduce_dim)]
        panel, lane = sch.split(packed, axes[col_dim], factor=col_tile)
        sch.reorder(packed, *batch, panel, axes[reduce_dim], lane)
        self._parallel(packed, (batch or [panel])[0], stage)
        sch.vectorize(packed, lane)
        return {packed}


def default_schedule(
    program: TEProgram,
    hardware: HardwareParams | None = None,
    constant_inputs: Collection[str] = (),
) -> Schedule:
    """The schedule a fused function gets without tuning (see the module docstring).

    `constant_inputs` names the program inputs bound to constants (weights), which the
    schedule may repack.
    """
    return _DefaultScheduler(program, hardware or HardwareParams(), constant_inputs).run()
