"""The values of a kernel's size variables, read off the shapes of the arrays it is given.

A kernel with symbolic dims (`PrimFunc.size_params`) is called with arrays whose shapes
decide its size variables: a dim that is a variable by itself, or a variable plus, minus
or times constants, binds it; every other dim (a constant, or another expression of
variables) is then checked against its value. A shape of
another rank, a dim above its upper bound or below 1, and a variable that two dims bind
to different values are refused by name, before the kernel runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from ir.tir.arith import bound
from ir.tir.expr import Binary, Buffer, IntImm, PrimExpr, Var
from ir.tir.printer import format_expr


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
            solved = solve_dim(dim, size)
            if solved is None:
                continue
            var, value = solved
            where = f"{buffer.name} dim {axis}"
            upper = buffer.shape[axis]
            name = var.name if dim is var else format_expr(dim)
            if not 1 <= size <= upper:
                raise SizeBindingError(
                    f"{kernel}: {where} ({name}) is {size}, outside [1, {upper}]"
                )
            if value < 1:
                raise SizeBindingError(
                    f"{kernel}: {where} ({name}) is {size}, which makes {var.name} {value}, below 1"
                )
            known = values.get(var)
            if known is not None and known != value:
                raise SizeBindingError(
                    f"{kernel}: {var.name} is {known} by {origin[var]} but {value} by {where}"
                )
            values[var] = value
            origin[var] = where
    missing = [var.name for var in size_params if var not in values]
    if missing:
        raise SizeBindingError(
            f"{kernel}: no parameter dim is {', '.join(missing)} by itself or plus, minus or "
            "times a constant, so the shapes cannot bind it"
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


def solve_dim(dim: PrimExpr, size: int) -> tuple[Var, int] | None:
    """(v, its value) where `dim` is a size variable v, or v plus, minus or times
    constants (a joined cache's `past + 1`), and is `size`; None for any other dim, or a
    product that `size` is no multiple of (the dim check then refuses it)."""
    if isinstance(dim, Var):
        return dim, size
    if not isinstance(dim, Binary) or dim.op not in ("add", "sub", "mul"):
        return None
    inner, constant = dim.lhs, dim.rhs
    if dim.op != "sub" and isinstance(inner, IntImm):
        inner, constant = constant, inner
    if not isinstance(constant, IntImm):
        return None
    if dim.op == "add":
        return solve_dim(inner, size - constant.value)
    if dim.op == "sub":
        return solve_dim(inner, size + constant.value)
    if constant.value <= 0 or size % constant.value:
        return None
    return solve_dim(inner, size // constant.value)


def _evaluate(expr: PrimExpr, ranges: dict[Var, tuple[int, int]]) -> int:
    low, high = bound(expr, ranges)
    if low is None or low != high:
        raise SizeBindingError(f"cannot evaluate dim {expr} from the bound sizes")
    return low
