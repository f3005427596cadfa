"""Builders for small ONNX models and the comparison of our import against onnxruntime."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

from ir.frontend.onnx import from_onnx
from ir.reference import evaluate

# onnxruntime 1.31 rejects the IR version onnx 1.23 writes by default.
IR_VERSION = 8


def make_model(
    nodes: Sequence[Any],
    inputs: Mapping[str, np.ndarray] | Mapping[str, tuple[Sequence[int | str], Any]],
    outputs: Sequence[str] | Mapping[str, Any] = ("y",),
    initializers: Mapping[str, np.ndarray] | None = None,
    opset: int = 13,
) -> onnx.ModelProto:
    """A checked model: `inputs` maps names to example arrays or (shape, dtype) pairs.

    `outputs` lists output names (float32), or maps them to their numpy dtypes (or to
    (dtype, shape) pairs where ONNX shape inference cannot type them).
    """
    input_infos = []
    for name, value in inputs.items():
        if isinstance(value, np.ndarray):
            shape: Sequence[int | str] = value.shape
            dtype: Any = value.dtype
        else:
            shape, dtype = value
        elem_type = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        input_infos.append(helper.make_tensor_value_info(name, elem_type, list(shape)))
    output_dtypes = outputs if isinstance(outputs, Mapping) else dict.fromkeys(outputs, np.float32)
    output_infos = []
    for name, spec in output_dtypes.items():
        # A (dtype, shape) pair for outputs that ONNX shape inference cannot type.
        dtype, out_shape = spec if isinstance(spec, tuple) else (spec, None)
        elem_type = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        output_infos.append(helper.make_tensor_value_info(name, elem_type, out_shape))
    graph = helper.make_graph(
        list(nodes),
        "test",
        input_infos,
        output_infos,
        initializer=[numpy_helper.from_array(v, k) for k, v in (initializers or {}).items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = IR_VERSION
    # The checker wants output shapes; let ONNX shape inference write them.
    model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    onnx.checker.check_model(model)
    return model


def run_onnxruntime(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """The model's outputs computed by onnxruntime on CPU."""
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return [np.asarray(value) for value in session.run(None, dict(feeds))]


def run_compiled(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> np.ndarray:
    """The model's (first) output compiled for this host and run on `feeds` (specialised to
    the values of any input that decides a shape or another compile-time operand)."""
    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_inputs

    target = host_target()
    prepared = prepare_for_inputs(model, target, feeds)
    compiled = compile_model(prepared.function, target, bound_values=prepared.values)
    return np.asarray(compiled.run(dict(feeds)))


def run_imported(
    model: onnx.ModelProto,
    feeds: Mapping[str, np.ndarray],
    shape: Mapping[str, Sequence[int]] | None = None,
) -> list[np.ndarray]:
    """The model's outputs computed by importing it and running the numpy reference."""
    result = evaluate(from_onnx(model, shape=shape), feeds)
    values = result if isinstance(result, tuple) else (result,)
    return [np.asarray(value) for value in values]


def assert_matches_onnxruntime(
    model: onnx.ModelProto,
    feeds: Mapping[str, np.ndarray],
    rtol: float = 1e-4,
    atol: float = 1e-5,
    shape: Mapping[str, Sequence[int]] | None = None,
) -> None:
    """Our import, run by the reference, computes onnxruntime's outputs (values and dtypes)."""
    expected = run_onnxruntime(model, feeds)
    actual = run_imported(model, feeds, shape)
    assert len(actual) == len(expected)
    for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
        assert got.dtype == want.dtype, f"output {index}: dtype {got.dtype} != {want.dtype}"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"output {index}")


@dataclass
class OpCase:
    """One single-node model: the node, its graph inputs (fed) and constant inputs."""

    op_type: str
    node_inputs: Sequence[str]
    feeds: Mapping[str, np.ndarray]
    attrs: Mapping[str, Any] = field(default_factory=dict)
    consts: Mapping[str, np.ndarray] = field(default_factory=dict)
    opset: int = 13
    outputs: Mapping[str, Any] = field(default_factory=lambda: {"y": np.float32})

    def model(self) -> onnx.ModelProto:
        """The checked single-node model."""
        node = helper.make_node(
            self.op_type, list(self.node_inputs), list(self.outputs), name="node0", **self.attrs
        )
        return make_model([node], self.feeds, self.outputs, self.consts, self.opset)


def op_case(
    case_id: str,
    op_type: str,
    node_inputs: Sequence[str],
    feeds: Mapping[str, np.ndarray],
    *,
    consts: Mapping[str, np.ndarray] | None = None,
    opset: int = 13,
    outputs: Mapping[str, Any] | None = None,
    **attrs: Any,
) -> Any:
    """A pytest param holding an OpCase."""
    import pytest

    case = OpCase(
        op_type,
        node_inputs,
        feeds,
        attrs,
        consts or {},
        opset,
        outputs or {"y": np.float32},
    )
    return pytest.param(case, id=case_id)


def ints(*values: int) -> np.ndarray:
    """An int64 constant."""
    return np.asarray(values, dtype=np.int64)


_RNG = np.random.default_rng(0)


def randn(*shape: int) -> np.ndarray:
    """Standard-normal float32 data (seeded once per test session)."""
    return _RNG.standard_normal(shape).astype(np.float32)


def positive(*shape: int) -> np.ndarray:
    """float32 data in [0.5, 2)."""
    return _RNG.uniform(0.5, 2.0, shape).astype(np.float32)


def small_ints(*shape: int, low: int = -3, high: int = 4) -> np.ndarray:
    """Integer-valued float32 data, so that comparisons see ties."""
    return _RNG.integers(low, high, shape).astype(np.float32)
