"""Loop-IR features: layout, determinism, what they read off kernels, and their speed."""

from __future__ import annotations

import random
import time
from functools import cache
from typing import Any

import numpy as np
import pytest

from ir.graph.nodes import Call, Constant, Function, Var, call
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.lower import lower
from ir.schedule.default import default_schedule
from ir.schedule.default_gpu import default_gpu_schedule
from ir.schedule.hardware import KIB, CoreFacts, HardwareParams
from ir.schedule.schedule import Schedule
from ir.te.program import TEProgram, function_to_te
from ir.tir.stmt import PrimFunc
from tuner.feature_schema import FEATURE_NAMES, KERNEL_FEATURES, NUM_FEATURES, STORE_FEATURES
from tuner.features import extract_features, extract_features_batch
from tuner.space import SearchSpace

HARDWARE = HardwareParams(vector_bytes=64, num_cores=2)
RNG = np.random.default_rng(0)


def primitive(op: str, data_shape: tuple[int, ...], weight: np.ndarray, **attrs: Any) -> Function:
    """The one fused function of `relu(op(x, constant weight))`."""
    data = Var("x", TensorType(data_shape, "float32"))
    body = call("nn.relu", call(op, data, Constant(weight), **attrs))
    fused = fuse_ops(infer_type(Function((data,), body)))
    (prim,) = [
        n.op for n in post_order(fused.body) if isinstance(n, Call) and isinstance(n.op, Function)
    ]
    return prim


