"""Helpers shared by the ops' TE computes: index mapping, padding stages, builders, checks."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ir.errors import TypeInferenceError
from ir.graph.attrs import Attrs
from ir.graph.types import TensorType, TupleType, Type
from ir.te.tensor import Dim, DimLike, TEError, Tensor, as_dims, compute, dims_of
from ir.tir.expr import (
    INDEX_DTYPE,
    Binary,
    ExprLike,
    IntImm,
    PrimExpr,
    as_expr,
    cast,
    const,
    is_float,
    logical_and,
    ne,
    select,
)
from ir.tir.printer import format_expr
from ir.tir.simplify import simplify

Indices = Sequence[PrimExpr]
TeCompute = Callable[[Sequence[Tensor], Attrs, Type], "Tensor | tuple[Tensor, ...]"]


def stage_name(op: str) -> str:
    """The compute name for an op: its name without the `nn.` namespace."""
    return op.removeprefix("nn.")


def tensor_out(out_type: Type, op: str) -> TensorType:
    """`out_type` as a tensor type, or a TEError."""
    if not isinstance(out_type, TensorType):
        raise TEError(f"{op}: expected a tensor output type, got {out_type}")
    return out_type


def check_output(result: Tensor, out_type: Type, op: str) -> Tensor:
    """Return `result` after checking that it has the op's inferred shape and dtype."""
    expected = tensor_out(out_type, op)
    if result.shape != expected.shape or result.dtype != expected.dtype:
        raise TEError(
            f"{op}: TE compute produced {result.shape} {result.dtype}, "
            f"but the op's type is {expected}"
        )
    return result


def check_outputs(results: tuple[Tensor, ...], out_type: Type, op: str) -> tuple[Tensor, ...]:
    """Check each tensor of a tuple-valued compute against the fields of `out_type`."""
    if not isinstance(out_type, TupleType) or len(out_type.fields) != len(results):
        raise TEError(f"{op}: {len(results)} TE outputs do not match the op's type {out_type}")
    for result, field in zip(results, out_type.fields, strict=True):
        check_output(result, field, op)
    return results


def index_const(value: int) -> PrimExpr:
    """An index constant (int64)."""
    return IntImm(int(value), INDEX_DTYPE)


def broadcast_indices(shape: Sequence[int], out_indices: Indices) -> list[PrimExpr]:
    """Indices into a tensor of `shape` broadcast to the output (numpy rules).

    Leading output dimensions the input lacks are dropped; its size-1 dimensions read 0.
    """
    offset = len(out_indices) - len(shape)
    return [
        index_const(0) if dim == 1 else out_indices[offset + axis] for axis, dim in enumerate(shape)
    ]


def read_broadcast(tensor: Tensor, out_indices: Indices) -> PrimExpr:
    """Read `tensor` at the output indices, broadcasting it (numpy rules)."""
    return tensor[broadcast_indices(tensor.shape, out_indices)]


def broadcast_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """The symbolic relation of elementwise and broadcast ops: each output dim is the
    operands' symbolic dim there (the same in all of them that are not a static 1)."""
    out = tensor_out(out_type, "broadcast")
    operands = [type_dims(ty) for ty in arg_types if isinstance(ty, TensorType)]
    return with_dims(out, broadcast_dim_lists(operands, out.shape))


def with_dims(ty: TensorType, dims: Sequence[PrimExpr]) -> TensorType:
    """`ty` (its shape the upper bounds) with these dims: static, of their values, where all
    are constants."""
    if all(isinstance(dim, IntImm) for dim in dims):
        return TensorType(tuple(dim.value for dim in dims if isinstance(dim, IntImm)), ty.dtype)
    return TensorType(ty.shape, ty.dtype, tuple(dims))


