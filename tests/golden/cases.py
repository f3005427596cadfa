"""The golden corpus: a few workloads, each with a fixed schedule, printed at every stage.

A refactor of lowering or code generation must leave these files unchanged (or change
them on purpose, with `make golden`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from codegen.cuda import build_cuda
from codegen.llvm import parse_cpu_target
from codegen.llvm.emit import build_module
from ir.graph.nodes import Call, Expr, Function, Var, call, const
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.lower import lower
from ir.schedule.default import default_schedule
from ir.schedule.default_gpu import default_gpu_schedule
from ir.schedule.hardware import HardwareParams
from ir.schedule.schedule import Schedule
from ir.schedule.trace import Trace
from ir.te.program import TEProgram, function_to_te
from ir.tir.printer import format_func

FILES = Path(__file__).resolve().parent / "files"
HARDWARE = HardwareParams(vector_bytes=64, num_cores=2)
# The LLVM IR's target, whatever the host's: code generation picks instructions by the
# target's features (AVX-512's vscalefps in exp), and the corpus is one for every host.
GOLDEN_TARGET = parse_cpu_target("llvm -mcpu=znver4 -num-cores=2")


@dataclass(frozen=True)
class GoldenCase:
    """A workload (a one-group graph) and how to schedule it."""

    name: str
    build: Callable[[], Expr]
    inputs: tuple[tuple[str, tuple[int, ...]], ...]
    schedule: Callable[[TEProgram], Schedule]
    backend: str = "llvm"  # or "cuda": CUDA C and launch metadata instead of LLVM IR


def _weights(*shape: int) -> Expr:
    return const(np.linspace(-1.0, 1.0, int(np.prod(shape)), dtype=np.float32).reshape(shape))


def _matmul_tiled(program: TEProgram) -> Schedule:
    sch = Schedule(program)
    local = sch.cache_write("matmul", "local")
    i_outer, i_inner = sch.split("matmul", "i0", factor=4)
    j_outer, j_inner = sch.split("matmul", "i1", factor=16)
    sch.reorder("matmul", i_outer, j_outer, i_inner, j_inner)
    tile = sch.fuse("matmul", i_outer, j_outer)
    sch.parallel("matmul", tile)
    sch.vectorize("matmul", j_inner)
    sch.compute_at(local, "matmul", tile)
    sch.reorder(local, "k", "i0", "i1")
    sch.unroll(local, "i0")
    sch.vectorize(local, "i1")
    sch.layout_rewrite("p1", [[32], [2, 16]], [1, 0, 2])
    return sch


def _conv2d_bias_relu() -> Expr:
    return call(
        "nn.relu",
        call(
            "add",
            call(
                "nn.conv2d",
                Var("x", TensorType((1, 4, 8, 8))),
                _weights(8, 4, 3, 3),
                padding=(1, 1, 1, 1),
            ),
            _weights(8, 1, 1),
        ),
    )


CASES = (
    GoldenCase(
        "matmul_tiled",
        lambda: call("nn.matmul", Var("a", TensorType((16, 32))), Var("b", TensorType((32, 32)))),
        (("a", (16, 32)), ("b", (32, 32))),
        _matmul_tiled,
    ),
    GoldenCase(
        "conv2d_bias_relu_default",
        lambda: call(
            "nn.relu",
            call(
                "add",
                call(
                    "nn.conv2d",
                    Var("x", TensorType((1, 4, 8, 8))),
                    _weights(8, 4, 3, 3),
                    padding=(1, 1, 1, 1),
                ),
                _weights(8, 1, 1),
            ),
        ),
        (("x", (1, 4, 8, 8)),),
        lambda program: default_schedule(program, HARDWARE, {"p1", "p2"}),
    ),
    GoldenCase(
        "softmax_default",
        lambda: call("nn.softmax", Var("x", TensorType((4, 40)))),
        (("x", (4, 40)),),
        lambda program: default_schedule(program, HARDWARE),
    ),
    GoldenCase(
        "max_pool_default",
        lambda: call(
            "nn.max_pool2d",
            Var("x", TensorType((1, 3, 9, 9))),
            pool_size=(3, 3),
            strides=(2, 2),
            padding=(1, 1, 1, 1),
        ),
        (("x", (1, 3, 9, 9)),),
        lambda program: default_schedule(program, HARDWARE),
    ),
    GoldenCase(
        "depthwise_conv2d_default",
        lambda: call(
            "nn.conv2d",
            Var("x", TensorType((1, 4, 10, 10))),
            _weights(4, 1, 3, 3),
            padding=(1, 1, 1, 1),
            groups=4,
        ),
        (("x", (1, 4, 10, 10)),),
        lambda program: default_schedule(program, HARDWARE, {"p1"}),
    ),
    GoldenCase(
        "matmul_gpu_default",
        lambda: call("nn.matmul", Var("a", TensorType((64, 32))), Var("b", TensorType((32, 64)))),
        (("a", (64, 32)), ("b", (32, 64))),
        default_gpu_schedule,
        backend="cuda",
    ),
    GoldenCase(
        "conv2d_bias_relu_gpu_default",
        _conv2d_bias_relu,
        (("x", (1, 4, 8, 8)),),
        default_gpu_schedule,
        backend="cuda",
    ),
    GoldenCase(
        "softmax_gpu_default",
        lambda: call("nn.softmax", Var("x", TensorType((4, 40)))),
        (("x", (4, 40)),),
        default_gpu_schedule,
        backend="cuda",
    ),
)


def primitive(case: GoldenCase) -> Function:
    """The case's single fused function."""
    body = case.build()
    params = tuple(Var(name, TensorType(shape)) for name, shape in case.inputs)
    fused = fuse_ops(infer_type(Function(params, body)))
    (prim_call,) = [n for n in post_order(fused.body) if isinstance(n, Call)]
    assert isinstance(prim_call.op, Function)
    return prim_call.op


def render(case: GoldenCase) -> dict[str, str]:
    """The printed trace, loop IR and (unoptimised, target-independent lines) LLVM IR, or
    for a CUDA case the CUDA C and its launch metadata."""
    program = function_to_te(primitive(case))
    schedule = case.schedule(program)
    replayed = Trace.from_json(schedule.trace.dumps()).replay(function_to_te(primitive(case)))
    func = lower(replayed)
    if case.backend == "cuda":
        module = build_cuda(func)
        return {
            "trace.json": schedule.trace.dumps() + "\n",
            "loops.txt": format_func(func) + "\n",
            "cuda.cu": module.source,
            "launch.json": module.metadata_json + "\n",
        }
    llvm_lines = [
        line
        for line in str(build_module(func, GOLDEN_TARGET)).splitlines()
        if not line.startswith(("target triple", "target datalayout", "; ModuleID"))
    ]
    return {
        "trace.json": schedule.trace.dumps() + "\n",
        "loops.txt": format_func(func) + "\n",
        "llvm.ll": "\n".join(llvm_lines).strip() + "\n",
    }


def golden_path(case: GoldenCase, stage: str) -> Path:
    """Where a case's stage text is stored."""
    return FILES / f"{case.name}.{stage}"
