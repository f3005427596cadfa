"""Bad models and bad bindings raise typed errors whose messages say what is wrong and where."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from ir.errors import (
    ModelImportError,
    ShapeBindingError,
    TypeInferenceError,
    UnsupportedOpError,
)
from ir.frontend.onnx import from_onnx
from ir.graph.types import TensorType
from ir.reference import evaluate
from tests.ir.frontend.onnx_helpers import IR_VERSION, make_model

LIGHT_DIR = Path(os.path.dirname(onnx.__file__)) / "backend" / "test" / "data" / "light"


def raw_model(
    nodes: Sequence[onnx.NodeProto],
    inputs: Sequence[onnx.ValueInfoProto],
    outputs: Sequence[onnx.ValueInfoProto],
    opset: int = 13,
    initializers: Sequence[onnx.TensorProto] = (),
    extra_opsets: Sequence[onnx.OperatorSetIdProto] = (),
) -> onnx.ModelProto:
    """A model built without ONNX shape inference (so that it may be inconsistent)."""
    graph = helper.make_graph(list(nodes), "bad", list(inputs), list(outputs), list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), *extra_opsets])
    model.ir_version = IR_VERSION
    return model


def tensor(name: str, shape: Sequence[int | str] | None, elem: int = TensorProto.FLOAT) -> object:
    return helper.make_tensor_value_info(name, elem, shape)


# --- bytes and files -------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"not an onnx model", bytes(range(256)), b""])
def test_garbage_bytes(data: bytes) -> None:
    with pytest.raises(ModelImportError, match="cannot parse ONNX model"):
        from_onnx(data)


def test_truncated_model_bytes() -> None:
    data = (LIGHT_DIR / "light_squeezenet.onnx").read_bytes()
    with pytest.raises(ModelImportError, match="cannot parse ONNX model"):
        from_onnx(data[: len(data) // 2])


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.onnx"
    with pytest.raises(ModelImportError, match="cannot read ONNX model file") as info:
        from_onnx(missing)
    assert "missing.onnx" in str(info.value)


def test_checker_failure_is_reported() -> None:
    node = helper.make_node("Relu", ["undefined_value"], ["y"], name="relu0")
    model = raw_model([node], [tensor("x", [2, 3])], [tensor("y", [2, 3])])
    with pytest.raises(ModelImportError, match="invalid ONNX model") as info:
        from_onnx(model)
    assert "undefined_value" in str(info.value)


def test_an_old_ir_model_whose_initializer_is_not_an_input_reads_it_as_a_constant() -> None:
    """Before IR version 4 every initializer was to be a graph input; tools adding
    initializers to such models (onnxruntime's quantizer) leave them out. The checker's
    complaint is set aside for that rule alone: the initializer is a constant, and the
    model's IR version is left as it was. Other checker failures still fail."""
    shift_values = np.array([1.0, 2.0, 3.0], np.float32)
    shift = numpy_helper.from_array(shift_values, "shift")
    node = helper.make_node("Add", ["x", "shift"], ["y"], name="add0")
    model = raw_model(
        [node], [tensor("x", [2, 3])], [tensor("y", [2, 3])], opset=7, initializers=[shift]
    )
    model.ir_version = 3
    fn = from_onnx(model)
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(evaluate(fn, {"x": data}), data + shift_values)
    assert model.ir_version == 3
    broken = raw_model(
        [helper.make_node("Relu", ["nowhere"], ["y"], name="relu0")],
        [tensor("x", [2, 3])],
        [tensor("y", [2, 3])],
        opset=7,
        initializers=[shift],
    )
    broken.ir_version = 3
    with pytest.raises(ModelImportError, match=r"invalid ONNX model.*nowhere"):
        from_onnx(broken)


def test_an_op_older_than_its_converter_is_refused_by_name() -> None:
    node = helper.make_node("Add", ["x", "x"], ["y"], name="add6")
    model = raw_model([node], [tensor("x", [2])], [tensor("y", [2])], opset=6)
    with pytest.raises(UnsupportedOpError, match=r"add6.*Add-6 changed before opset 9"):
        from_onnx(model)
    relu = helper.make_node("Relu", ["x"], ["y"])  # Relu-6 is the version opset 9 has
    x = np.array([-1.0, 2.0], np.float32)
    old = raw_model([relu], [tensor("x", [2])], [tensor("y", [2])], opset=6)
    np.testing.assert_array_equal(evaluate(from_onnx(old), {"x": x}), np.maximum(x, 0))


def test_older_opset_imports_ops_unchanged_until_nine() -> None:
    node = helper.make_node("Relu", ["x"], ["y"])
    model = raw_model([node], [tensor("x", [3])], [tensor("y", [3])], opset=8)
    x = np.array([-1.0, 0.5, 2.0], np.float32)
    np.testing.assert_array_equal(evaluate(from_onnx(model), {"x": x}), np.maximum(x, 0))
    # Greater-7 accepted only float inputs; Greater-9 is what the converter is written for.
    node = helper.make_node("Greater", ["x", "x"], ["y"], name="greater0")
    model = raw_model([node], [tensor("x", [3])], [tensor("y", [3], TensorProto.BOOL)], opset=8)
    with pytest.raises(UnsupportedOpError, match=r"'greater0' \(Greater, opset 8\): Greater-7"):
        from_onnx(model)


def test_newer_opset_imports_ops_whose_interface_is_unchanged() -> None:
    nodes = [
        helper.make_node("Cast", ["x"], ["c"], to=TensorProto.FLOAT),
        helper.make_node("Reshape", ["c", "shape"], ["r"]),
        helper.make_node("Relu", ["r"], ["y"]),
    ]
    shape = helper.make_tensor("shape", TensorProto.INT64, [1], [-1])
    opset = onnx.defs.onnx_opset_version()
    assert opset > 21
    model = raw_model(
        nodes, [tensor("x", [2, 3], TensorProto.INT32)], [tensor("y", [6])], opset, [shape]
    )
    x = np.array([[1, -2, 3], [-4, 5, -6]], np.int32)
    result = evaluate(from_onnx(model), {"x": x})
    np.testing.assert_array_equal(result, np.maximum(x, 0).reshape(-1).astype(np.float32))


def test_newer_opset_rejects_attributes_added_after_21() -> None:
    node = helper.make_node(
        "Range", ["start", "limit", "delta"], ["y"], name="range_stash", stash_type=1
    )
    scalars = [tensor(name, [], TensorProto.FLOAT) for name in ("start", "limit", "delta")]
    model = raw_model([node], scalars, [tensor("y", [4])], opset=27)
    with pytest.raises(UnsupportedOpError, match=r"range_stash.*stash_type.*opset 21"):
        from_onnx(model)


# --- unsupported content ---------------------------------------------------------------


def test_unsupported_op_names_op_node_opset_and_supported_ops() -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu0"),
        helper.make_node("RandomUniformLike", ["r"], ["y"], name="my_random"),
    ]
    model = make_model(nodes, {"x": ([2, 3], np.float32)}, opset=13)
    with pytest.raises(UnsupportedOpError) as info:
        from_onnx(model)
    message = str(info.value)
    for expected in ("RandomUniformLike", "my_random", "opset 13", "Conv", "Relu"):
        assert expected in message


