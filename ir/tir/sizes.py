"""The values of a kernel's size variables, read off the shapes of the arrays it is given.

A kernel with symbolic dims (`PrimFunc.size_params`) is called with arrays whose shapes
decide its size variables: a dim that is a variable by itself, or a variable plus, minus
or times constants, binds it; every other dim (a constant, or another expression of
variables) is then checked against its value. A shape of
another rank, a dim above its upper bound or below 1, and a variable that two dims bind
to different values are refused by name, before the kernel runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ir.tir.arith import bound
from ir.tir.expr import Binary, Buffer, IntImm, PrimExpr, Var
from ir.tir.printer import format_expr
from ir.tir.stmt import PrimFunc
from ir.tir.visit import free_index_vars


class SizeBindingError(ValueError):
    """Arrays whose shapes do not fit a symbolic kernel's parameters."""


@dataclass(frozen=True)
class SizedOperand:
    """An operand whose shape binds size variables: its name in messages (a kernel's
    buffer, a model's input), its dims (empty: a static shape, checked elsewhere) and the
    upper bound of each."""

    name: str
    dims: tuple[PrimExpr, ...]
    upper: tuple[int, ...]


def bind_sizes(
    kernel: str,
    params: Sequence[Buffer],
    size_params: Sequence[Var],
    shapes: Sequence[tuple[int, ...]],
) -> tuple[int, ...]:
    """The value of each of `size_params` given `shapes`, the shapes of the arrays passed
    for `params` (in order); SizeBindingError naming the parameter and the dim when they
    do not fit."""
    operands = [SizedOperand(buffer.name, buffer.dims, buffer.shape) for buffer in params]
    values = bind_operand_sizes(operands, shapes, f"{kernel}: ")
    missing = [var.name for var in size_params if var not in values]
    if missing:
        raise SizeBindingError(
            f"{kernel}: no parameter dim is {', '.join(missing)} by itself or plus, minus or "
            "times a constant, so the shapes cannot bind it"
        )
    return tuple(values[var] for var in size_params)


def given_sizes(
    kernel: str,
    func: PrimFunc,
    sizes: Mapping[Var, int],
    shapes: Sequence[tuple[int, ...]],
) -> tuple[int, ...]:
    """The values of `func`'s size variables from `sizes`, once every dim of its
    parameters is checked against `shapes` at those values; SizeBindingError naming the
    parameter and dim that differs, or the variable `sizes` lacks."""
    missing = [var.name for var in func.size_params if var not in sizes]
    if missing:
        raise SizeBindingError(f"{kernel}: no size given for {', '.join(missing)}")
    for buffer, shape in zip(func.params, shapes, strict=True):
        if not buffer.dims:
            continue
        if len(shape) != len(buffer.dims):
            raise SizeBindingError(
                f"{kernel}: {buffer.name} has rank {len(buffer.dims)}; got an array of shape "
                f"{list(shape)}"
            )
        for axis, (dim, size) in enumerate(zip(buffer.dims, shape, strict=True)):
            expected = evaluate_dim(dim, sizes)
            if expected != size:
                raise SizeBindingError(
                    f"{kernel}: {buffer.name} dim {axis} must be {format_expr(dim)} = "
                    f"{expected}; got {size}"
                )
    return tuple(sizes[var] for var in func.size_params)


def bind_operand_sizes(
    operands: Sequence[SizedOperand], shapes: Sequence[tuple[int, ...]], context: str = ""
) -> dict[Var, int]:
    """The size variables that `shapes` (one per operand, in order) bind, each with its
    value; SizeBindingError (its message starting with `context`) naming the operand and
    the dim where a rank differs, a dim is outside [1, its upper bound], a variable comes
    out below 1 or two dims bind one variable to different values, or a dim that binds
    nothing differs from its value. A variable no dim binds is left out."""
    values: dict[Var, int] = {}
    origin: dict[Var, str] = {}
    for operand, shape in zip(operands, shapes, strict=True):
        dims = operand.dims
        if not dims:
            continue  # (a static shape, checked by the caller)
        if len(shape) != len(dims):
            raise SizeBindingError(
                f"{context}{operand.name} has rank {len(dims)}; got an array of shape {list(shape)}"
            )
        for axis, (dim, size) in enumerate(zip(dims, shape, strict=True)):
            solved = solve_dim(dim, size)
            if solved is None:
                continue
            var, value = solved
            where = f"{operand.name} dim {axis}"
            upper = operand.upper[axis]
            name = var.name if dim is var else format_expr(dim)
            if not 1 <= size <= upper:
                raise SizeBindingError(f"{context}{where} ({name}) is {size}, outside [1, {upper}]")
            if value < 1:
                raise SizeBindingError(
                    f"{context}{where} ({name}) is {size}, which makes {var.name} {value}, below 1"
                )
            known = values.get(var)
            if known is not None and known != value:
                raise SizeBindingError(
                    f"{context}{var.name} is {known} by {origin[var]} but {value} by {where}"
                )
            values[var] = value
            origin[var] = where
    for operand, shape in zip(operands, shapes, strict=True):
        for axis, (dim, size) in enumerate(zip(operand.dims, shape, strict=bool(operand.dims))):
            if isinstance(dim, Var) or not free_index_vars(dim) <= values.keys():
                continue  # (a variable no dim binds: the caller says which)
            expected = evaluate_dim(dim, values)
            if expected != size:
                raise SizeBindingError(
                    f"{context}{operand.name} dim {axis} must be {format_expr(dim)} = "
                    f"{expected}; got {size}"
                )
    return values


def evaluate_dim(dim: PrimExpr, sizes: Mapping[Var, int]) -> int:
    """The value of `dim` with its size variables at `sizes`; SizeBindingError when it
    names a variable `sizes` lacks."""
    if isinstance(dim, IntImm):
        return dim.value
    if isinstance(dim, Var):
        value = sizes.get(dim)
        if value is None:
            raise SizeBindingError(f"cannot evaluate dim {dim.name}: no size given for it")
        return value
    if isinstance(dim, Binary) and dim.op in _INTEGER_OPS:
        lhs, rhs = evaluate_dim(dim.lhs, sizes), evaluate_dim(dim.rhs, sizes)
        return _INTEGER_OPS[dim.op](lhs, rhs)
    low, high = bound(dim, {var: (value, value) for var, value in sizes.items()})
    if low is None or low != high:
        raise SizeBindingError(f"cannot evaluate dim {format_expr(dim)} from the bound sizes")
    return low


# (dims are int64 expressions: // and % floor, as Python's do)
_INTEGER_OPS: dict[str, Callable[[int, int], int]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b,
    "floormod": lambda a, b: a % b,
    "min": min,
    "max": max,
}


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
