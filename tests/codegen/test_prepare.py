"""prepare_for_target: one import-then-optimise for every caller, in the target's layouts."""

from __future__ import annotations

from codegen.prepare import prepare_for_target
from codegen.target import parse_target
from ir.graph.nodes import Call, Function
from ir.graph.traversal import post_order
from tests.codegen.aot.conftest import small_conv_model
from tests.support.onnx_models import light_model_path


def _ops(fn: Function) -> set[str]:
    ops: set[str] = set()
    for node in post_order(fn.body):
        if isinstance(node, Call) and isinstance(node.op, Function):
            ops |= {
                n.op
                for n in post_order(node.op.body)
                if isinstance(n, Call) and isinstance(n.op, str)
            }
    return ops


def test_a_cpu_gets_blocked_convolutions_and_a_gpu_plain_ones() -> None:
    path = light_model_path("light_squeezenet")  # read by path: external tensors would load
    cpu = prepare_for_target(path, parse_target("llvm"))
    gpu = prepare_for_target(path.read_bytes(), parse_target("cuda -arch=sm_90"))
    assert "nn.conv2d_nchwc" in _ops(cpu.function) and "nn.conv2d" not in _ops(cpu.function)
    assert "nn.conv2d" in _ops(gpu.function) and "nn.conv2d_nchwc" not in _ops(gpu.function)
    assert cpu.imported.output_names == gpu.imported.output_names == ("softmaxout_1",)


def test_shapes_bind_a_symbolic_batch() -> None:
    model = small_conv_model(batch="N")
    bound = prepare_for_target(model, parse_target("llvm"), shapes={"x": (3, 4, 6, 6)})
    assert bound.function.params[0].type_annotation.shape[0] == 3  # type: ignore[attr-defined]
    from_example = prepare_for_target(
        model, parse_target("llvm"), example_shapes={"x": (2, 4, 6, 6)}
    )
    assert from_example.function.params[0].type_annotation.shape[0] == 2  # type: ignore[attr-defined]
