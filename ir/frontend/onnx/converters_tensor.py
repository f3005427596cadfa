"""Converters for ONNX ops that move data: shapes, slicing, joining, padding, constants.

Values that our ops take as attributes but ONNX passes as tensors (Reshape's shape, Slice's
starts/ends, Pad's pads, ...) are folded to constants with `ctx.static_ints`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ir.frontend.onnx.context import Converter, ConverterResult, NodeContext, onnx_dtype_name
from ir.graph.nodes import Constant, Expr, TupleGetItem
from ir.graph.ops.te_common import quotient_of_products, type_dims
from ir.graph.shape_values import shape_value
from ir.graph.types import DTYPES, TensorType, TupleType
from ir.tir.expr import IntImm, PrimExpr


def _axes(ctx: NodeContext, axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    """Axes in [0, ndim), checked against the rank."""
    for axis in axes:
        if not -ndim <= axis < ndim:
            raise ctx.error(f"axis {axis} is out of range for rank {ndim}")
    return tuple(axis % ndim for axis in axes)


def _axes_input_or_attr(ctx: NodeContext, since: int, index: int = 1) -> tuple[int, ...] | None:
    """`axes` as an attribute before opset `since`, as an optional static input from it on."""
    if ctx.opset < since:
        return ctx.ints_attr("axes")
    if ctx.optional_input(index) is None:
        return None
    return ctx.static_ints(index, "axes")


def convert_reshape(ctx: NodeContext) -> ConverterResult:
    """Reshape: 0 copies the input dim (unless allowzero), -1 is inferred by the op; a
    target computed from symbolic shapes becomes a symbolic one."""
    if ctx.tensor_type(0).dims:
        return _symbolic_reshape(ctx)
    shape = ctx.shape(0)
    newshape = list(ctx.static_ints(1, "shape"))
    if not ctx.int_attr("allowzero", 0):
        for axis, dim in enumerate(newshape):
            if dim == 0:
                if axis >= len(shape):
                    raise ctx.error(f"shape {newshape} copies dim {axis} of input shape {shape}")
                newshape[axis] = shape[axis]
    return ctx.call("reshape", ctx.input(0), newshape=tuple(newshape))


def _symbolic_reshape(ctx: NodeContext) -> Expr:
    """Reshape of a tensor with symbolic dims: the target's entries as dim expressions (0
    copies the data's dim unless allowzero; a -1 is the data's count over the others');
    each symbolic one goes to the op as (its text, its upper bound)."""
    data_dims = type_dims(ctx.tensor_type(0))
    target = list(ctx.symbolic_ints(1, "shape"))
    if not ctx.int_attr("allowzero", 0):
        for axis, dim in enumerate(target):
            if isinstance(dim, IntImm) and dim.value == 0:
                if axis >= len(data_dims):
                    raise ctx.error(f"shape {target} copies dim {axis} the data does not have")
                target[axis] = data_dims[axis]
    inferred = [axis for axis, dim in enumerate(target) if _is_int(dim, -1)]
    if len(inferred) > 1:
        raise ctx.error("the shape holds more than one -1")
    if inferred:
        others = [dim for axis, dim in enumerate(target) if axis != inferred[0]]
        target[inferred[0]] = quotient_of_products(data_dims, others)
    newshape = tuple(ctx.dim_entry(dim) for dim in target)
    return ctx.call("reshape", ctx.input(0), newshape=newshape)


def _is_int(dim: PrimExpr, value: int) -> bool:
    return isinstance(dim, IntImm) and dim.value == value


def convert_flatten(ctx: NodeContext) -> ConverterResult:
    """Flatten(axis=1) -> flatten with a non-negative axis."""
    ndim = ctx.rank(0)
    axis = ctx.int_attr("axis", 1)
    if not -ndim <= axis <= ndim:
        raise ctx.error(f"axis {axis} is out of range for rank {ndim}")
    return ctx.call("flatten", ctx.input(0), axis=axis + ndim if axis < 0 else axis)


def convert_transpose(ctx: NodeContext) -> ConverterResult:
    """Transpose(perm) -> transpose (no perm reverses the axes)."""
    return ctx.call("transpose", ctx.input(0), axes=ctx.ints_attr("perm"))


def convert_squeeze(ctx: NodeContext) -> ConverterResult:
    """Squeeze: axes as attribute before opset 13, as optional input after."""
    axes = _axes_input_or_attr(ctx, since=13)
    ndim = ctx.rank(0)
    return ctx.call("squeeze", ctx.input(0), axis=None if axes is None else _axes(ctx, axes, ndim))


def convert_unsqueeze(ctx: NodeContext) -> ConverterResult:
    """Unsqueeze: axes (positions in the output) as attribute before opset 13, input after."""
    axes = _axes_input_or_attr(ctx, since=13)
    if axes is None:
        raise ctx.error("axes are required")
    out_ndim = ctx.rank(0) + len(axes)
    return ctx.call("expand_dims", ctx.input(0), axes=tuple(sorted(_axes(ctx, axes, out_ndim))))


def convert_expand(ctx: NodeContext) -> ConverterResult:
    """Expand(shape) -> broadcast_to (bidirectional broadcast)."""
    shape = tuple(ctx.dim_entry(dim) for dim in ctx.symbolic_ints(1, "shape"))
    return ctx.call("broadcast_to", ctx.input(0), shape=shape)


def convert_tile(ctx: NodeContext) -> ConverterResult:
    """Tile(repeats) -> tile."""
    return ctx.call("tile", ctx.input(0), repeats=ctx.static_ints(1, "repeats"))


def convert_slice(ctx: NodeContext) -> ConverterResult:
    """Slice -> strided_slice: attributes before opset 10, inputs after."""
    starts: Sequence[int | tuple[str, int]] | None
    ends: Sequence[int | tuple[str, int]] | None
    if ctx.opset < 10:
        starts = ctx.ints_attr("starts")
        ends = ctx.ints_attr("ends")
        if starts is None or ends is None:
            raise ctx.error("attributes starts and ends are required")
        axes = ctx.ints_attr("axes")
        steps = None
    else:
        # (a bound computed from symbolic shapes becomes a symbolic one)
        starts = tuple(ctx.dim_entry(dim) for dim in ctx.symbolic_ints(1, "starts"))
        ends = tuple(ctx.dim_entry(dim) for dim in ctx.symbolic_ints(2, "ends"))
        axes = None if ctx.optional_input(3) is None else ctx.static_ints(3, "axes")
        steps = None if ctx.optional_input(4) is None else ctx.static_ints(4, "steps")
    if len(starts) != len(ends):
        raise ctx.error(f"starts {list(starts)} and ends {list(ends)} differ in length")
    return ctx.call("strided_slice", ctx.input(0), begin=starts, end=ends, strides=steps, axes=axes)


def convert_gather(ctx: NodeContext) -> ConverterResult:
    """Gather(axis=0) -> take."""
    return ctx.call("take", ctx.input(0), ctx.input(1), axis=ctx.int_attr("axis", 0))


def convert_concat(ctx: NodeContext) -> ConverterResult:
    """Concat(axis) -> concatenate of the inputs that are not empty."""
    values = [value for value in ctx.inputs if value is not None]
    if ctx.attr("axis") is None:
        raise ctx.error("attribute axis is required")
    filled = [value for value in values if not _is_empty(value)]
    if len(filled) == 1 and len(values) > 1:
        return filled[0]
    return ctx.call("concatenate", *(filled or values), axis=ctx.int_attr("axis", 0))


def _is_empty(value: Expr) -> bool:
    ty = value.checked_type
    return isinstance(ty, TensorType) and ty.size == 0


def _split_sizes(ctx: NodeContext, dim: int) -> tuple[int, ...]:
    """Sizes of the parts: from `split` (attribute or input), `num_outputs`, or even parts."""
    if ctx.opset < 13:
        sizes = ctx.ints_attr("split")
    else:
        sizes = None if ctx.optional_input(1) is None else ctx.static_ints(1, "split")
    if sizes is not None:
        if sum(sizes) != dim or any(size < 0 for size in sizes):
            raise ctx.error(f"split sizes {list(sizes)} do not partition a dimension of {dim}")
        return sizes
    count = ctx.int_attr("num_outputs", 0) or len(ctx.node.output)
    # Opset 18: when the dim does not divide evenly, the last part is smaller.
    chunk = -(-dim // count)
    last = dim - chunk * (count - 1)
    if last < 0 or (ctx.attr("num_outputs") is None and dim % count):
        raise ctx.error(f"cannot split a dimension of {dim} into {count} parts")
    return (chunk,) * (count - 1) + (last,)


def convert_split(ctx: NodeContext) -> ConverterResult:
    """Split -> split at the cumulative part sizes; one TupleGetItem per output."""
    data = ctx.input(0)
    data_type = ctx.tensor_type(0)
    shape = data_type.shape
    axis = _axes(ctx, (ctx.int_attr("axis", 0),), len(shape))[0]
    sizes = _split_sizes(ctx, shape[axis])
    filled = [size for size in sizes if size]
    if data_type.dims and (
        len(filled) < len(sizes) or not isinstance(data_type.dims[axis], IntImm)
    ):
        raise ctx.unsupported(
            f"input {data_type}: with symbolic dims, the split axis must be static and every "
            "part non-empty"
        )
    if len(filled) <= 1:
        pieces = [data]
    else:
        indices = tuple(int(index) for index in np.cumsum(filled)[:-1])
        parts = ctx.call("split", data, indices_or_sections=indices, axis=axis)
        ty = parts.checked_type
        assert isinstance(ty, TupleType)
        pieces = [TupleGetItem(parts, index, ty=ty.fields[index]) for index in range(len(filled))]
    # An empty part holds no data: a constant (later ops on it fold away).
    dtype = ctx.dtype(0)
    empty = Constant(np.zeros((*shape[:axis], 0, *shape[axis + 1 :]), dtype))
    filled_parts = iter(pieces)
    return [next(filled_parts) if size else empty for size in sizes]


PAD_MODES = ("constant", "edge", "reflect", "wrap")


def _pad_arguments(ctx: NodeContext, ndim: int) -> tuple[list[int], float]:
    """ONNX pads (begins..., ends...) over all axes, and the constant value."""
    if ctx.opset < 11:
        attr_pads = ctx.ints_attr("pads") or ctx.ints_attr("paddings")
        if attr_pads is None:
            raise ctx.error("attribute pads is required")
        return list(attr_pads), ctx.float_attr("value", 0.0)
    given = ctx.static_ints(1, "pads")
    value = 0.0
    if ctx.optional_input(2) is not None:
        value = float(ctx.static_scalar(2, "constant_value"))
    axes = None if ctx.optional_input(3) is None else ctx.static_ints(3, "axes")
    if axes is None:
        return list(given), value
    axes = _axes(ctx, axes, ndim)
    if len(given) != 2 * len(axes):
        raise ctx.error(f"pads {list(given)} must have two values per axis in {list(axes)}")
    pads = [0] * (2 * ndim)
    for position, axis in enumerate(axes):
        pads[axis] = given[position]
        pads[ndim + axis] = given[len(axes) + position]
    return pads, value


def convert_pad(ctx: NodeContext) -> ConverterResult:
    """Pad -> nn.pad (negative pads crop, as in ONNX); a symbolic axis must not pad."""
    ndim = ctx.rank(0)
    mode = ctx.choice_attr("mode", "constant", PAD_MODES)
    pads, value = _pad_arguments(ctx, ndim)
    if len(pads) != 2 * ndim:
        raise ctx.error(f"pads {pads} must have {2 * ndim} values for input {ctx.tensor_type(0)}")
    widths = tuple((pads[axis], pads[ndim + axis]) for axis in range(ndim))
    if mode == "wrap":
        return _wrap_pad(ctx, widths)
    dims = ctx.tensor_type(0).dims
    for axis, width in enumerate(widths):
        if dims and any(width) and not isinstance(dims[axis], IntImm):
            raise ctx.unsupported(
                f"axis {axis} of input {ctx.tensor_type(0)} is symbolic: only static axes pad"
            )
    return ctx.call("nn.pad", ctx.input(0), pad_width=widths, pad_value=value, mode=mode)


def _wrap_pad(ctx: NodeContext, widths: tuple[tuple[int, int], ...]) -> Expr:
    """Pad in wrap mode, a `take` of constant indices per padded axis: negative widths crop
    first (as onnxruntime does), then position i of the cropped axis of size n reads
    (i - before) mod n."""
    result = ctx.input(0)
    for axis, ((before, after), size) in enumerate(zip(widths, ctx.shape(0), strict=True)):
        if before == after == 0:
            continue
        start, stop = max(-before, 0), size - max(-after, 0)
        kept = stop - start
        if kept <= 0:
            raise ctx.error(f"cannot wrap-pad axis {axis} of size {size} by {(before, after)}")
        offsets = np.arange(-max(before, 0), kept + max(after, 0), dtype=np.int64)
        indices = start + np.mod(offsets, kept)
        result = ctx.call("take", result, Constant(indices), axis=axis)
    return result


def convert_shape(ctx: NodeContext) -> ConverterResult:
    """Shape -> shape_of, sliced by start/end (opset 15)."""
    out = ctx.call("shape_of", ctx.input(0), dtype="int64")
    start = ctx.attr("start")
    end = ctx.attr("end")
    if start is None and end is None:
        return out
    ndim = ctx.rank(0)
    begin = 0 if start is None else int(start)
    stop = ndim if end is None else int(end)
    return ctx.call("strided_slice", out, begin=(begin,), end=(stop,), axes=(0,))


def _python_scalar(value: np.ndarray) -> Any:
    return value.reshape(-1)[0].item()


def convert_constant_of_shape(ctx: NodeContext) -> ConverterResult:
    """ConstantOfShape(shape) -> full (FoldConstant turns it into a constant)."""
    shape = ctx.static_ints(0, "shape")
    value = ctx.attr("value")
    if value is None:
        value = np.zeros((1,), dtype=np.float32)
    if value.size != 1:
        raise ctx.error(f"attribute value must hold one element, got shape {value.shape}")
    return ctx.call("full", shape=shape, fill_value=_python_scalar(value), dtype=value.dtype.name)


def convert_constant(ctx: NodeContext) -> ConverterResult:
    """Constant -> a Constant from value / value_float(s) / value_int(s)."""
    if "value" in ctx.attrs:
        array = np.asarray(ctx.attrs["value"])
    elif "value_float" in ctx.attrs:
        array = np.asarray(ctx.attrs["value_float"], dtype=np.float32)
    elif "value_floats" in ctx.attrs:
        array = np.asarray(ctx.attrs["value_floats"], dtype=np.float32)
    elif "value_int" in ctx.attrs:
        array = np.asarray(ctx.attrs["value_int"], dtype=np.int64)
    elif "value_ints" in ctx.attrs:
        array = np.asarray(ctx.attrs["value_ints"], dtype=np.int64)
    else:
        names = ", ".join(sorted(ctx.attrs)) or "none"
        raise ctx.unsupported(
            f"only value, value_float(s) and value_int(s) are supported, got attribute(s) {names}"
        )
    if array.dtype.name not in DTYPES:
        raise ctx.unsupported(f"constant of dtype {array.dtype.name} is not supported")
    return Constant(array)


def convert_range(ctx: NodeContext) -> ConverterResult:
    """Range(start, limit, delta) with static scalars -> arange; a limit computed from
    symbolic shapes (`Range(0, seq, 1)`) becomes a symbolic stop."""
    start = ctx.static_scalar(0, "start")
    step = ctx.static_scalar(2, "delta")
    value = shape_value(ctx.fold(ctx.input(1)))
    limit = value[0] if value is not None and len(value) == 1 else None
    if limit is None or isinstance(limit, IntImm):
        stop: object = ctx.static_scalar(1, "limit")
    else:
        stop = ctx.dim_entry(limit)
    return ctx.call("arange", start=start, stop=stop, step=step, dtype=ctx.dtype(0))


def _block_size(ctx: NodeContext) -> int:
    size = ctx.attr("blocksize")
    if size is None or int(size) < 1:
        raise ctx.error(f"attribute blocksize must be a positive integer, got {size}")
    if ctx.rank(0) != 4:
        raise ctx.error(f"input must be 4-D (N, C, H, W), got shape {ctx.shape(0)}")
    return int(size)


def convert_depth_to_space(ctx: NodeContext) -> ConverterResult:
    """DepthToSpace (DCR or CRD) -> reshape, transpose, reshape."""
    block = _block_size(ctx)
    n, c, h, w = ctx.shape(0)
    if c % (block * block):
        raise ctx.error(f"{c} channels are not divisible by blocksize**2 = {block * block}")
    mode = ctx.choice_attr("mode", "DCR", ("DCR", "CRD"))
    depth = c // (block * block)
    if mode == "DCR":
        split, axes = (n, block, block, depth, h, w), (0, 3, 4, 1, 5, 2)
    else:
        split, axes = (n, depth, block, block, h, w), (0, 1, 4, 2, 5, 3)
    blocks = ctx.call("reshape", ctx.input(0), newshape=split)
    moved = ctx.call("transpose", blocks, axes=axes)
    return ctx.call("reshape", moved, newshape=(n, depth, h * block, w * block))


def convert_space_to_depth(ctx: NodeContext) -> ConverterResult:
    """SpaceToDepth -> reshape, transpose, reshape: the inverse of DepthToSpace in its
    mode (opset 28; DCR before, where output channels are (row, column, channel) in the
    block, CRD: (channel, row, column))."""
    block = _block_size(ctx)
    mode = ctx.choice_attr("mode", "DCR", ("DCR", "CRD"))
    n, c, h, w = ctx.shape(0)
    if h % block or w % block:
        raise ctx.error(f"height {h} and width {w} must be divisible by blocksize {block}")
    blocks = ctx.call(
        "reshape", ctx.input(0), newshape=(n, c, h // block, block, w // block, block)
    )
    order = (0, 3, 5, 1, 2, 4) if mode == "DCR" else (0, 1, 3, 5, 2, 4)
    moved = ctx.call("transpose", blocks, axes=order)
    return ctx.call("reshape", moved, newshape=(n, c * block * block, h // block, w // block))


def convert_trilu(ctx: NodeContext) -> ConverterResult:
    """Trilu(x, k) -> where with a constant mask of the upper or lower triangle."""
    shape = ctx.shape(0)
    if len(shape) < 2:
        raise ctx.error(f"input must have at least 2 dimensions, got shape {shape}")
    k = 0 if ctx.optional_input(1) is None else int(ctx.static_scalar(1, "k"))
    rows, cols = shape[-2:]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    mask = offset >= k if ctx.int_attr("upper", 1) else offset <= k
    zero = ctx.scalar(0, ctx.dtype(0))
    return ctx.call("where", Constant(mask), ctx.input(0), zero)


def convert_size(ctx: NodeContext) -> ConverterResult:
    """Size -> the element count, a constant (shapes are static)."""
    return Constant(np.asarray(int(np.prod(ctx.shape(0))), dtype=np.int64))


def convert_gather_elements(ctx: NodeContext) -> ConverterResult:
    """GatherElements(axis) -> gather_elements."""
    axis = _axes(ctx, (ctx.int_attr("axis", 0),), ctx.rank(0))[0]
    return ctx.call("gather_elements", ctx.input(0), ctx.input(1), axis=axis)


def convert_tensor_scatter(ctx: NodeContext) -> ConverterResult:
    """TensorScatter(axis, mode) (a KV cache update) -> where(written, gather_elements(update,
    row), past): cache position j of sample b takes the update's row j - write_indices[b]
    (modulo the cache length in circular mode) where that row exists, else keeps the past
    cache's value. Without write_indices every sample writes from position 0."""
    past, update = ctx.input(0), ctx.input(1)
    shape, update_shape = ctx.shape(0), ctx.shape(1)
    rank = len(shape)
    if rank < 2:
        raise ctx.error(f"the caches must have a batch and a sequence axis, got shape {shape}")
    axis = _axes(ctx, (ctx.int_attr("axis", -2),), rank)[0]
    if axis == 0:
        raise ctx.error("axis 0 is the batch axis; the sequence axis must be another")
    mode = ctx.choice_attr("mode", "linear", ("linear", "circular"))
    capacity, length = shape[axis], update_shape[axis] if len(update_shape) == rank else -1
    mismatch = [i for i in range(rank) if i != axis and update_shape[i] != shape[i]]
    if length < 0 or mismatch or length > capacity:
        raise ctx.error(
            f"update of shape {update_shape} must match the cache's {shape} off axis {axis} "
            f"and be at most as long on it"
        )
    if ctx.dtype(1) != ctx.dtype(0):
        raise ctx.error(f"update is {ctx.dtype(1)}, the cache {ctx.dtype(0)}")
    if length == 0:
        return past
    # Source rows as an int64 tensor of shape (batch, 1.., capacity on the axis, 1..).
    positions = [1] * rank
    positions[axis] = capacity
    rows: Expr = Constant(np.arange(capacity, dtype=np.int64).reshape(positions))
    writes = ctx.optional_input(2)
    if writes is not None:
        if ctx.shape(2) != (shape[0],):
            raise ctx.error(f"write_indices must have shape ({shape[0]},), got {ctx.shape(2)}")
        starts = ctx.call("cast", writes, dtype="int64")
        starts = ctx.call("reshape", starts, newshape=(shape[0],) + (1,) * (rank - 1))
        rows = ctx.call("subtract", rows, starts)
    if mode == "circular":
        rows = ctx.call("floor_mod", rows, Constant(np.array(capacity, np.int64)))
    written = ctx.call(
        "logical_and",
        ctx.call("greater", rows, Constant(np.array(-1, np.int64))),
        ctx.call("less", rows, Constant(np.array(length, np.int64))),
    )
    inside = ctx.call("clip", rows, a_min=0, a_max=max(length - 1, 0))
    full = ctx.call("broadcast_to", inside, shape=shape)
    gathered = ctx.call("gather_elements", update, full, axis=axis)
    return ctx.call("where", ctx.call("broadcast_to", written, shape=shape), gathered, past)


