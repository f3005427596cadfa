"""ONNX models with run-time control flow, shared by the frontend, codegen, tuner and
service tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tests.ir.frontend.onnx_helpers import IR_VERSION

FLOAT, BOOL, INT64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64


def _info(name: str, elem_type: int, shape: Sequence[int | str]) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem_type, shape)


def _model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    initializers: dict[str, np.ndarray],
) -> onnx.ModelProto:
    tensors = [numpy_helper.from_array(value, name) for name, value in initializers.items()]
    graph = helper.make_graph(nodes, "control", inputs, outputs, tensors)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def decoder_loop_model(width: int = 8, seed: int = 0) -> onnx.ModelProto:
    """A decoder loop: h = tanh(h @ W + x) for n steps (n an input), stopping early once
    max(h) passes the limit; inside each step an If on the iteration's parity scales h
    by a weight the main graph computes (read two scopes down)."""
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((width, width)) * 0.5).astype(np.float32)
    odd = helper.make_graph(
        [helper.make_node("Mul", ["h_cell", "scale"], ["odd_out"])],
        "odd",
        [],
        [_info("odd_out", FLOAT, [1, width])],
    )
    even = helper.make_graph(
        [helper.make_node("Sub", ["h_cell", "scale"], ["even_out"])],
        "even",
        [],
        [_info("even_out", FLOAT, [1, width])],
    )
    two = numpy_helper.from_array(np.array(2, np.int64), "two")
    one = numpy_helper.from_array(np.array(1, np.int64), "one")
    cell = helper.make_graph(
        [
            helper.make_node("MatMul", ["h_in", "w"], ["mixed"]),
            helper.make_node("Add", ["mixed", "x"], ["summed"]),
            helper.make_node("Tanh", ["summed"], ["h_cell"]),
            helper.make_node("Mod", ["i", "two"], ["parity"]),
            helper.make_node("Equal", ["parity", "one"], ["is_odd"]),
            helper.make_node("If", ["is_odd"], ["h_out"], then_branch=odd, else_branch=even),
            helper.make_node("ReduceMax", ["h_out"], ["peak"], keepdims=0),
            helper.make_node("Less", ["peak", "limit"], ["cond_out"]),
        ],
        "cell",
        [_info("i", INT64, []), _info("cond_in", BOOL, []), _info("h_in", FLOAT, [1, width])],
        [_info("cond_out", BOOL, []), _info("h_out", FLOAT, [1, width])],
        [two, one],
    )
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["mean"], keepdims=1),
        helper.make_node("Abs", ["mean"], ["scale"]),
        helper.make_node("Loop", ["n", "", "h0"], ["h"], name="decode", body=cell),
    ]
    return _model(
        nodes,
        [
            _info("x", FLOAT, [1, width]),
            _info("h0", FLOAT, [1, width]),
            _info("n", INT64, []),
            _info("limit", FLOAT, []),
        ],
        [_info("h", FLOAT, [1, width])],
        {"w": w},
    )
