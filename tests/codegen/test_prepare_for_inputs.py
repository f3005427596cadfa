"""prepare_for_inputs: a model whose compile-time operands (a Reshape target, Reduce
axes, Pad widths) are graph inputs compiles for the values it is given, and the compiled
model refuses other values by name; `autotune run` does the same from .npy files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from codegen.executor import InputError, compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_inputs
from ir.errors import ShapeBindingError, ValueDependentError
from ir.frontend.onnx import import_model
from tests.support.cli import AUTOTUNE
from tests.support.onnx_models import run_onnxruntime

RNG = np.random.default_rng(3)
X = RNG.normal(0, 1, (2, 6)).astype(np.float32)


def _model(
    nodes: list[onnx.NodeProto], inputs: list[tuple[str, int, list[int]]]
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "value_dependent",
        [helper.make_tensor_value_info(name, elem, shape) for name, elem, shape in inputs],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b"])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


def reshape_then_reduce() -> onnx.ModelProto:
    """y = ReduceSum(Relu(Reshape(x, target)), axes): two operands from two inputs, the
    second met only once the first is bound."""
    return _model(
        [
            helper.make_node("Reshape", ["x", "target"], ["r"], name="reshape"),
            helper.make_node("Relu", ["r"], ["a"], name="relu"),
            helper.make_node("ReduceSum", ["a", "axes"], ["y"], keepdims=0, name="reduce"),
        ],
        [
            ("x", TensorProto.FLOAT, [2, 6]),
            ("target", TensorProto.INT64, [3]),
            ("axes", TensorProto.INT64, [1]),
        ],
    )


def _feeds(target: list[int], axis: int) -> dict[str, np.ndarray]:
    return {"x": X, "target": np.array(target, np.int64), "axes": np.array([axis], np.int64)}


def test_the_model_is_specialised_to_the_values_it_is_given() -> None:
    model = reshape_then_reduce()
    target = host_target()
    for shape, axis in (([3, 2, 2], 1), ([1, 4, 3], -1), ([2, 3, 2], 0)):
        feeds = _feeds(shape, axis)
        prepared = prepare_for_inputs(model, target, feeds)
        assert sorted(prepared.values) == ["axes", "target"]
        assert [param.name for param in prepared.function.params] == ["x"]
        compiled = compile_model(prepared.function, target, bound_values=prepared.values)
        expected = run_onnxruntime(model, feeds, "y")
        np.testing.assert_allclose(compiled.run(feeds), expected, rtol=1e-6, atol=1e-6)


def test_a_specialised_model_refuses_other_values_by_name() -> None:
    model = reshape_then_reduce()
    target = host_target()
    feeds = _feeds([3, 2, 2], 1)
    prepared = prepare_for_inputs(model, target, feeds)
    compiled = compile_model(prepared.function, target, bound_values=prepared.values)
    with pytest.raises(InputError, match=r"input 'axes'.*compiled for one value.*\[2\]"):
        compiled.run({**feeds, "axes": np.array([2], np.int64)})
    with pytest.raises(InputError, match=r"input 'target'.*int32"):
        compiled.run({**feeds, "target": np.array([3, 2, 2], np.int32)})
    with pytest.raises(InputError, match="missing input 'axes'"):
        compiled.run({"x": X, "target": feeds["target"]})
    assert compiled.run(feeds).shape == (3, 2)  # the same values still run


def test_a_value_that_is_not_given_stays_an_error_naming_the_input() -> None:
    with pytest.raises(ValueDependentError) as info:
        prepare_for_inputs(reshape_then_reduce(), host_target(), {"x": X})
    assert info.value.inputs == ("target",)
    assert "reshape" in str(info.value) and "'target'" in str(info.value)


def test_bound_values_are_checked_against_the_declared_inputs() -> None:
    model = reshape_then_reduce()
    with pytest.raises(ShapeBindingError, match=r"input 'target'.*\[2\].*\[3\]"):
        import_model(model, values={"target": np.array([3, 4], np.int64)})
    with pytest.raises(ShapeBindingError, match=r"input 'target'.*float32"):
        import_model(model, values={"target": np.array([3, 2, 2], np.float32)})
    with pytest.raises(ShapeBindingError, match=r"cannot bind the value of \['nope'\]"):
        import_model(model, values={"nope": np.zeros(1)})


def test_autotune_run_compiles_for_the_given_values(tmp_path: Path) -> None:
    model = reshape_then_reduce()
    onnx.save(model, str(tmp_path / "model.onnx"))
    feeds = _feeds([1, 4, 3], 2)
    for name, value in feeds.items():
        np.save(tmp_path / f"{name}.npy", value)
    base = [AUTOTUNE, "run", "model.onnx", "--output", "out.npz"]
    args = base + [item for name in feeds for item in ("--input", f"{name}={name}.npy")]
    done = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "out.npz") as outputs:
        actual = outputs["output_0"]
    np.testing.assert_allclose(actual, run_onnxruntime(model, feeds, "y"), rtol=1e-6, atol=1e-6)
    missing = subprocess.run(
        [*base, "--input", "x=x.npy"], cwd=tmp_path, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert missing.returncode != 0
    assert "'target'" in missing.stderr and "Traceback" not in missing.stderr
