"""ONNX MaxUnpool, compiled and run, against onnxruntime: on the indices of onnxruntime's
own MaxPool (1-D to 3-D, overlapping and padded windows), after our MaxPool in one model
(the SegNet pattern), with output_shape, and with operands that do not fit."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from onnx import helper

from ir.errors import ModelImportError
from tests.ir.frontend.onnx_helpers import make_model, run_compiled, run_onnxruntime

RNG = np.random.default_rng(41)


def _pooled(x: np.ndarray, **window: Any) -> tuple[np.ndarray, np.ndarray]:
    """onnxruntime's MaxPool of `x` and its indices."""
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], **window)
    inputs: dict[str, np.ndarray] = {"x": x}
    model = make_model([node], inputs, {"y": np.float32, "i": np.int64}, None, 12)
    pooled, indices = run_onnxruntime(model, {"x": x})
    return pooled, indices


def _unpool_model(
    pooled: np.ndarray, output_shape: np.ndarray | None = None, **window: Any
) -> onnx.ModelProto:
    inputs = ["x", "i"] + ([] if output_shape is None else ["shape"])
    node = helper.make_node("MaxUnpool", inputs, ["y"], name="unpool", **window)
    consts = {} if output_shape is None else {"shape": output_shape}
    # ONNX's shape inference cannot type the output of a given output_shape.
    out_shape = None
    if output_shape is not None:
        spatial = [int(size) for size in output_shape[-(pooled.ndim - 2) :]]
        out_shape = [*pooled.shape[:2], *spatial]
    inputs_typed: dict[str, tuple[Any, Any]] = {
        "x": (pooled.shape, np.float32),
        "i": (pooled.shape, np.int64),
    }
    outputs = {"y": np.float32 if out_shape is None else (np.float32, out_shape)}
    return make_model([node], inputs_typed, outputs, consts, 11)


@settings(max_examples=20, deadline=None)
@given(data=st.data(), rank=st.integers(1, 3), ceil=st.booleans())
def test_max_unpool_puts_the_maxima_back(data: st.DataObject, rank: int, ceil: bool) -> None:
    spatial = [data.draw(st.integers(2, 7)) for _ in range(rank)]
    kernel = [data.draw(st.integers(1, 3)) for _ in range(rank)]
    strides = [data.draw(st.integers(1, 3)) for _ in range(rank)]
    pads = [data.draw(st.integers(0, (k - 1) // 2)) for k in kernel] * 2
    assume(all(k <= size + 2 * p for size, k, p in zip(spatial, kernel, pads, strict=False)))
    window: dict[str, Any] = {"kernel_shape": kernel, "strides": strides, "pads": pads}
    x = RNG.standard_normal((2, 3, *spatial)).astype(np.float32)
    pooled, indices = _pooled(x, ceil_mode=int(ceil), **window)
    inferred = [
        (count - 1) * s - 2 * p + k
        for count, s, p, k in zip(pooled.shape[2:], strides, pads[:rank], kernel, strict=True)
    ]
    # Where the attributes do not give the pool's input shape back, output_shape does
    # (onnxruntime takes none smaller than the inferred one).
    assume(all(size >= guess for size, guess in zip(spatial, inferred, strict=True)))
    shape = None if inferred == spatial else np.array(x.shape, np.int64)
    model = _unpool_model(pooled, shape, **window)
    feeds = {"x": pooled, "i": indices}
    np.testing.assert_array_equal(run_compiled(model, feeds), run_onnxruntime(model, feeds)[0])


def test_max_unpool_after_max_pool_in_one_model() -> None:
    window: dict[str, Any] = {"kernel_shape": [2, 2], "strides": [2, 2]}
    nodes = [
        helper.make_node("MaxPool", ["x"], ["pooled", "where"], **window),
        helper.make_node("Relu", ["pooled"], ["kept"]),
        helper.make_node("MaxUnpool", ["kept", "where"], ["y"], **window),
    ]
    x = RNG.standard_normal((1, 4, 8, 6)).astype(np.float32)
    model = make_model(nodes, {"x": x}, ["y"], None, 12)
    np.testing.assert_array_equal(
        run_compiled(model, {"x": x}), run_onnxruntime(model, {"x": x})[0]
    )


def _scattered(pooled: np.ndarray, indices: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Each pooled value written at its flat index in a zero tensor of `shape` (PyTorch's
    max_unpool)."""
    out = np.zeros(int(np.prod(shape)), pooled.dtype)
    out[indices.reshape(-1)] = pooled.reshape(-1)
    return out.reshape(shape)


@pytest.mark.parametrize("ceil", [0, 1])
def test_max_unpool_to_an_odd_output_shape_reads_the_indices_in_it(ceil: int) -> None:
    # A 7 x 7 input pooled by 2 gives 3 x 3 (4 x 4 with ceil_mode), whose attributes infer
    # 6 x 6 (8 x 8): output_shape says 7 x 7, and the indices count positions in it.
    window: dict[str, Any] = {"kernel_shape": [2, 2], "strides": [2, 2]}
    x = RNG.standard_normal((2, 2, 7, 7)).astype(np.float32)
    pooled, indices = _pooled(x, ceil_mode=ceil, **window)
    model = _unpool_model(pooled, np.array([2, 2, 7, 7], np.int64), **window)
    feeds = {"x": pooled, "i": indices}
    actual = run_compiled(model, feeds)
    np.testing.assert_array_equal(actual, _scattered(pooled, indices, x.shape))
    if not ceil:  # onnxruntime takes no output_shape smaller than the 8 x 8 inferred
        np.testing.assert_array_equal(actual, run_onnxruntime(model, feeds)[0])


def test_max_unpool_with_an_output_shape_of_the_wrong_length_names_the_node() -> None:
    graph = helper.make_graph(
        [
            helper.make_node(
                "MaxUnpool", ["x", "i", "shape"], ["y"], name="unpool", kernel_shape=[2, 2]
            )
        ],
        "bad",
        [
            helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 1, 2, 2]),
            helper.make_tensor_value_info("i", onnx.TensorProto.INT64, [1, 1, 2, 2]),
        ],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 1, 3, 3])],
        [onnx.numpy_helper.from_array(np.array([1, 3, 3], np.int64), "shape")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 8
    feeds: dict[str, np.ndarray] = {
        "x": np.zeros((1, 1, 2, 2), np.float32),
        "i": np.zeros((1, 1, 2, 2), np.int64),
    }
    with pytest.raises(ModelImportError, match=r"'unpool'.*output_shape \[1, 3, 3\] must give 2"):
        run_compiled(model, feeds)