def test_unsupported_attribute_value_names_node_and_attribute() -> None:
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv_bad", auto_pad="SIDEWAYS")
    weight = helper.make_tensor("w", TensorProto.FLOAT, [2, 1, 3, 3], np.zeros(18).tolist())
    model = raw_model(
        [node], [tensor("x", [1, 1, 5, 5])], [tensor("y", [1, 2, 5, 5])], initializers=[weight]
    )
    with pytest.raises(UnsupportedOpError, match="conv_bad") as info:
        from_onnx(model)
    assert "auto_pad='SIDEWAYS'" in str(info.value)
    assert "SAME_UPPER" in str(info.value)


def test_non_default_domain_is_unsupported() -> None:
    node = helper.make_node("FusedThing", ["x"], ["y"], name="fused0", domain="com.example")
    model = raw_model(
        [node],
        [tensor("x", [2])],
        [tensor("y", [2])],
        extra_opsets=[helper.make_opsetid("com.example", 1)],
    )
    with pytest.raises(UnsupportedOpError, match=r"fused0.*domain 'com\.example'"):
        from_onnx(model)


def test_cast_to_unsupported_dtype_names_attribute() -> None:
    node = helper.make_node("Cast", ["x"], ["y"], name="cast0", to=TensorProto.STRING)
    model = raw_model([node], [tensor("x", [2])], [tensor("y", [2], TensorProto.STRING)])
    with pytest.raises(UnsupportedOpError, match=r"cast0.*attribute to='STRING'"):
        from_onnx(model)