def _flat_positions(ctx: NodeContext, indices: np.ndarray, dims: tuple[int, ...]) -> np.ndarray:
    """Row-major positions in `dims` of the index tuples along indices' last axis (negative
    entries count from the end), or a ModelImportError naming an index out of range."""
    bounds = np.asarray(dims, dtype=np.int64)
    wrapped = np.where(indices < 0, indices + bounds, indices).astype(np.int64)
    if wrapped.size and (np.any(wrapped < 0) or np.any(wrapped >= bounds)):
        raise ctx.error(f"indices out of range for the leading dims {dims} of the data")
    positions = np.zeros(wrapped.shape[:-1], dtype=np.int64)
    for axis, size in enumerate(dims):
        positions = positions * size + wrapped[..., axis]
    return positions


def _static_index_tuples(
    ctx: NodeContext, batch_dims: int = 0
) -> tuple[np.ndarray, int, tuple[int, ...]]:
    """GatherND's / ScatterND's static indices, their tuple length k and data's dims after
    the `batch_dims` leading ones and the k indexed ones."""
    indices = ctx.static_value(1, "indices")
    shape = ctx.shape(0)
    depth = indices.shape[-1] if indices.ndim else 0
    if indices.ndim <= batch_dims or not 1 <= depth <= len(shape) - batch_dims:
        raise ctx.error(f"indices of shape {indices.shape} do not index data of shape {shape}")
    if indices.shape[:batch_dims] != shape[:batch_dims]:
        raise ctx.error(
            f"the {batch_dims} batch dims of indices {indices.shape} and data {shape} differ"
        )
    return indices, depth, shape[batch_dims + depth :]


