"""Multi-level tiling of a compute-heavy reduction (Ansor's CPU sketch "SSRSRS").

Every spatial axis is split into 4 levels (S0 S1 S2 S3) and every reduce axis into 2
(R0 R1). The stage that writes the result (the output with the elementwise tail inlined
into it, or a copy-out made by cache_write) runs the outer spatial levels S0..SL; the
reduction is computed into a local accumulator at its last outer loop (L, the attach
level, is a decision: 0 or 1), and the accumulator's own loops are

    L = 0:  S1 R0 S2 R1 S3        L = 1:  R0 S2 R1 S3

with the chosen vector axis innermost and vectorized in S3. Further decisions: which
spatial axis is the vector axis, every level's size, whether the vector axis' outer tile
loop goes first (a packed weight panel stays in cache while the other tiles stream past),
how many leading outer loops are fused and run in parallel, and the unroll budget for
the innermost loops. A constant weight indexed by the vector axis is repacked so that
each vector tile of it is contiguous (as the default schedules do); an input that is not
constant may be copied so at run time (a decision).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import TypeGuard

from ir.schedule.rules.analysis import (
    runtime_input_dimension,
    vector_axis_candidates,
    weight_dimension,
)
from ir.schedule.rules.choices import Decision
from ir.schedule.rules.loops import (
    BuildContext,
    fuse_parallel,
    parallel_choices,
    reorder_if_needed,
    split_levels,
    unroll_innermost,
)
from ir.schedule.rules.tiles import (
    MAX_INNERMOST,
    ROW_TAIL_PROBABILITY,
    is_perfect,
    is_row_tail,
    is_tail,
    neighbour_perfect,
    row_tail_tiles,
    sample_perfect,
    sample_vector_tile,
    tail_sizes,
)
from ir.schedule.schedule import Schedule

Loop = tuple[str, int]  # a loop's name and extent

SPATIAL_LEVELS = 4
REDUCE_LEVELS = 2
ATTACH_LEVELS = (0, 1)
UNROLL_BUDGETS = (0, 16, 64, 512)
OUTER_ORDERS = ("natural", "vector_first")
WRITER_ORDERS = ("natural", "tiled")
INPUT_PACKINGS = ("in_place", "packed")
# Drawn register tiles: a non-vector axis mostly gets at most this many rows, so the
# accumulator tile (rows x vectors) mostly fits the vector registers.
REGISTER_ROWS = 16
PREFERRED_PROBABILITY = 0.8


class _Tiling:
    """The decisions of one multi-level tiled stage."""

    def __init__(self, context: BuildContext, stage: str) -> None:
        schedule, chooser = context.schedule, context.chooser
        self.stage = stage
        op = schedule.stages[stage].op
        self.extents = [axis.extent for axis in op.axes]
        names = [axis.name for axis in op.axes]
        candidates = vector_axis_candidates(
            schedule, schedule.stages[stage], context.constant_inputs
        )
        if op.attr("dot_axis") is not None:  # the lanes of the dot products: the last axis
            candidates = [len(op.axes) - 1]
        self.vector = (
            names.index(chooser.choose_str(f"{stage}.vector_axis", [names[i] for i in candidates]))
            if candidates
            else None
        )
        self.spatial = [
            self._spatial_tile(context, f"{stage}.tile.{axis.name}", axis.extent, index)
            for index, axis in enumerate(op.axes)
        ]
        # An 8-bit conv's dot-product axis (the op names it) stays whole and innermost of
        # the reduction, right around the vector loop: one vpdpbusd per vector.
        self.dot_axis = op.attr("dot_axis")
        self.reduce = [
            (1, axis.extent)
            if axis.name == self.dot_axis
            else _perfect_tile(
                context, f"{stage}.tile.{axis.name}", axis.extent, REDUCE_LEVELS, MAX_INNERMOST
            )
            for axis in op.reduce_axes
        ]
        # The axes tiled with a partial last tile (the vector axis', or rows without a
        # divisor): each keeps its outermost loop to itself, to be partitioned.
        self.tails = {
            index
            for index, (sizes, extent) in enumerate(zip(self.spatial, self.extents, strict=True))
            if (
                is_tail(sizes, extent)
                if index == self.vector
                else is_row_tail(sizes, extent, REGISTER_ROWS)
            )
        }
        self.attach = chooser.choose_int(f"{stage}.attach_level", ATTACH_LEVELS)
        orders = OUTER_ORDERS if self.vector is not None else OUTER_ORDERS[:1]
        self.vector_first = chooser.choose(f"{stage}.outer_order", orders) == "vector_first"
        self.tiled_writer = chooser.choose(f"{stage}.writer_order", WRITER_ORDERS) == "tiled"
        self.unroll = chooser.choose_int(f"{stage}.unroll", UNROLL_BUDGETS)

    def _spatial_tile(
        self, context: BuildContext, key: str, extent: int, index: int
    ) -> tuple[int, ...]:
        if index != self.vector:
            return _row_tile(context, key, extent)
        lanes = context.hardware.lanes(context.schedule.stages[self.stage].op.dtype)

        def valid(value: Decision) -> bool:
            if not _is_sizes(value, SPATIAL_LEVELS):
                return False
            return is_tail(value, extent) or (
                is_perfect(value, extent, MAX_INNERMOST) and value[-1] >= 2
            )

        def draw(rng: random.Random) -> Decision:
            return sample_vector_tile(rng, extent, lanes)

        def neighbour(rng: random.Random, old: Decision) -> Decision | None:
            assert isinstance(old, tuple)
            if not is_perfect(old, extent, MAX_INNERMOST):
                return None
            return neighbour_perfect(rng, old, MAX_INNERMOST, min_innermost=2)

        value = context.chooser.choose_by(key, valid, draw, neighbour)
        assert isinstance(value, tuple)
        return value


def _is_sizes(value: Decision, levels: int) -> TypeGuard[tuple[int, ...]]:
    """Whether a decision is a tuple of `levels` positive sizes."""
    return (
        isinstance(value, tuple)
        and len(value) == levels
        and all(isinstance(size, int) and size >= 1 for size in value)
    )


def _row_tile(context: BuildContext, key: str, extent: int) -> tuple[int, ...]:
    """A non-vector spatial axis' tiling: perfect, or, where no divisor gives a register
    tile of several rows (`row_tail_tiles`), also a tail tiling."""
    tails = row_tail_tiles(extent, REGISTER_ROWS)
    if not tails:
        return _perfect_tile(context, key, extent, SPATIAL_LEVELS, REGISTER_ROWS)

    def draw(rng: random.Random) -> Decision:
        if rng.random() < ROW_TAIL_PROBABILITY:
            return tail_sizes(extent, rng.choice(tails), SPATIAL_LEVELS)
        limit = REGISTER_ROWS if rng.random() < PREFERRED_PROBABILITY else MAX_INNERMOST
        return sample_perfect(rng, extent, SPATIAL_LEVELS, limit)

    def valid(value: Decision) -> bool:
        return _is_sizes(value, SPATIAL_LEVELS) and (
            is_perfect(value, extent) or is_row_tail(value, extent, REGISTER_ROWS)
        )

    def neighbour(rng: random.Random, old: Decision) -> Decision | None:
        assert isinstance(old, tuple)
        if is_row_tail(old, extent, REGISTER_ROWS):  # another tail's rows
            others = [rows for rows in tails if rows != old[-1]]
            return tail_sizes(extent, rng.choice(others), SPATIAL_LEVELS) if others else None
        return neighbour_perfect(rng, old)

    value = context.chooser.choose_by(key, valid, draw, neighbour)
    assert isinstance(value, tuple)
    return value


def _perfect_tile(
    context: BuildContext, key: str, extent: int, levels: int, preferred_innermost: int
) -> tuple[int, ...]:
    """A perfect tiling of `extent` (no decision for an axis of extent 1); drawn ones
    mostly keep the innermost tile within `preferred_innermost`."""
    if extent == 1:
        return (1,) * levels

    def draw(rng: random.Random) -> Decision:
        limit = preferred_innermost if rng.random() < PREFERRED_PROBABILITY else MAX_INNERMOST
        return sample_perfect(rng, extent, levels, limit)

    def valid(value: Decision) -> bool:
        return _is_sizes(value, levels) and is_perfect(value, extent)

    def neighbour(rng: random.Random, old: Decision) -> Decision | None:
        assert isinstance(old, tuple)
        return neighbour_perfect(rng, old)

    value = context.chooser.choose_by(key, valid, draw, neighbour)
    assert isinstance(value, tuple)
    return value


def multi_level_tiling(context: BuildContext, stage: str, anchor: str | None) -> set[str]:
    """Tile the compute-heavy `stage`, computed at the tiles of `anchor` (an output that
    inlines its elementwise tail) or, without one, of a copy-out stage. Returns the names
    of the stages scheduled here."""
    schedule = context.schedule
    tiling = _Tiling(context, stage)
    # Step 1. The accumulator, and the stage whose loops own the tiles.
    if anchor is None:
        local, writer = schedule.cache_write(stage, "local"), stage
    else:
        local, writer = stage, anchor
    # Step 2. The writer's outer tile loops, parallel; the accumulator at the last one.
    attach_loop = _tile_writer(context, writer, tiling)
    if attach_loop is not None:
        schedule.compute_at(local, writer, attach_loop)
    # Step 3. The accumulator's loops: S1 R0 S2 R1 S3.
    _tile_accumulator(context, local, tiling)
    packed = _pack_weight(context, local, tiling)
    return {stage, local, writer, *packed}


def _tile_writer(context: BuildContext, writer: str, tiling: _Tiling) -> str | None:
    """Split the writer's axes into outer levels 0..L and inner loops, order them, fuse
    and parallelize the leading outer loops, vectorize and unroll the inner loops.
    Returns the loop the accumulator is computed at (None: no outer loop).

    The inner loops are one per axis in axis order ("natural": the output is written
    contiguously), or the accumulator's own tiling ("tiled": the accumulator, stored in
    the order of its loops, is read contiguously)."""
    schedule = context.schedule
    axes = [axis.name for axis in schedule.stages[writer].op.axes]
    levels = tiling.attach + 1
    per_axis: list[list[Loop | None]] = []
    for axis, sizes in zip(axes, tiling.spatial, strict=True):
        if not tiling.tiled_writer:
            sizes = (*sizes[:levels], math.prod(sizes[levels:]))
        per_axis.append(_split(schedule, writer, axis, sizes))
    axis_order = list(range(len(axes)))
    if tiling.vector is not None and tiling.vector_first:
        axis_order.remove(tiling.vector)
        axis_order.insert(0, tiling.vector)
    outer = [
        loop
        for level in range(levels)
        for index in axis_order
        if (loop := per_axis[index][level]) is not None and index not in tiling.tails
    ]
    # A tail tile loop is never fused: it stays a loop of its own, so it is partitioned.
    tail = [
        loop
        for index, loops in enumerate(per_axis)
        if (loop := loops[0]) is not None and index in tiling.tails
    ]
    # "vector_first" with a tail on the vector axis: its tile loop leads, alone (column
    # panels outside the row tiles, each panel of a matrix product's right-hand side read
    # once), and is the only loop that may run in parallel.
    lead: list[Loop] = []
    if tiling.vector_first and tiling.vector is not None and tiling.vector in tiling.tails:
        panels = per_axis[tiling.vector][0]
        if panels is not None:
            lead = [panels]
            outer, tail = [], [*outer, *(loop for loop in tail if loop != panels)]
    if tiling.tiled_writer:
        inner = _by_level([loops[levels:] for loops in per_axis], tiling.vector)
    else:
        inner = [loop for loops in per_axis if (loop := loops[levels]) is not None]
    reorder_if_needed(schedule, writer, [name for name, _ in (*lead, *outer, *tail, *inner)])
    # Without outer loops to fuse, the first tail loop may run in parallel on its own.
    shared = lead or outer or tail[:1]
    choices = parallel_choices([extent for _, extent in shared], context.hardware)
    count = context.chooser.choose_int(f"{tiling.stage}.parallel", choices, nearest=True)
    outer_names = fuse_parallel(schedule, writer, [name for name, _ in shared], count)
    outer_names += [name for name, _ in (tail if outer or lead else tail[1:])]
    vector_axis = tiling.vector if tiling.tiled_writer else len(axes) - 1
    vector_loop = None if vector_axis is None else per_axis[vector_axis][-1]
    if inner and inner[-1] == vector_loop and vector_loop[1] >= 2:
        schedule.vectorize(writer, vector_loop[0])
    unroll_innermost(schedule, writer, inner, tiling.unroll)
    return outer_names[-1] if outer_names else None


def _split(schedule: Schedule, stage: str, axis: str, sizes: Sequence[int]) -> list[Loop | None]:
    """`split_levels`, with each loop's extent."""
    names = split_levels(schedule, stage, axis, sizes)
    return [None if name is None else (name, size) for name, size in zip(names, sizes, strict=True)]


