"""Property tests: every pass, and the whole pipeline, keeps a graph's values and validity.

A strategy draws small random typed graphs (2-12 ops) over one input variable and
constants: elementwise and broadcasting arithmetic, reductions, pooling, convolutions,
dense layers, batch norms, reshapes, transposes, concatenations, splits, identities the
passes should remove, and duplicated subexpressions. Each pass's output must verify and
compute what the input computes, by the numpy reference.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ir.errors import TypeInferenceError
from ir.graph.nodes import Call, Constant, Expr, Function, Tuple, TupleGetItem, Var, call, const
from ir.graph.passes.dead_code_elimination import dead_code_elimination
from ir.graph.passes.eliminate_common_subexpr import eliminate_common_subexpr
from ir.graph.passes.fold_constant import fold_constant
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_expr, infer_type
from ir.graph.passes.pipeline import optimize, optimize_without_fusion
from ir.graph.passes.simplify_inference import simplify_inference
from ir.graph.passes.verify import verify
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.reference import check_close, evaluate

MAX_ELEMENTS = 2048  # keeps every intermediate small, so an example runs in milliseconds
RTOL, ATOL = 1e-4, 1e-5


@dataclass
class _Builder:
    """The state of one drawn graph: values built so far, and the constants' generator."""

    draw: st.DrawFn
    rng: np.random.Generator
    values: list[Expr]

    def constant(self, shape: tuple[int, ...], low: float = -1.0, high: float = 1.0) -> Constant:
        return const(self.rng.uniform(low, high, size=shape), "float32")

    def pick(self) -> Expr:
        """A value to build on, most often one of the latest."""
        if self.draw(st.integers(0, 3)) > 0:
            return self.values[-1]
        return self.values[self.draw(st.integers(0, len(self.values) - 1))]


def _shape(value: Expr) -> tuple[int, ...]:
    ty = value.checked_type
    assert isinstance(ty, TensorType)
    return ty.shape


def _unary(b: _Builder, value: Expr) -> Expr | None:
    op = b.draw(st.sampled_from(["nn.relu", "sigmoid", "tanh", "exp"]))
    if op == "exp":
        return call("exp", call("tanh", value))  # keeps exp's argument small
    return call(op, value)


def _binary_with_constant(b: _Builder, value: Expr) -> Expr | None:
    shape = _shape(value)
    op = b.draw(st.sampled_from(["add", "multiply", "subtract", "maximum"]))
    suffix = shape[len(shape) - b.draw(st.integers(0, len(shape))) :]
    const_shape = tuple(dim if b.draw(st.booleans()) else 1 for dim in suffix)
    operand = b.constant(const_shape, 0.5, 1.5) if op == "multiply" else b.constant(const_shape)
    if b.draw(st.booleans()):
        return call(op, operand, value)
    return call(op, value, operand)


def _binary_of_values(b: _Builder, value: Expr) -> Expr | None:
    partners = [v for v in b.values if v.checked_type == value.checked_type]
    other = b.draw(st.sampled_from(partners))
    return call(b.draw(st.sampled_from(["add", "multiply", "maximum"])), value, other)


def _reduce(b: _Builder, value: Expr) -> Expr | None:
    ndim = len(_shape(value))
    if ndim == 0:
        return None
    op = b.draw(st.sampled_from(["sum", "mean", "max"]))
    keepdims = b.draw(st.booleans())
    if b.draw(st.integers(0, 4)) == 0:
        return call(op, value, axis=None, keepdims=keepdims)
    axes = b.draw(st.lists(st.integers(-ndim, ndim - 1), min_size=1, max_size=ndim))
    unique = sorted({axis % ndim for axis in axes})
    return call(op, value, axis=tuple(unique), keepdims=keepdims)


def _pool(b: _Builder, value: Expr) -> Expr | None:
    if len(_shape(value)) != 4:
        return None
    kernel = (b.draw(st.integers(1, 3)), b.draw(st.integers(1, 3)))
    padding = tuple(b.draw(st.integers(0, kernel[i % 2] - 1)) for i in range(4))
    strides = (b.draw(st.integers(1, 2)), b.draw(st.integers(1, 2)))
    ceil_mode = b.draw(st.booleans())
    if b.draw(st.booleans()):
        return call(
            "nn.max_pool2d",
            value,
            pool_size=kernel,
            strides=strides,
            padding=padding,
            ceil_mode=ceil_mode,
        )
    return call(
        "nn.avg_pool2d",
        value,
        pool_size=kernel,
        strides=strides,
        padding=padding,
        ceil_mode=ceil_mode,
        count_include_pad=b.draw(st.booleans()),
    )


