"""The default GPU tiling: fixed tiles, spread over more blocks where the output is small."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ir.schedule.default_gpu import MIN_BLOCKS, MIN_TILED_THREADS, default_tiling
from ir.schedule.gpu import GpuTiling
from ir.schedule.rules.analysis import is_compute_heavy
from ir.schedule.schedule import Stage
from ir.te.program import function_to_te
from tests.codegen.cuda.support import one_op


def _heavy_stage(op: str, inputs: list[np.ndarray], attrs: dict[str, object]) -> Stage:
    prim, _, _ = one_op(op, inputs, attrs)
    (stage,) = [
        Stage.of(compute, False)
        for compute in function_to_te(prim).computes
        if is_compute_heavy(Stage.of(compute, False))
    ]
    return stage


def _conv(channels: int, out_channels: int, size: int) -> Stage:
    data = np.zeros((1, channels, size, size), np.float32)
    weight = np.zeros((out_channels, channels, 3, 3), np.float32)
    return _heavy_stage("nn.conv2d", [data, weight], {"padding": (1, 1, 1, 1)})


def _blocks(tiling: GpuTiling) -> int:
    return math.prod(sizes[0] for sizes in tiling.spatial)


def _outputs_per_thread(tiling: GpuTiling) -> int:
    return math.prod(sizes[1] * sizes[3] * sizes[4] for sizes in tiling.spatial)


def test_a_small_conv_output_is_spread_over_enough_blocks() -> None:
    stage = _conv(64, 64, 56)
    fixed = default_tiling(stage, min_blocks=1)
    spread = default_tiling(stage)
    assert _blocks(fixed) == 32  # 64 channels x 56 x 56 in tiles of 4 x 28 x 56 outputs
    assert _blocks(spread) >= MIN_BLOCKS
    assert spread.threads == fixed.threads  # register tiles went first
    assert _outputs_per_thread(spread) < _outputs_per_thread(fixed)
    assert spread.reduce == fixed.reduce


def test_an_output_that_fills_the_gpu_keeps_the_fixed_tiles() -> None:
    lhs, rhs = np.zeros((1024, 256), np.float32), np.zeros((256, 1024), np.float32)
    stage = _heavy_stage("nn.matmul", [lhs, rhs], {})
    assert default_tiling(stage) == default_tiling(stage, min_blocks=1)
    assert _blocks(default_tiling(stage)) == 512


@settings(max_examples=40, deadline=None)
@given(
    channels=st.sampled_from([3, 16, 64]),
    out_channels=st.sampled_from([8, 24, 64, 256, 512]),
    size=st.sampled_from([7, 10, 14, 28, 56]),
    min_blocks=st.sampled_from([1, 64, MIN_BLOCKS, 1024]),
)
def test_spreading_keeps_valid_tiles_and_enough_threads(
    channels: int, out_channels: int, size: int, min_blocks: int
) -> None:
    stage = _conv(channels, out_channels, size)
    fixed = default_tiling(stage, min_blocks=1)
    tiling = default_tiling(stage, min_blocks=min_blocks)
    for axis, sizes in zip(stage.op.axes, tiling.spatial, strict=True):
        assert math.prod(sizes) == axis.extent
    assert tiling.threads >= min(fixed.threads, MIN_TILED_THREADS)
    assert _blocks(tiling) >= _blocks(fixed)
    if _blocks(tiling) < min_blocks:
        # Short of the goal only when nothing is left to move: no register tile, and the
        # widest thread tile cannot give up its smallest factor without going under the floor.
        assert _outputs_per_thread(tiling) == 1
        widest = max(sizes[2] for sizes in tiling.spatial)
        factor = next((p for p in range(2, widest + 1) if widest % p == 0), widest)
        assert widest == 1 or tiling.threads // factor < MIN_TILED_THREADS
