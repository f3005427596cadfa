"""The GPU sketch rules: the decisions of Ansor's GPU structure, turned into schedules.

Inline rule: every elementwise or injective stage that is not an output is inlined (on a
GPU the shared-memory copies read padding through its selects).

Tiling rule (compute-heavy reductions, "SSSRRSRS", built by `ir.schedule.gpu`):
decisions per stage are each spatial axis' five sizes (block, virtual thread, thread,
S3, S4), each reduce axis' three sizes (R0 shared-memory step, R1, R2), the vector length
of the cooperative shared-memory copies and the unroll budget. Drawn thread sizes favour
the last three axes (threadIdx.x/y/z); a build whose sizes give more threads than a block
may have, or threads on more than three axes, raises SpaceError so the space draws again.

Injective rule (every other root stage): the spatial loops fused and split into
(blockIdx.x, threadIdx.x); the decision is the thread count.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ir.schedule.gpu import REDUCE_LEVELS, SPATIAL_LEVELS, GpuParams, GpuTiling, apply_gpu_tiling
from ir.schedule.gpu import bind_spatial as bind_spatial_loops
from ir.schedule.rules.analysis import is_reduction
from ir.schedule.rules.tiles import divisors, is_perfect, neighbour_perfect
from ir.schedule.schedule import Schedule
from tuner.space.decisions import Chooser, Decision, SpaceError

THREAD_COUNTS = (32, 64, 128, 256, 512, 1024)
UNROLL_BUDGETS = (0, 16, 64, 512, 1024)  # Ansor's GPU auto_unroll_max_step choices
VECTOR_LENGTHS = (1, 2, 4)
MAX_AXIS_THREADS = 32  # largest thread tile drawn for one axis
MAX_REGISTER_TILE = 4  # largest virtual-thread, S3 or S4 size drawn for one axis
MAX_REDUCE_STEP = 16  # largest R1 drawn


@dataclass
class GpuBuildContext:
    """What the GPU rules need: the schedule being built, the chooser and the limits."""

    schedule: Schedule
    chooser: Chooser
    limits: GpuParams


def inline_rule(context: GpuBuildContext) -> None:
    """Inline every non-output elementwise/injective stage."""
    schedule = context.schedule
    for name in list(schedule.stages):
        stage = schedule.stages[name]
        if not stage.is_output and not is_reduction(stage):
            schedule.compute_inline(name)


def _small_divisor(rng: random.Random, extent: int, limit: int) -> int:
    return rng.choice([d for d in divisors(extent) if d <= limit])


def _draw_spatial(rng: random.Random, extent: int, threaded: bool) -> tuple[int, ...]:
    """(S0, S1, S2, S3, S4): a thread tile (on threaded axes), then small register tiles,
    the rest to the blocks."""
    thread = _small_divisor(rng, extent, MAX_AXIS_THREADS) if threaded else 1
    rest = extent // thread
    sizes = []
    for _ in range(3):
        size = _small_divisor(rng, rest, MAX_REGISTER_TILE) if rng.random() < 0.5 else 1
        sizes.append(size)
        rest //= size
    return (rest, sizes[0], thread, sizes[1], sizes[2])


def _draw_reduce(rng: random.Random, extent: int) -> tuple[int, ...]:
    """(R0, R1, R2): a shared-memory step of R1 x R2 elements, R0 steps."""
    inner = _small_divisor(rng, extent, MAX_REGISTER_TILE) if rng.random() < 0.3 else 1
    step = _small_divisor(rng, extent // inner, MAX_REDUCE_STEP)
    return (extent // inner // step, step, inner)


def _choose_tile(
    chooser: Chooser,
    key: str,
    extent: int,
    levels: int,
    threaded: bool,
) -> tuple[int, ...]:
    """A perfect tiling of `extent` into `levels` sizes (no decision for extent 1)."""
    if extent == 1:
        return (1,) * levels

    def valid(value: Decision) -> bool:
        return (
            isinstance(value, tuple)
            and len(value) == levels
            and is_perfect(value, extent, max_innermost=extent)
        )

    def draw(rng: random.Random) -> Decision:
        if levels == SPATIAL_LEVELS:
            return _draw_spatial(rng, extent, threaded)
        return _draw_reduce(rng, extent)

    def neighbour(rng: random.Random, old: Decision) -> Decision | None:
        assert isinstance(old, tuple)
        return neighbour_perfect(rng, old, max_innermost=extent)

    value = chooser.choose_by(key, valid, draw, neighbour)
    assert isinstance(value, tuple)
    return value


def tiling_rule(context: GpuBuildContext, stage: str, anchor: str | None) -> set[str]:
    """Tile a compute-heavy stage SSSRRSRS with drawn sizes; the stages scheduled."""
    schedule, chooser = context.schedule, context.chooser
    op = schedule.stages[stage].op
    long_axes = [index for index, axis in enumerate(op.axes) if axis.extent > 1]
    threaded = set(long_axes[-3:])
    spatial = tuple(
        _choose_tile(
            chooser, f"{stage}.tile.{axis.name}", axis.extent, SPATIAL_LEVELS, i in threaded
        )
        for i, axis in enumerate(op.axes)
    )
    reduce = tuple(
        _choose_tile(chooser, f"{stage}.tile.{axis.name}", axis.extent, REDUCE_LEVELS, False)
        for axis in op.reduce_axes
    )
    vector = chooser.choose_int(f"{stage}.vector", VECTOR_LENGTHS)
    unroll = chooser.choose_int(f"{stage}.unroll", UNROLL_BUDGETS)
    tiling = GpuTiling(spatial, reduce, vector, unroll)
    # Joint limits the per-axis draws cannot see: checked before building anything.
    threads = tiling.threads
    if threads > context.limits.max_threads_per_block:
        raise SpaceError(
            f"{stage}: {threads} threads per block exceed {context.limits.max_threads_per_block}"
        )
    if sum(1 for sizes in spatial if sizes[2] > 1) > 3:
        raise SpaceError(f"{stage}: thread tiles on more than three axes")
    for tag, limit in zip(("x", "y", "z"), context.limits.max_thread_extents, strict=True):
        extent = math.prod(
            sizes[2]
            for sizes, axis_tag in zip(spatial, tiling.thread_tags(), strict=True)
            if axis_tag == f"threadIdx.{tag}"
        )
        if extent > limit:
            raise SpaceError(f"{stage}: threadIdx.{tag} extent {extent} exceeds {limit}")
    return apply_gpu_tiling(schedule, stage, anchor, tiling)


def bind_rule(context: GpuBuildContext, name: str) -> None:
    """Fuse and bind a root stage's spatial loops with a drawn thread count."""
    schedule = context.schedule
    stage = schedule.stages[name]
    if not stage.op.axes:
        return
    total = math.prod(axis.extent for axis in stage.op.axes)
    counts = [count for count in THREAD_COUNTS if count <= context.limits.max_threads_per_block]
    # Counts past the loop's length all mean "one block": keep the smallest of them.
    useful = [count for count in counts if count < total] or counts[:1]
    if total <= counts[-1]:
        useful.append(next(count for count in counts if count >= total))
    threads = context.chooser.choose_int(f"{name}.threads", sorted(set(useful)), nearest=True)
    bind_spatial_loops(schedule, name, threads)