def _by_level(per_axis: list[list[Loop | None]], vector: int | None) -> list[Loop]:
    """Loops level by level (outermost first), in axis order within a level, except that
    the vector axis' innermost loop comes last."""
    loops = [
        loop
        for level in range(len(per_axis[0]) if per_axis else 0)
        for index, axis_loops in enumerate(per_axis)
        if (loop := axis_loops[level]) is not None
        and not (index == vector and level == len(axis_loops) - 1)
    ]
    if vector is not None and (last := per_axis[vector][-1]) is not None:
        loops.append(last)
    return loops


def _tile_accumulator(context: BuildContext, local: str, tiling: _Tiling) -> None:
    """The accumulator's loops: spatial levels after L and reduce levels interleaved as
    S1 R0 S2 R1 S3, the vector axis innermost and vectorized, innermost loops unrolled."""
    schedule = context.schedule
    stage = schedule.stages[local]
    first = tiling.attach + 1  # the first spatial level inside the accumulator
    # Levels S1 S2 S3 of each spatial axis (S1 has no loops when L = 1).
    unused: list[Loop | None] = [None] * first
    spatial = [
        unused + _split(schedule, local, axis.name, sizes[first:])
        for axis, sizes in zip(stage.op.axes, tiling.spatial, strict=True)
    ]
    reduce = [
        _split(schedule, local, axis.name, sizes)
        for axis, sizes in zip(stage.op.reduce_axes, tiling.reduce, strict=True)
    ]
    dot = [
        axis_loops[1]
        for axis, axis_loops in zip(stage.op.reduce_axes, reduce, strict=True)
        if axis.name == tiling.dot_axis
    ]
    groups = [
        [axis_loops[1] for axis_loops in spatial],
        [axis_loops[0] for axis_loops in reduce],
        [axis_loops[2] for axis_loops in spatial],
        [axis_loops[1] for axis_loops in reduce if axis_loops[1] not in dot],
    ]
    loops = [loop for group in groups for loop in group if loop is not None]
    innermost = _by_level([[axis_loops[-1]] for axis_loops in spatial], tiling.vector)
    vector_last = tiling.vector is not None and innermost[-1:] == [spatial[tiling.vector][-1]]
    at = len(innermost) - 1 if vector_last else len(innermost)
    loops += [*innermost[:at], *(loop for loop in dot if loop is not None), *innermost[at:]]
    reorder_if_needed(schedule, local, [name for name, _ in loops])
    vector_loop = None if tiling.vector is None else spatial[tiling.vector][-1]
    if vector_loop is not None and vector_loop[1] >= 2:
        schedule.vectorize(local, vector_loop[0])
    unroll_innermost(schedule, local, loops, tiling.unroll)


