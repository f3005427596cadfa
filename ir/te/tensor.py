"""TE tensors and operations: `placeholder`, `compute(shape, fn)`, `reduce_axis`, reductions.

Operations and tensors are immutable and compared by identity: a TE program is a DAG of
operation objects, as in TVM. A compute's body may be a Reduce only at its top level.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ir.tir.expr import (
    INDEX_DTYPE,
    ExprLike,
    IntImm,
    IterVar,
    PrimExpr,
    Reduce,
    TensorRead,
    Var,
    as_expr,
    const,
)
from ir.tir.visit import walk_expr

REDUCE_IDENTITY = {"sum": 0.0, "prod": 1.0, "max": float("-inf"), "min": float("inf")}


class TEError(ValueError):
    """A tensor expression is malformed (wrong index count, nested reduction, ...)."""


@dataclass(frozen=True)
class Dim:
    """A symbolic extent: an int64 expression of size variables, known when a kernel is
    called, and the largest value it may take."""

    value: PrimExpr
    upper: int

    def __post_init__(self) -> None:
        if self.upper < 1:
            raise TEError(f"symbolic dim {self.value} needs an upper bound >= 1, got {self.upper}")
        if self.value.dtype != INDEX_DTYPE:
            raise TEError(
                f"symbolic dim {self.value} must be {INDEX_DTYPE}, not {self.value.dtype}"
            )


def size_var(name: str, upper: int) -> Dim:
    """A size variable named `name` taking values in [1, upper] (a symbolic dim)."""
    return Dim(Var(name, INDEX_DTYPE), int(upper))


DimLike = int | Dim


def _upper_bounds(shape: Sequence[DimLike], what: str) -> tuple[int, ...]:
    dims = tuple(d.upper if isinstance(d, Dim) else int(d) for d in shape)
    if any(d <= 0 for d in dims):
        raise TEError(f"{what}: every dimension must be positive, got {dims}")
    return dims


def _runtime_dims(shape: Sequence[DimLike]) -> tuple[PrimExpr, ...]:
    """The dims as expressions when one is symbolic; () for a static shape."""
    if not any(isinstance(d, Dim) for d in shape):
        return ()
    return tuple(d.value if isinstance(d, Dim) else const(int(d), INDEX_DTYPE) for d in shape)


@dataclass(frozen=True, eq=False)
class PlaceholderOp:
    """An input of a TE program; `shape` holds the upper bounds of `runtime_dims` when
    some dims are symbolic."""

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    runtime_dims: tuple[PrimExpr, ...] = ()

    @property
    def input_tensors(self) -> tuple[Tensor, ...]:
        """Placeholders read nothing."""
        return ()


@dataclass(frozen=True, eq=False)
class ComputeOp:
    """out[axes] = body, where body may be a top-level Reduce over reduce axes."""

    name: str
    axes: tuple[IterVar, ...]
    body: PrimExpr
    tag: str = ""
    attrs: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def shape(self) -> tuple[int, ...]:
        """The output shape (the upper bounds of symbolic dims)."""
        return tuple(axis.extent for axis in self.axes)

    @property
    def runtime_dims(self) -> tuple[PrimExpr, ...]:
        """The output dims as expressions when one is symbolic; () for a static shape."""
        if all(axis.runtime_extent is None for axis in self.axes):
            return ()
        return tuple(
            axis.runtime_extent
            if axis.runtime_extent is not None
            else const(axis.extent, INDEX_DTYPE)
            for axis in self.axes
        )

    @property
    def dtype(self) -> str:
        """The output dtype."""
        return self.body.dtype

    @property
    def reduce_axes(self) -> tuple[IterVar, ...]:
        """The reduction axes (empty for an elementwise compute)."""
        return self.body.axes if isinstance(self.body, Reduce) else ()

    @property
    def input_tensors(self) -> tuple[Tensor, ...]:
        """Tensors read by the body, in first-read order, each once."""
        seen: dict[int, Tensor] = {}
        for node in walk_expr(self.body):
            if isinstance(node, TensorRead) and id(node.tensor) not in seen:
                seen[id(node.tensor)] = node.tensor
        return tuple(seen.values())

    def attr(self, key: str, default: Any = None) -> Any:
        """An attribute value (hints for schedules, e.g. which input is a constant weight)."""
        return dict(self.attrs).get(key, default)


Operation = PlaceholderOp | ComputeOp


@dataclass(frozen=True, eq=False)
class Tensor:
    """The output of an operation; index it to read an element: `A[i, j]`."""

    op: Operation

    @property
    def name(self) -> str:
        """The operation's name."""
        return self.op.name

    @property
    def shape(self) -> tuple[int, ...]:
        """The tensor's shape."""
        return self.op.shape

    @property
    def runtime_dims(self) -> tuple[PrimExpr, ...]:
        """The dims as expressions when one is symbolic; () for a static shape."""
        return self.op.runtime_dims

    @property
    def dtype(self) -> str:
        """The element dtype."""
        return self.op.dtype

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def nbytes(self) -> int:
        """Size in bytes."""
        return math.prod(self.shape) * np.dtype(self.dtype).itemsize

    def __getitem__(self, indices: ExprLike | Sequence[ExprLike]) -> PrimExpr:
        items = tuple(indices) if isinstance(indices, tuple | list) else (indices,)
        if len(items) != self.ndim:
            raise TEError(f"{self.name} has {self.ndim} dimensions, indexed with {len(items)}")
        exprs = tuple(as_expr(index, INDEX_DTYPE) for index in items)
        for index in exprs:
            if index.dtype not in ("int64", "int32"):
                raise TEError(f"{self.name}: index {index} must be an integer, not {index.dtype}")
        return TensorRead(self, exprs)

    def __repr__(self) -> str:
        return f"Tensor({self.name}, {self.shape}, {self.dtype})"


