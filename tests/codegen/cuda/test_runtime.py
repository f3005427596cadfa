"""The pycuda runtime: calibration arithmetic everywhere; running and timing kernels only
on a machine with pycuda and a GPU (marked `gpu`, skipped otherwise)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from codegen.cuda import build_cuda
from codegen.cuda.runtime import MAX_NUMBER, GpuRuntimeError, TimingConfig, next_number
from ir.lower import lower
from ir.reference import check_close
from ir.schedule.default_gpu import default_gpu_schedule
from ir.te.program import function_to_te
from tests.codegen.cuda.support import one_op
from tests.support.gpu import needs_gpu


def test_calibration_reaches_the_minimum_repeat_time() -> None:
    assert next_number(1, 0.01, 150.0) == int(150.0 * 1.2 / 0.01) + 1
    assert next_number(100, 140.0, 150.0) == 200  # at least doubles
    assert next_number(1, 0.0, 150.0) == 10
    assert next_number(MAX_NUMBER // 2, 1e-6, 150.0) == MAX_NUMBER


def test_loading_without_pycuda_says_how_to_install_it() -> None:
    if importlib.util.find_spec("pycuda") is not None:
        pytest.skip("pycuda is installed")
    from codegen.cuda.runtime import LoadedModule

    prim, _, _ = one_op("nn.relu", [np.zeros((4, 4), np.float32)], {})
    module = build_cuda(lower(default_gpu_schedule(function_to_te(prim))))
    with pytest.raises(GpuRuntimeError, match=r"pip install '\.\[gpu\]'"):
        LoadedModule(module)


@needs_gpu()
@pytest.mark.parametrize(
    ("op", "shapes"), [("nn.matmul", [(64, 32), (32, 48)]), ("nn.softmax", [(8, 100)])]
)
def test_kernels_run_on_the_gpu_and_match_the_reference(
    op: str, shapes: list[tuple[int, ...]]
) -> None:
    from codegen.cuda.runtime import LoadedModule

    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    prim, args, expected = one_op(op, inputs, {})
    module = build_cuda(lower(default_gpu_schedule(function_to_te(prim))))
    loaded = LoadedModule(module)
    try:
        (got,) = loaded.run(args)
        check_close(got, expected[0], what=op)
        costs = loaded.time(args, TimingConfig(number=1, repeat=3, min_repeat_ms=10))
        assert len(costs) == 3 and all(cost > 0 for cost in costs)
    finally:
        loaded.close()
