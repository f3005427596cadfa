"""ONNX Col2Im, compiled and run, against a direct numpy summation of the blocks (1 to 3
spatial dims, random strides, dilations and pads) and against onnxruntime in 2-D."""

from __future__ import annotations

import itertools
import math

import numpy as np
import onnx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from onnx import helper

from codegen.executor import compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target
from ir.errors import ModelImportError
from tests.ir.frontend.onnx_helpers import make_model, run_onnxruntime

RNG = np.random.default_rng(29)


def _model(
    input_shape: tuple[int, ...],
    image: tuple[int, ...],
    block: tuple[int, ...],
    **attrs: list[int],
) -> onnx.ModelProto:
    consts = {"image_shape": np.array(image, np.int64), "block_shape": np.array(block, np.int64)}
    node = helper.make_node("Col2Im", ["x", "image_shape", "block_shape"], ["y"], **attrs)
    return make_model([node], {"x": (input_shape, np.float32)}, ["y"], consts, 18)


Ints = tuple[int, ...]


def _blocks(image: Ints, block: Ints, dil: Ints, pads: Ints, strides: Ints) -> Ints:
    dims = len(image)
    return tuple(
        (image[d] + pads[d] + pads[d + dims] - dil[d] * (block[d] - 1) - 1) // strides[d] + 1
        for d in range(dims)
    )


def _col2im(
    x: np.ndarray, image: Ints, block: Ints, dil: Ints, pads: Ints, strides: Ints
) -> np.ndarray:
    """Each block element added where it lands, one at a time."""
    dims = len(image)
    counts = _blocks(image, block, dil, pads, strides)
    kernel = math.prod(block)
    batch, channels = x.shape[0], x.shape[1] // kernel
    out = np.zeros((batch, channels, *image), np.float64)
    cols = x.reshape(batch, channels, kernel, -1)
    for k, offset in enumerate(itertools.product(*(range(b) for b in block))):
        for b, position in enumerate(itertools.product(*(range(c) for c in counts))):
            pixel = tuple(
                position[d] * strides[d] - pads[d] + offset[d] * dil[d] for d in range(dims)
            )
            if all(0 <= pixel[d] < image[d] for d in range(dims)):
                out[(slice(None), slice(None), *pixel)] += cols[:, :, k, b]
    return out


def _run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    target = host_target()
    return np.asarray(
        compile_model(prepare_for_target(model, target).function, target).run({"x": x})
    )


@settings(max_examples=25, deadline=None)
@given(data=st.data(), dims=st.integers(1, 3))
def test_col2im_sums_every_block_where_it_lands(data: st.DataObject, dims: int) -> None:
    image = tuple(data.draw(st.lists(st.integers(2, 6), min_size=dims, max_size=dims)))
    block = tuple(data.draw(st.integers(1, size)) for size in image)
    dil = tuple(data.draw(st.integers(1, 2)) for _ in range(dims))
    strides = tuple(data.draw(st.integers(1, 3)) for _ in range(dims))
    pads = tuple(data.draw(st.integers(0, 1)) for _ in range(2 * dims))
    counts = _blocks(image, block, dil, pads, strides)
    assume(min(counts) >= 1)
    channels = data.draw(st.integers(1, 2))
    shape = (2, channels * math.prod(block), math.prod(counts))
    x = RNG.standard_normal(shape).astype(np.float32)
    attrs = {"dilations": list(dil), "strides": list(strides), "pads": list(pads)}
    actual = _run(_model(shape, image, block, **attrs), x)
    np.testing.assert_allclose(actual, _col2im(x, image, block, dil, pads, strides), atol=1e-5)


def test_col2im_matches_onnxruntime_in_2d() -> None:
    shape, image, block = (1, 2 * 9, 9), (5, 5), (3, 3)
    model = _model(shape, image, block, strides=[2, 2], pads=[1, 1, 1, 1], dilations=[1, 1])
    x = RNG.standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(_run(model, x), run_onnxruntime(model, {"x": x})[0], atol=1e-5)


def test_col2im_with_the_wrong_number_of_blocks_names_the_node() -> None:
    graph = helper.make_graph(
        [helper.make_node("Col2Im", ["x", "image_shape", "block_shape"], ["y"], name="c2i")],
        "bad",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 4, 7])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 1, 5, 5])],
        [
            onnx.numpy_helper.from_array(np.array([5, 5], np.int64), "image_shape"),
            onnx.numpy_helper.from_array(np.array([2, 2], np.int64), "block_shape"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    with pytest.raises(ModelImportError, match=r"'c2i'.*does not hold the \(4, 4\) blocks"):
        _run(model, np.zeros((1, 4, 7), np.float32))
