"""Rows rule: an output whose statistics and intermediates are needed a row at a time
(softmax, layer_norm; `row_producers`) computes them per row inside its row loop, or
leaves each stage to the generic rule (a decision).

Per row, the output's rows are fused and run in parallel or not, its last axis is
vectorized by a chosen length; each reduction along rows is rfactored into partials of a
chosen length (or not) and its partials reduced in one horizontal reduction, each
elementwise intermediate vectorized by a chosen length. A row of intermediates stays in
L1.

The default computes per row when every statistic reduces rows of at least ROW_VECTORS
vectors (PARTIAL_VECTORS where none computes a transcendental), with vectors of the
lanes, the rows in parallel where there is the work for it, and a statistic's partials
one vector, or two from TWO_PARTIALS_VECTORS vectors (`row_partial_length`).
"""

from __future__ import annotations

import math

from ir.schedule.rules.analysis import (
    computes_transcendental,
    reduces_along_rows,
    row_producers,
    work,
)
from ir.schedule.rules.generic import PARTIAL_VECTORS
from ir.schedule.rules.loops import (
    BuildContext,
    parallel_choices,
    parallel_preference,
    partial_lengths,
    preferred_vector,
    vector_lengths,
)
from ir.schedule.schedule import Schedule, Stage

ROW_PLACEMENTS = ("stages", "rows")  # an output's row producers: each over the tensor, or per row
# Rows of at least this many vectors are computed one at a time, every statistic and
# intermediate inside the output's row loop; where no row producer computes a
# transcendental, rows of PARTIAL_VECTORS vectors already are. Shorter softmax rows ran
# faster a vector of rows at a time (64 x 40 1.08x, 4 x 12 x 49 x 49 1.24x the time per
# row: each row's exp pays a whole vector for its last few elements), layer_norm rows of
# 2-4 vectors 0.53-0.97x the time per row (bench/results/softmax_rocketlake.txt).
ROW_VECTORS = 4
# Per row, a statistic whose rows hold at least this many vectors is reduced into two
# vectors of partials instead of one: two independent chains of vector max or add
# (softmax 12x197x197 and layer_norm 197x768 about 0.9x the time with one).
TWO_PARTIALS_VECTORS = 8


def row_partial_length(extent: int, lanes: int) -> int:
    """How many partial results a per-row statistic over rows of `extent` is reduced into
    by default: none (1) below PARTIAL_VECTORS vectors, two vectors' worth from
    TWO_PARTIALS_VECTORS vectors, else one vector's."""
    if extent < PARTIAL_VECTORS * lanes:
        return 1
    return 2 * lanes if extent >= TWO_PARTIALS_VECTORS * lanes else lanes


def rows_are_long(stages: list[Stage], lanes: int) -> bool:
    """Whether the row producers `stages` are worth computing per row by default: every
    statistic among them reduces rows of at least ROW_VECTORS vectors, or PARTIAL_VECTORS
    where none computes a transcendental (shorter rows are reduced faster across rows, a
    vector of rows at a time, than one row at a time)."""
    transcendental = any(computes_transcendental(stage) for stage in stages)
    vectors = ROW_VECTORS if transcendental else PARTIAL_VECTORS
    return bool(stages) and all(
        p.op.reduce_axes[-1].extent >= vectors * lanes and reduces_along_rows(p)
        for p in stages
        if p.op.reduce_axes
    )


def compute_per_row(
    schedule: Schedule,
    name: str,
    partial: str | None,
    output: str,
    row_loop: str,
    horizontal: bool = True,
) -> None:
    """Compute the row producer `name` at `output`'s `row_loop`, and `partial`, its
    rfactored partials (when it has them), there too, their vector loop innermost; `name`
    then reduces the partials in one horizontal reduction (its reduce loop vectorized),
    or, without `horizontal`, one partial after another."""
    schedule.compute_at(name, output, row_loop)
    if partial is None:
        return
    schedule.compute_at(partial, output, row_loop)
    stage = schedule.stages[partial]
    *rows, lane = [axis.name for axis in stage.op.axes]
    order = [*rows, *(axis.name for axis in stage.op.reduce_axes), lane]
    if order != stage.leaves:
        schedule.reorder(partial, *order)
    schedule.vectorize(partial, lane)
    if horizontal:
        schedule.vectorize(name, schedule.stages[name].leaves[-1])


def rows_rule(context: BuildContext, output: str) -> set[str]:
    """Maybe compute the output's row producers per row (see the module docstring); the
    stages scheduled (none when the decision is to schedule each stage on its own)."""
    schedule, chooser = context.schedule, context.chooser
    producers = row_producers(schedule, output)
    if not producers:
        return set()
    stage = schedule.stages[output]
    lanes = context.hardware.lanes(stage.op.dtype)
    stages = [schedule.stages[name] for name in producers]
    preferred = "rows" if rows_are_long(stages, lanes) else "stages"
    if chooser.choose_str(f"{output}.by_rows", ROW_PLACEMENTS, preferred) == "stages":
        return set()
    *rows, last = [axis.name for axis in stage.op.axes]
    fused = rows[0]
    for axis in rows[1:]:
        fused = schedule.fuse(output, fused, axis)
    _vector_split(context, output, last, f"{output}.row_vector")
    row_count = math.prod(stage.op.shape[:-1])
    most_work = max(work(s) for s in [stage, *stages])
    count = chooser.choose_int(
        f"{output}.row_parallel",
        parallel_choices([row_count], context.hardware),
        nearest=True,
        preferred=parallel_preference([row_count], most_work),
    )
    if count:
        schedule.parallel(output, fused)
    done = {output}
    for name in reversed(producers):
        producer = schedule.stages[name]
        partial = None
        if producer.op.reduce_axes and reduces_along_rows(producer):
            reduced = producer.op.reduce_axes[-1]
            length = chooser.choose_int(
                f"{name}.row_rfactor",
                partial_lengths(reduced.extent, lanes),
                preferred=row_partial_length(reduced.extent, lanes),
            )
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
    itemsize = context.hardware.vector_bytes // lanes
    vector = context.chooser.choose_int(
        key, vector_lengths(extent, lanes), preferred=preferred_vector(extent, lanes, itemsize)
    )
    if vector == 1:
        return
    if vector >= extent:
        schedule.vectorize(name, axis)
    else:
        schedule.vectorize(name, schedule.split(name, axis, factor=vector)[1])
