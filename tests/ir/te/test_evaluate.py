"""The TE interpreter on hand-written tensor expressions, checked against plain numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ir.reference import check_close
from ir.te.evaluate import evaluate_te
from ir.te.tensor import (
    TEError,
    compute,
    max_reduce,
    min_reduce,
    placeholder,
    prod_reduce,
    reduce_axis,
    sum_reduce,
)
from ir.tir.expr import (
    PrimExpr,
    cast,
    const,
    intrinsic,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    select,
)

RNG = np.random.default_rng(0)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def test_matmul() -> None:
    lhs, rhs = placeholder((5, 7), name="A"), placeholder((7, 3), name="B")
    k = reduce_axis(7, "k")
    out = compute((5, 3), lambda i, j: sum_reduce(lhs[i, k] * rhs[k, j], k), name="C")
    a, b = randn(5, 7), randn(7, 3)
    (result,) = evaluate_te([out], {lhs: a, rhs: b})
    assert result.dtype == np.float32
    check_close(result, a @ b)
    # Inputs may also be bound by placeholder name.
    check_close(evaluate_te([out], {"A": a, "B": b})[0], a @ b)


@pytest.mark.parametrize("max_grid_elements", [20_000_000, 50, 1])
def test_conv_with_a_padding_stage(max_grid_elements: int) -> None:
    batch, channels, height, width, out_channels, kernel, pad = 2, 3, 6, 5, 4, 3, 1
    data = placeholder((batch, channels, height, width), name="data")
    weight = placeholder((out_channels, channels, kernel, kernel), name="weight")

    def pad_body(n: PrimExpr, c: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
        inside = logical_and(
            logical_and(y >= pad, y < height + pad), logical_and(x >= pad, x < width + pad)
        )
        return select(inside, data[n, c, y - pad, x - pad], 0.0)

    padded = compute((batch, channels, height + 2 * pad, width + 2 * pad), pad_body, name="pad")
    rc, ry, rx = reduce_axis(channels, "rc"), reduce_axis(kernel, "ry"), reduce_axis(kernel, "rx")
    conv = compute(
        (batch, out_channels, height, width),
        lambda n, k, y, x: sum_reduce(
            padded[n, rc, y + ry, x + rx] * weight[k, rc, ry, rx], [rc, ry, rx]
        ),
        name="conv",
    )
    d, w = randn(batch, channels, height, width), randn(out_channels, channels, kernel, kernel)
    result, padded_value = evaluate_te(
        [conv, padded], {data: d, weight: w}, max_grid_elements=max_grid_elements
    )
    expected_pad = np.pad(d, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    check_close(padded_value, expected_pad)
    expected = np.zeros((batch, out_channels, height, width), np.float64)
    for dy in range(kernel):
        for dx in range(kernel):
            window = expected_pad[:, :, dy : dy + height, dx : dx + width]
            expected += np.einsum("nchw,kc->nkhw", window, w[:, :, dy, dx])
    check_close(result, expected.astype(np.float32))


def test_select_discards_out_of_range_reads_but_bare_reads_are_errors() -> None:
    data = placeholder((6,), name="data")
    shifted = compute((6,), lambda i: select(i >= 1, data[i - 1], -1.0), name="shifted")
    values = randn(6)
    (result,) = evaluate_te([shifted], {data: values})
    check_close(result, np.concatenate([[-1.0], values[:-1]]).astype(np.float32))

    bare = compute((6,), lambda i: data[i - 1], name="bare")
    with pytest.raises(TEError, match=r"compute bare.*element \(0,\).*data\[6\] axis 0"):
        evaluate_te([bare], {data: values})
    # A select whose taken branch reads out of range is still an error.
    wrong = compute((6,), lambda i: select(i >= 1, data[i + 1], 0.0), name="wrong")
    with pytest.raises(TEError, match=r"compute wrong.*element \(5,\)"):
        evaluate_te([wrong], {data: values})


def test_reductions_with_where() -> None:
    data = placeholder((4, 6), name="data")
    k = reduce_axis(6, "k")
    prefix = compute(
        (4, 6), lambda i, j: sum_reduce(data[i, k], k, where=k.var <= j), name="prefix"
    )
    # A window reading past the ends, kept in range by the condition (as LRN does).
    r = reduce_axis(3, "r")
    window = compute(
        (4, 6),
        lambda i, j: max_reduce(
            data[i, j + r - 1], r, where=logical_and(j + r - 1 >= 0, j + r - 1 < 6)
        ),
        name="window",
    )
    never = compute((4,), lambda i: min_reduce(data[i, k], k, where=k.var > 10), name="never")
    values = randn(4, 6)
    prefix_value, window_value, never_value = evaluate_te([prefix, window, never], {data: values})
    check_close(prefix_value, np.cumsum(values, axis=1), rtol=1e-5, atol=1e-5)
    padded = np.pad(values, ((0, 0), (1, 1)), constant_values=-np.inf)
    expected = np.max([padded[:, 0:6], padded[:, 1:7], padded[:, 2:8]], axis=0)
    check_close(window_value, expected)
    assert np.all(np.isposinf(never_value))


def test_every_combiner_and_scalar_outputs() -> None:
    data = placeholder((3, 4), "int32", name="data")
    i, j = reduce_axis(3, "i"), reduce_axis(4, "j")
    outs = [
        compute((), lambda: sum_reduce(data[i, j], [i, j]), name="sum"),
        compute((), lambda: prod_reduce(data[i, j], [i, j]), name="prod"),
        compute((4,), lambda c: max_reduce(data[i, c], i), name="max"),
        compute((3,), lambda r: min_reduce(data[r, j], j), name="min"),
    ]
    values = RNG.integers(-5, 6, (3, 4)).astype(np.int32)
    total, product, largest, smallest = evaluate_te(outs, {data: values})
    assert total.shape == () and total.dtype == np.int32 and total == values.sum()
    assert product == np.prod(values, dtype=np.int32)
    np.testing.assert_array_equal(largest, values.max(axis=0))
    np.testing.assert_array_equal(smallest, values.min(axis=1))


def test_integer_arithmetic_semantics() -> None:
    lhs, rhs = placeholder((8,), "int64", "lhs"), placeholder((8,), "int64", "rhs")
    outs = [
        compute((8,), lambda i: lhs[i] // rhs[i], name="floordiv"),
        compute((8,), lambda i: lhs[i] % rhs[i], name="floormod"),
        compute((8,), lambda i: lhs[i] / rhs[i], name="div"),
        compute((8,), lambda i: cast("int8", lhs[i] * 40), name="wrap"),
    ]
    a = np.array([7, -7, 7, -7, 6, -6, 0, 1], dtype=np.int64)
    b = np.array([2, 2, -2, -2, 3, 3, 5, -1], dtype=np.int64)
    floordiv, floormod, div, wrap = evaluate_te(outs, {lhs: a, rhs: b})
    assert floordiv.tolist() == [x // y for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    assert floormod.tolist() == [x % y for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    assert div.tolist() == [math.trunc(x / y) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    assert wrap.dtype == np.int8 and wrap.tolist() == (a * 40).astype(np.int8).tolist()


def test_intrinsics_logic_and_casts() -> None:
    data = placeholder((10,), name="x")
    values = np.linspace(-2.0, 2.0, 10, dtype=np.float32)

    def erf(x: np.ndarray) -> np.ndarray:
        return np.array([math.erf(v) for v in x.astype(np.float64)], dtype=np.float32)

    cases = {
        "exp": (lambda x: intrinsic("exp", x), np.exp(values)),
        "tanh": (lambda x: intrinsic("tanh", x), np.tanh(values)),
        "erf": (lambda x: intrinsic("erf", x), erf(values)),
        "sigmoid": (lambda x: intrinsic("sigmoid", x), 1 / (1 + np.exp(-values))),
        "pow": (lambda x: intrinsic("pow", intrinsic("fabs", x), 1.5), np.abs(values) ** 1.5),
        "rsqrt": (lambda x: intrinsic("rsqrt", x * x + 1.0), 1 / np.sqrt(values**2 + 1)),
        "floor": (lambda x: intrinsic("floor", x), np.floor(values)),
        "round": (lambda x: intrinsic("round", x * 2.0), np.rint(values * 2)),
        "relu": (lambda x: maximum(x, 0.0), np.maximum(values, 0)),
        "logic": (
            lambda x: select(
                logical_or(logical_not(x > 0.5), logical_and(x > 1.0, x < 1.5)),
                x,
                const(9.0, "float32"),
            ),
            np.where((values <= 0.5) | ((values > 1.0) & (values < 1.5)), values, 9.0),
        ),
        "cast": (lambda x: cast("float32", cast("int32", x * 3.0)), np.trunc(values * 3)),
    }
    outs = [
        compute((10,), lambda i, f=fn: f(data[i]), name=name) for name, (fn, _) in cases.items()
    ]
    results = evaluate_te(outs, {data: values})
    for (name, (_, expected)), result in zip(cases.items(), results, strict=True):
        check_close(result, np.asarray(expected, dtype=np.float32), what=name)


def test_shared_stages_are_evaluated_once_and_inputs_are_checked() -> None:
    data = placeholder((3,), name="data")
    doubled = compute((3,), lambda i: data[i] * 2.0, name="doubled")
    total = compute((3,), lambda i: doubled[i] + doubled[2 - i], name="total")
    values = randn(3)
    check_close(evaluate_te([total], {data: values})[0], values * 2 + values[::-1] * 2)
    with pytest.raises(TEError, match="no value given for placeholder data"):
        evaluate_te([total], {})
    with pytest.raises(TEError, match=r"data expects shape \(3,\) float32, got \(4,\) float32"):
        evaluate_te([total], {data: randn(4)})
