"""ONNX Det, compiled and run, against numpy's det: random, singular, permuted and
ill-scaled matrices of orders 1 to 6, batched or not, float32 and float64."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper

from codegen.executor import compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target
from ir.errors import ModelImportError
from tests.ir.frontend.onnx_helpers import make_model


def _run(x: np.ndarray) -> np.ndarray:
    node = helper.make_node("Det", ["x"], ["y"], name="det")
    model = make_model([node], {"x": (x.shape, x.dtype)}, {"y": x.dtype}, opset=22)
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    return np.asarray(compiled.run({"x": x}))


@settings(max_examples=30, deadline=None)
@given(
    order=st.integers(1, 6),
    batch=st.sampled_from([(), (3,), (2, 2)]),
    kind=st.sampled_from(["random", "singular", "permutation", "scaled"]),
    dtype=st.sampled_from([np.float32, np.float64]),
    seed=st.integers(0, 2**16),
)
def test_det_matches_numpy(
    order: int, batch: tuple[int, ...], kind: str, dtype: type, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((*batch, order, order))
    if kind == "singular" and order > 1:
        x[..., -1, :] = x[..., 0, :] * 2.0  # a row twice another
    elif kind == "permutation":
        x = np.eye(order)[rng.permutation(order)] * rng.uniform(0.5, 2.0, order)
        x = np.broadcast_to(x, (*batch, order, order)).copy()
    elif kind == "scaled":
        x = x * np.logspace(-3, 3, order)[:, None]
    x = x.astype(dtype)
    actual = _run(x)
    expected = np.linalg.det(x.astype(np.float64))
    assert actual.shape == batch and actual.dtype == dtype
    scale = np.prod(np.abs(x.astype(np.float64)).max(axis=-1), axis=-1) + 1e-30  # Hadamard
    np.testing.assert_allclose(actual / scale, expected / scale, atol=1e-5)


def test_det_of_a_non_square_matrix_names_the_node() -> None:
    graph = helper.make_graph(
        [helper.make_node("Det", ["x"], ["y"], name="det")],
        "bad",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 8
    target = host_target()
    with pytest.raises(ModelImportError, match=r"'det'.*square matrices"):
        prepare_for_target(model, target)
