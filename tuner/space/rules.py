"""The simple rules: inlining, and the schedule of every stage that is not multi-level tiled.

Inline rule: every elementwise or injective stage that is not an output is inlined into
its readers, except a padding stage feeding a reduction, where inlining (selects in the
hot loop) or materialising it at the root is a decision, and likewise a stage computing
exp, log, erf, ... that several stages read (inlined, each computes it again).

Generic rule (pure spatial stages, and reductions without reuse: softmax, pooling,
layer_norm): the innermost spatial axis is split by a vector length (a power of two or
the lanes, with a tail, or the whole axis) and vectorized, or left scalar; reduce axes
go between the outer spatial loops and the vector loop; a chosen number of the leading
outer loops is fused and run in parallel. A reduction along rows (its innermost reduce
axis reads an input's innermost dimension) may first be rfactored: each row reduced into
a vector of partial results of a chosen length (half, one or two vectors), that vector
innermost and its rows fused in parallel by a chosen count, before the stage itself, now
reducing the partials, is scheduled as above. A reduction left without a vector loop
whose innermost reduce axis fits one vector (the partials, a pooling window's row) may
vectorize that axis: its lanes combined by one horizontal reduction.

Rows rule (an output whose statistics and intermediates are needed a row at a time:
softmax, layer_norm; `row_producers`): a decision between the generic rule for each
stage and computing them per row inside the output's row loop. Per row, the output's
rows are fused and run in parallel or not, its last axis is vectorized by a chosen
length; each reduction along rows is rfactored into partials of a chosen length (or
not), each elementwise intermediate vectorized by a chosen length.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ir.schedule.default import (
    compute_per_row,
    recomputes_transcendentals,
    reduces_along_rows,
    row_producers,
)
from ir.schedule.hardware import HardwareParams
from ir.schedule.schedule import Schedule
from tuner.space.analysis import is_padding, is_reduction
from tuner.space.decisions import Chooser

MAX_VECTOR = 64  # longest loop emitted as one vector (codegen's MAX_VECTOR_LANES)
# A reduction left without a vector loop: its innermost reduce loop serial, or one vector
# combined by a horizontal reduction.
REDUCE_VECTORS = ("serial", "horizontal")
VECTOR_LENGTHS = (4, 8, 16, 32, 64)  # split lengths tried besides the hardware lanes
PLACEMENTS = ("inline", "root")
ROW_PLACEMENTS = ("stages", "rows")  # an output's row producers: each over the tensor, or per row


@dataclass
class BuildContext:
    """What every rule needs: the schedule being built and where its choices come from."""

    schedule: Schedule
    chooser: Chooser
    hardware: HardwareParams
    constant_inputs: frozenset[str]


def split_levels(
    schedule: Schedule, stage: str, axis: str, sizes: Sequence[int]
) -> list[str | None]:
    """Split `axis` into loops of the given sizes (outermost first): one loop per level
    longer than 1, None for the others. When every level is 1, the axis itself stays as
    the innermost level's loop. The first split may leave a tail (its factor is the
    product of the inner sizes)."""
    names: list[str | None] = [None] * len(sizes)
    levels = [level for level, size in enumerate(sizes) if size > 1]
    if not levels:
        names[-1] = axis
        return names
    current = axis
    for position, level in enumerate(levels[:-1]):
        inner = math.prod(sizes[later] for later in levels[position + 1 :])
        names[level], current = schedule.split(stage, current, factor=inner)
    names[levels[-1]] = current
    return names


def reorder_if_needed(schedule: Schedule, stage: str, order: Sequence[str]) -> None:
    """Reorder the stage's loops to `order` unless they already are in that order."""
    if list(order) != schedule.stages[stage].leaves:
        schedule.reorder(stage, *order)


def parallel_choices(extents: Sequence[int], hardware: HardwareParams) -> list[int]:
    """How many leading loops may be fused into the parallel loop: 0 (none), or any count
    whose fused extent exceeds 1 (none at all on one core)."""
    if hardware.num_cores <= 1:
        return [0]
    return [0, *(count for count in range(1, len(extents) + 1) if math.prod(extents[:count]) > 1)]


