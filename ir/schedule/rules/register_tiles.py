"""Register-tiling rule: a matrix-product-like output (conv2d, dense, matmul,
batch_matmul, and their blocked forms) that owns its product is register tiled.

The output stage is split into tiles, outer tiles run in parallel and the reduction is
computed per tile into a local accumulator, spatial tile innermost and vectorized, the
other tile axis unrolled. A dense/matmul weight that is a constant input is repacked so
the vectorized axis is contiguous; a right-hand input that is not constant may be copied
into column panels at run time (a decision). A conv vectorizes its output channels (its
weight packed channel-innermost) where it can; a depthwise conv tiles rows x columns, its
window unrolled; in NCHW[b]c a conv tiles channel blocks x columns and a depthwise conv
columns, each a vector of the channel block.

The decisions are the register tile's sizes, for a conv whether rows or channel blocks
run outermost, and the run-time packing. Each prefers what the tile functions here
compute from the shape and the hardware (the default schedule's choice).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ir.graph.ops.quantized import WORD
from ir.schedule.rules.analysis import GEMM_TAGS, is_depthwise_conv, work
from ir.schedule.rules.loops import MIN_PARALLEL_WORK, BuildContext
from ir.schedule.rules.register_tile_sizes import (
    DEPTHWISE_ACCUMULATORS,
    FLOAT_CONV_SCRATCH,
    INTEGER_CONV_SCRATCH,
    MAX_TILE_COLUMNS,
    MAX_TILE_ROWS,
    MAX_TILE_VECTORS,
    MAX_UNROLLED_STEPS,
    OUTERMOST,
    PACK_MIN_ROWS,
    PACK_MIN_WORK,
    PANEL_PACKINGS,
    WORD_CONV_SCRATCH,
    blocked_conv_register_tile,
    channel_conv_register_tile,
    channel_vector_lanes,
    depthwise_register_tile,
    divisor_at_most,
    gemm_register_tile,
    right_operand_streams,
    strided_rows_fit_l1,
    tensors_read,
)
from ir.schedule.schedule import Schedule, Stage, loop_extents, tensor_reads
from ir.te.tensor import Tensor


def _block_weight_bytes(weight: Tensor) -> int:
    """The bytes of a blocked conv's weights for one block of output channels (its first
    axis)."""
    return weight.nbytes // max(1, int(weight.shape[0]))


def gemm_anchor(schedule: Schedule, output: str) -> str | None:
    """The matrix-product stage (`GEMM_TAGS`) the output reads (directly or inlined), if
    the output owns it: every reader of the product ends up in the output, and the output
    has rows and columns (a matrix-vector product gets the generic rule)."""
    sch = schedule
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


def register_tile_rule(context: BuildContext, output: str, anchor: str) -> set[str]:
    """Register-tile the matrix product `anchor` computed at the tiles of `output` (the
    same stage when the product is the output; see the module docstring). Returns the
    stages scheduled."""
    return _RegisterTiling(context, anchor).tile(output, anchor)


class _RegisterTiling:
    """One register-tiled output: its rule's steps, sharing the build's context."""

    def __init__(self, context: BuildContext, key: str) -> None:
        self.schedule = context.schedule
        self.chooser = context.chooser
        self.hardware = context.hardware
        self.constant_inputs = context.constant_inputs
        self.key = key  # the matrix product's stage name: its decisions' prefix
        self._outermost: bool | None = None  # rows outermost (a decision, made once)

    def _choose(self, name: str, candidates: Iterable[int], preferred: int) -> int:
        """The decision `<key>.<name>`: one of the sizes `candidates`."""
        options = sorted(set(candidates))
        return self.chooser.choose_int(f"{self.key}.{name}", options, preferred=preferred)

    def _choose_columns(self, width: int, preferred: int) -> int:
        """The decision `<key>.column_tile` of a conv's register tile: 1 to
        MAX_TILE_COLUMNS output columns (at most `width`)."""
        return self._choose("column_tile", range(1, min(width, MAX_TILE_COLUMNS) + 1), preferred)

    def _parallel(self, name: str, fused: str, stage: Stage) -> None:
        """Run stage `name`'s loop `fused` in parallel when `stage` (the stage doing the
        arithmetic) has enough work, the loop more than one iteration and the target more
        than one core."""
        sch = self.schedule
        if self.hardware.num_cores <= 1 or work(stage) < MIN_PARALLEL_WORK:
            return
        if loop_extents(sch.stages[name])[0][fused] > 1:
            sch.parallel(name, fused)

    def _rows_outermost(self) -> bool:
        """Whether a channel-vectorized or blocked conv walks output rows outermost (each row for
        every block of output channels) rather than channel blocks outermost (each block
        over every row). Blocks outermost read the whole input once per block, rows
        outermost read the whole weight once per row: rows go outermost when the input is
        too big to stay in a core's L2 between blocks and the weight, at most half the
        input, is small enough to stay. Inside a network the input arrives from memory
        (measured on light_resnet50's 1x1 convs over 256 x 56 x 56 inputs: 30% faster in
        sequence; convs with small inputs or big weights were slower that way).

        On several cores the parallel loop splits whichever goes outermost: split by
        channel blocks, every core reads the whole input, half of it from the cache of
        the core whose part of the previous kernel wrote it; split by rows, each core
        reads its own band of rows and the whole weight. So there rows go outermost
        whenever the weight is at most half the input, whatever the L2 holds (ResNet-50's
        1 x 1 convs over 512 x 28 x 28 lost 0.13 ms of their 0.3 ms to the input's
        transfer, in sequence on 2 cores of a Sapphire Rapids-class Xeon; rows outermost
        lost none, and the whole inference ran 1.7% faster). The batch loop goes outside
        both, so the input that counts is one image's (a symbolic batch's upper bound says
        nothing of it)."""
        if self._outermost is None:
            data, weight = self.schedule.program.inputs[:2]
            image_bytes = data.nbytes // max(data.shape[0], 1)
            input_costly = self.hardware.num_cores > 1 or image_bytes > self.hardware.core.l2_bytes
            rows = input_costly and 2 * weight.nbytes <= image_bytes
            preferred = "rows" if rows else "channel_blocks"
            choice = self.chooser.choose_str(f"{self.key}.outermost", OUTERMOST, preferred)
            self._outermost = choice == "rows"
        return self._outermost

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
        preferred = channel_conv_register_tile(
            out_channels, width, lanes, self.hardware.registers, self.hardware.core.fma_chains
        )
        channel_tile = self._choose(
            "channel_tile",
            (lanes * v for v in range(1, MAX_TILE_VECTORS + 1) if lanes * (v - 1) < out_channels),
            preferred[0],
        )
        col_tile = self._choose(
            "column_tile", range(1, min(width, MAX_TILE_COLUMNS) + 1), preferred[1]
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
        lanes = self.hardware.lanes(sch.stages[anchor].op.dtype)
        preferred = depthwise_register_tile(height, width, lanes)
        row_tile = self._choose(
            "row_tile", (d for d in range(1, 9) if height % d == 0), preferred[0]
        )
        col_tile = self._choose(
            "column_tile",
            (min(width, v * lanes) for v in range(1, MAX_TILE_VECTORS)),
            preferred[1],
        )
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
        # The registers hold the product's accumulators: an 8-bit conv's int32, even where
        # its output is requantized to uint8 (4x the lanes per vector).
        lanes = self.hardware.lanes(sch.stages[anchor].op.dtype)
        scratch = FLOAT_CONV_SCRATCH
        if not sch.stages[anchor].op.dtype.startswith("float"):
            word = sch.stages[anchor].op.attr("dot_form") == WORD
            scratch = WORD_CONV_SCRATCH if word else INTEGER_CONV_SCRATCH
        preferred = blocked_conv_register_tile(
            blocks,
            width,
            block,
            lanes,
            self.hardware.registers,
            self.hardware.core.fma_chains,
            scratch,
            block_weight_bytes=_block_weight_bytes(sch.program.inputs[1]),
            l2_bytes=self.hardware.core.l2_bytes,
        )
        block_tile = self._choose(
            "block_tile", (d for d in range(1, 5) if blocks % d == 0), preferred[0]
        )
        col_tile = self._choose(
            "column_tile", range(1, min(width, MAX_TILE_COLUMNS) + 1), preferred[1]
        )
        k_outer, k_inner = sch.split(output, k, factor=block_tile)
        x_outer, x_inner = sch.split(output, x, factor=col_tile)
        self._order_conv_tiles(output, anchor, (n, y, k_outer, x_outer), (k_inner, x_inner, kb))
        sch.vectorize(output, kb)
        sch.compute_at(anchor, output, x_outer)
        local = sch.stages[anchor]
        ln, lk, ly, lx, lkb = (axis.name for axis in local.op.axes)
        reduces = [axis.name for axis in local.op.reduce_axes]
        # An 8-bit conv's last reduce axis is its 4-way dot product (qnn.conv2d_nchwc): it
        # goes right around the channel vector, where one instruction does all 4 steps.
        dot = reduces[4:]
        sch.reorder(anchor, ln, ly, *reduces[:4], lk, lx, *dot, lkb)
        for axis in (lk, lx, *dot):
            sch.unroll(anchor, axis)
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
        lanes = self.hardware.lanes(sch.stages[anchor].op.dtype)
        per_block = -(-block // lanes)
        col_tile = self._choose_columns(
            width, min(width, max(1, DEPTHWISE_ACCUMULATORS // per_block))
        )
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

    def tile(self, output: str, anchor: str) -> set[str]:
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
            row_tile = divisor_at_most(row_extent, 8 if col_tile > lanes // 2 else 16)
            outer_axes: list[str | None] = [axes[0], None, axes[2]]
        else:
            row_axis, col_axis = axes[-2], axes[-1]
            row_extent, col_extent = extents[-2], extents[-1]
            row_tile, col_tile = gemm_register_tile(
                row_extent,
                col_extent,
                lanes,
                self.hardware.registers,
                self.hardware.core.fma_chains,
                wide=dtype == "float32",
            )
            outer_axes = [*axes[:-2], None]
        row_tile = self._choose("row_tile", range(1, min(row_extent, MAX_TILE_ROWS) + 1), row_tile)
        col_tile = self._choose(
            "column_tile",
            (min(col_extent, v * lanes) for v in range(1, MAX_TILE_VECTORS + 1)),
            col_tile,
        )
        row_outer, row_inner = sch.split(output, row_axis, factor=row_tile)
        col_outer, col_inner = sch.split(output, col_axis, factor=col_tile)
        outer = [row_outer if a is None else a for a in outer_axes]
        col_tail = col_extent % col_tile != 0
        streams = right_operand_streams(compute, col_tile, self.hardware.core)
        if row_extent % row_tile != 0 or streams:
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
        if not self._pack_weight(anchor, col_tile):
            worth = row_extent >= PACK_MIN_ROWS and work(compute) >= PACK_MIN_WORK
            handled |= self._pack_right_operand(anchor, col_tile, "packed" if worth else "in_place")
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
        tensors = tensors_read(stage)
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

    def _pack_right_operand(self, anchor: str, col_tile: int, preferred: str) -> set[str]:
        """Copy a matmul/batch_matmul's right-hand input, once per call, into column
        panels [batch..., panel, k, col_tile] so each step of the reduction loads the
        tile's columns from one cache line, next to the previous step's. Only an input
        the schedule may not repack ahead of time, and only where reading it in place
        is slow: a transposed input (each vector a gather), or a panel whose rows do
        not stay in the L1 cache (see `strided_rows_fit_l1`); and only where the
        decision `pack_panels` packs (`preferred`: the default's). The packing stage's
        name, if it made one."""
        sch = self.schedule
        stage = sch.stages[anchor]
        if stage.op.tag not in ("matmul", "batch_matmul") or len(stage.op.reduce_axes) != 1:
            return set()
        reads = tensor_reads(stage.op.body)
        tensors = tensors_read(stage)
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
            rows_fit = strided_rows_fit_l1(shape[reduce_dim], row_bytes, self.hardware.core)
            if shape[col_dim] <= col_tile or rows_fit:
                return set()
        choice = self.chooser.choose_str(f"{self.key}.pack_panels", PANEL_PACKINGS, preferred)
        if choice == "in_place":
            return set()
        packed = sch.cache_read(read.tensor.name, "global", [anchor])
        axes = [axis.name for axis in sch.stages[packed].op.axes]
        batch = [a for d, a in enumerate(axes) if d not in (col_dim, reduce_dim)]
        panel, lane = sch.split(packed, axes[col_dim], factor=col_tile)
        sch.reorder(packed, *batch, panel, axes[reduce_dim], lane)
        self._parallel(packed, (batch or [panel])[0], stage)
        sch.vectorize(packed, lane)
        return {packed}
