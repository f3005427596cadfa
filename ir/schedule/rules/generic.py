"""Generic rule: the schedule of every root stage that is not tiled (pure spatial stages,
and reductions without reuse: pooling, softmax's and layer_norm's statistics, ...).

The innermost spatial axis is split by a vector length (a power of two or the lanes, the
last vector shorter where it does not divide; or the whole axis) and vectorized, or left
scalar; reduce axes go between the outer spatial loops and the vector loop, or, for a
reduction along rows with a partial last vector, right around the vector loop (code
generation loads the rows' runs whole and transposes them instead of gathering a column
per step); a chosen number of the leading outer loops is fused and run in parallel, the
others fused into one serial loop. A reduction along rows (its innermost reduce axis
reads an input's innermost dimension) may first be rfactored: each row reduced into a
vector of partial results of a chosen length (half, one or two vectors), that vector
innermost and its rows fused in parallel by a chosen count, before the stage itself, now
reducing the partials, is scheduled as above. A reduction left without a vector loop
whose innermost reduce axis fits one vector (the partials, a pooling window's row) may
vectorize that axis: its lanes combined by one horizontal reduction.

The default's choices: rows of at least PARTIAL_VECTORS vectors reduced into one vector
of partials, vectors of the lanes (the whole axis when shorter, none below 4), every
outer loop in parallel where the stage has the work for it, reductions serial.
"""

from __future__ import annotations

from ir.schedule.rules.analysis import reduces_along_rows, work
from ir.schedule.rules.loops import (
    MAX_VECTOR,
    MIN_VECTOR_BYTES,
    BuildContext,
    fuse_outer,
    parallel_choices,
    parallel_preference,
    partial_lengths,
    preferred_vector,
    reorder_if_needed,
    vector_lengths,
)
from ir.schedule.schedule import Schedule

# A reduction left without a vector loop: its innermost reduce loop serial, or one vector
# combined by a horizontal reduction.
REDUCE_VECTORS = ("serial", "horizontal")
# A reduction along rows of at least this many vectors is reduced into a vector of partial
# results per row (rfactor) rather than across rows.
PARTIAL_VECTORS = 2


def partial_rule(context: BuildContext, name: str) -> None:
    """Maybe rfactor a reduction along rows (see the module docstring)."""
    schedule, chooser = context.schedule, context.chooser
    stage = schedule.stages[name]
    if not stage.op.reduce_axes or not reduces_along_rows(stage):
        return
    reduced = stage.op.reduce_axes[-1]
    lanes = context.hardware.lanes(stage.op.dtype)
    preferred = lanes if reduced.extent >= PARTIAL_VECTORS * lanes else 1
    lengths = partial_lengths(reduced.extent, lanes)
    length = chooser.choose_int(f"{name}.rfactor", lengths, preferred=preferred)
    if length == 1:
        return
    partial = schedule.rfactor(name, reduced.name, length)
    partial_stage = schedule.stages[partial]
    *rows, lane = [axis.name for axis in partial_stage.op.axes]
    reorder_if_needed(
        schedule, partial, [*rows, *(axis.name for axis in partial_stage.op.reduce_axes), lane]
    )
    extents = [axis.extent for axis in partial_stage.op.axes[:-1]]
    _fuse_outer_loops(context, f"{name}.rfactor_parallel", partial, rows, extents)
    schedule.vectorize(partial, lane)


def generic_rule(context: BuildContext, name: str) -> None:
    """Schedule a root stage that is not tiled (see the module docstring)."""
    schedule, chooser = context.schedule, context.chooser
    partial_rule(context, name)
    stage = schedule.stages[name]
    if not stage.op.axes:
        return
    spatial = [axis.name for axis in stage.op.axes]
    extents = {axis.name: axis.extent for axis in stage.op.axes}
    reduces = [axis.name for axis in stage.op.reduce_axes]
    last, length = spatial[-1], extents[spatial[-1]]
    lanes = context.hardware.lanes(stage.op.dtype)
    itemsize = context.hardware.vector_bytes // lanes
    vector = chooser.choose_int(
        f"{name}.vector",
        vector_lengths(length, lanes),
        preferred=preferred_vector(length, lanes, itemsize),
    )
    # Step 1. The vector loop; a tail keeps its own outer loop so it is partitioned.
    outer = [(axis, extents[axis]) for axis in spatial[:-1]]
    inner: list[str] = []
    if vector == 1 and length >= 4 and length * itemsize < MIN_VECTOR_BYTES:
        inner = [last]  # too few bytes for a vector: a short scalar loop, unrolled by LLVM
    elif vector == 1:
        outer.append((last, length))
    elif vector >= length:
        inner = [last]
    else:
        last_outer, last_inner = schedule.split(name, last, factor=vector)
        inner = [last_inner]
        if length % vector == 0 or not outer:
            outer.append((last_outer, -(-length // vector)))
        else:
            inner.insert(0, last_outer)
    # Step 2. Reductions between the outer loops and the vector loop.
    outer_names = [axis for axis, _ in outer]
    if reduces and len(inner) == 2 and reduces_along_rows(stage):
        reorder_if_needed(schedule, name, [*outer_names, inner[0], *reduces, inner[1]])
    else:
        reorder_if_needed(schedule, name, [*outer_names, *reduces, *inner])
    # Step 3. Parallel over the fused leading loops; vectorize the innermost.
    outer_extents = [extent for _, extent in outer]
    _fuse_outer_loops(context, f"{name}.parallel", name, outer_names, outer_extents)
    if inner and vector > 1:
        schedule.vectorize(name, inner[-1])
    elif (
        reduces
        and _reduces_in_one_vector(schedule, name)
        and chooser.choose_str(f"{name}.reduce_vector", REDUCE_VECTORS, preferred="serial")
        == "horizontal"
    ):
        schedule.vectorize(name, reduces[-1])


def _fuse_outer_loops(
    context: BuildContext, key: str, name: str, loops: list[str], extents: list[int]
) -> None:
    """Fuse stage `name`'s outer `loops` (of `extents`), a chosen count of the leading
    ones (decision `key`) into a parallel loop, the others into a serial one; the default
    runs them all in parallel where the stage has the work for it."""
    count = context.chooser.choose_int(
        key,
        parallel_choices(extents, context.hardware),
        nearest=True,
        preferred=parallel_preference(extents, work(context.schedule.stages[name])),
    )
    fuse_outer(context.schedule, name, loops, count)


def _reduces_in_one_vector(schedule: Schedule, name: str) -> bool:
    """Whether the stage's innermost loop is its last reduce axis, short enough to be one
    vector (a horizontal reduction: a row's partials, a pooling window's last axis)."""
    stage = schedule.stages[name]
    last = stage.op.reduce_axes[-1]
    return stage.leaves[-1] == last.name and 2 <= last.extent <= MAX_VECTOR
