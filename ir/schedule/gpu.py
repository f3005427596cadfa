"""GPU schedule building blocks: device limits, thread binding and SSSRRSRS tiling.

Both the default GPU schedules (`default_gpu.py`) and the tuner's GPU search space build
their schedules from these two structures, so a tuned and an untuned kernel differ only
in their numbers:

- `bind_spatial`: a stage's spatial loops are fused and split into (block, thread) loops
  bound to blockIdx.x / threadIdx.x; its reduce loops stay serial inside each thread.
- `apply_gpu_tiling`: Ansor's GPU multi-level tiling "SSSRRSRS" of a compute-heavy
  reduction. Each spatial axis is split into S0 (block) S1 (virtual thread) S2 (thread)
  S3 S4 and each reduce axis into R0 R1 R2. The writer (the output, or a copy-out made by
  cache_write) runs `S0 | S2 | S1 S34`: the fused S0 loops bound to blockIdx.x, the S2
  loops to threadIdx.x/y/z. The accumulator lives in registers ("local"), computed at the
  block loop, with loops `R0 | S2 | S1 R1 S3 R2 S4`. Every input is copied into shared
  memory at the last R0 loop by all threads of the block (cooperative fetching: the copy's
  loops are fused, optionally split by a vector length, and spread over the threads).

Barriers separate phases: every loop bound to a thread index is its own loop nest at block
level (the accumulator's init, each shared-memory copy, the accumulation, the write-out),
so running the thread loops one after another (the loop-IR interpreter) computes exactly
what the threads compute in parallel. The virtual-thread level S1 is not bound: it is a
serial loop inside each thread whose index stays outside S2 in the index arithmetic, so a
thread's elements are strided by the thread count, as a vthread's are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ir.errors import ScheduleError
from ir.schedule.rules.loops import unroll_innermost
from ir.schedule.schedule import Schedule
from ir.tir.expr import TensorRead
from ir.tir.visit import walk_expr

THREAD_TAGS_BY_POSITION = ("threadIdx.x", "threadIdx.y", "threadIdx.z")
SPATIAL_LEVELS = 5  # S0 block, S1 virtual thread, S2 thread, S3, S4
REDUCE_LEVELS = 3  # R0 (shared-memory step), R1, R2


@dataclass(frozen=True, slots=True)
class GpuParams:
    """The limits a kernel must respect on one GPU (defaults: any sm_70+ NVIDIA GPU)."""

    max_threads_per_block: int = 1024
    max_shared_memory_per_block: int = 48 * 1024
    max_registers_per_thread: int = 255
    max_registers_per_block: int = 65536
    max_thread_extents: tuple[int, int, int] = (1024, 1024, 64)
    max_grid_extents: tuple[int, int, int] = (2**31 - 1, 65535, 65535)
    warp_size: int = 32


@dataclass(frozen=True, slots=True)
class GpuTiling:
    """The numbers of one SSSRRSRS tiling.

    `spatial[a]` = (S0, S1, S2, S3, S4) of spatial axis a and `reduce[r]` = (R0, R1, R2)
    of reduce axis r, each multiplying to the axis extent; `vector` is the vector length
    of the shared-memory copies (1: scalar); `unroll` bounds the product of the extents
    of the innermost loops that are unrolled.
    """

    spatial: tuple[tuple[int, ...], ...]
    reduce: tuple[tuple[int, ...], ...]
    vector: int = 1
    unroll: int = 0

    @property
    def threads(self) -> int:
        """Threads per block (the product of the S2 sizes)."""
        return math.prod(sizes[2] for sizes in self.spatial)

    def thread_tags(self) -> list[str | None]:
        """The thread tag of each spatial axis' S2 loop (None where S2 is 1): the last
        threaded axis gets threadIdx.x, the one before threadIdx.y, then threadIdx.z."""
        threaded = [index for index, sizes in enumerate(self.spatial) if sizes[2] > 1]
        if len(threaded) > len(THREAD_TAGS_BY_POSITION):
            raise ScheduleError(
                f"{len(threaded)} axes have a thread tile above 1; a block has 3 thread indices"
            )
        tags: list[str | None] = [None] * len(self.spatial)
        for position, index in enumerate(reversed(threaded)):
            tags[index] = THREAD_TAGS_BY_POSITION[position]
        return tags


def _check_sizes(name: str, sizes: Sequence[int], extent: int, levels: int) -> None:
    if len(sizes) != levels or any(size < 1 for size in sizes) or math.prod(sizes) != extent:
        raise ScheduleError(
            f"tile sizes {list(sizes)} of {name} must be {levels} positive sizes multiplying "
            f"to its extent {extent}"
        )


def _split_levels(schedule: Schedule, stage: str, axis: str, sizes: Sequence[int]) -> list[str]:
    """Split `axis` into one loop per level (outermost first), also for sizes of 1."""
    loops: list[str] = []
    current = axis
    for level in range(len(sizes) - 1):
        outer, current = schedule.split(stage, current, factor=math.prod(sizes[level + 1 :]))
        loops.append(outer)
    loops.append(current)
    return loops


def bind_spatial(schedule: Schedule, stage: str, threads: int) -> None:
    """Fuse the stage's spatial loops (reductions after them) and bind the fused loop as
    (blockIdx.x, threadIdx.x) with `threads` threads per block (fewer when shorter)."""
    target = schedule.stages[stage]
    spatial = [axis.name for axis in target.op.axes]
    reduces = [axis.name for axis in target.op.reduce_axes]
    if not spatial:
        return  # a scalar: one thread computes it
    if target.leaves != [*spatial, *reduces]:
        schedule.reorder(stage, *spatial, *reduces)
    fused = spatial[0]
    for axis in spatial[1:]:
        fused = schedule.fuse(stage, fused, axis)
    block, thread = schedule.split(stage, fused, factor=max(1, threads))
    schedule.bind(stage, block, "blockIdx.x")
    schedule.bind(stage, thread, "threadIdx.x")


def _read_tensors(schedule: Schedule, stage: str) -> list[str]:
    """The tensors a stage's body reads (placeholders and stages), each once."""
    names: list[str] = []
    for node in walk_expr(schedule.stages[stage].op.body):
        if isinstance(node, TensorRead) and node.tensor.name not in names:
            names.append(node.tensor.name)
    return names


