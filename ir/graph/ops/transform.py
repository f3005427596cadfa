"""Data-movement ops: concatenation, splitting, reshaping, slicing, gathering and constants."""

from __future__ import annotations

import functools
import itertools
import math
import operator
from collections.abc import Callable, Sequence

import numpy as np

from ir.errors import TypeInferenceError
from ir.graph.attrs import Attrs, is_dim_entry
from ir.graph.ops.common import (
    broadcast_shapes,
    normalize_axis,
    optional_int_tuple,
    same_dtype,
    tensor_arg,
    tensor_args,
)
from ir.graph.ops.registry import (
    REQUIRED,
    OpDef,
    OpPattern,
    Reference,
    SymbolicRelation,
    TypeRelation,
    zero_flops,
)
from ir.graph.ops.te_common import (
    TeCompute,
    broadcast_dim_lists,
    broadcast_indices,
    check_output,
    check_outputs,
    index_const,
    numpy_scalar,
    quotient_of_products,
    te_dims,
    tensor_out,
    type_dims,
    with_dims,
)
from ir.graph.types import TensorType, TupleType, Type, normalize_dtype
from ir.te.tensor import Dim, Tensor, compute, dims_of
from ir.tir.dim_text import DimTextError, parse_dim
from ir.tir.expr import IntImm, PrimExpr, cast, const, eq, maximum, minimum, select
from ir.tir.expr import Var as SizeVar
from ir.tir.printer import format_expr
from ir.tir.simplify import simplify
from ir.tir.visit import free_index_vars

# --- concatenate / split ---------------------------------------------------------------


def _concatenate_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "concatenate"
    types = tensor_args(arg_types, op)
    dtype = same_dtype(types, op)
    first = types[0]
    axis = normalize_axis(int(attrs["axis"]), first.ndim, op)
    for ty in types[1:]:
        others = [dim for i, dim in enumerate(ty.shape) if i != axis]
        if ty.ndim != first.ndim or others != [d for i, d in enumerate(first.shape) if i != axis]:
            shapes = ", ".join(str(t.shape) for t in types)
            raise TypeInferenceError(
                f"{op}: input shapes {shapes} must match on every axis but axis {axis}"
            )
    length = sum(ty.shape[axis] for ty in types)
    return TensorType((*first.shape[:axis], length, *first.shape[axis + 1 :]), dtype)


def _concatenate_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """concatenate's symbolic relation: the inputs' dims off the axis are the same, the
    output's dim on it is the sum of theirs (a cache of past keys [b, h, past, d] joined
    with the new ones [b, h, 1, d] is [b, h, past + 1, d])."""
    op = "concatenate"
    out = tensor_out(out_type, op)
    types = tensor_args(arg_types, op)
    axis = normalize_axis(int(attrs["axis"]), out.ndim, op)
    dims = [type_dims(ty) for ty in types]
    for position, other in enumerate(dims[1:], start=1):
        for at, (dim, first) in enumerate(zip(other, dims[0], strict=True)):
            if at != axis and dim != first:
                raise TypeInferenceError(
                    f"{op}: dim {at} is {format_expr(first)} in input 0 but "
                    f"{format_expr(dim)} in input {position}"
                )
    symbolic: list[PrimExpr] = []
    static = 0
    for dim in (d[axis] for d in dims):
        if isinstance(dim, IntImm):
            static += dim.value
        else:
            symbolic.append(dim)
    terms = symbolic + ([index_const(static)] if static or not symbolic else [])
    length = functools.reduce(operator.add, terms)
    return with_dims(out, (*dims[0][:axis], length, *dims[0][axis + 1 :]))


def _split_bounds(shape: tuple[int, ...], attrs: Attrs) -> tuple[int, list[tuple[int, int]]]:
    """The split axis and each part's (start, stop), following numpy.split."""
    op = "split"
    axis = normalize_axis(int(attrs["axis"]), len(shape), op)
    dim = shape[axis]
    sections = attrs["indices_or_sections"]
    if isinstance(sections, int):
        if sections < 1 or dim % sections:
            raise TypeInferenceError(
                f"{op}: axis {axis} of shape {shape} does not split into {sections} equal parts"
            )
        step = dim // sections
        return axis, [(i * step, (i + 1) * step) for i in range(sections)]
    indices = optional_int_tuple(sections, "indices_or_sections", op) or ()
    edges = [0, *indices, dim]
    bounds: list[tuple[int, int]] = []
    for start, stop in itertools.pairwise(edges):
        part = range(dim)[slice(start, stop)]  # Python slice rules, as numpy.split uses
        first = part.start if len(part) else 0
        bounds.append((first, first + len(part)))
    return axis, bounds


def _split_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    data = tensor_arg(arg_types, 0, "split")
    axis, bounds = _split_bounds(data.shape, attrs)
    fields = tuple(
        TensorType((*data.shape[:axis], stop - start, *data.shape[axis + 1 :]), data.dtype)
        for start, stop in bounds
    )
    return TupleType(fields)


def _split_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """split's symbolic relation: each part has the data's dims off the split axis, which
    must be static."""
    data = tensor_arg(arg_types, 0, "split")
    dims = type_dims(data)
    axis, bounds = _split_bounds(data.shape, attrs)
    if not isinstance(dims[axis], IntImm):
        raise TypeInferenceError(
            f"split: the split axis {axis} must be static, not {format_expr(dims[axis])}"
        )
    assert isinstance(out_type, TupleType)
    return TupleType(
        tuple(
            with_dims(
                tensor_out(field, "split"),
                (*dims[:axis], index_const(stop - start), *dims[axis + 1 :]),
            )
            for field, (start, stop) in zip(out_type.fields, bounds, strict=True)
        )
    )


def _split_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> tuple[np.ndarray, ...]:
    data = inputs[0]
    axis, bounds = _split_bounds(data.shape, attrs)
    parts = []
    for start, stop in bounds:
        index = [slice(None)] * data.ndim
        index[axis] = slice(start, stop)
        parts.append(data[tuple(index)].copy())
    return tuple(parts)


# --- reshaping -------------------------------------------------------------------------


