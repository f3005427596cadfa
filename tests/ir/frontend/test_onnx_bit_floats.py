"""Casts to and from the bits-only element types (float8, float4, bfloat16), compiled and
checked against ml_dtypes: rounding half to even, saturation (or infinity / NaN with
saturate=0), NaN; bfloat16 ops computing in float32 and rounding each result; and ops
that would compute with a float8 tensor refused by name."""

from __future__ import annotations

from functools import cache
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from onnx import TensorProto, helper

from codegen.executor import CompiledModel, compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target
from ir.errors import UnsupportedOpError
from ir.frontend.onnx import from_onnx

SMALL_FLOATS = {
    "float8_e4m3fn": TensorProto.FLOAT8E4M3FN,
    "float8_e4m3fnuz": TensorProto.FLOAT8E4M3FNUZ,
    "float8_e5m2": TensorProto.FLOAT8E5M2,
    "float8_e5m2fnuz": TensorProto.FLOAT8E5M2FNUZ,
    "float4_e2m1fn": TensorProto.FLOAT4E2M1,
}
COUNT = 64


def _finfo(dtype: str) -> Any:
    return ml_dtypes.finfo(dtype)  # type: ignore[no-untyped-call]


def _cast_model(source: int, dest: int, saturate: int | None = None) -> Any:
    attrs: dict[str, Any] = {} if saturate is None else {"saturate": saturate}
    graph = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["y"], to=dest, name="cast", **attrs)],
        "cast",
        [helper.make_tensor_value_info("x", source, [COUNT])],
        [helper.make_tensor_value_info("y", dest, [COUNT])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return model


@cache
def _compiled(source: int, dest: int, saturate: int | None = None) -> CompiledModel:
    target = host_target()
    prepared = prepare_for_target(_cast_model(source, dest, saturate), target)
    return compile_model(prepared.function, target)


def _expected(values: np.ndarray, dtype: str, saturate: bool) -> np.ndarray:
    """ONNX's Cast to a float8 type: ml_dtypes' rounding, with saturation clipping first
    (a value past the largest rounds to it or beyond, which saturates to it)."""
    if saturate:
        largest = float(_finfo(dtype).max)
        values = np.where(np.isnan(values), values, np.clip(values, -largest, largest))
    return np.asarray(values.astype(dtype).astype(np.float32))


def _interesting(dtype: str) -> np.ndarray:
    """Every finite value of the format, the midpoints between neighbours (ties), values
    just off them, beyond the range, and infinities and NaN."""
    codes = np.arange(1 << _finfo(dtype).bits, dtype=np.uint8)
    values = np.unique(codes.view(dtype).astype(np.float32))
    values = values[np.isfinite(values)]
    middles = (values[1:] + values[:-1]) / 2
    nudged = np.concatenate([np.nextafter(middles, np.inf), np.nextafter(middles, -np.inf)])
    largest = float(values.max())
    extra = np.array([largest * 1.1, largest * 4, np.inf, -np.inf, np.nan, 1e-30, -1e-30])
    return np.concatenate([values, middles, nudged, extra, -extra]).astype(np.float32)


def _run(model: CompiledModel, values: np.ndarray) -> np.ndarray:
    padded = np.resize(values, COUNT).astype(values.dtype)
    return np.asarray(model.run({"x": padded}))


@pytest.mark.parametrize("saturate", [1, 0])
@pytest.mark.parametrize("dtype", sorted(SMALL_FLOATS))
def test_float32_to_a_small_float_rounds_and_saturates_as_onnx(dtype: str, saturate: int) -> None:
    model = _compiled(TensorProto.FLOAT, SMALL_FLOATS[dtype], saturate)
    values = _interesting(dtype)
    for start in range(0, values.size, COUNT):
        chunk = np.resize(values[start : start + COUNT], COUNT)
        got = _run(model, chunk)
        assert got.dtype == np.dtype(dtype)
        want = _expected(chunk, dtype, bool(saturate) or "float4" in dtype)
        np.testing.assert_array_equal(got.astype(np.float32), want, err_msg=f"{chunk}")


@pytest.mark.parametrize("dtype", sorted(SMALL_FLOATS))
def test_every_code_decodes_exactly(dtype: str) -> None:
    codes = np.arange(1 << _finfo(dtype).bits, dtype=np.uint8).view(dtype)
    model = _compiled(SMALL_FLOATS[dtype], TensorProto.FLOAT)
    for start in range(0, codes.size, COUNT):
        chunk = np.resize(codes[start : start + COUNT], COUNT)
        want = chunk.astype(np.float32)
        np.testing.assert_array_equal(_run(model, chunk), want)


finite_floats = hnp.arrays(
    np.float32, COUNT, elements=st.floats(-1e5, 1e5, allow_nan=False, width=32)
)


@settings(max_examples=60, deadline=None)
@given(values=finite_floats, dtype=st.sampled_from(sorted(SMALL_FLOATS)))
def test_encoding_any_float_matches_ml_dtypes(values: np.ndarray, dtype: str) -> None:
    got = _run(_compiled(TensorProto.FLOAT, SMALL_FLOATS[dtype], 1), values)
    np.testing.assert_array_equal(got.astype(np.float32), _expected(values, dtype, True))


@settings(max_examples=60, deadline=None)
@given(values=hnp.arrays(np.float32, COUNT, elements=st.floats(width=32)))
def test_bfloat16_rounds_half_to_even_both_ways(values: np.ndarray) -> None:
    encoded = _run(_compiled(TensorProto.FLOAT, TensorProto.BFLOAT16), values)
    want = values.astype(ml_dtypes.bfloat16)
    assert encoded.dtype == want.dtype
    np.testing.assert_array_equal(encoded.astype(np.float32), want.astype(np.float32))
    decoded = _run(_compiled(TensorProto.BFLOAT16, TensorProto.FLOAT), want)
    np.testing.assert_array_equal(decoded, want.astype(np.float32))


def test_bfloat16_ops_compute_in_float32_and_round_each_result() -> None:
    nodes = [
        helper.make_node("Mul", ["a", "b"], ["m"], name="mul"),
        helper.make_node("Exp", ["m"], ["y"], name="exp"),
    ]
    graph = helper.make_graph(
        nodes,
        "bf16",
        [helper.make_tensor_value_info(name, TensorProto.BFLOAT16, [3, 5]) for name in "ab"],
        [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [3, 5])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    rng = np.random.default_rng(2)
    a, b = (rng.normal(0, 1, (3, 5)).astype(ml_dtypes.bfloat16) for _ in range(2))
    target = host_target()
    got = compile_model(prepare_for_target(model, target).function, target).run({"a": a, "b": b})
    product = (a.astype(np.float32) * b.astype(np.float32)).astype(ml_dtypes.bfloat16)
    want = np.exp(product.astype(np.float32)).astype(ml_dtypes.bfloat16)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.astype(np.float32), want.astype(np.float32))


def test_computing_with_a_float8_tensor_is_refused_by_name() -> None:
    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "a"], ["y"], name="add_f8")],
        "f8",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT8E4M3FN, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT8E4M3FN, [4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    with pytest.raises(UnsupportedOpError, match=r"add_f8.*add of a float8_e4m3fn tensor"):
        from_onnx(model)


def _e8m0_model(round_mode: str, saturate: int) -> Any:
    node = helper.make_node(
        "Cast",
        ["x"],
        ["y"],
        to=TensorProto.FLOAT8E8M0,
        round_mode=round_mode,
        saturate=saturate,
        name="cast",
    )
    graph = helper.make_graph(
        [node],
        "cast_e8m0",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [COUNT])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT8E8M0, [COUNT])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    model.ir_version = 11
    return model