def apply_gpu_tiling(
    schedule: Schedule, stage: str, anchor: str | None, tiling: GpuTiling
) -> set[str]:
    """Tile the compute-heavy reduction `stage` SSSRRSRS (see the module docstring).

    `anchor` is the output that reads `stage` with an elementwise tail inlined into it
    (the writer), or None: a copy-out is made with cache_write. Returns the names of the
    stages scheduled here (the heavy stage, its accumulator, writer and shared copies).
    """
    op = schedule.stages[stage].op
    for axis, sizes in zip(op.axes, tiling.spatial, strict=True):
        _check_sizes(f"{stage}.{axis.name}", sizes, axis.extent, SPATIAL_LEVELS)
    for axis, sizes in zip(op.reduce_axes, tiling.reduce, strict=True):
        _check_sizes(f"{stage}.{axis.name}", sizes, axis.extent, REDUCE_LEVELS)
    if len(tiling.spatial) != len(op.axes) or len(tiling.reduce) != len(op.reduce_axes):
        raise ScheduleError(f"the tiling of {stage} must give sizes for every axis")
    tags = tiling.thread_tags()
    # Step 1. The register accumulator and the stage that owns the tiles.
    if anchor is None:
        local, writer = schedule.cache_write(stage, "local"), stage
    else:
        local, writer = stage, anchor
        schedule.set_scope(local, "local")
    # Step 2. Shared-memory copies of every input the accumulator reads.
    shared = [
        schedule.cache_read(name, "shared", [local]) for name in _read_tensors(schedule, local)
    ]
    # Step 3. The writer: S0 (fused, blockIdx.x) | S2 (threads) | S1 S34.
    writer_axes = [axis.name for axis in schedule.stages[writer].op.axes]
    per_axis = [
        _split_levels(schedule, writer, axis, (sizes[0], sizes[1], sizes[2], sizes[3] * sizes[4]))
        for axis, sizes in zip(writer_axes, tiling.spatial, strict=True)
    ]
    order = [loops[level] for level in (0, 2, 1, 3) for loops in per_axis]
    schedule.reorder(writer, *order)
    block = per_axis[0][0]
    for loops in per_axis[1:]:
        block = schedule.fuse(writer, block, loops[0])
    schedule.bind(writer, block, "blockIdx.x")
    for loops, tag in zip(per_axis, tags, strict=True):
        if tag is not None:
            schedule.bind(writer, loops[2], tag)
    schedule.compute_at(local, writer, block)
    # Step 4. The accumulator: R0 | S2 | S1 R1 S3 R2 S4.
    local_op = schedule.stages[local].op
    spatial = [
        _split_levels(schedule, local, axis.name, sizes[1:])
        for axis, sizes in zip(local_op.axes, tiling.spatial, strict=True)
    ]
    reduce = [
        _split_levels(schedule, local, axis.name, sizes)
        for axis, sizes in zip(local_op.reduce_axes, tiling.reduce, strict=True)
    ]
    groups = [
        [loops[0] for loops in reduce],  # R0
        [loops[1] for loops in spatial],  # S2
        [loops[0] for loops in spatial],  # S1
        [loops[1] for loops in reduce],  # R1
        [loops[2] for loops in spatial],  # S3
        [loops[2] for loops in reduce],  # R2
        [loops[3] for loops in spatial],  # S4
    ]
    schedule.reorder(local, *(loop for group in groups for loop in group))
    for loops, tag in zip(spatial, tags, strict=True):
        if tag is not None:
            schedule.bind(local, loops[1], tag)
    inner = [
        (loop, size)
        for group, sizes in (
            (groups[3], [s[1] for s in tiling.reduce]),
            (groups[4], [s[3] for s in tiling.spatial]),
            (groups[5], [s[2] for s in tiling.reduce]),
            (groups[6], [s[4] for s in tiling.spatial]),
        )
        for loop, size in zip(group, sizes, strict=True)
    ]
    unroll_innermost(schedule, local, inner, tiling.unroll)
    # Step 5. Cooperative fetching: each shared copy at the last R0 loop, spread over
    # the block's threads.
    if reduce:
        for name in shared:
            schedule.compute_at(name, local, reduce[-1][0])
            _cooperative_fetch(schedule, name, tiling, tags)
    else:
        for name in shared:
            schedule.compute_inline(name)
    return {stage, local, writer, *shared}