def _symbolic_target(newshape: object) -> list[tuple[str, int] | None] | None:
    """Per entry of a reshape's newshape, its (dim text, upper bound) where symbolic;
    None when every entry is a number."""
    if not isinstance(newshape, tuple) or not any(isinstance(e, tuple) for e in newshape):
        return None
    target: list[tuple[str, int] | None] = []
    for entry in newshape:
        if isinstance(entry, tuple):
            if len(entry) != 2 or not isinstance(entry[0], str) or int(entry[1]) < 1:
                raise TypeInferenceError(
                    f"reshape: a symbolic newshape entry is (dim text, upper bound >= 1), "
                    f"got {entry!r}"
                )
            target.append((entry[0], int(entry[1])))
        else:
            if int(entry) < 0:
                raise TypeInferenceError(
                    f"reshape: newshape {newshape} with symbolic entries must spell every "
                    "other entry as a size (no -1)"
                )
            target.append(None)
    return target


def _reshape_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "reshape"
    data = tensor_arg(arg_types, 0, op)
    newshape = attrs["newshape"]
    target = _symbolic_target(newshape)
    if target is not None:
        if not data.dims:
            raise TypeInferenceError(
                f"{op}: newshape {newshape} is symbolic, but the data {data} is not"
            )
        # The upper bounds; the symbolic relation checks the element counts.
        uppers = (int(e) if t is None else t[1] for e, t in zip(newshape, target, strict=True))
        return TensorType(tuple(uppers), data.dtype)
    dims = optional_int_tuple(newshape, "newshape", op) or ()
    if dims.count(-1) > 1 or any(dim < -1 for dim in dims):
        raise TypeInferenceError(
            f"{op}: newshape {dims} may hold one -1 and otherwise sizes >= 0 (data shape "
            f"{data.shape})"
        )
    known = math.prod(dim for dim in dims if dim != -1)
    if -1 in dims:
        if known == 0 or data.size % known:
            raise TypeInferenceError(
                f"{op}: cannot infer the -1 in newshape {dims} from data shape {data.shape}"
            )
        dims = tuple(data.size // known if dim == -1 else dim for dim in dims)
    elif data.dims:
        raise TypeInferenceError(
            f"{op}: newshape {dims} is fixed, but the data {data} is symbolic: a fixed "
            "target fits one size only (a dynamic export reads it from Shape, or has a -1)"
        )
    elif known != data.size:
        raise TypeInferenceError(
            f"{op}: data shape {data.shape} has {data.size} elements but newshape {dims} "
            f"has {known}"
        )
    return TensorType(dims, data.dtype)


def _reshape_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """reshape's symbolic relation: the target's dims (its texts parsed, a -1 the data's
    element count over the others'), which must hold as many elements as the data."""
    data = tensor_arg(arg_types, 0, "reshape")
    out = tensor_out(out_type, "reshape")
    newshape = attrs["newshape"]
    target = _symbolic_target(newshape)
    data_count = math.prod(type_dims(data), start=index_const(1))
    dims: list[PrimExpr] = []
    for axis, entry in enumerate(newshape):
        if target is not None and target[axis] is not None:
            dims.append(_entry_dim(entry, "reshape"))
        elif int(entry) == -1:
            others = [index_const(int(e)) for e in newshape if int(e) != -1]
            dims.append(quotient_of_products(type_dims(data), others))
        else:
            dims.append(index_const(int(entry)))
    difference = simplify(math.prod(dims, start=index_const(1)) - data_count)
    if not (isinstance(difference, IntImm) and difference.value == 0):
        shown = ", ".join(format_expr(dim) for dim in dims)
        raise TypeInferenceError(
            f"reshape: cannot show that [{shown}] holds as many elements as the data {data}"
        )
    return with_dims(out, dims)


def _flatten_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "flatten"
    data = tensor_arg(arg_types, 0, op)
    axis = int(attrs["axis"])
    if not -data.ndim <= axis <= data.ndim:
        raise TypeInferenceError(f"{op}: axis {axis} is out of range for shape {data.shape}")
    if axis < 0:
        axis += data.ndim
    return TensorType((math.prod(data.shape[:axis]), math.prod(data.shape[axis:])), data.dtype)


def _transpose_axes(shape: tuple[int, ...], attrs: Attrs) -> tuple[int, ...]:
    op = "transpose"
    axes = optional_int_tuple(attrs["axes"], "axes", op)
    if axes is None:
        return tuple(reversed(range(len(shape))))
    normalized = tuple(normalize_axis(axis, len(shape), op) for axis in axes)
    if sorted(normalized) != list(range(len(shape))):
        raise TypeInferenceError(f"{op}: axes {axes} is not a permutation for shape {shape}")
    return normalized


def _transpose_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    data = tensor_arg(arg_types, 0, "transpose")
    axes = _transpose_axes(data.shape, attrs)
    return TensorType(tuple(data.shape[axis] for axis in axes), data.dtype)


def _transpose_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    data = tensor_arg(arg_types, 0, "transpose")
    out = tensor_out(out_type, "transpose")
    axes = _transpose_axes(data.shape, attrs)
    return TensorType(out.shape, out.dtype, tuple(data.dims[axis] for axis in axes))


def _squeeze_axes(shape: tuple[int, ...], attrs: Attrs) -> tuple[int, ...]:
    op = "squeeze"
    axes = optional_int_tuple(attrs["axis"], "axis", op)
    if axes is None:
        return tuple(axis for axis, dim in enumerate(shape) if dim == 1)
    normalized = tuple(sorted({normalize_axis(axis, len(shape), op) for axis in axes}))
    for axis in normalized:
        if shape[axis] != 1:
            raise TypeInferenceError(
                f"{op}: axis {axis} of shape {shape} has size {shape[axis]}, not 1"
            )
    return normalized


def _squeeze_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    data = tensor_arg(arg_types, 0, "squeeze")
    axes = _squeeze_axes(data.shape, attrs)
    return TensorType(
        tuple(dim for axis, dim in enumerate(data.shape) if axis not in axes), data.dtype
    )


def _expand_dims_shape(shape: tuple[int, ...], attrs: Attrs) -> tuple[int, ...]:
    op = "expand_dims"
    axes = optional_int_tuple(attrs["axes"], "axes", op) or ()
    out_ndim = len(shape) + len(axes)
    positions = {normalize_axis(axis, out_ndim, op) for axis in axes}
    if len(positions) != len(axes):
        raise TypeInferenceError(f"{op}: axes {axes} repeat a position (data shape {shape})")
    dims = iter(shape)
    return tuple(1 if axis in positions else next(dims) for axis in range(out_ndim))


def _expand_dims_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    data = tensor_arg(arg_types, 0, "expand_dims")
    return TensorType(_expand_dims_shape(data.shape, attrs), data.dtype)


def _expand_dims_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """expand_dims' symbolic relation: the data's dims with static 1s inserted."""
    out = tensor_out(out_type, "expand_dims")
    data_dims = iter(type_dims(tensor_arg(arg_types, 0, "expand_dims")))
    inserted = {normalize_axis(axis, out.ndim, "expand_dims") for axis in attrs["axes"]}
    return with_dims(
        out, [index_const(1) if axis in inserted else next(data_dims) for axis in range(out.ndim)]
    )


def _squeeze_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """squeeze's symbolic relation: the data's dims but the squeezed ones, which must be
    static 1s."""
    data = tensor_arg(arg_types, 0, "squeeze")
    dims = type_dims(data)
    axes = _squeeze_axes(data.shape, attrs)
    for axis in axes:
        if not isinstance(dims[axis], IntImm):
            raise TypeInferenceError(
                f"squeeze: axis {axis} is symbolic ({format_expr(dims[axis])}), not a static 1"
            )
    kept = [dim for axis, dim in enumerate(dims) if axis not in axes]
    return with_dims(tensor_out(out_type, "squeeze"), kept)


def _flatten_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """flatten's symbolic relation: the products of the dims before and from the axis."""
    data = tensor_arg(arg_types, 0, "flatten")
    dims = type_dims(data)
    axis = int(attrs["axis"]) + (data.ndim if int(attrs["axis"]) < 0 else 0)
    one = index_const(1)
    outer = simplify(math.prod(dims[:axis], start=one))
    inner = simplify(math.prod(dims[axis:], start=one))
    return with_dims(tensor_out(out_type, "flatten"), (outer, inner))


def _broadcast_to_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    data = tensor_arg(arg_types, 0, "broadcast_to")
    target = tuple(e[1] if is_dim_entry(e) else e for e in attrs["shape"] or ())
    shape = optional_int_tuple(target, "shape", "broadcast_to") or ()
    return TensorType(broadcast_shapes(data.shape, shape, "broadcast_to"), data.dtype)


def _broadcast_to_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """broadcast_to's symbolic relation: the data's dims and the target's (its symbolic
    entries parsed) broadcast together."""
    data = tensor_arg(arg_types, 0, "broadcast_to")
    out = tensor_out(out_type, "broadcast_to")
    target = [_entry_dim(entry, "broadcast_to") for entry in attrs["shape"] or ()]
    return with_dims(out, broadcast_dim_lists([type_dims(data), target], out.shape))


def _entry_dim(entry: object, op: str) -> PrimExpr:
    """An attribute entry as a dim: a number, or a symbolic (text, upper bound) parsed."""
    if not is_dim_entry(entry):
        return index_const(int(str(entry)))
    assert isinstance(entry, tuple)
    try:
        return parse_dim(entry[0])
    except DimTextError as error:
        raise TypeInferenceError(f"{op}: {error}") from None


def _out_shape(relation: TypeRelation, data: np.ndarray, attrs: Attrs) -> tuple[int, ...]:
    """The output shape a shape-only relation gives for `data`."""
    out = relation([TensorType(data.shape, str(data.dtype))], attrs)
    assert isinstance(out, TensorType)
    return out.shape


def _reshaping_reference(relation: TypeRelation) -> Reference:
    def reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
        return inputs[0].reshape(_out_shape(relation, inputs[0], attrs)).copy()

    return reference


def _broadcast_to_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    shape = _out_shape(_broadcast_to_relation, inputs[0], attrs)
    return np.broadcast_to(inputs[0], shape).copy()


# --- slicing and gathering -------------------------------------------------------------


_TO_THE_END = (2**31 - 1, 2**63 - 1)


def _slice_bounds(shape: tuple[int, ...], attrs: Attrs) -> list[slice]:
    """One Python slice per axis implementing ONNX Slice (clamped, negative steps allowed)."""
    op = "strided_slice"
    begin = optional_int_tuple(attrs["begin"], "begin", op) or ()
    end = optional_int_tuple(attrs["end"], "end", op) or ()
    count = len(begin)
    steps = optional_int_tuple(attrs["strides"], "strides", op) or (1,) * count
    axes = optional_int_tuple(attrs["axes"], "axes", op) or tuple(range(count))
    if not len(end) == len(steps) == len(axes) == count:
        raise TypeInferenceError(
            f"{op}: begin {begin}, end {end}, strides {steps} and axes {axes} must have one "
            f"entry per sliced axis (data shape {shape})"
        )
    normalized = [normalize_axis(axis, len(shape), op) for axis in axes]
    if len(set(normalized)) != count:
        raise TypeInferenceError(f"{op}: axes {axes} repeat an axis of shape {shape}")
    slices = [slice(None)] * len(shape)
    for axis, start, stop, step in zip(normalized, begin, end, steps, strict=True):
        dim = shape[axis]
        if step == 0:
            raise TypeInferenceError(f"{op}: strides {steps} contain 0 (data shape {shape})")
        start = start + dim if start < 0 else start
        if stop in _TO_THE_END:
            # onnxruntime reads INT_MAX as "to the end" in the step's direction, also for
            # negative steps (where ONNX shape inference clamps it to the last element).
            stop = dim if step > 0 else -1
        elif stop < 0:
            stop += dim
        if step > 0:
            start, stop = min(max(start, 0), dim), min(max(stop, 0), dim)
            slices[axis] = slice(start, stop, step)
        else:
            start, stop = min(max(start, 0), dim - 1), min(max(stop, -1), dim - 1)
            slices[axis] = slice(start, stop if stop >= 0 else None, step)
    return slices


def _strided_slice_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    data = tensor_arg(arg_types, 0, "strided_slice")
    upper_attrs = _upper_slice_attrs(attrs)
    slices = _slice_bounds(data.shape, upper_attrs)
    shape = [len(range(dim)[part]) for dim, part in zip(data.shape, slices, strict=True)]
    if data.dims:
        # A slice of a symbolic axis is longest at some extent of its range, not always
        # at the bound (x[-2:2] is empty at 12 rows, 2 long at 2): the largest of them.
        count = len(attrs["begin"])
        steps = optional_int_tuple(attrs["strides"], "strides", "strided_slice") or (1,) * count
        axes = optional_int_tuple(attrs["axes"], "axes", "strided_slice") or tuple(range(count))
        entries = zip(axes, upper_attrs["begin"], upper_attrs["end"], steps, strict=True)
        for axis, first, last, step in entries:
            axis = normalize_axis(axis, data.ndim, "strided_slice")
            if not isinstance(data.dims[axis], IntImm):
                shape[axis] = max(1, _longest_slice(data.shape[axis], first, last, step))
    return TensorType(tuple(shape), data.dtype)


def _longest_slice(upper: int, first: int, last: int, step: int) -> int:
    """The longest slice [first:last:step] of an axis of any extent from 1 to `upper`: the
    length changes slope only where the extent passes |first| or |last|."""
    candidates = {1, upper}
    for bound in (first, last):
        for offset in (-1, 0, 1):
            candidates.add(min(max(abs(bound) + offset, 1), upper))
    one_axis = _one_axis(first, last, step)
    return max(len(range(extent)[_slice_bounds((extent,), one_axis)[0]]) for extent in candidates)


def _upper_slice_attrs(attrs: Attrs) -> Attrs:
    """strided_slice's attributes with each symbolic (dim text, upper bound) begin read as
    0 and each symbolic end as its upper bound: the slice at its largest."""

    def numbers(entries: object, symbolic: Callable[[tuple[str, int]], int]) -> object:
        if not isinstance(entries, tuple):
            return entries
        return tuple(symbolic(e) if isinstance(e, tuple) else e for e in entries)

    begin = numbers(attrs["begin"], lambda entry: 0)
    end = numbers(attrs["end"], lambda entry: int(entry[1]))
    if begin == attrs["begin"] and end == attrs["end"]:
        return attrs
    return Attrs({**attrs, "begin": begin, "end": end})


def _symbolic_slice(
    data_dims: Sequence[PrimExpr], attrs: Attrs
) -> tuple[list[PrimExpr], list[PrimExpr]]:
    """Per axis of data of these dims, the slice's start and length as expressions (the
    ONNX clamping done with run-time min and max, simplified knowing every size is at
    least 1 and at most its bound); TypeInferenceError for a step other than 1 on an axis
    whose bounds are symbolic."""
    op = "strided_slice"
    count = len(attrs["begin"])
    steps = optional_int_tuple(attrs["strides"], "strides", op) or (1,) * count
    axes = optional_int_tuple(attrs["axes"], "axes", op) or tuple(range(count))
    ranges = _size_ranges(data_dims, (*attrs["begin"], *attrs["end"]))
    starts: list[PrimExpr] = [index_const(0)] * len(data_dims)
    lengths = list(data_dims)
    for axis, first, last, step in zip(axes, attrs["begin"], attrs["end"], steps, strict=True):
        axis = normalize_axis(axis, len(data_dims), op)
        extent = data_dims[axis]
        static = not isinstance(first, tuple) and not isinstance(last, tuple)
        if isinstance(extent, IntImm) and static:
            one_axis = _one_axis(first, last, step)
            bounds = range(extent.value)[_slice_bounds((extent.value,), one_axis)[0]]
            starts[axis], lengths[axis] = index_const(bounds.start), index_const(len(bounds))
            continue
        if step != 1:
            raise TypeInferenceError(
                f"{op}: a step of {step} on axis {axis} with symbolic bounds is not supported"
            )
        start = _clamped(_slice_end(first, extent, at_end=False), extent)
        stop = _clamped(_slice_end(last, extent, at_end=True), extent)
        starts[axis] = simplify(start, ranges)
        lengths[axis] = simplify(maximum(stop - starts[axis], index_const(0)), ranges)
    return starts, lengths


def _clamped(value: PrimExpr, extent: PrimExpr) -> PrimExpr:
    return maximum(minimum(value, extent), index_const(0))


def _one_axis(first: object, last: object, step: int) -> Attrs:
    return Attrs({"begin": (first,), "end": (last,), "strides": (step,), "axes": (0,)})


def _slice_end(entry: object, extent: PrimExpr, at_end: bool) -> PrimExpr:
    """A begin or end entry as an expression: a dim text parsed, a negative number counted
    from the extent, INT_MAX the extent itself."""
    if is_dim_entry(entry):
        return _entry_dim(entry, "strided_slice")
    value = int(str(entry))
    if at_end and value in _TO_THE_END:
        return extent
    return extent + value if value < 0 else index_const(value)


def _size_ranges(
    dims: Sequence[PrimExpr], entries: Sequence[object]
) -> dict[SizeVar, tuple[int, int]]:
    """The range of each size variable in `dims` and in symbolic (text, upper) `entries`:
    from 1 to the upper bound a dim or an entry that is the variable itself gives."""
    ranges: dict[SizeVar, tuple[int, int]] = {}
    texts = [parse_dim(str(e[0])) for e in entries if isinstance(e, tuple)]
    uppers = [int(e[1]) for e in entries if isinstance(e, tuple)]
    for expr in (*dims, *texts):
        for var in free_index_vars(expr):
            ranges.setdefault(var, (1, 2**62))
    for expr, upper in zip(texts, uppers, strict=True):
        if isinstance(expr, SizeVar):
            ranges[expr] = (1, min(ranges[expr][1], upper))
    return ranges


def _strided_slice_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """strided_slice's symbolic relation: each sliced axis's length as an expression."""
    data = tensor_arg(arg_types, 0, "strided_slice")
    _, lengths = _symbolic_slice(type_dims(data), attrs)
    return with_dims(tensor_out(out_type, "strided_slice"), lengths)


def _strided_slice_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """strided_slice's TE: the static index map, or for symbolic bounds data[start + i]
    with each start an expression of the run-time extents."""
    data = inputs[0]
    out = tensor_out(out_type, "strided_slice")
    symbolic_attrs = _upper_slice_attrs(attrs) != attrs
    if not data.runtime_dims and not out.dims and not symbolic_attrs:
        static = _injective_te("strided_slice", _slice_indices)(inputs, attrs, out_type)
        assert isinstance(static, Tensor)
        return static
    extents = [_extent(data, axis) for axis in range(data.ndim)]
    data_dims = [index_const(e) if isinstance(e, int) else e for e in extents]
    starts, _ = _symbolic_slice(data_dims, attrs)

    def body(*indices: PrimExpr) -> PrimExpr:
        return data[[index + start for index, start in zip(indices, starts, strict=True)]]

    result = compute(te_dims(out), body, name="strided_slice", tag="injective")
    return check_output(result, out, "strided_slice")


def _data_and_indices(arg_types: Sequence[Type], op: str) -> tuple[TensorType, TensorType]:
    """A gather's data and integer indices, or TypeInferenceError."""
    data, indices = tensor_args(arg_types, op)
    if indices.dtype not in ("int32", "int64"):
        raise TypeInferenceError(f"{op}: indices must be int32 or int64, got {indices.dtype}")
    return data, indices


def _take_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "take"
    data, indices = _data_and_indices(arg_types, op)
    axis = normalize_axis(int(attrs["axis"]), data.ndim, op)
    return TensorType(data.shape[:axis] + indices.shape + data.shape[axis + 1 :], data.dtype)


def _take_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """take's symbolic relation: the data's dims around the gathered axis and the indices'
    dims in its place (an embedding lookup of [batch, sequence] token ids); indices on a
    symbolic gathered axis are kept within its run-time extent."""
    op = "take"
    out = tensor_out(out_type, op)
    data, indices = _data_and_indices(arg_types, op)
    axis = normalize_axis(int(attrs["axis"]), data.ndim, op)
    data_dims = type_dims(data)
    return with_dims(out, (*data_dims[:axis], *type_dims(indices), *data_dims[axis + 1 :]))


def _gather_elements_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """gather_elements' symbolic relation: the indices' dims."""
    _, indices = _data_and_indices(arg_types, "gather_elements")
    return with_dims(tensor_out(out_type, "gather_elements"), type_dims(indices))


def _wrapped_indices(op: str, data: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    """Indices along `axis` of `data` with negative ones counted from the end; IndexError
    for any out of range."""
    dim = data.shape[axis]
    if indices.size and (indices.min() < -dim or indices.max() >= dim):
        raise IndexError(
            f"{op}: indices in [{indices.min()}, {indices.max()}] out of range for axis {axis} "
            f"of shape {data.shape}"
        )
    return np.where(indices < 0, indices + dim, indices)


def _take_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    """ONNX Gather: negative indices count from the end; out-of-range ones raise IndexError."""
    data, indices = inputs
    axis = int(attrs["axis"]) % data.ndim
    return np.take(data, _wrapped_indices("take", data, indices, axis), axis=axis)


def _gather_elements_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "gather_elements"
    data, indices = _data_and_indices(arg_types, op)
    axis = normalize_axis(int(attrs["axis"]), data.ndim, op)
    if indices.ndim != data.ndim or any(
        size > dim
        for other, (size, dim) in enumerate(zip(indices.shape, data.shape, strict=True))
        if other != axis
    ):
        raise TypeInferenceError(
            f"{op}: indices of shape {indices.shape} must have data's rank ({data.shape}) and "
            "no larger dims off the axis"
        )
    return TensorType(indices.shape, data.dtype)


def _gather_elements_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    """ONNX GatherElements (torch.gather): negative indices count from the end."""
    data, indices = inputs
    axis = int(attrs["axis"]) % data.ndim
    grid: list[np.ndarray] = list(np.indices(indices.shape, sparse=True))
    grid[axis] = _wrapped_indices("gather_elements", data, indices, axis)
    return np.asarray(data[tuple(grid)])


def _tile_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "tile"
    data = tensor_arg(arg_types, 0, op)
    repeats = optional_int_tuple(attrs["repeats"], "repeats", op) or ()
    if len(repeats) != data.ndim or any(rep < 0 for rep in repeats):
        raise TypeInferenceError(
            f"{op}: repeats {repeats} must hold one count >= 0 per axis of shape {data.shape}"
        )
    return TensorType(
        tuple(dim * rep for dim, rep in zip(data.shape, repeats, strict=True)), data.dtype
    )


# --- shapes and constants --------------------------------------------------------------


def _shape_of_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    data = tensor_arg(arg_types, 0, "shape_of")
    return TensorType((data.ndim,), str(attrs["dtype"]))


def _full_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    shape = optional_int_tuple(attrs["shape"], "shape", "full") or ()
    if any(dim < 0 for dim in shape):
        raise TypeInferenceError(f"full: shape {shape} has a negative dimension")
    return TensorType(shape, str(attrs["dtype"]))


def _arange_length(attrs: Attrs) -> int:
    start, stop, step = attrs["start"], attrs["stop"], attrs["step"]
    if step == 0:
        raise TypeInferenceError(f"arange: step must not be 0 (start {start}, stop {stop})")
    if all(isinstance(value, int) for value in (start, stop, step)):
        length: int = -((start - stop) // step)  # exact ceil division for big int64 ranges
    else:
        length = math.ceil((stop - start) / step)
    return max(length, 0)


def _arange_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    stop = attrs["stop"]
    if is_dim_entry(stop):  # (its length at the upper bound of the stop)
        return TensorType((_arange_length(Attrs({**attrs, "stop": stop[1]})),), str(attrs["dtype"]))
    return TensorType((_arange_length(attrs),), str(attrs["dtype"]))


def _arange_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """arange's symbolic relation: to a symbolic stop (integer start and step), a length
    of ceil((stop - start) / step), at least 0."""
    start, step = _integral(attrs["start"]), _integral(attrs["step"])
    if start is None or step is None or step == 0:
        raise TypeInferenceError(
            f"arange: a symbolic stop needs whole-number start and step, got "
            f"{attrs['start']} and {attrs['step']}"
        )
    stop = _entry_dim(attrs["stop"], "arange")
    length = maximum(
        (stop - start + step - 1) // step if step > 0 else (start - stop - step - 1) // -step,
        index_const(0),
    )
    ranges = _size_ranges((), (attrs["stop"],))
    return with_dims(tensor_out(out_type, "arange"), (simplify(length, ranges),))


def _integral(value: object) -> int | None:
    """`value` as an int where it is a whole number (an int, or a float like 1.0)."""
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _arange_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    dtype = normalize_dtype(attrs["dtype"])
    start, step = attrs["start"], attrs["step"]
    values = np.arange(_arange_length(attrs), dtype=np.float64 if "float" in dtype else np.int64)
    return np.asarray(start + values * step, dtype=dtype)


# --- TE computes -----------------------------------------------------------------------


def _injective_te(
    name: str, index_map: Callable[[Tensor, Attrs, Sequence[PrimExpr]], Sequence[PrimExpr]]
) -> TeCompute:
    """out[i] = data[index_map(i)]: the TE of every op that only moves elements."""

    def te_compute(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
        data = inputs[0]
        out = tensor_out(out_type, name)
        tensor = compute(
            te_dims(out),
            lambda *indices: data[index_map(data, attrs, indices)],
            name=name,
            tag="injective",
        )
        return check_output(tensor, out, name)

    return te_compute


def _row_major_strides(shape: Sequence[int]) -> list[int]:
    strides = [1] * len(shape)
    for axis in range(len(shape) - 2, -1, -1):
        strides[axis] = strides[axis + 1] * shape[axis + 1]
    return strides


def _reshape_indices(
    data: Tensor, out_shape: Sequence[int], indices: Sequence[PrimExpr]
) -> list[PrimExpr]:
    """Data indices of the element at the same row-major position as `indices` in the output."""
    flat: PrimExpr = index_const(0)
    for index, dim, stride in zip(indices, out_shape, _row_major_strides(out_shape), strict=True):
        if dim != 1:
            flat = flat + index * stride
    result: list[PrimExpr] = []
    size = math.prod(data.shape)
    for dim, stride in zip(data.shape, _row_major_strides(data.shape), strict=True):
        if dim == 1:
            result.append(index_const(0))
            continue
        index = flat // stride
        # The outermost axis needs no wrap-around: flat // stride < dim already.
        result.append(index if stride * dim == size else index % dim)
    return result


def _reshape_like_te(name: str, relation: TypeRelation) -> TeCompute:
    """The TE of a reshaping op: the static index map, or for symbolic dims one over
    run-time extents that maps the leading and trailing dims the data and the output
    share directly."""
    static = _reshaping_te(name, relation)

    def te_compute(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
        data = inputs[0]
        out = tensor_out(out_type, name)
        if not data.runtime_dims and not out.dims:
            result = static(inputs, attrs, out_type)
            assert isinstance(result, Tensor)
            return result
        data_dims = type_dims(TensorType(data.shape, data.dtype, tuple(data.runtime_dims)))
        out_dims = type_dims(out)

        def body(*indices: PrimExpr) -> PrimExpr:
            return data[_symbolic_reshape_indices(data_dims, out_dims, indices)]

        return check_output(compute(te_dims(out), body, name=name, tag="injective"), out, name)

    return te_compute


def _symbolic_reshape_indices(
    data_dims: Sequence[PrimExpr], out_dims: Sequence[PrimExpr], indices: Sequence[PrimExpr]
) -> list[PrimExpr]:
    """Data indices of the element at the same row-major position as output `indices`,
    for dims that are expressions: the shared leading and trailing dims index alike, the
    middle goes through its flat position."""
    lead = 0
    while lead < min(len(data_dims), len(out_dims)) and data_dims[lead] == out_dims[lead]:
        lead += 1
    trail = 0
    while (
        trail < min(len(data_dims), len(out_dims)) - lead
        and data_dims[-1 - trail] == out_dims[-1 - trail]
    ):
        trail += 1
    data_middle = data_dims[lead : len(data_dims) - trail]
    out_middle = out_dims[lead : len(out_dims) - trail]
    flat: PrimExpr = index_const(0)
    for index, dim in zip(indices[lead : len(out_dims) - trail], out_middle, strict=True):
        flat = simplify(flat * dim + index)
    middle: list[PrimExpr] = []
    for axis in range(len(data_middle) - 1, -1, -1):
        dim = data_middle[axis]
        middle.append(flat if axis == 0 else simplify(flat % dim))
        flat = simplify(flat // dim)
    middle.reverse()
    return [
        *indices[:lead],
        *middle,
        *indices[len(out_dims) - trail :],
    ]


def _reshaping_te(name: str, relation: TypeRelation) -> TeCompute:
    def index_map(data: Tensor, attrs: Attrs, indices: Sequence[PrimExpr]) -> list[PrimExpr]:
        out_shape = relation([TensorType(data.shape, data.dtype)], attrs)
        assert isinstance(out_shape, TensorType)
        return _reshape_indices(data, out_shape.shape, indices)

    return _injective_te(name, index_map)


def _transpose_indices(data: Tensor, attrs: Attrs, indices: Sequence[PrimExpr]) -> list[PrimExpr]:
    axes = _transpose_axes(data.shape, attrs)
    source: list[PrimExpr] = [index_const(0)] * data.ndim
    for out_axis, data_axis in enumerate(axes):
        source[data_axis] = indices[out_axis]
    return source


def _squeeze_indices(data: Tensor, attrs: Attrs, indices: Sequence[PrimExpr]) -> list[PrimExpr]:
    dropped = _squeeze_axes(data.shape, attrs)
    kept = iter(indices)
    return [index_const(0) if axis in dropped else next(kept) for axis in range(data.ndim)]


def _expand_dims_indices(data: Tensor, attrs: Attrs, indices: Sequence[PrimExpr]) -> list[PrimExpr]:
    out_shape = _expand_dims_shape(data.shape, attrs)
    axes = optional_int_tuple(attrs["axes"], "axes", "expand_dims") or ()
    inserted = {axis % len(out_shape) for axis in axes}
    return [index for axis, index in enumerate(indices) if axis not in inserted]


def _slice_indices(data: Tensor, attrs: Attrs, indices: Sequence[PrimExpr]) -> list[PrimExpr]:
    """Index start + i * step on each axis (the clamped ONNX bounds)."""
    source: list[PrimExpr] = []
    for index, dim, part in zip(indices, data.shape, _slice_bounds(data.shape, attrs), strict=True):
        taken = range(dim)[part]
        source.append(index * taken.step + taken.start)
    return source


def _tile_indices(data: Tensor, attrs: Attrs, indices: Sequence[PrimExpr]) -> list[PrimExpr]:
    return [
        index_const(0) if dim == 1 else index % dim
        for index, dim in zip(indices, data.shape, strict=True)
    ]


def _concatenate_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """Selects on the ranges of the concatenation axis, nested as a balanced tree (an
    element of n inputs takes log2(n) comparisons, not up to n)."""
    out = tensor_out(out_type, "concatenate")
    axis = int(attrs["axis"]) % out.ndim
    offsets = list(itertools.accumulate((_extent(t, axis) for t in inputs), initial=0))

    def read(part: int, indices: Sequence[PrimExpr]) -> PrimExpr:
        source = list(indices)
        source[axis] = indices[axis] - offsets[part]
        return inputs[part][source]

    def parts(first: int, last: int, indices: Sequence[PrimExpr]) -> PrimExpr:
        """The element from inputs first..last (inclusive), split at the middle."""
        if first == last:
            return read(first, indices)
        middle = (first + last) // 2
        below = parts(first, middle, indices)
        return select(indices[axis] < offsets[middle + 1], below, parts(middle + 1, last, indices))

    def body(*indices: PrimExpr) -> PrimExpr:
        return parts(0, len(inputs) - 1, indices)

    joined = compute(te_dims(out), body, name="concatenate", tag="injective")
    return check_output(joined, out, "concatenate")


def _extent(tensor: Tensor, axis: int) -> int | PrimExpr:
    """`tensor`'s extent on `axis`: a number, or its run-time expression where symbolic."""
    dim = dims_of(tensor)[axis]
    return dim.value if isinstance(dim, Dim) else dim


def _split_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> tuple[Tensor, ...]:
    """One compute per part, named split_0, split_1, ..., reading at an offset on the axis."""
    data = inputs[0]
    axis, bounds = _split_bounds(data.shape, attrs)

    dims = dims_of(data)

    def part(number: int, start: int, stop: int) -> Tensor:
        shape = (*dims[:axis], stop - start, *dims[axis + 1 :])

        def body(*indices: PrimExpr) -> PrimExpr:
            source = list(indices)
            source[axis] = indices[axis] + start
            return data[source]

        return compute(shape, body, name=f"split_{number}", tag="injective")

    parts = tuple(part(number, start, stop) for number, (start, stop) in enumerate(bounds))
    return check_outputs(parts, out_type, "split")


def _wrapped_index(index: PrimExpr, dim: int | PrimExpr) -> PrimExpr:
    """An index read from an indices tensor as int64, negative ones counted from the end,
    and kept within [0, dim): one outside [-dim, dim) (which the reference refuses with an
    IndexError) reads the nearest end, as TVM's take mode="clip" does, so that compiled
    code never reads outside the data whatever indices it is given."""
    position = cast("int64", index)
    wrapped = select(position < 0, position + dim, position)
    last = const(max(dim - 1, 0), "int64") if isinstance(dim, int) else dim - 1
    return minimum(maximum(wrapped, const(0, "int64")), last)


def _take_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """data[..., indices[j...] (negative ones wrapped), ...]."""
    data, indices = inputs
    out = tensor_out(out_type, "take")
    axis = int(attrs["axis"]) % data.ndim
    dim = _extent(data, axis)

    def body(*out_indices: PrimExpr) -> PrimExpr:
        wrapped = _wrapped_index(indices[out_indices[axis : axis + indices.ndim]], dim)
        before, after = out_indices[:axis], out_indices[axis + indices.ndim :]
        return data[(*before, wrapped, *after)]

    return check_output(compute(te_dims(out), body, name="take", tag="injective"), out, "take")


def _gather_elements_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """data[i..., indices[i...] (negative ones wrapped) on the axis, ...]."""
    data, indices = inputs
    out = tensor_out(out_type, "gather_elements")
    axis = int(attrs["axis"]) % data.ndim
    dim = _extent(data, axis)

    def body(*out_indices: PrimExpr) -> PrimExpr:
        wrapped = _wrapped_index(indices[out_indices], dim)
        return data[(*out_indices[:axis], wrapped, *out_indices[axis + 1 :])]

    gathered = compute(te_dims(out), body, name="gather_elements", tag="injective")
    return check_output(gathered, out, "gather_elements")


def _shape_of_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    out = tensor_out(out_type, "shape_of")
    data = inputs[0]
    dims = [_dim_value(_extent(data, axis), out.dtype) for axis in range(data.ndim)]

    def body(index: PrimExpr) -> PrimExpr:
        value = dims[-1]
        for axis in range(len(dims) - 2, -1, -1):
            value = select(eq(index, axis), dims[axis], value)
        return value

    return check_output(compute(out.shape, body, name="shape_of", tag="injective"), out, "shape_of")


def _dim_value(extent: int | PrimExpr, dtype: str) -> PrimExpr:
    return const(extent, dtype) if isinstance(extent, int) else cast(dtype, extent)


def _full_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    out = tensor_out(out_type, "full")
    value = const(numpy_scalar(attrs["fill_value"], out.dtype), out.dtype)
    return check_output(
        compute(out.shape, lambda *i: value, name="full", tag="injective"), out, "full"
    )


def _arange_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """start + i * step, in int64 for integer bounds and float64 otherwise, as the reference."""
    out = tensor_out(out_type, "arange")
    start, step = attrs["start"], attrs["step"]
    exact = isinstance(start, int) and isinstance(step, int) and "float" not in out.dtype

    def body(index: PrimExpr) -> PrimExpr:
        if exact:
            return cast(out.dtype, index * int(step) + int(start))
        position = cast("float64", index)
        return cast(out.dtype, position * float(step) + float(start))

    return check_output(compute(te_dims(out), body, name="arange", tag="injective"), out, "arange")


# --- the table -------------------------------------------------------------------------


def _injective(
    name: str,
    relation: TypeRelation,
    reference: Reference,
    te_compute: TeCompute,
    doc: str,
    pattern: OpPattern = OpPattern.INJECTIVE,
    num_inputs: int | None = 1,
    input_names: tuple[str, ...] = ("data",),
    symbolic_relation: SymbolicRelation | None = None,
    **attrs: object,
) -> OpDef:
    return OpDef(
        name=name,
        pattern=pattern,
        num_inputs=num_inputs,
        attrs=attrs,
        type_relation=relation,
        reference=reference,
        te_compute=te_compute,
        flops=zero_flops,
        doc=doc,
        input_names=input_names,
        symbolic_relation=symbolic_relation,
    )


OPS: tuple[OpDef, ...] = (
    _injective(
        "concatenate",
        _concatenate_relation,
        lambda inputs, attrs: np.concatenate(list(inputs), axis=int(attrs["axis"])),
        _concatenate_te,
        "join inputs along axis",
        num_inputs=None,
        input_names=(),
        symbolic_relation=_concatenate_dims,
        axis=REQUIRED,
    ),
    _injective(
        "split",
        _split_relation,
        _split_reference,
        _split_te,
        "split into equal sections (int) or at indices (tuple), like numpy.split",
        indices_or_sections=REQUIRED,
        axis=0,
        symbolic_relation=_split_dims,
    ),
    _injective(
        "reshape",
        _reshape_relation,
        _reshaping_reference(_reshape_relation),
        _reshape_like_te("reshape", _reshape_relation),
        "reshape to newshape; one -1 is inferred, 0 is a literal size; a symbolic entry "
        "is (dim text, upper bound)",
        symbolic_relation=_reshape_dims,
        newshape=REQUIRED,
    ),
    _injective(
        "flatten",
        _flatten_relation,
        _reshaping_reference(_flatten_relation),
        _reshape_like_te("flatten", _flatten_relation),
        "2-D view (prod(shape[:axis]), prod(shape[axis:])), as ONNX Flatten",
        symbolic_relation=_flatten_dims,
        axis=1,
    ),
    _injective(
        "transpose",
        _transpose_relation,
        # .copy() keeps 0-d arrays 0-d (np.ascontiguousarray makes them 1-d).
        lambda inputs, attrs: inputs[0].transpose(_transpose_axes(inputs[0].shape, attrs)).copy(),
        _injective_te("transpose", _transpose_indices),
        "permute axes (None reverses them)",
        symbolic_relation=_transpose_dims,
        axes=None,
    ),
    _injective(
        "squeeze",
        _squeeze_relation,
        _reshaping_reference(_squeeze_relation),
        _injective_te("squeeze", _squeeze_indices),
        "drop size-1 axes (None: all of them)",
        symbolic_relation=_squeeze_dims,
        axis=None,
    ),
    _injective(
        "expand_dims",
        _expand_dims_relation,
        _reshaping_reference(_expand_dims_relation),
        _injective_te("expand_dims", _expand_dims_indices),
        "insert size-1 axes at output positions, as ONNX Unsqueeze",
        symbolic_relation=_expand_dims_dims,
        axes=REQUIRED,
    ),
    _injective(
        "broadcast_to",
        _broadcast_to_relation,
        _broadcast_to_reference,
        _injective_te("broadcast_to", lambda data, attrs, out: broadcast_indices(data.shape, out)),
        "broadcast data and shape against each other, as ONNX Expand; a symbolic shape "
        "entry is (dim text, upper bound)",
        pattern=OpPattern.BROADCAST,
        symbolic_relation=_broadcast_to_dims,
        shape=REQUIRED,
    ),
    _injective(
        "strided_slice",
        _strided_slice_relation,
        lambda inputs, attrs: inputs[0][tuple(_slice_bounds(inputs[0].shape, attrs))].copy(),
        _strided_slice_te,
        "ONNX Slice: clamped begin / end, negative indices and steps, optional axes; a "
        "symbolic begin or end is (dim text, upper bound)",
        symbolic_relation=_strided_slice_dims,
        begin=REQUIRED,
        end=REQUIRED,
        strides=None,
        axes=None,
    ),
    _injective(
        "take",
        _take_relation,
        _take_reference,
        _take_te,
        "ONNX Gather along axis; negative indices count from the end",
        num_inputs=2,
        input_names=("data", "indices"),
        symbolic_relation=_take_dims,
        axis=0,
    ),
    _injective(
        "gather_elements",
        _gather_elements_relation,
        _gather_elements_reference,
        _gather_elements_te,
        "ONNX GatherElements (torch.gather): per element, the index along axis",
        num_inputs=2,
        input_names=("data", "indices"),
        axis=0,
        symbolic_relation=_gather_elements_dims,
    ),
    _injective(
        "tile",
        _tile_relation,
        lambda inputs, attrs: np.tile(inputs[0], tuple(attrs["repeats"])),
        _injective_te("tile", _tile_indices),
        "repeat the whole tensor repeats[i] times along each axis i",
        repeats=REQUIRED,
    ),
    _injective(
        "shape_of",
        _shape_of_relation,
        lambda inputs, attrs: np.asarray(inputs[0].shape, dtype=str(attrs["dtype"])),
        _shape_of_te,
        "the shape of data as a 1-D tensor",
        pattern=OpPattern.OPAQUE,
        dtype="int64",
        # (its type is static: one element per dim of data, symbolic or not)
        symbolic_relation=lambda arg_types, attrs, out_type: out_type,
    ),
    _injective(
        "full",
        _full_relation,
        lambda inputs, attrs: np.full(
            tuple(attrs["shape"]), attrs["fill_value"], dtype=str(attrs["dtype"])
        ),
        _full_te,
        "a constant tensor of shape filled with fill_value (ONNX ConstantOfShape)",
        pattern=OpPattern.OPAQUE,
        num_inputs=0,
        input_names=(),
        shape=REQUIRED,
        fill_value=0.0,
        dtype="float32",
    ),
    _injective(
        "arange",
        _arange_relation,
        _arange_reference,
        _arange_te,
        "start, start + step, ... up to (excluding) stop (ONNX Range)",
        pattern=OpPattern.OPAQUE,
        num_inputs=0,
        input_names=(),
        start=REQUIRED,
        stop=REQUIRED,
        step=1,
        dtype="int64",
        symbolic_relation=_arange_dims,
    ),
)
