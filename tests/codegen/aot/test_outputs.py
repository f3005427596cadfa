"""Outputs that are not simply the last kernel's: an input returned as is, an output that a
later kernel also reads, a constant output, and several outputs at once."""

from __future__ import annotations

import subprocess
import sys
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


def test_the_copied_runtime_folder_runs_an_artifact_from_the_command_line(
    standalone_loader: Path, tmp_path: Path
) -> None:
    """`python -m runtime.loader ART --input x=x.npy --output o.npz` from a copy of the
    runtime folder: every output saved as the Python API gives it; a malformed --input is
    refused by name, with exit status 1."""
    artifact = compile_onnx(_model(), tmp_path / "artifact")
    x = np.array([[-1.0, 0.5, 2.0], [3.0, -0.25, 0.0]], np.float32)
    np.save(tmp_path / "x.npy", x)
    command = [sys.executable, "-m", "runtime.loader", str(artifact.path)]
    done = subprocess.run(
        [*command, "--input", f"x={tmp_path / 'x.npy'}", "--output", str(tmp_path / "o.npz")],
        cwd=standalone_loader,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "product: [2, 3] float32" in done.stdout
    with load_artifact(artifact.path) as loaded:
        expected = loaded.run({"x": x})
    with np.load(tmp_path / "o.npz") as saved:
        assert sorted(saved.keys()) == sorted(expected)
        for name, array in expected.items():
            check_close(saved[name], array, 0, 0, what=name)
    bad = subprocess.run(
        [*command, "--input", "x"], cwd=standalone_loader, capture_output=True, text=True
    )
    assert bad.returncode == 1 and "--input 'x': expected NAME=FILE.npy" in bad.stderr
