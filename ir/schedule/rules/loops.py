"""The loop moves every rule shares: splitting into levels, reordering, fusing the outer
loops into a parallel one, bounded unrolling, and the vector lengths a loop allows."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ir.schedule.hardware import HardwareParams
from ir.schedule.rules.choices import Choices
from ir.schedule.schedule import Schedule
from ir.schedule.stage import Stage, loop_extents, symbolic_loops

MAX_VECTOR = 64  # longest loop emitted as one vector (codegen's MAX_VECTOR_LANES)
# The narrowest vector the default makes: 4 bytes (a 4-channel uint8 block) fill no SIMD
# register, and such vectors of gathered loads ran 6x slower than the scalar loop (the
# uint8 NCHW -> NCHW4c input of an int8 stem: 157 us against 26 us, 224 x 224).
MIN_VECTOR_BYTES = 8
VECTOR_LENGTHS = (4, 8, 16, 32, 64)  # split lengths tried besides the hardware lanes
MIN_PARALLEL_WORK = 4096  # output elements x reduction size below which threads cost more


@dataclass
class BuildContext:
    """What every rule needs: the schedule being built and where its choices come from."""

    schedule: Schedule
    chooser: Choices
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


def parallel_preference(extents: Sequence[int], work: int) -> int:
    """The default's parallel loop count over loops of `extents`: all of them where the
    stage does at least MIN_PARALLEL_WORK iterations (`work`), else none."""
    return len(extents) if work >= MIN_PARALLEL_WORK else 0


# Iterations of a fused loop's body (at the upper bounds) per division by a run-time
# extent that recovering the fused loops' indices costs (an int64 division, tens of cycles).
MIN_BODY_PER_RUNTIME_DIVISION = 256


def fuse_parallel(schedule: Schedule, stage: str, loops: Sequence[str], count: int) -> list[str]:
    """Fuse the first `count` loops into one parallel loop; the remaining loop names.

    A loop with a run-time extent inside the fused loop costs a division per fused
    iteration: the fuse stops before the loops whose body is too small to pay for the
    divisions it would add (`MIN_BODY_PER_RUNTIME_DIVISION`).
    """
    count = _affordable_fuse(schedule.stages[stage], loops, count)
    if count == 0:
        return list(loops)
    fused = loops[0]
    for loop in loops[1:count]:
        fused = schedule.fuse(stage, fused, loop)
    schedule.parallel(stage, fused)
    return [fused, *loops[count:]]


def fuse_outer(schedule: Schedule, stage: str, loops: Sequence[str], count: int) -> None:
    """Fuse the first `count` of the outer `loops` into one parallel loop and the others
    into one serial loop (fused loops keep an intermediate's buffer in row-major order)."""
    rest = fuse_parallel(schedule, stage, loops, count)[1 if count else 0 :]
    if len(rest) > 1 and not symbolic_loops(schedule.stages[stage]) & set(rest[1:]):
        fused = rest[0]
        for loop in rest[1:]:
            fused = schedule.fuse(stage, fused, loop)


def _affordable_fuse(target: Stage, loops: Sequence[str], count: int) -> int:
    symbolic = symbolic_loops(target)
    if not symbolic or count <= 1:
        return count
    extents = loop_extents(target)[0]
    leaves = target.leaves
    while count > 1:
        divisions = sum(1 for loop in loops[1:count] if loop in symbolic)
        body = math.prod(extents[leaf] for leaf in leaves[leaves.index(loops[count - 1]) + 1 :])
        if body >= MIN_BODY_PER_RUNTIME_DIVISION * divisions:
            break
        count -= 1
    return count


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


def vector_lengths(extent: int, lanes: int) -> list[int]:
    """Vector lengths for a loop of `extent`: 1 (scalar), the whole loop when it is short
    enough, and powers of two (and the lanes) shorter than the loop, the last vector
    shorter where one does not divide it."""
    if extent < 2:
        return [1]
    lengths = [1]
    if extent <= MAX_VECTOR:
        lengths.append(extent)
    lengths += sorted(
        {
            length
            for length in (*VECTOR_LENGTHS, lanes)
            if 2 <= length < extent and length <= MAX_VECTOR
        }
    )
    return lengths


def preferred_vector(extent: int, lanes: int, itemsize: int) -> int:
    """The default's vector along an innermost loop of `extent` elements of `itemsize`
    bytes: the lanes, the whole loop when it is shorter, none below 4 elements or
    MIN_VECTOR_BYTES."""
    if extent < 4 or extent * itemsize < MIN_VECTOR_BYTES:
        return 1
    return lanes if extent > lanes else extent


def partial_lengths(extent: int, lanes: int) -> list[int]:
    """rfactor lengths for a reduction of `extent` along rows: 1 (none), and half, one or
    two vectors where each row holds at least two of them."""
    lengths = {lanes // 2, lanes, 2 * lanes}
    return [1, *sorted(n for n in lengths if 2 <= n <= MAX_VECTOR and 2 * n <= extent)]