def test_an_optional_output_the_converter_does_not_produce_is_refused_when_used() -> None:
    """BatchNormalization's running mean (a training output) read by another node."""
    stats = [numpy_helper.from_array(np.ones(2, np.float32), n) for n in ("s", "b", "m", "v")]
    nodes = [
        helper.make_node(
            "BatchNormalization", ["x", "s", "b", "m", "v"], ["y0", "mean", "var"], name="bn0"
        ),
        helper.make_node("Identity", ["mean"], ["y"]),
    ]
    model = raw_model(
        nodes, [tensor("x", [1, 2, 3, 3])], [tensor("y", [2])], opset=15, initializers=stats
    )
    with pytest.raises(UnsupportedOpError, match=r"bn0.*output 1 \(running_mean"):
        from_onnx(model)


def test_max_pool_unused_indices_output_is_fine() -> None:
    nodes = [
        helper.make_node("MaxPool", ["x"], ["y", "indices"], name="pool0", kernel_shape=[2, 2]),
    ]
    model = make_model(nodes, {"x": ([1, 1, 4, 4], np.float32)})
    assert from_onnx(model).ret_type.shape == (1, 1, 3, 3)  # type: ignore[union-attr]


def test_dropout_in_training_mode_is_unsupported() -> None:
    node = helper.make_node("Dropout", ["x", "", "training"], ["y"], name="drop0")
    model = make_model(
        [node], {"x": ([2, 3], np.float32)}, initializers={"training": np.array(True)}
    )
    with pytest.raises(UnsupportedOpError, match=r"drop0.*training_mode=True"):
        from_onnx(model)


# --- shapes ----------------------------------------------------------------------------


def _symbolic_model() -> onnx.ModelProto:
    node = helper.make_node("Relu", ["images"], ["y"])
    return make_model([node], {"images": (["batch", 3, "height", 8], np.float32)})


def test_unbound_symbolic_dim_names_input_and_dims() -> None:
    with pytest.raises(ShapeBindingError) as info:
        from_onnx(_symbolic_model())
    message = str(info.value)
    for expected in ("'images'", "'batch'", "'height'", "shape="):
        assert expected in message


def test_binding_an_unknown_input_lists_the_inputs() -> None:
    with pytest.raises(ShapeBindingError, match=r"'imgs'.*not an input.*\['images'\]"):
        from_onnx(_symbolic_model(), shape={"imgs": (1, 3, 4, 8)})


@pytest.mark.parametrize(
    ("bound", "pattern"),
    [
        ((1, 3, 4), r"rank 3.*rank 4"),
        ((1, 4, 4, 8), r"dim 1 \(4 vs 3\)"),
        ((1, 3, 4, 9), r"dim 3 \(9 vs 8\)"),
    ],
)
def test_conflicting_bound_shape(bound: tuple[int, ...], pattern: str) -> None:
    with pytest.raises(ShapeBindingError, match=pattern):
        from_onnx(_symbolic_model(), shape={"images": bound})


def test_inconsistent_shapes_name_the_node_and_both_shapes() -> None:
    node = helper.make_node("Add", ["a", "b"], ["y"], name="bad_add")
    model = raw_model([node], [tensor("a", [2, 3]), tensor("b", [4, 5])], [tensor("y", [2, 3])])
    with pytest.raises(TypeInferenceError) as info:
        from_onnx(model)
    message = str(info.value)
    for expected in ("bad_add", "(2, 3)", "(4, 5)"):
        assert expected in message


def test_reshape_to_a_runtime_shape_must_be_static() -> None:
    node = helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape_dyn")
    model = raw_model(
        [node],
        [tensor("x", [2, 6]), tensor("target", [2], TensorProto.INT64)],
        [tensor("y", ["a", "b"])],
    )
    with pytest.raises(ModelImportError) as info:
        from_onnx(model)
    message = str(info.value)
    for expected in ("reshape_dyn", "shape", "compile-time constant", "'target'", "bind"):
        assert expected in message


def test_reshape_from_a_shape_computation_is_static() -> None:
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Slice", ["s", "zero", "one"], ["batch"]),
        helper.make_node("Concat", ["batch", "minus_one"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    initializers = [
        helper.make_tensor(name, TensorProto.INT64, [1], [value])
        for name, value in (("zero", 0), ("one", 1), ("minus_one", -1))
    ]
    model = raw_model(
        nodes, [tensor("x", ["n", 3, 4])], [tensor("y", ["n", 12])], initializers=initializers
    )
    function = from_onnx(model, shape={"x": (5, 3, 4)})
    assert function.ret_type == TensorType((5, 12), "float32")


def test_unknown_output_name() -> None:
    with pytest.raises(ModelImportError, match=r"unknown output value\(s\) \['nope'\]"):
        from_onnx(_symbolic_model(), shape={"images": (1, 3, 4, 8)}, outputs=["nope"])
