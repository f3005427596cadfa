"""Reductions over axes: sum, mean, max, min, prod, argmax, argmin and cumsum."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from ir.errors import TypeInferenceError
from ir.graph.attrs import Attrs
from ir.graph.ops.common import normalize_axes, normalize_axis, optional_int_tuple, tensor_arg
from ir.graph.ops.registry import OpDef, OpPattern
from ir.graph.ops.te_common import (
    TeCompute,
    accumulate_dtype,
    check_output,
    index_const,
    te_dims,
    tensor_out,
    trunc_div,
    type_dims,
    with_dims,
)
from ir.graph.types import TensorType, Type
from ir.te.tensor import (
    Dim,
    DimLike,
    Tensor,
    compute,
    dims_of,
    max_reduce,
    min_reduce,
    prod_reduce,
    reduce_axis,
    sum_reduce,
)
from ir.tir.expr import IterVar, PrimExpr, cast, eq, is_float, select

T = TypeVar("T")


def _reduced(dims: Sequence[T], axes: tuple[int, ...], keepdims: bool, one: T) -> tuple[T, ...]:
    """`dims` with `axes` reduced: each `one` with keepdims, else dropped."""
    return tuple(
        one if axis in axes else dim
        for axis, dim in enumerate(dims)
        if keepdims or axis not in axes
    )


def _reduce_axes(shape: tuple[int, ...], attrs: Attrs, op: str) -> tuple[int, ...]:
    axes = optional_int_tuple(attrs["axis"], "axis", op)
    normalized = normalize_axes(axes, len(shape), op)
    if axes is not None and len(normalized) != len(axes):
        raise TypeInferenceError(f"{op}: axis {axes} repeats an axis of shape {shape}")
    return normalized


def _reduce_relation(op: str) -> Callable[[Sequence[Type], Attrs], Type]:
    def relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
        data = tensor_arg(arg_types, 0, op)
        axes = _reduce_axes(data.shape, attrs, op)
        if op in ("max", "min") and any(data.shape[axis] == 0 for axis in axes):
            raise TypeInferenceError(
                f"{op}: cannot reduce the empty axes {axes} of shape {data.shape}"
            )
        return TensorType(_reduced(data.shape, axes, bool(attrs["keepdims"]), 1), data.dtype)

    return relation


def _reduce_dims(op: str) -> Callable[[Sequence[Type], Attrs, Type], Type]:
    """The symbolic relation of a reduction: the output keeps the data's dims off the
    reduced axes (a static 1 on each with keepdims). A reduced axis may be symbolic: a
    size is at least 1 at run time, so max and min never reduce an empty one."""

    def relation(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
        out = tensor_out(out_type, op)
        data = tensor_arg(arg_types, 0, op)
        axes = _reduce_axes(data.shape, attrs, op)
        keepdims = bool(attrs["keepdims"])
        return with_dims(out, _reduced(type_dims(data), axes, keepdims, index_const(1)))

    return relation


def _reduce_reference(
    op: str, fn: Callable[..., np.ndarray]
) -> Callable[[Sequence[np.ndarray], Attrs], np.ndarray]:
    def reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
        data = inputs[0]
        axes = _reduce_axes(data.shape, attrs, op)
        result = fn(data, axis=axes, keepdims=bool(attrs["keepdims"]))
        return np.asarray(result, dtype=data.dtype)

    return reference


def _input_size_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    return tensor_arg(arg_types, 0, "reduce").size


def _mean(data: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
    if np.issubdtype(data.dtype, np.floating):
        accumulate = np.promote_types(data.dtype, np.float32)
        return np.asarray(data.mean(axis=axis, keepdims=keepdims, dtype=accumulate))
    # Integer means truncate toward zero, as integer division does in ONNX.
    total = data.sum(axis=axis, keepdims=keepdims, dtype=np.int64)
    count = int(np.prod([data.shape[a] for a in axis], dtype=np.int64))
    return np.asarray(np.trunc(total / max(count, 1)))


def _reduce(op: str, fn: Callable[..., np.ndarray], doc: str) -> OpDef:
    return OpDef(
        name=op,
        pattern=OpPattern.COMM_REDUCE,
        num_inputs=1,
        attrs={"axis": None, "keepdims": False},
        type_relation=_reduce_relation(op),
        reference=_reduce_reference(op, fn),
        te_compute=_reduce_te(op),
        flops=_input_size_flops,
        doc=doc + " over axis (None = every axis)",
        input_names=("data",),
        symbolic_relation=_reduce_dims(op),
    )


_COMBINERS = {"sum": sum_reduce, "max": max_reduce, "min": min_reduce, "prod": prod_reduce}


def _data_indices(
    ndim: int,
    axes: tuple[int, ...],
    keepdims: bool,
    out: Sequence[PrimExpr],
    reduced: list[PrimExpr],
) -> list[PrimExpr]:
    """Indices into the reduced tensor: reduce variables on `axes`, output indices elsewhere."""
    spatial = iter(out)
    rest = iter(reduced)
    indices: list[PrimExpr] = []
    for axis in range(ndim):
        if axis in axes:
            if keepdims:
                next(spatial)
            indices.append(next(rest))
        else:
            indices.append(next(spatial))
    return indices


def _reduce_stage(
    data: Tensor, axes: tuple[int, ...], keepdims: bool, combiner: str, name: str, dtype: str
) -> Tensor:
    """out = combiner over `axes` of data (converted to `dtype`); no axes is a plain copy.
    Symbolic dims of the data stay symbolic, a reduced one a reduction to its run-time
    extent."""
    dims = dims_of(data)
    reduce_vars: list[IterVar] = [reduce_axis(dims[axis], f"k{axis}") for axis in axes]
    out_dims = _reduced(dims, axes, keepdims, 1)

    def body(*indices: PrimExpr) -> PrimExpr:
        read = cast(
            dtype,
            data[_data_indices(data.ndim, axes, keepdims, indices, [r.var for r in reduce_vars])],
        )
        return _COMBINERS[combiner](read, reduce_vars) if reduce_vars else read

    return compute(out_dims, body, name=name, tag="reduce")


def _element_count(dims: Sequence[DimLike]) -> int | PrimExpr:
    """How many elements `dims` span: a number, or an int64 expression where one of them
    is symbolic."""
    count: int | PrimExpr = math.prod(dim for dim in dims if not isinstance(dim, Dim))
    for dim in dims:
        if isinstance(dim, Dim):
            count = dim.value * count
    return count


def _reduce_te(op: str) -> TeCompute:
    def te_compute(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
        data = inputs[0]
        out = tensor_out(out_type, op)
        axes = _reduce_axes(data.shape, attrs, op)
        keepdims = bool(attrs["keepdims"])
        if op != "mean":
            result = _reduce_stage(data, axes, keepdims, op, op, data.dtype)
            return check_output(result, out, op)
        # mean = sum / count: floats accumulate in at least float32, integers in int64 and
        # divide truncating toward zero.
        count = _element_count([dims_of(data)[axis] for axis in axes])
        acc = accumulate_dtype(data.dtype) if is_float(data.dtype) else "int64"
        total = _reduce_stage(data, axes, keepdims, "sum", "mean_sum", acc)

        def body(*indices: PrimExpr) -> PrimExpr:
            value = total[indices]
            if is_float(acc):
                divisor = float(count) if isinstance(count, int) else cast(acc, count)
                return cast(data.dtype, value / divisor)
            return cast(data.dtype, trunc_div(value, count))

        return check_output(compute(te_dims(out), body, name="mean", tag="reduce"), out, op)

    return te_compute


def _arg_relation(op: str) -> Callable[[Sequence[Type], Attrs], Type]:
    def relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
        data = tensor_arg(arg_types, 0, op)
        axis = normalize_axis(int(attrs["axis"]), data.ndim, op)
        if data.shape[axis] == 0:
            raise TypeInferenceError(f"{op}: cannot reduce empty axis {axis} of shape {data.shape}")
        return TensorType(_reduced(data.shape, (axis,), bool(attrs["keepdims"]), 1), "int64")

    return relation


def _arg_reference(
    fn: Callable[..., np.ndarray],
) -> Callable[[Sequence[np.ndarray], Attrs], np.ndarray]:
    def reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
        data = inputs[0]
        axis = int(attrs["axis"]) % data.ndim
        keepdims = bool(attrs["keepdims"])
        if attrs["select_last_index"]:
            flipped = fn(np.flip(data, axis=axis), axis=axis, keepdims=keepdims)
            return np.asarray(data.shape[axis] - 1 - flipped, dtype=np.int64)
        return np.asarray(fn(data, axis=axis, keepdims=keepdims), dtype=np.int64)

    return reference


def _arg_te(op: str) -> TeCompute:
    """Two stages: the extreme value, then the first (or last) index holding it."""
    combiner = "max" if op == "argmax" else "min"

    def te_compute(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
        data = inputs[0]
        out = tensor_out(out_type, op)
        axis = int(attrs["axis"]) % data.ndim
        keepdims = bool(attrs["keepdims"])
        extent = data.shape[axis]
        value = _reduce_stage(data, (axis,), keepdims, combiner, f"{op}_value", data.dtype)
        k = reduce_axis(extent, "k")
        last = bool(attrs["select_last_index"])

        def body(*indices: PrimExpr) -> PrimExpr:
            read = data[_data_indices(data.ndim, (axis,), keepdims, indices, [k.var])]
            hit = eq(read, value[indices])
            if last:
                return max_reduce(select(hit, k.var, index_const(-1)), k)
            return min_reduce(select(hit, k.var, index_const(extent)), k)

        index = compute(out.shape, body, name=op, tag="reduce")
        return check_output(index, out, op)

    return te_compute


def _arg(op: str, fn: Callable[..., np.ndarray], doc: str) -> OpDef:
    return OpDef(
        name=op,
        pattern=OpPattern.COMM_REDUCE,
        num_inputs=1,
        attrs={"axis": 0, "keepdims": False, "select_last_index": False},
        type_relation=_arg_relation(op),
        reference=_arg_reference(fn),
        te_compute=_arg_te(op),
        flops=_input_size_flops,
        doc=doc + " along one axis, as int64 (first index of ties unless select_last_index)",
        input_names=("data",),
    )


def _cumulative_dtype(dtype: str) -> str:
    return accumulate_dtype(dtype) if is_float(dtype) else dtype


# op -> (numpy's running op, the TE combiner, the identity an exclusive run starts from)
_CUMULATIVE: dict[str, tuple[Callable[..., np.ndarray], Callable[..., PrimExpr], int]] = {
    "cumsum": (np.cumsum, sum_reduce, 0),
    "cumprod": (np.cumprod, prod_reduce, 1),
}


def _cumulative_reference(op: str) -> Callable[[Sequence[np.ndarray], Attrs], np.ndarray]:
    running, _, identity = _CUMULATIVE[op]

    def reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
        data = inputs[0]
        axis = int(attrs["axis"]) % data.ndim
        values = data.astype(_cumulative_dtype(data.dtype.name))
        if attrs["reverse"]:
            values = np.flip(values, axis)
        with np.errstate(over="ignore"):
            total = running(values, axis=axis, dtype=values.dtype)
        if attrs["exclusive"]:  # shifted by one along the axis, the identity first
            total = np.roll(total, 1, axis)
            first = [slice(None)] * data.ndim
            first[axis] = slice(0, 1)
            total[tuple(first)] = identity
        if attrs["reverse"]:
            total = np.flip(total, axis)
        return np.asarray(total, dtype=data.dtype)

    return reference


def _cumulative_te(op: str) -> TeCompute:
    _, combine, _ = _CUMULATIVE[op]

    def te_compute(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
        """out[..., i, ...] = the sum (product) of data[..., r, ...] over the r before (or
        after) i."""
        data = inputs[0]
        axis = int(attrs["axis"]) % data.ndim
        acc = _cumulative_dtype(data.dtype)
        r = reduce_axis(data.shape[axis], "r")
        exclusive, reverse = bool(attrs["exclusive"]), bool(attrs["reverse"])

        def body(*indices: PrimExpr) -> PrimExpr:
            i = indices[axis]
            if reverse:
                taken = r.var > i if exclusive else r.var >= i
            else:
                taken = r.var < i if exclusive else r.var <= i
            read = data[(*indices[:axis], r.var, *indices[axis + 1 :])]
            return combine(cast(acc, read), r, where=taken)

        total = compute(
            data.shape, body, name=op if acc == data.dtype else f"{op}_acc", tag="reduce"
        )
        if acc != data.dtype:
            total = compute(
                data.shape, lambda *i: cast(data.dtype, total[i]), name=op, tag="reduce"
            )
        return check_output(total, tensor_out(out_type, op), op)

    return te_compute


def _cumulative_relation(op: str) -> Callable[[Sequence[Type], Attrs], Type]:
    def relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
        data = tensor_arg(arg_types, 0, op)
        normalize_axis(int(attrs["axis"]), data.ndim, op)
        return data

    return relation


def _cumulative_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    data = tensor_arg(arg_types, 0, "cumulative")
    return data.size * (data.shape[int(attrs["axis"]) % data.ndim] + 1) // 2 if data.ndim else 0


def _cumulative(op: str, what: str) -> OpDef:
    return OpDef(
        name=op,
        pattern=OpPattern.COMM_REDUCE,
        num_inputs=1,
        attrs={"axis": 0, "exclusive": False, "reverse": False},
        type_relation=_cumulative_relation(op),
        reference=_cumulative_reference(op),
        te_compute=_cumulative_te(op),
        flops=_cumulative_flops,
        doc=f"running {what} along axis (exclusive leaves out the element itself, reverse "
        "runs from the end)",
        input_names=("data",),
    )


OPS: tuple[OpDef, ...] = (
    _reduce("sum", np.sum, "sum"),
    _reduce("mean", _mean, "arithmetic mean"),
    _reduce("max", np.max, "maximum"),
    _reduce("min", np.min, "minimum"),
    _reduce("prod", np.prod, "product"),
    _arg("argmax", np.argmax, "index of the maximum"),
    _arg("argmin", np.argmin, "index of the minimum"),
    _cumulative("cumsum", "sum"),
    _cumulative("cumprod", "product"),
)