def dims_of(tensor: Tensor) -> tuple[DimLike, ...]:
    """The dims of `tensor` to build another compute over (`as_dims`)."""
    return as_dims(tensor.runtime_dims, tensor.shape)


def as_dims(runtime_dims: Sequence[PrimExpr], shape: Sequence[int]) -> tuple[DimLike, ...]:
    """TE dims from run-time dims (empty: static) and their upper bounds: a `Dim` for
    each symbolic one, else the static extent."""
    if not runtime_dims:
        return tuple(shape)
    return tuple(
        extent if isinstance(dim, IntImm) else Dim(dim, extent)
        for dim, extent in zip(runtime_dims, shape, strict=True)
    )


def placeholder(shape: Sequence[DimLike], dtype: str = "float32", name: str = "data") -> Tensor:
    """An input tensor of a TE program (dims may be symbolic)."""
    upper = _upper_bounds(shape, f"placeholder {name}")
    return Tensor(PlaceholderOp(name, upper, dtype, _runtime_dims(shape)))


def reduce_axis(extent: DimLike, name: str = "k") -> IterVar:
    """A reduction axis over [0, extent) (a symbolic extent runs to its run-time value)."""
    if isinstance(extent, Dim):
        return IterVar(Var(name), extent.upper, "reduce", extent.value)
    if extent <= 0:
        raise TEError(f"reduce axis {name} needs a positive extent, got {extent}")
    return IterVar(Var(name), int(extent), "reduce")


def _reduce(
    combiner: str, source: ExprLike, axis: IterVar | Sequence[IterVar], where: PrimExpr | None
) -> PrimExpr:
    axes = (axis,) if isinstance(axis, IterVar) else tuple(axis)
    for item in axes:
        if item.kind != "reduce":
            raise TEError(f"{combiner}: axis {item.name} is not a reduce axis")
    return Reduce(combiner, as_expr(source), axes, where)


def sum_reduce(
    source: ExprLike, axis: IterVar | Sequence[IterVar], where: PrimExpr | None = None
) -> PrimExpr:
    """Sum of `source` over reduce axes (elements where `where` is false are skipped)."""
    return _reduce("sum", source, axis, where)


def max_reduce(
    source: ExprLike, axis: IterVar | Sequence[IterVar], where: PrimExpr | None = None
) -> PrimExpr:
    """Maximum of `source` over reduce axes."""
    return _reduce("max", source, axis, where)


def min_reduce(
    source: ExprLike, axis: IterVar | Sequence[IterVar], where: PrimExpr | None = None
) -> PrimExpr:
    """Minimum of `source` over reduce axes."""
    return _reduce("min", source, axis, where)


def prod_reduce(
    source: ExprLike, axis: IterVar | Sequence[IterVar], where: PrimExpr | None = None
) -> PrimExpr:
    """Product of `source` over reduce axes."""
    return _reduce("prod", source, axis, where)


def reduce_identity(combiner: str, dtype: str) -> PrimExpr:
    """The identity element of a combiner in `dtype` (0, 1, -inf, +inf; int extremes for ints)."""
    value = REDUCE_IDENTITY[combiner]
    if not dtype.startswith("float") and value in (float("inf"), float("-inf")):
        import numpy as np

        info = np.iinfo(dtype) if dtype != "bool" else None
        if info is None:
            return const(1 if value > 0 else 0, "bool")  # min starts at True, max at False
        return const(info.max if value > 0 else info.min, dtype)
    return const(value, dtype)


def compute(
    shape: Sequence[DimLike],
    fcompute: Callable[..., ExprLike],
    name: str = "compute",
    tag: str = "",
    attrs: dict[str, Any] | None = None,
    axis_names: Sequence[str] | None = None,
) -> Tensor:
    """A tensor whose element at `indices` is `fcompute(*indices)`.

    `fcompute` takes one index variable per output dimension (or a single `*indices`).
    """
    dims = _upper_bounds(shape, f"compute {name}")
    names = list(axis_names) if axis_names is not None else _axis_names(fcompute, len(dims))
    axes = tuple(
        IterVar(Var(names[i]), dims[i], "spatial", _runtime_extent(shape[i]))
        for i in range(len(dims))
    )
    body = as_expr(fcompute(*(axis.var for axis in axes)))
    for node in walk_expr(body):
        if isinstance(node, Reduce) and node is not body:
            raise TEError(f"compute {name}: a reduction must be the top-level expression")
    reduce_names = [axis.name for axis in body.axes] if isinstance(body, Reduce) else []
    all_names = names + reduce_names
    if len(set(all_names)) != len(all_names):
        raise TEError(f"compute {name}: axis names must be unique, got {all_names}")
    op = ComputeOp(name, axes, body, tag, tuple(sorted((attrs or {}).items())))
    return Tensor(op)


def _runtime_extent(dim: DimLike) -> PrimExpr | None:
    return dim.value if isinstance(dim, Dim) else None


def _axis_names(fcompute: Callable[..., Any], ndim: int) -> list[str]:
    try:
        params = list(inspect.signature(fcompute).parameters.values())
    except (TypeError, ValueError):
        params = []
    if len(params) == ndim and all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params):
        return [p.name for p in params]
    return [f"i{index}" for index in range(ndim)]
