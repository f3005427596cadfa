"""Every fused function of the nine light models gets a default GPU schedule within the
default device limits, and the CUDA of all of them compiles with nvcc (slow: one large
translation unit)."""

from __future__ import annotations

import pytest

from codegen.cuda import CudaModule
from ir.frontend.onnx import from_onnx
from ir.graph.nodes import Call, Function
from ir.graph.passes.pipeline import optimize
from ir.graph.traversal import post_order
from ir.lower import lower
from ir.schedule.default_gpu import default_gpu_schedule
from ir.te.program import function_to_te
from ir.tir.printer import format_func
from tests.codegen.cuda.support import build_named, compile_batch, require_nvcc
from tests.support.onnx_models import LIGHT_MODELS, load_light_model


def _model_modules() -> list[CudaModule]:
    modules: list[CudaModule] = []
    seen: set[str] = set()
    for model in LIGHT_MODELS:
        fn = optimize(from_onnx(load_light_model(model)))
        for node in post_order(fn.body):
            if not (isinstance(node, Call) and isinstance(node.op, Function)):
                continue
            func = lower(default_gpu_schedule(function_to_te(node.op)))
            text = format_func(func)
            if text in seen:
                continue
            seen.add(text)
            modules.append(build_named(func, f"f{len(modules)}_{func.name}"))
    return modules


@pytest.mark.slow
def test_default_gpu_schedules_of_the_light_models_compile_with_nvcc() -> None:
    require_nvcc()
    modules = _model_modules()
    assert len(modules) > 50
    ptx = compile_batch(modules).decode()
    assert ptx.count(".entry ") == sum(len(m.metadata["kernels"]) for m in modules)
