"""Outputs that are not simply the last kernel's: an input returned as is, an output that a
later kernel also reads, a constant output, and several outputs at once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from codegen.runtime.loader import load_artifact
from ir.reference import check_close
from tests.codegen.aot.conftest import compile_onnx
from tests.support.onnx_models import run_onnxruntime


def _model() -> onnx.ModelProto:
    shift = numpy_helper.from_array(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), "s")
    nodes = [
        helper.make_node("Relu", ["x"], ["relu"]),
        helper.make_node("Add", ["relu", "s"], ["shifted"]),
        helper.make_node("Mul", ["shifted", "relu"], ["product"]),
        helper.make_node("Identity", ["x"], ["same"]),
        helper.make_node("Identity", ["s"], ["weight"]),
    ]
    outputs = ["relu", "product", "same", "weight"]
    graph = helper.make_graph(
        nodes,
        "outputs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, [2, 3]) for name in outputs],
        [shift],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def test_every_kind_of_output(tmp_path: Path) -> None:
    model = _model()
    artifact = compile_onnx(model, tmp_path)
    x = np.array([[-1.0, 0.5, 2.0], [3.0, -0.25, 0.0]], np.float32)
    with load_artifact(artifact.path) as loaded:
        assert [info.name for info in loaded.outputs] == ["relu", "product", "same", "weight"]
        outputs = loaded.run({"x": x})
        again = loaded.run({"x": x + 1})
    for name, actual in outputs.items():
        expected = run_onnxruntime(model, {"x": x}, name)
        check_close(actual, expected, 1e-6, 1e-7, what=name)
    # Aligned as the kernels were measured on (numpy alone guarantees 16 bytes).
    assert all(array.ctypes.data % 64 == 0 for array in [*outputs.values(), *again.values()])
    # The outputs are fresh arrays: a second run leaves the first run's results alone.
    check_close(again["same"], x + 1, 0, 0, what="second run")
    check_close(outputs["same"], x, 0, 0, what="first run's output kept")