def test_an_8_bit_conv_counts_its_byte_multiplications() -> None:
    """The element width shows: a uint8 x int8 conv counts one 8-bit multiplication per
    MAC (and no float multiply-adds); a float conv counts none."""
    rng = np.random.default_rng(0)
    data = Var("x", TensorType((1, 2, 14, 14, 16), "uint8"))
    weight = Constant(rng.integers(-127, 128, (2, 2, 3, 3, 4, 64)).astype(np.int8))
    conv = call("qnn.conv2d_nchwc", data, weight, padding=(1, 1, 1, 1), pad_value=3)
    fused = fuse_ops(infer_type(Function((data,), conv)))
    prim = next(n.op for n in post_order(fused.body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    features = extract_features(default_kernel(function_to_te(prim)))
    macs = 32 * 14 * 14 * 32 * 9
    assert value(features, "sum.int8_mul") == pytest.approx(macs, rel=1e-3)
    assert value(features, "sum.float_fma") == 0
    assert value(extract_features(default_kernel(conv_program())), "sum.int8_mul") == 0


@cache
def conv_program() -> TEProgram:
    weight = RNG.standard_normal((64, 64, 3, 3)).astype(np.float32)
    return function_to_te(primitive("nn.conv2d", (1, 64, 56, 56), weight, padding=(1, 1)))


@cache
def dense_program() -> TEProgram:
    weight = RNG.standard_normal((128, 256)).astype(np.float32)
    return function_to_te(primitive("nn.dense", (16, 256), weight))


def value(features: np.ndarray, name: str) -> float:
    """A feature back on its linear scale."""
    return float(2.0 ** features[FEATURE_NAMES.index(name)] - 1.0)


def default_kernel(program: TEProgram) -> PrimFunc:
    return lower(default_schedule(program, HARDWARE, {"p1"}))


def test_layout() -> None:
    assert 3 * len(STORE_FEATURES) + len(KERNEL_FEATURES) == NUM_FEATURES
    assert len(set(FEATURE_NAMES)) == NUM_FEATURES
    assert FEATURE_NAMES[0] == "sum.trip" and FEATURE_NAMES[-1].startswith("kernel.")


@pytest.mark.parametrize("program", [conv_program, dense_program], ids=["conv", "dense"])
def test_shape_dtype_and_determinism(program: object) -> None:
    func = default_kernel(program())  # type: ignore[operator]
    first = extract_features(func)
    assert first.shape == (NUM_FEATURES,) and first.dtype == np.float32
    assert np.all(np.isfinite(first)) and np.all(first >= 0)
    np.testing.assert_array_equal(first, extract_features(func))
    # A fresh lowering of the same schedule gives the same vector.
    np.testing.assert_array_equal(first, extract_features(default_kernel(program())))  # type: ignore[operator]


def test_default_conv_features_read_off_the_loop_nest() -> None:
    features = extract_features(default_kernel(conv_program()))
    # 2 x 64 x 56 x 56 x 64 x 9 flops (multiply and add per MAC), plus the relu maxes.
    macs = 64 * 56 * 56 * 64 * 9
    assert value(features, "sum.float_fma") == pytest.approx(macs, rel=1e-3)
    assert value(features, "sum.flops") == pytest.approx(2 * macs + 64 * 56 * 56, rel=1e-3)
    assert value(features, "main.vector_len") == 16  # 512-bit vectors of float32
    assert value(features, "main.innermost_vector_len") == 16
    assert value(features, "main.parallel_extent") > 1
    assert value(features, "main.unrolled_extent") > 1
    assert value(features, "kernel.allocations") >= 1
    assert value(features, "kernel.param_bytes") == pytest.approx(
        4 * (64 * 56 * 56 * 2 + 64 * 64 * 9), rel=1e-3
    )
    # The accumulator tile is reused across the reduction.
    assert value(features, "main.reuse") > 10


def test_cache_traffic_is_measured_against_the_targets_caches() -> None:
    """The traffic features count the bytes refetched past the core's L1 and L2: the
    bigger the cache, the outer the loop whose working set fits, the less traffic."""
    kernel = default_kernel(conv_program())
    sizes_kib = [(8, 256), (48, 2048), (256, 8192)]
    traffic = [
        (value(features, "main.traffic_l1"), value(features, "main.traffic_l2"))
        for features in (
            extract_features(kernel, CoreFacts(l1 * KIB, 8, l2 * KIB)) for l1, l2 in sizes_kib
        )
    ]
    for level in (0, 1):
        column = [row[level] for row in traffic]
        assert column == sorted(column, reverse=True)
        assert column[0] > column[-1]
    assert np.array_equal(extract_features(kernel), extract_features(kernel, CoreFacts()))


@cache
def matmul_program() -> TEProgram:
    """matmul(x[16, 64], W[64, 48]) alone: one stage, `matmul`."""
    data = Var("x", TensorType((16, 64), "float32"))
    weight = Constant(RNG.standard_normal((64, 48)).astype(np.float32))
    fused = fuse_ops(infer_type(Function((data,), call("nn.matmul", data, weight))))
    (prim,) = [
        n.op for n in post_order(fused.body) if isinstance(n, Call) and isinstance(n.op, Function)
    ]
    return function_to_te(prim)


def register_tiled_matmul(columns: int, reduction_inside: bool) -> PrimFunc:
    """Rows of 4 x `columns` accumulated in a local tile (rows unrolled, columns
    vectorized), under k split by 8; with `reduction_inside` both k loops are just
    outside the tile, else the tile's rows run outside k_i."""
    sch = Schedule(matmul_program())
    local = sch.cache_write("matmul", "local")
    rows_o, rows_i = sch.split("matmul", "i0", factor=4)
    cols_o, cols_i = sch.split("matmul", "i1", factor=columns)
    sch.reorder("matmul", rows_o, cols_o, rows_i, cols_i)
    sch.compute_at(local, "matmul", cols_o)
    k_o, k_i = sch.split(local, "k", factor=8)
    if reduction_inside:
        sch.reorder(local, k_o, k_i, "i0", "i1")
        sch.unroll(local, "i0")
    else:
        sch.reorder(local, k_o, "i0", k_i, "i1")
    sch.vectorize(local, "i1")
    return lower(sch)


def test_register_tile_runs_and_chains() -> None:
    tiled = extract_features(register_tiled_matmul(48, reduction_inside=True))
    # The tile: 4 unrolled rows x 48 vectorized columns = 12 vectors of accumulators.
    assert value(tiled, "main.store_chains") == pytest.approx(12, rel=1e-4)
    # k_i and k_o (8 x 8) update the same accumulators; the loop around them also runs the
    # tile's initialisation and write-back, so the run ends there.
    assert value(tiled, "main.store_run_tile") == pytest.approx(64, rel=1e-4)
    assert value(tiled, "main.vector_lane_use") == pytest.approx(1.0, rel=1e-4)
    # Per tile iteration, the weights' row and x's four scalars change with k_i: loaded
    # every time; the accumulators are read back once per run.
    assert value(tiled, "main.loads_per_iteration_tile") == pytest.approx(2 + 1 / 64, rel=1e-4)
    # The rows outside k_i: each accumulator row is updated by k_i's 8 iterations in a row,
    # and only the vectorized columns are independent.
    rows_outside = extract_features(register_tiled_matmul(40, reduction_inside=False))
    # 40 floats: 2.5 vectors.
    assert value(rows_outside, "main.store_chains") == pytest.approx(3, rel=1e-4)
    assert value(rows_outside, "main.store_run_vector") == pytest.approx(8, rel=1e-4)
    assert value(rows_outside, "main.vector_lane_use") == pytest.approx(40 / 48, rel=1e-4)


def test_different_schedules_give_different_features() -> None:
    program = conv_program()
    space = SearchSpace(program, HARDWARE, {"p1"})
    rng = random.Random(1)
    vectors = {
        extract_features(lower(space.sample(rng).replay(program))).tobytes() for _ in range(10)
    }
    assert len(vectors) >= 8


def test_gpu_blocks_and_threads_are_read_off_the_bound_loops() -> None:
    fixed = extract_features(lower(default_gpu_schedule(dense_program(), min_blocks=1)))
    spread = extract_features(lower(default_gpu_schedule(dense_program(), min_blocks=128)))
    # 16 x 128 outputs, each a 256-long sum: 2 blocks of 128 threads with the fixed tiles,
    # 32 blocks of 64 threads spread (threads then down to the floor of 64).
    assert value(fixed, "main.gpu_blocks") == pytest.approx(2, rel=1e-4)
    assert value(fixed, "main.gpu_threads") == pytest.approx(128, rel=1e-4)
    assert value(spread, "main.gpu_blocks") == pytest.approx(32, rel=1e-4)
    assert value(spread, "main.gpu_threads") == pytest.approx(64, rel=1e-4)
    trip = value(fixed, "main.trip")
    assert value(fixed, "main.work_per_thread") == pytest.approx(trip / 256, rel=1e-4)
    assert value(spread, "main.work_per_thread") == pytest.approx(trip / 2048, rel=1e-4)
    cpu = extract_features(default_kernel(dense_program()))
    assert value(cpu, "max.gpu_blocks") == value(cpu, "max.gpu_threads") == 0


def test_batch_matches_single() -> None:
    funcs = [default_kernel(conv_program()), default_kernel(dense_program())]
    batch = extract_features_batch(funcs)
    assert batch.shape == (2, NUM_FEATURES)
    np.testing.assert_array_equal(batch[1], extract_features(funcs[1]))
    assert extract_features_batch([]).shape == (0, NUM_FEATURES)


def test_rate_on_sampled_conv_candidates() -> None:
    """Reported, not asserted: candidates per second on one core, with and without lowering."""
    program = conv_program()
    space = SearchSpace(program, HARDWARE, {"p1"})
    rng = random.Random(0)
    traces = [space.sample(rng) for _ in range(150)]
    started = time.perf_counter()
    funcs = [lower(trace.replay(program)) for trace in traces]
    lowered = time.perf_counter()
    extract_features_batch(funcs)
    done = time.perf_counter()
    lower_s, features_s = lowered - started, done - lowered
    print(
        f"\n{len(traces)} conv2d candidates: replay+lower {1e3 * lower_s / len(traces):.2f} ms, "
        f"features {1e3 * features_s / len(traces):.2f} ms each; "
        f"{len(traces) / (lower_s + features_s):.0f}/s including lowering, "
        f"{len(traces) / features_s:.0f}/s features only"
    )