def convert_gather_nd(ctx: NodeContext) -> ConverterResult:
    """GatherND with static indices -> take of the data with its leading dims flattened
    (with batch_dims, each batch entry's tuples index its own slice)."""
    batch_dims = ctx.int_attr("batch_dims", 0)
    indices, depth, rest = _static_index_tuples(ctx, batch_dims)
    shape = ctx.shape(0)
    indexed = shape[batch_dims : batch_dims + depth]
    positions = _flat_positions(ctx, indices, indexed)
    batches = int(np.prod(shape[:batch_dims]))
    batch_of = np.arange(batches, dtype=np.int64).reshape(
        *shape[:batch_dims], *(1,) * (indices.ndim - 1 - batch_dims)
    )
    positions = positions + batch_of * int(np.prod(indexed))
    leading = int(np.prod(shape[: batch_dims + depth]))
    flat = ctx.call("reshape", ctx.input(0), newshape=(leading, *rest))
    return ctx.call("take", flat, Constant(positions), axis=0)


SCATTER_REDUCTIONS = {
    "none": None,
    "add": "add",
    "mul": "multiply",
    "max": "maximum",
    "min": "minimum",
}


def convert_scatter_nd(ctx: NodeContext) -> ConverterResult:
    """ScatterND with static indices -> where(written, updates gathered per position, data).

    Each position of the data's leading dims knows (at import) which update lands there;
    with a reduction, the update combines with the data (positions written twice are
    refused, as their order would matter)."""
    if ctx.int_attr("batch_dims", 0):
        raise ctx.unsupported_attr("batch_dims", ctx.attr("batch_dims"), ("0",))
    indices, depth, rest = _static_index_tuples(ctx)
    leading = ctx.shape(0)[:depth]
    positions = _flat_positions(ctx, indices, leading)
    expected = (*indices.shape[:-1], *rest)
    if ctx.shape(2) != expected:
        raise ctx.error(f"updates have shape {ctx.shape(2)}; expected {expected}")
    return _scatter(ctx, positions, leading, rest)


