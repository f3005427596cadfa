"""The values of a kernel's size variables, read off the shapes of the arrays it is given.

A kernel with symbolic dims (`PrimFunc.size_params`) is called with arrays whose shapes
decide its size variables: a dim that is a variable by itself binds it; every other dim
(a constant, or an expression of variables) is then checked against its value. A shape of
another rank, a dim above its upper bound or below 1, and a variable that two dims bind
to different values are refused by name, before the kernel runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from ir.tir.arith import bound
from ir.tir.expr import Buffer, PrimExpr, Var


class SizeBindingError(ValueError):
    """Arrays whose shapes do not fit a symbolic kernel's parameters."""


def bind_sizes(
    kernel: str,
    params: Sequence[Buffer],
    size_params: Sequence[Var],
    shapes: Sequence[tuple[int, ...]],
) -> tuple[int, ...]:
    """The value of each of `size_params` given `shapes`, the shapes of the arrays passed
    for `params` (in order); SizeBindingError naming the parameter and the dim when they
    do not fit."""
    values: dict[Var, int] = {}
    origin: dict[Var, str] = {}
    for buffer, shape in zip(params, shapes, strict=True):
        dims = buffer.dims
        if not dims:
            continue  # (a static shape, checked by the caller)
        if len(shape) != len(dims):
            raise SizeBindingError(
                f"{kernel}: {buffer.name} has rank {len(dims)}; got an array of shape {list(shape)}"
            )
        for axis, (dim, size) in enumerate(zip(dims, shape, strict=True)):
            if not isinstance(dim, Var):
                continue
            where = f"{buffer.name} dim {axis}"
            upper = buffer.shape[axis]
            if not 1 <= size <= upper:
                raise SizeBindingError(
                    f"{kernel}: {where} ({dim.name}) is {size}, outside [1, {upper}]"
                )
            known = values.get(dim)
            if known is not None and known != size:
                raise SizeBindingError(
                    f"{kernel}: {dim.name} is {known} by {origin[dim]} but {size} by {where}"
                )
            values[dim] = size
            origin[dim] = where
    missing = [var.name for var in size_params if var not in values]
    if missing:
        raise SizeBindingError(
            f"{kernel}: no parameter dim is {', '.join(missing)} by itself, so the shapes "
            "cannot bind it"
        )
    ranges = {var: (value, value) for var, value in values.items()}
    for buffer, shape in zip(params, shapes, strict=True):
        for axis, (dim, size) in enumerate(zip(buffer.dims, shape, strict=bool(buffer.dims))):
            if isinstance(dim, Var):
                continue
            expected = _evaluate(dim, ranges)
            if expected != size:
                raise SizeBindingError(
                    f"{kernel}: {buffer.name} dim {axis} must be {dim} = {expected}; got {size}"
                )
    return tuple(values[var] for var in size_params)


def _evaluate(expr: PrimExpr, ranges: dict[Var, tuple[int, int]]) -> int:
    low, high = bound(expr, ranges)
    if low is None or low != high:
        raise SizeBindingError(f"cannot evaluate dim {expr} from the bound sizes")
    return low
