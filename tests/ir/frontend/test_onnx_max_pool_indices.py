"""MaxPool's Indices output, compiled and run, against onnxruntime: 1-D and 2-D windows
with pads, strides, dilations and ceil_mode, both storage orders, several batches and
channels (the index counts them), ties; a 3-D pool's Indices are refused by name."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper

from codegen.executor import compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target
from ir.errors import UnsupportedOpError
from tests.ir.frontend.onnx_helpers import make_model, run_onnxruntime

RNG = np.random.default_rng(31)

CASES: list[tuple[tuple[int, ...], dict[str, Any]]] = [
    ((2, 3, 7, 6), {"kernel_shape": [3, 3]}),
    ((2, 3, 7, 6), {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 1, 1]}),
    ((1, 2, 8, 8), {"kernel_shape": [2, 2], "dilations": [2, 2], "storage_order": 1}),
    ((1, 2, 7, 7), {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
    ((2, 2, 9), {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
    ((1, 1, 5, 5), {"kernel_shape": [5, 5], "pads": [2, 2, 2, 2], "storage_order": 1}),
]


def _model(shape: tuple[int, ...], attrs: dict[str, Any]) -> Any:
    node = helper.make_node("MaxPool", ["x"], ["y", "z"], name="pool", **attrs)
    return make_model([node], {"x": (shape, np.float32)}, {"y": np.float32, "z": np.int64})


def _run(model: Any, x: np.ndarray) -> list[np.ndarray]:
    target = host_target()
    outputs = compile_model(prepare_for_target(model, target).function, target).run({"x": x})
    return [np.asarray(value) for value in outputs]


@pytest.mark.parametrize(("shape", "attrs"), CASES)
def test_max_pool_indices_match_onnxruntime(shape: tuple[int, ...], attrs: dict[str, Any]) -> None:
    model = _model(shape, attrs)
    x = RNG.standard_normal(shape).astype(np.float32)
    values, indices = _run(model, x)
    expected_values, expected_indices = run_onnxruntime(model, {"x": x})
    np.testing.assert_array_equal(values, expected_values)
    assert indices.dtype == np.int64
    np.testing.assert_array_equal(indices, expected_indices)


def test_ties_take_the_first_maximum_of_the_window() -> None:
    shape = (1, 2, 4, 4)
    model = _model(shape, {"kernel_shape": [2, 2], "strides": [1, 1]})
    x = np.ones(shape, np.float32)
    _, indices = _run(model, x)
    expected = run_onnxruntime(model, {"x": x})[1]
    np.testing.assert_array_equal(indices, expected)
    assert indices[0, 1, 0, 0] == 16  # the second channel's first element


def test_the_indices_of_a_3d_pool_are_refused_by_name() -> None:
    model = _model((1, 1, 4, 4, 4), {"kernel_shape": [2, 2, 2]})
    with pytest.raises(UnsupportedOpError, match=r"'pool'.*Indices output of a 3-D MaxPool"):
        _run(model, np.zeros((1, 1, 4, 4, 4), np.float32))