def convert_scatter_elements(ctx: NodeContext) -> ConverterResult:
    """ScatterElements (and the older Scatter) with static indices: each update's position
    is its own with the `axis` coordinate taken from indices; then as ScatterND."""
    indices = ctx.static_value(1, "indices").astype(np.int64)
    shape = ctx.shape(0)
    axis = ctx.axis(ctx.int_attr("axis", 0), len(shape))
    if indices.ndim != len(shape) or ctx.shape(2) != indices.shape:
        raise ctx.error(
            f"indices {indices.shape} and updates {ctx.shape(2)} must have one shape, of the "
            f"data's rank {len(shape)}"
        )
    coordinates = np.indices(indices.shape, dtype=np.int64)
    coordinates[axis] = indices
    positions = _flat_positions(ctx, np.moveaxis(coordinates, 0, -1), shape)
    return _scatter(ctx, positions, shape, ())


MAX_SCATTER_REPEATS = 64  # most updates one position combines with a reduction


def _scatter(
    ctx: NodeContext, positions: np.ndarray, leading: tuple[int, ...], rest: tuple[int, ...]
) -> Expr:
    """Input 2's updates (one per entry of `positions`, flat in `leading`, each of shape
    `rest`) written into input 0, combined by the node's reduction: without one the last
    write to a position wins (as ONNX Runtime); with one, the updates landing on one
    position combine with the data in their order, one round per repeat."""
    reduction = ctx.choice_attr("reduction", "none", tuple(SCATTER_REDUCTIONS))
    positions = positions.reshape(-1)
    size = int(np.prod(leading))
    updates = ctx.call("reshape", ctx.input(2), newshape=(max(positions.size, 1), *rest))
    combine = SCATTER_REDUCTIONS[reduction]
    rounds: list[np.ndarray] = []  # per round: the update each position takes, or -1
    for update, position in enumerate(positions.tolist()):
        level = (
            0
            if combine is None
            else next((n for n, sources in enumerate(rounds) if sources[position] < 0), len(rounds))
        )
        if level == len(rounds):
            if level == MAX_SCATTER_REPEATS:
                raise ctx.unsupported(
                    f"reduction {reduction!r} writing one index more than "
                    f"{MAX_SCATTER_REPEATS} times"
                )
            rounds.append(np.full(size, -1, dtype=np.int64))
        rounds[level][position] = update
    result = ctx.input(0)
    for source in rounds:
        written = Constant((source >= 0).reshape(*leading, *(1,) * len(rest)))
        picked = Constant(np.maximum(source, 0).reshape(leading))
        landed = ctx.call("take", updates, picked, axis=0)
        if combine is not None:
            landed = ctx.call(combine, result, landed)
        result = ctx.call("where", written, landed, result)
    return result