def _e8m0_interesting() -> np.ndarray:
    """Powers of two across the whole range, values just off them, halfway and just off
    halfway, subnormals, the largest floats, zeros of both signs, negatives, inf, NaN."""
    powers = np.float32(2.0) ** np.arange(-126, 128, dtype=np.float32)
    near = np.concatenate([np.nextafter(powers, np.inf), np.nextafter(powers, 0)])
    halves = powers * np.float32(1.5)
    near_halves = np.concatenate([np.nextafter(halves, np.inf), np.nextafter(halves, 0)])
    tiny = np.array([1e-45, 3e-39, 1.1754942e-38, 0.0, -0.0], np.float32)
    special = np.array([np.finfo(np.float32).max, np.inf, -np.inf, np.nan], np.float32)
    values = np.concatenate([powers, near, halves, near_halves, tiny, special])
    return np.concatenate([values, -values]).astype(np.float32)


@pytest.mark.parametrize("saturate", [1, 0])
@pytest.mark.parametrize("round_mode", ["up", "down", "nearest"])
def test_float32_to_e8m0_rounds_and_saturates_as_onnx(round_mode: str, saturate: int) -> None:
    from onnx.numpy_helper import to_float8e8m0

    target = host_target()
    model = compile_model(
        prepare_for_target(_e8m0_model(round_mode, saturate), target).function, target
    )
    values = _e8m0_interesting()
    for start in range(0, values.size, COUNT):
        chunk = np.resize(values[start : start + COUNT], COUNT)
        got = _run(model, chunk)
        assert got.dtype == np.dtype("float8_e8m0fnu")
        want = to_float8e8m0(chunk, saturate=bool(saturate), round_mode=round_mode)
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), err_msg=f"{chunk}")


def test_an_unknown_e8m0_round_mode_is_refused_by_name() -> None:
    with pytest.raises(UnsupportedOpError, match=r"node 'cast' .*round_mode"):
        from_onnx(_e8m0_model("sideways", 1))