def fuse_parallel(schedule: Schedule, stage: str, loops: Sequence[str], count: int) -> list[str]:
    """Fuse the first `count` loops into one parallel loop; the remaining loop names."""
    if count == 0:
        return list(loops)
    fused = loops[0]
    for loop in loops[1:count]:
        fused = schedule.fuse(stage, fused, loop)
    schedule.parallel(stage, fused)
    return [fused, *loops[count:]]


def unroll_innermost(
    schedule: Schedule, stage: str, loops: Sequence[tuple[str, int]], budget: int
) -> None:
    """Unroll loops from the innermost outwards while their extents multiply to at most
    `budget` (a vectorized loop counts its lanes but is not unrolled; loops of extent 1
    cost nothing), bounding the straight-line code the unrolling makes."""
    annotations = schedule.stages[stage].annotations
    product = 1
    for loop, extent in reversed(loops):
        if extent <= 1:
            continue
        if product * extent > budget:
            return
        product *= extent
        if annotations.get(loop) != "vectorize":
            schedule.unroll(stage, loop)


def inline_rule(context: BuildContext) -> None:
    """Inline non-output elementwise/injective stages; padding and shared transcendentals
    are a decision."""
    schedule = context.schedule
    for name in list(schedule.stages):
        stage = schedule.stages[name]
        if stage.is_output or is_reduction(stage):
            continue
        if is_padding(schedule, name) or recomputes_transcendentals(schedule, name):
            choice = context.chooser.choose(f"{name}.placement", PLACEMENTS)
            if choice == "root":
                continue
        schedule.compute_inline(name)


def vector_lengths(extent: int, lanes: int, tails: bool) -> list[int]:
    """Vector lengths for a loop of `extent`: 1 (scalar), the whole loop when it is short
    enough, and powers of two (and the lanes) shorter than the loop, which must divide it
    unless `tails` are allowed."""
    if extent < 2:
        return [1]
    lengths = [1]
    if extent <= MAX_VECTOR:
        lengths.append(extent)
    lengths += sorted(
        {
            length
            for length in (*VECTOR_LENGTHS, lanes)
            if 2 <= length < extent and length <= MAX_VECTOR and (tails or extent % length == 0)
        }
    )
    return lengths