def _cooperative_fetch(
    schedule: Schedule, name: str, tiling: GpuTiling, tags: Sequence[str | None]
) -> None:
    """Spread a shared-memory copy over the block's threads: the innermost axis split by
    the vector length (vectorized), everything else fused and split over the threads."""
    axes = [axis.name for axis in schedule.stages[name].op.axes]
    vector_loop: str | None = None
    if tiling.vector > 1:
        outer, vector_loop = schedule.split(name, axes[-1], factor=tiling.vector)
        axes[-1] = outer
    fused = axes[0]
    for axis in axes[1:]:
        fused = schedule.fuse(name, fused, axis)
    if vector_loop is not None:
        schedule.vectorize(name, vector_loop)
    # Thread tags with their block extents, threadIdx.x innermost.
    extents = {
        tag: sizes[2] for sizes, tag in zip(tiling.spatial, tags, strict=True) if tag is not None
    }
    if not extents:
        return
    _, threaded = schedule.split(name, fused, factor=tiling.threads)
    for tag in THREAD_TAGS_BY_POSITION:
        if tag not in extents:
            continue
        if tag == max(extents, key=THREAD_TAGS_BY_POSITION.index):
            schedule.bind(name, threaded, tag)  # the outermost tag takes what is left
            break
        threaded, inner = schedule.split(name, threaded, factor=extents[tag])
        schedule.bind(name, inner, tag)