def convert_compress(ctx: NodeContext) -> ConverterResult:
    """Compress with a static condition -> take of the selected slices along the axis (of
    the flattened input without one); an empty selection is an empty constant."""
    condition = ctx.static_value(1, "condition").reshape(-1).astype(bool)
    data = ctx.input(0)
    shape = ctx.shape(0)
    if ctx.attr("axis") is None:
        data = ctx.call("reshape", data, newshape=(int(np.prod(shape)),))
        shape = (int(np.prod(shape)),)
        axis = 0
    else:
        axis = ctx.axis(ctx.int_attr("axis", 0), len(shape))
    if condition.size > shape[axis]:
        raise ctx.error(f"condition has {condition.size} values for a dim of {shape[axis]}")
    picked = np.flatnonzero(condition).astype(np.int64)
    if picked.size == 0:
        empty = (*shape[:axis], 0, *shape[axis + 1 :])
        return Constant(np.zeros(empty, dtype=ctx.dtype(0)))
    return ctx.call("take", data, Constant(picked), axis=axis)


def convert_reverse_sequence(ctx: NodeContext) -> ConverterResult:
    """ReverseSequence with static lengths -> gather_elements along the time axis, each
    batch entry's first `length` steps read backwards."""
    shape = ctx.shape(0)
    if len(shape) < 2:
        raise ctx.error(f"input must have rank 2 or more, got shape {shape}")
    batch_axis = ctx.axis(ctx.int_attr("batch_axis", 1), len(shape))
    time_axis = ctx.axis(ctx.int_attr("time_axis", 0), len(shape))
    if {batch_axis, time_axis} != {0, 1}:
        raise ctx.error(f"batch_axis and time_axis must be 0 and 1, got {batch_axis}, {time_axis}")
    lengths = ctx.static_value(1, "sequence_lens").astype(np.int64).reshape(-1)
    steps, batch = shape[time_axis], shape[batch_axis]
    if lengths.size != batch or np.any(lengths < 0) or np.any(lengths > steps):
        raise ctx.error(
            f"sequence_lens {lengths.tolist()} must give one length in [0, {steps}] per batch entry"
        )
    time = np.arange(steps, dtype=np.int64)[:, None]
    source = np.where(time < lengths[None, :], lengths[None, :] - 1 - time, time)  # (time, batch)
    if time_axis == 1:
        source = source.T
    index = np.broadcast_to(source.reshape(*source.shape, *(1,) * (len(shape) - 2)), shape)
    return ctx.call(
        "gather_elements", ctx.input(0), Constant(np.ascontiguousarray(index)), axis=time_axis
    )