def partial_lengths(extent: int, lanes: int) -> list[int]:
    """rfactor lengths for a reduction of `extent` along rows: 1 (none), and half, one or
    two vectors where each row holds at least two of them."""
    lengths = {lanes // 2, lanes, 2 * lanes}
    return [1, *sorted(n for n in lengths if 2 <= n <= MAX_VECTOR and 2 * n <= extent)]


def partial_rule(context: BuildContext, name: str) -> None:
    """Maybe rfactor a reduction along rows (see the module docstring)."""
    schedule, chooser = context.schedule, context.chooser
    stage = schedule.stages[name]
    if not stage.op.reduce_axes or not reduces_along_rows(stage):
        return
    reduced = stage.op.reduce_axes[-1]
    lanes = context.hardware.lanes(stage.op.dtype)
    length = chooser.choose_int(f"{name}.rfactor", partial_lengths(reduced.extent, lanes))
    if length == 1:
        return
    partial = schedule.rfactor(name, reduced.name, length)
    partial_stage = schedule.stages[partial]
    *rows, lane = [axis.name for axis in partial_stage.op.axes]
    reorder_if_needed(
        schedule, partial, [*rows, *(axis.name for axis in partial_stage.op.reduce_axes), lane]
    )
    extents = [axis.extent for axis in partial_stage.op.axes[:-1]]
    choices = parallel_choices(extents, context.hardware)
    count = chooser.choose_int(f"{name}.rfactor_parallel", choices, nearest=True)
    fuse_parallel(schedule, partial, rows, count)
    schedule.vectorize(partial, lane)


def generic_rule(context: BuildContext, name: str) -> None:
    """Schedule a root stage that is not multi-level tiled (see the module docstring)."""
    schedule, chooser = context.schedule, context.chooser
    if not schedule.stages[name].op.axes:
        return
    partial_rule(context, name)
    stage = schedule.stages[name]
    spatial = [axis.name for axis in stage.op.axes]
    extents = {axis.name: axis.extent for axis in stage.op.axes}
    reduces = [axis.name for axis in stage.op.reduce_axes]
    last, length = spatial[-1], extents[spatial[-1]]
    lanes = context.hardware.lanes(stage.op.dtype)
    # An intermediate buffer is stored in the order of its split loops: a tail would pad
    # it, and its readers would index it with divisions (a vector split that divides
    # stores it row-major as before).
    lengths = vector_lengths(length, lanes, tails=stage.is_output)
    vector = chooser.choose_int(f"{name}.vector", lengths)
    # Step 1. The vector loop; a tail keeps its own outer loop so it is partitioned.
    outer = [(axis, extents[axis]) for axis in spatial[:-1]]
    tail: list[str] = []
    inner: list[str] = []
    if vector == 1:
        outer.append((last, length))
    elif vector >= length:
        inner = [last]
    else:
        last_outer, last_inner = schedule.split(name, last, factor=vector)
        inner = [last_inner]
        if length % vector == 0:
            outer.append((last_outer, length // vector))
        else:
            tail = [last_outer]
    # Step 2. Reductions between the outer loops and the vector loop.
    reorder_if_needed(schedule, name, [*(axis for axis, _ in outer), *tail, *reduces, *inner])
    # Step 3. Parallel over the fused leading loops; vectorize the innermost.
    choices = parallel_choices([extent for _, extent in outer], context.hardware)
    count = chooser.choose_int(f"{name}.parallel", choices, nearest=True)
    fuse_parallel(schedule, name, [axis for axis, _ in outer], count)
    if inner:
        schedule.vectorize(name, inner[-1])
    elif (
        reduces
        and _reduces_in_one_vector(schedule, name)
        and chooser.choose_str(f"{name}.reduce_vector", REDUCE_VECTORS) == "horizontal"
    ):
        schedule.vectorize(name, reduces[-1])


def _reduces_in_one_vector(schedule: Schedule, name: str) -> bool:
    """Whether the stage's innermost loop is its last reduce axis, short enough to be one
    vector (a horizontal reduction: a row's partials, a pooling window's last axis)."""
    stage = schedule.stages[name]
    last = stage.op.reduce_axes[-1]
    return stage.leaves[-1] == last.name and 2 <= last.extent <= MAX_VECTOR


def rows_rule(context: BuildContext, output: str) -> set[str]:
    """Maybe compute the output's row producers per row (see the module docstring); the
    stages scheduled (none when the decision is to schedule each stage on its own)."""
    schedule, chooser = context.schedule, context.chooser
    producers = row_producers(schedule, output)
    if not producers or chooser.choose_str(f"{output}.by_rows", ROW_PLACEMENTS) == "stages":
        return set()
    stage = schedule.stages[output]
    lanes = context.hardware.lanes(stage.op.dtype)
    *rows, last = [axis.name for axis in stage.op.axes]
    fused = rows[0]
    for axis in rows[1:]:
        fused = schedule.fuse(output, fused, axis)
    _vector_split(context, output, last, f"{output}.row_vector")
    parallel = parallel_choices([math.prod(stage.op.shape[:-1])], context.hardware)
    if chooser.choose_int(f"{output}.row_parallel", parallel, nearest=True):
        schedule.parallel(output, fused)
    done = {output}
    for name in reversed(producers):
        producer = schedule.stages[name]
        partial = None
        if producer.op.reduce_axes and reduces_along_rows(producer):
            reduced = producer.op.reduce_axes[-1]
            lengths = partial_lengths(reduced.extent, lanes)
            length = chooser.choose_int(f"{name}.row_rfactor", lengths)
            if length > 1:
                partial = schedule.rfactor(name, reduced.name, length)
        compute_per_row(schedule, name, partial, output, fused)
        done |= {name} if partial is None else {name, partial}
        if not producer.op.reduce_axes:
            _vector_split(context, name, producer.op.axes[-1].name, f"{name}.row_vector")
    return done


def _vector_split(context: BuildContext, name: str, axis: str, key: str) -> None:
    """Split the stage's innermost loop `axis` by a chosen vector length and vectorize
    the inner part (a tail allowed: a row's buffer is small), or leave it scalar."""
    schedule = context.schedule
    stage = schedule.stages[name]
    extent = next(a.extent for a in stage.op.axes if a.name == axis)
    lanes = context.hardware.lanes(stage.op.dtype)
    vector = context.chooser.choose_int(key, vector_lengths(extent, lanes, tails=True))
    if vector == 1:
        return
    if vector >= extent:
        schedule.vectorize(name, axis)
    else:
        schedule.vectorize(name, schedule.split(name, axis, factor=vector)[1])
