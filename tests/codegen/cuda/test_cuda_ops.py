"""Every op, scheduled with its default GPU schedule, computes the reference when its loop
IR is interpreted (thread loops run serially, in both orders), its generated CUDA
compiles with nvcc for sm_90 (all kernels batched into one translation unit), and, on a
machine with a GPU, it runs there and computes the reference."""

from __future__ import annotations

import numpy as np
import pytest

from codegen.cuda import CudaModule, build_cuda
from codegen.cuda.nvcc import compile_source
from ir.graph.ops import OP_TABLE
from ir.lower import lower
from ir.reference import check_close
from ir.schedule.default_gpu import MIN_BLOCKS, default_gpu_schedule
from ir.te.program import function_to_te
from tests.codegen.cuda.support import (
    build_named,
    compile_batch,
    one_op,
    require_nvcc,
    run_interpreted,
)
from tests.golden.cases import CASES as GOLDEN_CASES
from tests.golden.cases import golden_path
from tests.ir.graph.ops.test_te_compute import CASES, Case, _case_id
from tests.support.gpu import needs_gpu


def test_the_cases_cover_every_op() -> None:
    missing = sorted(set(OP_TABLE) - {op for op, _, _ in CASES})
    assert not missing, f"ops without a GPU test case: {missing}"


@pytest.mark.parametrize("min_blocks", [1, MIN_BLOCKS], ids=["fixed", "spread"])
@pytest.mark.parametrize(
    ("op", "inputs", "attrs"), [pytest.param(*case, id=_case_id(case)) for case in CASES]
)
def test_default_gpu_schedule_computes_the_reference(
    op: str, inputs: list[np.ndarray], attrs: dict[str, object], min_blocks: int
) -> None:
    prim, args, expected = one_op(op, inputs, attrs)
    func = lower(default_gpu_schedule(function_to_te(prim), min_blocks=min_blocks))
    for reverse in (False, True):
        outputs = run_interpreted(func, args, reverse_threads=reverse)
        for index, (got, want) in enumerate(zip(outputs, expected, strict=True)):
            check_close(got, want, what=f"{op} output {index} (reverse threads: {reverse})")


@needs_gpu()
@pytest.mark.parametrize(
    ("op", "inputs", "attrs"), [pytest.param(*case, id=_case_id(case)) for case in CASES]
)
def test_default_gpu_schedule_runs_on_the_gpu_and_computes_the_reference(
    op: str, inputs: list[np.ndarray], attrs: dict[str, object]
) -> None:
    from codegen.cuda.runtime import LoadedModule

    prim, args, expected = one_op(op, inputs, attrs)
    module = build_cuda(lower(default_gpu_schedule(function_to_te(prim))))
    loaded = LoadedModule(module)
    try:
        outputs = loaded.run(args)
    finally:
        loaded.close()
    assert len(outputs) == len(expected)
    for index, (got, want) in enumerate(zip(outputs, expected, strict=True)):
        check_close(got, want, what=f"{op} output {index} on the GPU")


def _default_module(index: int, case: Case) -> CudaModule:
    op, inputs, attrs = case
    prim, _, _ = one_op(op, inputs, attrs)
    func = lower(default_gpu_schedule(function_to_te(prim)))
    return build_named(func, f"case{index}_{func.name}")


def test_default_gpu_schedules_of_every_op_compile_with_nvcc() -> None:
    require_nvcc()
    modules = [_default_module(index, case) for index, case in enumerate(CASES)]
    ptx = compile_batch(modules).decode()
    for module in modules:
        for kernel in module.metadata["kernels"]:
            assert f".entry {kernel['name']}(" in ptx, kernel["name"]


def test_the_golden_cuda_kernels_compile_with_nvcc() -> None:
    require_nvcc()
    cuda_cases = [case for case in GOLDEN_CASES if case.backend == "cuda"]
    assert len(cuda_cases) >= 3
    source = "\n".join(golden_path(case, "cuda.cu").read_text() for case in cuda_cases)
    assert b".entry" in compile_source(source, "sm_90", "ptx")
