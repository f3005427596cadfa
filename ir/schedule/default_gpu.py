"""Default GPU schedules: what every fused function gets on a CUDA target when nothing is tuned.

Step 1. Inline every elementwise and injective stage that is not an output (padding too:
        the shared-memory copies read through its selects).
Step 2. A reduction with data reuse (conv2d, dense, matmul, depthwise conv) is tiled
        SSSRRSRS (`gpu.apply_gpu_tiling`) with fixed sizes: the last two spatial axes
        spread over up to 16 x 16 threads with small register tiles, the axis before
        them tiled in registers, reductions stepped through shared memory 8 at a time.
        Where that launches fewer than `MIN_BLOCKS` blocks (small outputs), register
        tiles and then threads move to the block level until it launches about one
        block per SM of a large GPU.
Step 3. Every other root stage: spatial loops fused and bound to (blockIdx.x,
        threadIdx.x), reductions serial inside each thread.
Step 4. When the lowered kernels need more shared memory than the device has, the
        tiles shrink level by level (`SHRINK_LEVELS`); past the last level the heavy
        stages are bound like every other stage (no shared memory at all).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ir.lower import lower
from ir.schedule.gpu import GpuParams, GpuTiling, apply_gpu_tiling, bind_spatial
from ir.schedule.rules.analysis import fusion_anchor, is_compute_heavy
from ir.schedule.rules.register_tile_sizes import divisor_at_most
from ir.schedule.schedule import Schedule, Stage
from ir.te.program import TEProgram
from ir.tir.expr import Reduce
from ir.tir.stmt import Allocate
from ir.tir.visit import walk_stmt

DEFAULT_THREADS = 256  # threads per block of a bound spatial loop
# Blocks a default tiling launches at least where the output allows: about one per SM of
# a large GPU (an H100 has 132), so few SMs idle while the others work. On an H100, 256
# was 2-3x slower than 128 on the 64-channel convolutions of 56x56 (it halves the width's
# register tile), and 128 was no slower than the fixed tiles on any standard workload
# (bench/results/gpu_check_h100.txt). Timed launch by launch on an H200, it made the dense
# layers of the light models 1.4-5.4x faster, two convs of densenet121 and inception_v2
# 1.6-1.9x slower, and shufflenet's whole-model slowdown (gpu_models_h100.txt) was mostly
# host launch time, not tiling (gpu_models_h200.txt).
MIN_BLOCKS = 128
MIN_TILED_THREADS = 64  # threads per block the spreading keeps (two warps)


@dataclass(frozen=True, slots=True)
class TileLevel:
    """Sizes of the default tiling: threads per axis, register tiles, reduction step."""

    axis_threads: int  # threads along each of the last two axes
    inner_x: int  # register tile of the last axis
    inner_y: int  # register tile of the axis before it
    reduce_step: int  # reduction elements per shared-memory step


SHRINK_LEVELS = (
    TileLevel(16, 4, 2, 8),
    TileLevel(16, 2, 1, 4),
    TileLevel(8, 1, 1, 2),
    TileLevel(8, 1, 1, 1),
)


def default_tiling(
    stage: Stage, level: TileLevel = SHRINK_LEVELS[0], min_blocks: int | None = None
) -> GpuTiling:
    """Fixed SSSRRSRS sizes for a heavy stage (see the module docstring, Step 2), spread
    over `min_blocks` blocks (None: `MIN_BLOCKS`)."""
    extents = [axis.extent for axis in stage.op.axes]
    spatial: list[tuple[int, ...]] = []
    for position, extent in enumerate(extents):
        from_last = len(extents) - position
        if from_last <= 2:
            inner_limit = level.inner_x if from_last == 1 else level.inner_y
            inner = divisor_at_most(extent, inner_limit) if extent >= 8 * inner_limit else 1
            thread = divisor_at_most(extent // inner, level.axis_threads)
            spatial.append((extent // inner // thread, 1, thread, 1, inner))
        elif from_last == 3:
            register = divisor_at_most(extent, 4)
            spatial.append((extent // register, 1, 1, register, 1))
        else:
            spatial.append((extent, 1, 1, 1, 1))
    goal = MIN_BLOCKS if min_blocks is None else min_blocks
    spread = _spread_blocks([list(sizes) for sizes in spatial], goal)
    reduce = []
    for axis in stage.op.reduce_axes:
        step = divisor_at_most(axis.extent, level.reduce_step)
        reduce.append((axis.extent // step, step, 1))
    return GpuTiling(tuple(tuple(sizes) for sizes in spread), tuple(reduce), vector=1, unroll=64)


def _smallest_factor(n: int) -> int:
    return next(p for p in range(2, n + 1) if n % p == 0)


def _spread_blocks(spatial: list[list[int]], min_blocks: int) -> list[list[int]]:
    """Move factors of the register tiles (the channel axis' first, then the last two
    axes'), then of the thread tiles, into S0 until `min_blocks` blocks launch, keeping
    at least `MIN_TILED_THREADS` threads per block (sizes as in `GpuTiling.spatial`)."""
    axes = len(spatial)
    # (axis, level) in the order their factors move: register tiles, then threads.
    order = [(axes - 3, 3), (axes - 1, 4), (axes - 2, 4)]
    while math.prod(sizes[0] for sizes in spatial) < min_blocks:
        movable = [(a, lv) for a, lv in order if a >= 0 and spatial[a][lv] > 1]
        if not movable:
            threads = math.prod(sizes[2] for sizes in spatial)
            widest = max(range(axes), key=lambda a: spatial[a][2])
            factor = _smallest_factor(spatial[widest][2]) if spatial[widest][2] > 1 else 0
            if not factor or threads // factor < MIN_TILED_THREADS:
                break
            movable = [(widest, 2)]
        axis, level = movable[0]
        factor = _smallest_factor(spatial[axis][level])
        spatial[axis][level] //= factor
        spatial[axis][0] *= factor
    return spatial


def _shared_bytes(schedule: Schedule) -> int:
    """Bytes of shared memory the lowered schedule allocates (all kernels together)."""
    return sum(
        node.buffer.size * np.dtype(node.buffer.dtype).itemsize
        for node in walk_stmt(lower(schedule).body)
        if isinstance(node, Allocate) and node.buffer.scope == "shared"
    )


def _build(
    program: TEProgram, limits: GpuParams, level: TileLevel | None, min_blocks: int | None
) -> Schedule:
    """Steps 1 to 3 with the tiles of `level` (None: no tiling, every stage bound)."""
    sch = Schedule(program)
    # Step 1.
    for name in list(sch.stages):
        stage = sch.stages[name]
        if not stage.is_output and not isinstance(stage.op.body, Reduce):
            sch.compute_inline(name)
    # Step 2.
    handled: set[str] = set()
    anchors: set[str] = set()
    for name in list(sch.stages):
        stage = sch.stages[name]
        if level is None or name in handled or stage.attach.kind != "root":
            continue
        if not is_compute_heavy(stage):
            continue
        anchor = fusion_anchor(sch, name, anchors)
        if anchor is not None:
            anchors.add(anchor)
        handled |= apply_gpu_tiling(sch, name, anchor, default_tiling(stage, level, min_blocks))
    # Step 3.
    threads = min(DEFAULT_THREADS, limits.max_threads_per_block)
    for name in list(sch.stages):
        if name not in handled and sch.stages[name].attach.kind == "root":
            bind_spatial(sch, name, threads)
    return sch


def default_gpu_schedule(
    program: TEProgram, params: GpuParams | None = None, min_blocks: int | None = None
) -> Schedule:
    """The schedule a fused function gets on a GPU without tuning (module docstring);
    `min_blocks` (None: `MIN_BLOCKS`, read at each call) 1 keeps the fixed tiles however
    few blocks they launch."""
    limits = params or GpuParams()
    heavy = any(is_compute_heavy(Stage.of(op, False)) for op in program.computes)
    if heavy:
        # Step 4.
        for level in SHRINK_LEVELS:
            schedule = _build(program, limits, level, min_blocks)
            if _shared_bytes(schedule) <= limits.max_shared_memory_per_block:
                return schedule
    return _build(program, limits, None, min_blocks)