def quotient_of_products(
    numerator: Sequence[PrimExpr], denominator: Sequence[PrimExpr]
) -> PrimExpr:
    """prod(numerator) // prod(denominator) for dims, the common factors cancelled first
    (`(batch * seq * 64) // (batch * seq * 16)` is 4): how a reshape's -1 is inferred."""
    top, bottom = _factors(numerator), _factors(denominator)
    for factor in list(bottom):
        if factor in top:
            top.remove(factor)
            bottom.remove(factor)
    constant_top = math.prod(f.value for f in top if isinstance(f, IntImm))
    constant_bottom = math.prod(f.value for f in bottom if isinstance(f, IntImm))
    symbolic_top = [f for f in top if not isinstance(f, IntImm)]
    symbolic_bottom = [f for f in bottom if not isinstance(f, IntImm)]
    if not symbolic_bottom and constant_top % constant_bottom == 0:
        factors = [IntImm(constant_top // constant_bottom, INDEX_DTYPE), *symbolic_top]
        return simplify(math.prod(factors[1:], start=factors[0]))
    one = IntImm(1, INDEX_DTYPE)
    return simplify(math.prod(top, start=one) // math.prod(bottom, start=one))


def _factors(dims: Sequence[PrimExpr]) -> list[PrimExpr]:
    found: list[PrimExpr] = []
    for dim in dims:
        if isinstance(dim, Binary) and dim.op == "mul":
            found.extend(_factors((dim.lhs, dim.rhs)))
        else:
            found.append(dim)
    return found


def type_dims(ty: TensorType) -> tuple[PrimExpr, ...]:
    """The dims of `ty` as expressions (constants where it is static)."""
    return ty.dims or tuple(IntImm(extent, INDEX_DTYPE) for extent in ty.shape)


def broadcast_dim_lists(
    operands: Sequence[Sequence[PrimExpr]], out_shape: Sequence[int]
) -> tuple[PrimExpr, ...]:
    """The dims of operands of these dims broadcast together (numpy rules, aligned at the
    right) into `out_shape`: a static 1 broadcasts; other dims must be the same."""
    found: list[PrimExpr | None] = [None] * len(out_shape)
    for dims in operands:
        for axis, dim in enumerate(dims):
            at = len(out_shape) - len(dims) + axis
            if isinstance(dim, IntImm) and dim.value == 1:
                continue
            known = found[at]
            if known is not None and known != dim:
                raise TypeInferenceError(
                    f"dim {at} is {format_expr(known)} in one operand but {format_expr(dim)} "
                    "in another"
                )
            found[at] = dim
    return tuple(
        dim if dim is not None else IntImm(extent, INDEX_DTYPE)
        for dim, extent in zip(found, out_shape, strict=True)
    )


def symbolic_rows(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """The symbolic relation of ops whose first operand's leading dims (all but the last)
    lead the output and whose other operands are static (a dense layer's weight)."""
    out = tensor_out(out_type, "rows")
    data = arg_types[0]
    assert isinstance(data, TensorType)
    for position, ty in enumerate(arg_types):
        if not isinstance(ty, TensorType) or not ty.dims:
            continue
        if position > 0 or not isinstance(ty.dims[-1], IntImm):
            raise TypeInferenceError(
                f"only the leading dims of the first operand may be symbolic; operand {position} "
                f"is {ty}"
            )
    lead = data.dims[:-1]
    trailing = tuple(IntImm(extent, INDEX_DTYPE) for extent in out.shape[len(lead) :])
    return TensorType(out.shape, out.dtype, (*lead, *trailing))


def symbolic_batch(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """The symbolic relation of ops over batches of images (convolutions, pooling): the
    first operand's leading dim, the batch, may be symbolic and leads the output; every
    other dim of every operand is static (a window slides over static rows and columns)."""
    out = tensor_out(out_type, "batch")
    for position, ty in enumerate(arg_types):
        if not isinstance(ty, TensorType) or not ty.dims:
            continue
        if position > 0 or not all(isinstance(dim, IntImm) for dim in ty.dims[1:]):
            raise TypeInferenceError(
                f"only the batch (the first dim of the data) may be symbolic; operand "
                f"{position} is {ty}"
            )
    data = arg_types[0]
    assert isinstance(data, TensorType)
    trailing = tuple(IntImm(extent, INDEX_DTYPE) for extent in out.shape[1:])
    return with_dims(out, (type_dims(data)[0], *trailing))


def te_dims(ty: TensorType) -> tuple[DimLike, ...]:
    """The TE dims of a tensor of type `ty` (`as_dims`)."""
    return as_dims(ty.dims, ty.shape)


def map_compute(
    inputs: Sequence[Tensor],
    out_type: Type,
    fn: Callable[..., ExprLike],
    name: str,
    tag: str,
) -> Tensor:
    """out[i] = fn(*inputs broadcast to the output at i): elementwise and broadcast ops."""
    out = tensor_out(out_type, name)

    def body(*indices: PrimExpr) -> ExprLike:
        return fn(*(read_broadcast(tensor, indices) for tensor in inputs))

    return check_output(compute(te_dims(out), body, name=name, tag=tag), out, name)


def in_range(index: PrimExpr, low: int, high: int, lower: bool = True) -> PrimExpr:
    """`low <= index < high`, with the lower test left out when `lower` is False."""
    upper = index < high
    return logical_and(index >= low, upper) if lower else upper


def pad_stage(
    data: Tensor,
    before: Sequence[int],
    after: Sequence[int],
    value: ExprLike,
    name: str = "pad",
) -> Tensor:
    """A constant-padding stage (non-negative widths), or `data` itself when nothing pads."""
    if not any(before) and not any(after):
        return data
    shape: list[DimLike] = []
    for axis, (dim, lo, hi) in enumerate(zip(dims_of(data), before, after, strict=True)):
        if not (lo or hi):
            shape.append(dim)  # (a symbolic batch passes through)
        elif isinstance(dim, Dim):
            raise TEError(f"{name}: axis {axis} is symbolic ({format_expr(dim.value)}): no padding")
        else:
            shape.append(dim + lo + hi)
    fill = as_expr(value, data.dtype)

    def body(*indices: PrimExpr) -> PrimExpr:
        inside: PrimExpr = index_const(1)
        source: list[PrimExpr] = []
        for index, dim, lo, hi in zip(indices, data.shape, before, after, strict=True):
            source.append(index - lo)
            if lo or hi:
                inside = logical_and(inside, in_range(index, lo, lo + dim, lower=lo > 0))
        return select(inside, data[source], fill)

    return compute(shape, body, name=name, tag="injective")


def lowest(dtype: str) -> ExprLike:
    """The smallest value of `dtype` (-inf for floats), the identity of max."""
    if is_float(dtype):
        return const(float("-inf"), dtype)
    if dtype == "bool":
        return const(False, dtype)
    return const(int(np.iinfo(dtype).min), dtype)


def accumulate_dtype(dtype: str) -> str:
    """At least float32, as the references accumulate half precision (ints become float64)."""
    return str(np.promote_types(dtype, np.float32).name)


def product_dtype(dtype: str) -> str:
    """The type products accumulate in: float32 for float16 (as numpy and ONNX Runtime
    accumulate half-precision matmuls and convolutions), else the operands' own."""
    return "float32" if dtype == "float16" else dtype


def widened_product(lhs: PrimExpr, rhs: PrimExpr) -> PrimExpr:
    """lhs * rhs in `product_dtype` of their type."""
    dtype = product_dtype(lhs.dtype)
    if dtype == lhs.dtype:
        return lhs * rhs
    return cast(dtype, lhs) * cast(dtype, rhs)


def narrowed(result: Tensor, dtype: str) -> Tensor:
    """`result` (accumulated in a wider type) cast to `dtype` in a stage of its own that
    fuses as an epilogue; `result` itself when it already has that type."""
    if result.dtype == dtype:
        return result
    return compute(
        dims_of(result),
        lambda *i: cast(dtype, result[i]),
        name=f"{result.op.name}_narrow",
        tag="elemwise",
    )


def float_math(value: PrimExpr, fn: Callable[[PrimExpr], PrimExpr]) -> PrimExpr:
    """`fn(value)` for floats; for integers compute in float64 and truncate back, as numpy."""
    if is_float(value.dtype):
        return fn(value)
    return cast(value.dtype, fn(cast("float64", value)))


def trunc_div(lhs: PrimExpr, rhs: ExprLike) -> PrimExpr:
    """Integer division rounding toward zero (as C and ONNX), built from floor division."""
    divisor = as_expr(rhs, lhs.dtype)
    quotient = lhs // divisor
    # A negative floor quotient that is inexact lies one below the truncated one.
    return select(logical_and(quotient < 0, ne(quotient * divisor, lhs)), quotient + 1, quotient)


def numpy_scalar(value: object, dtype: str) -> int | float | bool:
    """`value` converted to `dtype` the way numpy's astype does (wrapping, truncating)."""
    with np.errstate(all="ignore"):
        item = np.asarray(value).astype(dtype).item()
    assert isinstance(item, int | float | bool)
    return item