def _conv2d(b: _Builder, value: Expr) -> Expr | None:
    shape = _shape(value)
    if len(shape) != 4:
        return None
    channels = shape[1]
    groups = b.draw(st.sampled_from([g for g in range(1, channels + 1) if channels % g == 0]))
    out_channels = groups * b.draw(st.integers(1, 3))
    kernel = (b.draw(st.integers(1, 3)), b.draw(st.integers(1, 3)))
    fan_in = channels // groups * kernel[0] * kernel[1]
    weight = b.constant((out_channels, channels // groups, *kernel), -1.0, 1.0)
    weight = const(weight.data / math.sqrt(fan_in), "float32")
    return call(
        "nn.conv2d",
        value,
        weight,
        strides=(b.draw(st.integers(1, 2)), b.draw(st.integers(1, 2))),
        padding=tuple(b.draw(st.integers(0, 1)) for _ in range(4)),
        dilation=(b.draw(st.integers(1, 2)), b.draw(st.integers(1, 2))),
        groups=groups,
    )


def _dense(b: _Builder, value: Expr) -> Expr | None:
    shape = _shape(value)
    if not shape:
        return None
    units = b.draw(st.integers(1, 4))
    weight = b.constant((units, shape[-1]))
    return call("nn.dense", value, const(weight.data / math.sqrt(shape[-1]), "float32"))


def _batch_norm(b: _Builder, value: Expr) -> Expr | None:
    shape = _shape(value)
    if not shape:
        return None
    axis = b.draw(st.integers(-len(shape), len(shape) - 1))
    channels = shape[axis]
    params = (
        b.constant((channels,), 0.5, 1.5),
        b.constant((channels,)),
        b.constant((channels,), -0.5, 0.5),
        b.constant((channels,), 0.5, 2.0),
    )
    epsilon = b.draw(st.sampled_from([1e-5, 1e-3]))
    return call("nn.batch_norm", value, *params, axis=axis, epsilon=epsilon)


def _reshape(b: _Builder, value: Expr) -> Expr | None:
    shape = _shape(value)
    choices: list[tuple[int, ...]] = [(math.prod(shape),), (-1,), shape, (*shape, 1)]
    for axis in range(len(shape) - 1):
        choices.append((*shape[:axis], shape[axis] * shape[axis + 1], *shape[axis + 2 :]))
    return call("reshape", value, newshape=b.draw(st.sampled_from(choices)))


def _transpose(b: _Builder, value: Expr) -> Expr | None:
    ndim = len(_shape(value))
    if b.draw(st.integers(0, 3)) == 0:
        return call("transpose", value)
    return call("transpose", value, axes=tuple(b.draw(st.permutations(range(ndim)))))


def _concatenate(b: _Builder, value: Expr) -> Expr | None:
    shape = _shape(value)
    if not shape:
        return None
    axis = b.draw(st.integers(0, len(shape) - 1))
    others: list[Expr] = [
        v
        for v in b.values
        if len(_shape(v)) == len(shape)
        and all(d == e for i, (d, e) in enumerate(zip(_shape(v), shape, strict=True)) if i != axis)
    ]
    extra_shape = (*shape[:axis], b.draw(st.integers(1, 3)), *shape[axis + 1 :])
    others.append(b.constant(extra_shape))
    inputs = [value, *b.draw(st.lists(st.sampled_from(others), min_size=0, max_size=2))]
    return call("concatenate", *b.draw(st.permutations(inputs)), axis=axis - len(shape))


def _split(b: _Builder, value: Expr) -> Expr | None:
    shape = _shape(value)
    axes = [axis for axis, dim in enumerate(shape) if dim >= 2]
    if not axes:
        return None
    axis = b.draw(st.sampled_from(axes))
    dim = shape[axis]
    sections: int | tuple[int, ...]
    if b.draw(st.booleans()):
        sections = b.draw(st.sampled_from([n for n in range(1, dim + 1) if dim % n == 0]))
        count = sections
    else:
        cuts = b.draw(st.lists(st.integers(1, dim - 1), min_size=1, max_size=3, unique=True))
        sections = tuple(sorted(cuts))
        count = len(sections) + 1
    parts = call("split", value, indices_or_sections=sections, axis=axis)
    first = TupleGetItem(parts, b.draw(st.integers(0, count - 1)))
    if b.draw(st.booleans()):
        return first
    # Read a second field too, so some splits must stay.
    second = TupleGetItem(parts, b.draw(st.integers(0, count - 1)))
    return call("concatenate", first, second, axis=axis)


def _strided_slice(b: _Builder, value: Expr) -> Expr | None:
    shape = _shape(value)
    if not shape:
        return None
    axis = b.draw(st.integers(0, len(shape) - 1))
    begin = b.draw(st.integers(0, shape[axis] - 1))
    end = b.draw(st.integers(begin + 1, shape[axis]))
    step = b.draw(st.integers(1, 2))
    return call("strided_slice", value, begin=(begin,), end=(end,), strides=(step,), axes=(axis,))


def _identity(b: _Builder, value: Expr) -> Expr | None:
    shape = _shape(value)
    kind = b.draw(st.sampled_from(["cast", "copy", "dropout", "reshape", "transpose", "slice"]))
    if kind == "cast":
        return call("cast", value, dtype="float32")
    if kind in ("copy", "dropout"):
        return call("copy" if kind == "copy" else "nn.dropout", value)
    if kind == "reshape":
        return call("reshape", value, newshape=shape)
    if kind == "transpose":
        return call("transpose", value, axes=tuple(range(len(shape))))
    if not shape:
        return None
    return call("strided_slice", value, begin=(0,), end=(shape[0],), axes=(0,))


def _duplicate(b: _Builder, value: Expr) -> Expr | None:
    """`value` combined with a structurally equal but distinct copy of itself."""
    if not isinstance(value, Call):
        return None
    copy = Call(value.op, value.args, value.attrs)
    return call(b.draw(st.sampled_from(["add", "multiply"])), value, copy)


def _siblings(b: _Builder, value: Expr) -> Expr | None:
    """Two calls of one op on `value` that differ only in attributes (CSE must keep both)."""
    shape = _shape(value)
    kind = b.draw(st.sampled_from(["leaky_relu", "clip", "slice"]))
    if kind == "leaky_relu":
        pair = [call("nn.leaky_relu", value, alpha=alpha) for alpha in (0.1, 0.2)]
    elif kind == "clip":
        pair = [call("clip", value, a_min=-0.5, a_max=high) for high in (0.5, 1.0)]
    else:
        axes = [axis for axis, dim in enumerate(shape) if dim >= 2]
        if not axes:
            return None
        axis = b.draw(st.sampled_from(axes))
        pair = [
            call("strided_slice", value, begin=(start,), end=(start + 1,), axes=(axis,))
            for start in (0, 1)
        ]
    return call("subtract", *pair)


BUILDERS: dict[str, Callable[[_Builder, Expr], Expr | None]] = {
    "unary": _unary,
    "binary_with_constant": _binary_with_constant,
    "binary_of_values": _binary_of_values,
    "reduce": _reduce,
    "pool": _pool,
    "conv2d": _conv2d,
    "dense": _dense,
    "batch_norm": _batch_norm,
    "reshape": _reshape,
    "transpose": _transpose,
    "concatenate": _concatenate,
    "split": _split,
    "strided_slice": _strided_slice,
    "identity": _identity,
    "duplicate": _duplicate,
    "siblings": _siblings,
}


def _count_new_calls(expr: Expr, before: set[int]) -> int:
    return sum(isinstance(n, Call) and id(n) not in before for n in post_order(expr))


@st.composite
def graphs(draw: st.DrawFn) -> tuple[Function, np.ndarray]:
    """A random small typed function of one input `x`, and a value for `x`."""
    rank = draw(st.sampled_from([4, 4, 4, 3, 2]))
    shape = {
        4: (
            draw(st.integers(1, 2)),
            draw(st.integers(1, 4)),
            *draw(st.tuples(*[st.integers(3, 6)] * 2)),
        ),
        3: (draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(2, 5))),
        2: (draw(st.integers(1, 4)), draw(st.integers(2, 6))),
    }[rank]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = Var("x", TensorType(shape, "float32"))
    builder = _Builder(draw, rng, [x])
    if draw(st.booleans()):
        builder.values.append(builder.constant(shape))  # a constant subgraph to fold
    target = draw(st.integers(2, 12))
    ops = 0
    for _ in range(4 * target):
        if ops >= target:
            break
        value = builder.pick()
        if len(_shape(value)) == 4 and draw(st.integers(0, 2)) == 0:
            kind = draw(st.sampled_from(["conv2d", "pool"]))  # while the data is still NCHW
        else:
            kind = draw(st.sampled_from(sorted(BUILDERS)))
        built = BUILDERS[kind](builder, value)
        if built is None:
            continue
        try:
            typed = infer_expr(built)
        except TypeInferenceError:
            continue  # e.g. a window that does not fit: draw another op
        if not isinstance(typed.checked_type, TensorType) or typed.checked_type.size > MAX_ELEMENTS:
            continue
        ops += _count_new_calls(typed, {id(n) for v in builder.values for n in post_order(v)})
        builder.values.append(typed)
    # Every value no later value uses is an output, so every op drawn stays live.
    used = {id(child) for v in builder.values for n in post_order(v) for child in n.children()}
    outputs = [v for v in builder.values[1:] if id(v) not in used] or [x]
    body = outputs[0] if len(outputs) == 1 else Tuple(tuple(outputs))
    fn = infer_type(Function((x,), body))
    data = rng.normal(size=shape).astype("float32")
    return fn, data


def _leaves(value: object) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    return [np.asarray(value)]


def _assert_same_values(after: Function, before: Function, data: np.ndarray, what: str) -> None:
    actual = _leaves(evaluate(after, {"x": data}))
    expected = _leaves(evaluate(before, {"x": data}))
    assert len(actual) == len(expected), what
    for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
        check_close(got, want, rtol=RTOL, atol=ATOL, what=f"{what}, output {index}")


PASSES: dict[str, Callable[[Function], Function]] = {
    "simplify_inference": simplify_inference,
    "fold_constant": fold_constant,
    "eliminate_common_subexpr": eliminate_common_subexpr,
    "dead_code_elimination": dead_code_elimination,
    "fuse_ops": fuse_ops,
}

PROPERTY_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(case=graphs())
def test_every_pass_keeps_values_and_validity(case: tuple[Function, np.ndarray]) -> None:
    fn, data = case
    verify(fn)
    for name, graph_pass in PASSES.items():
        after = graph_pass(fn)
        verify(after)
        _assert_same_values(after, fn, data, name)


@PROPERTY_SETTINGS
@given(case=graphs())
def test_pass_specific_postconditions(case: tuple[Function, np.ndarray]) -> None:
    fn, _ = case
    simplified = simplify_inference(fn)
    training_ops = {"nn.batch_norm", "nn.dropout", "copy"}
    assert not any(
        isinstance(n, Call) and n.op in training_ops for n in post_order(simplified.body)
    )
    merged = eliminate_common_subexpr(fn)
    assert eliminate_common_subexpr(merged) is merged  # one pass reaches the fixed point
    assert len(post_order(merged.body)) == len(set(post_order(merged.body)))
    pruned = dead_code_elimination(fn)
    assert not any(
        isinstance(n, TupleGetItem) and isinstance(n.tuple_value, Tuple)
        for n in post_order(pruned.body)
    )


@PROPERTY_SETTINGS
@given(case=graphs(), opt_level=st.integers(0, 3))
def test_optimize_keeps_values_at_every_opt_level(
    case: tuple[Function, np.ndarray], opt_level: int
) -> None:
    fn, data = case
    optimized = optimize(fn, opt_level=opt_level, verify_passes=True)
    verify(optimized)
    _assert_same_values(optimized, fn, data, f"optimize(opt_level={opt_level})")
    if opt_level >= 2:
        simplified = optimize_without_fusion(fn, opt_level=opt_level)
        foldable = [
            n.op_name
            for n in post_order(simplified.body)
            if isinstance(n, Call) and n.args and all(isinstance(a, Constant) for a in n.args)
        ]
        assert not foldable, f"left unfolded: {foldable}"