def convert_one_hot(ctx: NodeContext) -> ConverterResult:
    """OneHot(indices, depth, values) -> where(indices == arange(depth), on, off)."""
    depth = int(ctx.static_scalar(1, "depth"))
    values = ctx.static_value(2, "values").reshape(-1)
    if depth < 1 or values.size != 2:
        raise ctx.error(f"depth {depth} must be positive and values must hold (off, on)")
    shape = ctx.shape(0)
    rank = len(shape) + 1
    axis = _axes(ctx, (ctx.int_attr("axis", -1),), rank)[0]
    indices = ctx.input(0)
    if ctx.dtype(0) != "int64":  # floats truncate, as ONNX Runtime casts them
        indices = ctx.call("cast", indices, dtype="int64")
    depth_const = ctx.scalar(depth, "int64")
    negative = ctx.call("less", indices, ctx.scalar(0, "int64"))
    wrapped = ctx.call("where", negative, ctx.call("add", indices, depth_const), indices)
    classes = np.arange(depth, dtype=np.int64).reshape(depth, *(1,) * (rank - axis - 1))
    hit = ctx.call("equal", ctx.call("expand_dims", wrapped, axes=(axis,)), Constant(classes))
    off, on = (Constant(np.asarray(value, dtype=values.dtype)) for value in values)
    return ctx.call("where", hit, on, off)