def _pack_weight(context: BuildContext, local: str, tiling: _Tiling) -> set[str]:
    """Repack a constant input indexed by the vector axis: that dimension split by the
    vector tile, its tile index outermost and the tile innermost (zero-padded); or copy
    one that is not constant so (`_pack_at_run_time`). The copy's stage, if one."""
    if tiling.vector is None:
        return set()
    schedule = context.schedule
    found = weight_dimension(
        schedule, schedule.stages[local], tiling.vector, context.constant_inputs
    )
    if found is None:
        return _pack_at_run_time(context, local, tiling)
    name, dim = found
    shape = next(tensor.shape for tensor in schedule.program.inputs if tensor.name == name)
    tile = tiling.spatial[tiling.vector][-1]
    panels = -(-shape[dim] // tile)
    factors = [[size] for size in shape]
    positions = list(range(len(shape)))  # flat position of each dimension's outer part
    if panels > 1:
        factors[dim] = [panels, tile]
        positions = [p if p <= dim else p + 1 for p in positions]
        order = [positions[dim], *(positions[d] for d in range(len(shape)) if d != dim)]
        order.append(positions[dim] + 1)
    else:
        order = [*(d for d in range(len(shape)) if d != dim), dim]
    if order == sorted(order) and panels == 1:
        return set()
    schedule.layout_rewrite(name, factors, order)
    return set()


def _pack_at_run_time(context: BuildContext, local: str, tiling: _Tiling) -> set[str]:
    """Whether an input that is not constant, indexed by the vector axis, is read in
    place or first copied (each call) into panels of the vector tile: that dimension's
    tile index outermost, the tile innermost, the other dimensions between. A decision
    only where the copy changes the order (a transposed input, or several panels). The
    copy's stage, if one."""
    assert tiling.vector is not None
    schedule = context.schedule
    found = runtime_input_dimension(
        schedule, schedule.stages[local], tiling.vector, context.constant_inputs
    )
    if found is None:
        return set()
    name, dim = found
    shape = next(tensor.shape for tensor in schedule.program.inputs if tensor.name == name)
    tile = tiling.spatial[tiling.vector][-1]
    if tile < 2 or (dim == len(shape) - 1 and shape[dim] <= tile):
        return set()
    if context.chooser.choose_str(f"{tiling.stage}.pack_input", INPUT_PACKINGS) == "in_place":
        return set()
    packed = schedule.cache_read(name, "global", [local])
    axes = [axis.name for axis in schedule.stages[packed].op.axes]
    panel, lane = schedule.split(packed, axes[dim], factor=tile)
    others = [axis for index, axis in enumerate(axes) if index != dim]
    reorder_if_needed(schedule, packed, [panel, *others, lane])
    if context.hardware.num_cores > 1 and -(-shape[dim] // tile) > 1:
        schedule.parallel(packed, panel)
    schedule.vectorize(packed, lane)
    return {packed}
