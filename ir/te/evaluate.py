"""A numpy interpreter of TE programs: the oracle that defines what a tensor expression means.

Each ComputeOp is evaluated in topological order, vectorised over its whole index grid:
spatial axis `d` is an `arange` laid along grid dimension `d`, reduce axes are extra
trailing grid dimensions, and every sub-expression is a numpy array broadcastable to the
grid. Reads gather with fancy indexing.

Out-of-range reads. A read never raises by itself: its indices are clipped into range and
the elements it got wrong are marked *poisoned*. Poison flows to everything computed from
them, except that a `select` keeps only the poison of the branch it picks and a reduction
drops the poison of elements its `where` condition excludes. Poison that reaches a
compute's output is an error naming the offending read. So `select(in_bounds, A[i - 1], 0)`
is well defined, while a bare `A[i - 1]` at i = 0 is reported.

Semantics of the scalar operations: integer `floordiv` / `floormod` follow Python (floor),
integer `div` truncates toward zero (C); arithmetic wraps in the expression's dtype; both
sides of a select are evaluated (under `np.errstate(all="ignore")`, as is everything);
logical and/or do not short-circuit; `round` is round-half-to-even.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ir.te.tensor import ComputeOp, Operation, PlaceholderOp, TEError, Tensor, reduce_identity
from ir.tir.expr import (
    Binary,
    Call,
    Cast,
    Compare,
    FloatImm,
    IntImm,
    Logical,
    PrimExpr,
    Reduce,
    Select,
    TensorRead,
    Var,
)
from ir.tir.interpret import INTEGER_INTRINSIC_FUNCTIONS

MAX_GRID_ELEMENTS = 20_000_000  # a larger index grid is evaluated in chunks of output rows

_erf = np.frompyfunc(math.erf, 1, 1)

_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "floordiv": np.floor_divide,
    "floormod": np.mod,
    "min": np.minimum,
    "max": np.maximum,
}
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}
_INTRINSICS: dict[str, Callable[..., Any]] = {
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "erf": lambda x: np.asarray(_erf(np.asarray(x, dtype=np.float64)), dtype=np.float64),
    "pow": np.power,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "fabs": np.abs,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.rint,
    "trunc": np.trunc,
    "sin": np.sin,
    "cos": np.cos,
    **INTEGER_INTRINSIC_FUNCTIONS,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
}
_REDUCERS: dict[str, Callable[..., Any]] = {
    "sum": np.sum,
    "prod": np.prod,
    "max": np.max,
    "min": np.min,
}


def topological_ops(outputs: Sequence[Tensor]) -> list[Operation]:
    """Every operation the outputs depend on, each once, producers before consumers."""
    order: list[Operation] = []
    done: set[int] = set()
    stack: list[tuple[Operation, bool]] = [(t.op, False) for t in reversed(outputs)]
    while stack:
        op, expanded = stack.pop()
        if id(op) in done:
            continue
        if expanded:
            done.add(id(op))
            order.append(op)
            continue
        stack.append((op, True))
        stack.extend((t.op, False) for t in reversed(op.input_tensors) if id(t.op) not in done)
    return order


def evaluate_te(
    outputs: Sequence[Tensor],
    inputs: Mapping[Tensor | str, np.ndarray],
    max_grid_elements: int = MAX_GRID_ELEMENTS,
) -> list[np.ndarray]:
    """Compute `outputs` from placeholder values given by tensor or by name.

    A compute whose index grid (output points times reduction points) exceeds
    `max_grid_elements` is evaluated in chunks of its leading output axes.
    """
    by_op = {id(key.op): value for key, value in inputs.items() if isinstance(key, Tensor)}
    by_name = {key: value for key, value in inputs.items() if isinstance(key, str)}
    values: dict[int, np.ndarray] = {}
    with np.errstate(all="ignore"):
        for op in topological_ops(outputs):
            if isinstance(op, PlaceholderOp):
                values[id(op)] = _bind_placeholder(op, by_op, by_name)
            else:
                values[id(op)] = evaluate_compute(op, values, max_grid_elements)
    return [values[id(t.op)] for t in outputs]


def _bind_placeholder(
    op: PlaceholderOp, by_op: Mapping[int, np.ndarray], by_name: Mapping[str, np.ndarray]
) -> np.ndarray:
    if id(op) in by_op:
        value = by_op[id(op)]
    elif op.name in by_name:
        value = by_name[op.name]
    else:
        raise TEError(f"no value given for placeholder {op.name} {op.shape} {op.dtype}")
    array = np.asarray(value)
    if array.shape != op.shape or array.dtype.name != op.dtype:
        raise TEError(
            f"placeholder {op.name} expects shape {op.shape} {op.dtype}, "
            f"got {array.shape} {array.dtype.name}"
        )
    return array


def evaluate_compute(
    op: ComputeOp, values: Mapping[int, np.ndarray], max_elements: int = MAX_GRID_ELEMENTS
) -> np.ndarray:
    """Evaluate one compute, given the values of the operations it reads (keyed by id)."""
    out = np.empty(op.shape, dtype=op.dtype)
    reduce_size = math.prod(axis.extent for axis in op.reduce_axes)
    for region in _chunks(op.shape, reduce_size, max_elements):
        with np.errstate(all="ignore"):
            chunk = _Evaluator(op, region, values).run()
        out[tuple(slice(start, stop) for start, stop in region)] = chunk
    return out


def _chunks(shape: tuple[int, ...], inner: int, limit: int) -> Iterator[list[tuple[int, int]]]:
    """Regions of the spatial grid whose grid (times `inner` reduce points) fits `limit`."""

    def split(
        axis: int, prefix: list[tuple[int, int]], prefix_size: int
    ) -> Iterator[list[tuple[int, int]]]:
        rest = [(0, dim) for dim in shape[axis:]]
        if axis == len(shape) or prefix_size * math.prod(shape[axis:]) * inner <= limit:
            yield prefix + rest
            return
        row = prefix_size * math.prod(shape[axis + 1 :]) * inner
        step = max(1, limit // row)
        for start in range(0, shape[axis], step):
            stop = min(start + step, shape[axis])
            yield from split(axis + 1, [*prefix, (start, stop)], prefix_size * (stop - start))

    return split(0, [], 1)


@dataclass
class _Value:
    """An evaluated sub-expression and the mask of its elements spoiled by bad reads."""

    data: np.ndarray
    poison: np.ndarray | None = None


@dataclass
class _Evaluator:
    """Evaluates one compute's body over one region of its spatial grid."""

    op: ComputeOp
    region: list[tuple[int, int]]
    values: Mapping[int, np.ndarray]
    env: dict[Var, np.ndarray] = field(default_factory=dict)
    cache: dict[int, _Value] = field(default_factory=dict)
    bad_reads: list[str] = field(default_factory=list)

    def run(self) -> np.ndarray:
        """The compute's values over the region, or a TEError for a poisoned output."""
        spatial = [stop - start for start, stop in self.region]
        reduce_axes = self.op.reduce_axes
        ndim = len(spatial) + len(reduce_axes)
        for dim, (axis, (start, stop)) in enumerate(zip(self.op.axes, self.region, strict=True)):
            self.env[axis.var] = _along(np.arange(start, stop, dtype=np.int64), dim, ndim)
        for offset, axis in enumerate(reduce_axes):
            dim = len(spatial) + offset
            self.env[axis.var] = _along(np.arange(axis.extent, dtype=np.int64), dim, ndim)
        body = self.op.body
        result = self._reduce(body, spatial) if isinstance(body, Reduce) else self.eval(body)
        self._check_poison(result, spatial)
        return np.broadcast_to(_as_dtype(result.data, self.op.dtype), tuple(spatial))

    def _reduce(self, body: Reduce, spatial: list[int]) -> _Value:
        grid = tuple(spatial) + tuple(axis.extent for axis in body.axes)
        source = self.eval(body.source)
        data = np.broadcast_to(source.data, grid)
        poison = source.poison
        if body.condition is not None:
            condition = self.eval(body.condition)
            identity = _constant(reduce_identity(body.combiner, body.dtype))
            data = np.where(condition.data, data, identity)
            if poison is not None:
                poison = poison & condition.data
            poison = _either(poison, condition.poison)
        reduce_dims = tuple(range(len(spatial), len(grid)))
        reducer = _REDUCERS.get(body.combiner)
        if reducer is None:
            raise TEError(f"compute {self.op.name}: unknown combiner {body.combiner!r}")
        kwargs = {"dtype": body.dtype} if body.combiner in ("sum", "prod") else {}
        reduced = np.asarray(reducer(data, axis=reduce_dims, **kwargs))
        if poison is not None:
            poison = np.asarray(np.broadcast_to(poison, grid).any(axis=reduce_dims))
        return _Value(reduced, poison)

    def _check_poison(self, result: _Value, spatial: list[int]) -> None:
        if result.poison is None or not result.poison.any():
            return
        mask = np.broadcast_to(result.poison, tuple(spatial))
        where = tuple(
            int(index) + start
            for index, (start, _) in zip(np.argwhere(mask)[0], self.region, strict=True)
        )
        raise TEError(
            f"compute {self.op.name}: out-of-range reads reach output element {where}: "
            + "; ".join(self.bad_reads)
        )

    def eval(self, expr: PrimExpr) -> _Value:
        """Evaluate a sub-expression (memoised per node object)."""
        cached = self.cache.get(id(expr))
        if cached is not None:
            return cached
        value = self._eval(expr)
        value.data = _as_dtype(value.data, expr.dtype)
        self.cache[id(expr)] = value
        return value

    def _eval(self, expr: PrimExpr) -> _Value:
        if isinstance(expr, IntImm | FloatImm):
            return _Value(_constant(expr))
        if isinstance(expr, Var):
            if expr not in self.env:
                raise TEError(f"compute {self.op.name}: free variable {expr.name}")
            return _Value(self.env[expr])
        if isinstance(expr, Binary):
            lhs, rhs = self.eval(expr.lhs), self.eval(expr.rhs)
            return _Value(_binary(expr.op, lhs.data, rhs.data), _either(lhs.poison, rhs.poison))
        if isinstance(expr, Compare):
            lhs, rhs = self.eval(expr.lhs), self.eval(expr.rhs)
            data = _COMPARE[expr.op](lhs.data, rhs.data)
            return _Value(data, _either(lhs.poison, rhs.poison))
        if isinstance(expr, Logical):
            return self._logical(expr)
        if isinstance(expr, Select):
            return self._select(expr)
        if isinstance(expr, Cast):
            inner = self.eval(expr.value)
            return _Value(inner.data.astype(expr.dtype), inner.poison)
        if isinstance(expr, Call):
            return self._call(expr)
        if isinstance(expr, TensorRead):
            return self._read(expr)
        if isinstance(expr, Reduce):
            raise TEError(f"compute {self.op.name}: a reduction must be the top-level expression")
        raise TEError(f"compute {self.op.name}: cannot evaluate {type(expr).__name__} in a TE")

    def _logical(self, expr: Logical) -> _Value:
        lhs = self.eval(expr.lhs)
        if expr.rhs is None:
            return _Value(np.logical_not(lhs.data), lhs.poison)
        rhs = self.eval(expr.rhs)
        combine = np.logical_and if expr.op == "and" else np.logical_or
        return _Value(combine(lhs.data, rhs.data), _either(lhs.poison, rhs.poison))

    def _select(self, expr: Select) -> _Value:
        condition = self.eval(expr.condition)
        true_value, false_value = self.eval(expr.true_value), self.eval(expr.false_value)
        data = np.where(condition.data, true_value.data, false_value.data)
        poison: np.ndarray | None = None
        if true_value.poison is not None or false_value.poison is not None:
            poison = np.where(
                condition.data,
                False if true_value.poison is None else true_value.poison,
                False if false_value.poison is None else false_value.poison,
            )
        return _Value(data, _either(poison, condition.poison))

    def _call(self, expr: Call) -> _Value:
        if expr.name == "reinterpret":
            inner = self.eval(expr.args[0])
            bits = np.ascontiguousarray(inner.data, dtype=expr.args[0].dtype)
            return _Value(bits.view(np.dtype(expr.dtype)), inner.poison)
        fn = _INTRINSICS.get(expr.name)
        if fn is None:
            raise TEError(f"compute {self.op.name}: unknown intrinsic {expr.name!r}")
        args = [self.eval(arg) for arg in expr.args]
        poison: np.ndarray | None = None
        for arg in args:
            poison = _either(poison, arg.poison)
        return _Value(np.asarray(fn(*(arg.data for arg in args))), poison)

    def _read(self, expr: TensorRead) -> _Value:
        tensor = expr.tensor
        source = self.values.get(id(tensor.op))
        if source is None:
            raise TEError(f"compute {self.op.name} reads {tensor.name}, which has no value yet")
        indices = [self.eval(index) for index in expr.indices]
        poison: np.ndarray | None = None
        clipped: list[np.ndarray] = []
        for axis, (index, extent) in enumerate(zip(indices, tensor.shape, strict=True)):
            poison = _either(poison, index.poison)
            data = index.data
            low, high = int(data.min()), int(data.max())
            if low < 0 or high >= extent:
                message = f"{tensor.name}{list(tensor.shape)} axis {axis} index in [{low}, {high}]"
                if message not in self.bad_reads:
                    self.bad_reads.append(message)
                poison = _either(poison, (data < 0) | (data >= extent))
                data = np.clip(data, 0, extent - 1)
            clipped.append(data)
        data = np.asarray(source[tuple(clipped)]) if clipped else np.asarray(source)
        return _Value(data, poison)


def _along(values: np.ndarray, dim: int, ndim: int) -> np.ndarray:
    shape = [1] * ndim
    shape[dim] = -1
    return values.reshape(shape)


def _constant(expr: PrimExpr) -> np.ndarray:
    assert isinstance(expr, IntImm | FloatImm)
    return np.asarray(expr.value).astype(expr.dtype)


def _as_dtype(data: np.ndarray, dtype: str) -> np.ndarray:
    array = np.asarray(data)
    return array if array.dtype.name == dtype else array.astype(dtype)


def _either(lhs: np.ndarray | None, rhs: np.ndarray | None) -> np.ndarray | None:
    if lhs is None:
        return rhs
    if rhs is None:
        return lhs
    return np.asarray(lhs | rhs)


def _binary(op: str, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    if op == "div":
        if lhs.dtype.kind == "f":
            return np.asarray(np.true_divide(lhs, rhs))
        # C division truncates toward zero: step the floor quotient up when it was inexact.
        quotient = np.floor_divide(lhs, rhs)
        inexact = (quotient * rhs != lhs) & ((lhs < 0) != (rhs < 0))
        return np.asarray(quotient + inexact.astype(quotient.dtype))
    return np.asarray(_BINARY[op](lhs, rhs))