def convert_non_zero(ctx: NodeContext) -> ConverterResult:
    """NonZero of a compile-time constant -> the constant (rank, count) indices; of a
    runtime value, whose output shape depends on the data, UnsupportedOpError."""
    folded = ctx.fold(ctx.input(0))
    if not isinstance(folded, Constant):
        raise ctx.unsupported("NonZero of a runtime value (its output shape depends on the data)")
    return Constant(np.asarray(np.nonzero(folded.data), dtype=np.int64))


def convert_eye_like(ctx: NodeContext) -> ConverterResult:
    """EyeLike(k) -> a constant 2-D matrix with ones on the k-th diagonal."""
    shape = ctx.shape(0)
    if len(shape) != 2:
        raise ctx.error(f"input must be 2-D, got shape {shape}")
    to = ctx.attr("dtype")
    dtype = ctx.dtype(0) if to is None else onnx_dtype_name(int(to), ctx.where)
    eye = np.eye(shape[0], shape[1], k=ctx.int_attr("k", 0), dtype=dtype)
    return Constant(eye)


CONVERTERS: dict[str, Converter] = {
    "Compress": convert_compress,
    "Concat": convert_concat,
    "Constant": convert_constant,
    "ConstantOfShape": convert_constant_of_shape,
    "DepthToSpace": convert_depth_to_space,
    "Expand": convert_expand,
    "EyeLike": convert_eye_like,
    "Flatten": convert_flatten,
    "Gather": convert_gather,
    "GatherElements": convert_gather_elements,
    "TensorScatter": convert_tensor_scatter,
    "GatherND": convert_gather_nd,
    "NonZero": convert_non_zero,
    "OneHot": convert_one_hot,
    "Pad": convert_pad,
    "Range": convert_range,
    "Reshape": convert_reshape,
    "ReverseSequence": convert_reverse_sequence,
    "Scatter": convert_scatter_elements,
    "ScatterElements": convert_scatter_elements,
    "ScatterND": convert_scatter_nd,
    "Shape": convert_shape,
    "Size": convert_size,
    "Slice": convert_slice,
    "SpaceToDepth": convert_space_to_depth,
    "Split": convert_split,
    "Squeeze": convert_squeeze,
    "Tile": convert_tile,
    "Transpose": convert_transpose,
    "Trilu": convert_trilu,
    "Unsqueeze": convert_unsqueeze,
}
