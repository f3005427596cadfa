"""Neural-network ops: convolution, matrix products, normalisation and softmax."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ir.errors import TypeInferenceError
from ir.graph.attrs import Attrs
from ir.graph.ops.common import (
    block_channels,
    broadcast_shapes,
    int_tuple,
    normalize_axis,
    require_float,
    same_dtype,
    tensor_arg,
    tensor_args,
    unblock_channels,
    window_output_size,
    window_pads,
)
from ir.graph.ops.registry import (
    REQUIRED,
    FlopCounter,
    OpDef,
    OpPattern,
    TypeRelation,
    elementwise_flops,
    zero_flops,
)
from ir.graph.ops.te_common import (
    accumulate_dtype,
    broadcast_dim_lists,
    broadcast_dims,
    broadcast_indices,
    check_output,
    in_range,
    index_const,
    narrowed,
    pad_stage,
    read_broadcast,
    symbolic_batch,
    symbolic_rows,
    te_dims,
    tensor_out,
    type_dims,
    widened_product,
    with_dims,
)
from ir.graph.types import TensorType, Type
from ir.te.tensor import Tensor, compute, dims_of, max_reduce, reduce_axis, sum_reduce
from ir.tir.expr import IntImm, IterVar, PrimExpr, cast, intrinsic
from ir.tir.printer import format_expr

# --- nn.conv2d -----------------------------------------------------------------------------


def conv2d_geometry(
    attrs: Attrs, op: str = "nn.conv2d"
) -> tuple[tuple[int, ...], tuple[int, int, int, int], tuple[int, ...], int]:
    strides = int_tuple(attrs["strides"], 2, "strides", op)
    dilation = int_tuple(attrs["dilation"], 2, "dilation", op)
    if min(strides + dilation) < 1:
        raise TypeInferenceError(f"{op}: strides {strides} and dilation {dilation} must be >= 1")
    groups = int(attrs.get("groups", 1))
    if groups < 1:
        raise TypeInferenceError(f"{op}: groups must be >= 1, got {groups}")
    return strides, window_pads(attrs["padding"], op), dilation, groups


def conv2d_output_hw(
    data: TensorType, weight: TensorType, kernel: tuple[int, int], attrs: Attrs, op: str
) -> tuple[int, int]:
    """Output rows and columns of a conv of `data` (H and W on axes 2 and 3) by a window of
    `kernel`; a TypeInferenceError when the window does not fit the padded data."""
    strides, (top, left, bottom, right), dilation, _ = conv2d_geometry(attrs, op)
    height, width = data.shape[2], data.shape[3]
    out_h = window_output_size(height, kernel[0], strides[0], dilation[0], top, bottom)
    out_w = window_output_size(width, kernel[1], strides[1], dilation[1], left, right)
    if out_h < 1 or out_w < 1:
        raise TypeInferenceError(
            f"{op}: kernel of weight (shape {weight.shape}) with dilation {dilation} does not "
            f"fit data (shape {data.shape}) padded by {(top, left, bottom, right)}"
        )
    return out_h, out_w


def _conv2d_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "nn.conv2d"
    data, weight = tensor_args(arg_types, op)
    if data.ndim != 4 or weight.ndim != 4:
        raise TypeInferenceError(
            f"{op}: data (shape {data.shape}) and weight (shape {weight.shape}) "
            "must both be 4-D (NCHW data, OIHW weight)"
        )
    dtype = same_dtype([data, weight], op)
    groups = conv2d_geometry(attrs)[3]
    batch, channels = data.shape[:2]
    out_channels, group_channels, kernel_h, kernel_w = weight.shape
    if channels != group_channels * groups:
        raise TypeInferenceError(
            f"{op}: data has {channels} channels (shape {data.shape}) but weight "
            f"(shape {weight.shape}) expects {group_channels} x groups={groups}"
        )
    if out_channels % groups:
        raise TypeInferenceError(
            f"{op}: weight (shape {weight.shape}) has {out_channels} output channels, "
            f"not divisible by groups={groups} (data shape {data.shape})"
        )
    out_h, out_w = conv2d_output_hw(data, weight, (kernel_h, kernel_w), attrs, op)
    return TensorType((batch, out_channels, out_h, out_w), dtype)


def conv2d_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    """NCHW x OIHW convolution: pad, gather windows (im2col), one batched matmul per group."""
    data, weight = inputs
    (stride_h, stride_w), (top, left, bottom, right), (dil_h, dil_w), groups = conv2d_geometry(
        attrs
    )
    batch, _, height, width = data.shape
    out_channels, group_channels, kernel_h, kernel_w = weight.shape
    out_h = window_output_size(height, kernel_h, stride_h, dil_h, top, bottom)
    out_w = window_output_size(width, kernel_w, stride_w, dil_w, left, right)
    # Step 1. Pad, then view every (dilated) window at every output position.
    padded = np.pad(data, ((0, 0), (0, 0), (top, bottom), (left, right)))
    span = ((kernel_h - 1) * dil_h + 1, (kernel_w - 1) * dil_w + 1)
    windows = sliding_window_view(padded, span, axis=(2, 3))[
        :, :, : (out_h - 1) * stride_h + 1 : stride_h, : (out_w - 1) * stride_w + 1 : stride_w
    ][..., ::dil_h, ::dil_w]
    # Step 2. Lay windows out as rows: (batch, group, positions, channels x kernel).
    windows = windows.reshape(batch, groups, group_channels, out_h, out_w, kernel_h, kernel_w)
    columns = windows.transpose(0, 1, 3, 4, 2, 5, 6).reshape(
        batch, groups, out_h * out_w, group_channels * kernel_h * kernel_w
    )
    # Step 3. Multiply by each group's kernels: (group, channels x kernel, out per group).
    kernels = weight.reshape(groups, out_channels // groups, -1).transpose(0, 2, 1)
    # float64 accumulation: BLAS sums different output channels in different orders (edge
    # tiles), so float32 sums of equal terms differ in the last bit from channel to channel,
    # and an ill-conditioned consumer (softmax of logits ~1e9) turns that into a wrong answer.
    accumulate = np.float64 if data.dtype.kind == "f" else data.dtype
    out = np.matmul(columns.astype(accumulate), kernels.astype(accumulate))
    out = out.reshape(batch, groups, out_h, out_w, out_channels // groups).transpose(0, 1, 4, 2, 3)
    return np.ascontiguousarray(out.reshape(batch, out_channels, out_h, out_w), dtype=data.dtype)


def _conv2d_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """Pad H and W, then out[n, k, y, x] = sum over (rc, ry, rx) of pad * weight."""
    data, weight = inputs
    (stride_h, stride_w), (top, left, bottom, right), (dil_h, dil_w), groups = conv2d_geometry(
        attrs
    )
    out = tensor_out(out_type, "nn.conv2d")
    out_channels, group_channels, kernel_h, kernel_w = weight.shape
    padded = pad_stage(data, (0, 0, top, left), (0, 0, bottom, right), 0)
    rc = reduce_axis(group_channels, "rc")
    ry = reduce_axis(kernel_h, "ry")
    rx = reduce_axis(kernel_w, "rx")
    per_group = out_channels // groups

    def body(n: PrimExpr, k: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
        channel = rc.var if groups == 1 else (k // per_group) * group_channels + rc.var
        row = y * stride_h + ry.var * dil_h
        col = x * stride_w + rx.var * dil_w
        return sum_reduce(
            widened_product(padded[n, channel, row, col], weight[k, rc, ry, rx]), [rc, ry, rx]
        )

    conv = compute(te_dims(out), body, name="conv2d", tag="conv2d", attrs={"weight_input": 1})
    return check_output(narrowed(conv, out.dtype), out, "nn.conv2d")


def _conv2d_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    weight = tensor_arg(arg_types, 1, "nn.conv2d")
    assert isinstance(out_type, TensorType)
    _, group_channels, kernel_h, kernel_w = weight.shape
    return 2 * out_type.size * group_channels * kernel_h * kernel_w


# --- nn.conv2d_nchwc: blocked-channel convolution -----------------------------------------


def _check_nchwc_operands(data: TensorType, weight: TensorType, op: str, groups: int = 1) -> None:
    """TypeInferenceError unless `data` and `weight` are a blocked conv's operands (with
    `groups`, the weight's input blocks are one group's and its output blocks split
    evenly between the groups)."""
    if data.ndim not in (4, 5) or weight.ndim != 6:
        raise TypeInferenceError(
            f"{op}: data (shape {data.shape}) must be 4-D NCHW or 5-D NCHW[b]c and weight "
            f"(shape {weight.shape}) 6-D OIHW[bi]i[bo]o"
        )
    out_blocks, in_blocks, _, _, in_block, _ = weight.shape
    channels = data.shape[1] if data.ndim == 4 else data.shape[1] * data.shape[4]
    if groups * in_blocks * in_block != channels or (data.ndim == 5 and data.shape[4] != in_block):
        raise TypeInferenceError(
            f"{op}: weight (shape {weight.shape}) expects {groups} x {in_blocks} x {in_block} "
            f"input channels, data (shape {data.shape}) has {channels}"
        )
    if out_blocks % groups:
        raise TypeInferenceError(
            f"{op}: {out_blocks} output blocks do not split into {groups} groups"
        )


def _conv2d_nchwc_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "nn.conv2d_nchwc"
    data, weight = tensor_args(arg_types, op)
    dtype = same_dtype([data, weight], op)
    _check_nchwc_operands(data, weight, op, conv2d_geometry(attrs, op)[3])
    out_blocks, _, kernel_h, kernel_w, _, out_block = weight.shape
    out_h, out_w = conv2d_output_hw(data, weight, (kernel_h, kernel_w), attrs, op)
    return TensorType((data.shape[0], out_blocks, out_h, out_w, out_block), dtype)


def _conv2d_nchwc_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    """The NCHW convolution (grouped as `groups` says) of the unblocked operands, blocked
    again."""
    data, weight = inputs
    out_blocks, in_blocks, kernel_h, kernel_w, in_block, out_block = weight.shape
    plain_data = data if data.ndim == 4 else unblock_channels(data)
    plain_weight = weight.transpose(0, 5, 1, 4, 2, 3).reshape(
        out_blocks * out_block, in_blocks * in_block, kernel_h, kernel_w
    )
    out = conv2d_reference([plain_data, plain_weight], attrs)
    return block_channels(out, out_block)


def _conv2d_nchwc_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """out[n, ko, y, x, kb] = sum over (co, ry, rx, ci) of pad[n, co, y', x', ci] * weight."""
    data, weight = inputs
    (stride_h, stride_w), (top, left, bottom, right), (dil_h, dil_w), groups = conv2d_geometry(
        attrs, "nn.conv2d_nchwc"
    )
    out = tensor_out(out_type, "nn.conv2d_nchwc")
    out_blocks, in_blocks, kernel_h, kernel_w, in_block, _ = weight.shape
    group_out_blocks = out_blocks // groups
    pad_after = (0, 0, bottom, right) + ((0,) if data.ndim == 5 else ())
    pad_before = (0, 0, top, left) + ((0,) if data.ndim == 5 else ())
    padded = pad_stage(data, pad_before, pad_after, 0)
    rco = reduce_axis(in_blocks, "rco")
    ry = reduce_axis(kernel_h, "ry")
    rx = reduce_axis(kernel_w, "rx")
    rci = reduce_axis(in_block, "rci")

    def body(n: PrimExpr, ko: PrimExpr, y: PrimExpr, x: PrimExpr, kb: PrimExpr) -> PrimExpr:
        row = y * stride_h + ry.var * dil_h
        col = x * stride_w + rx.var * dil_w
        # The input block: its group's first (ko's group), then the reduction's.
        block = rco.var if groups == 1 else (ko // group_out_blocks) * in_blocks + rco.var
        if data.ndim == 5:
            value = padded[n, block, row, col, rci.var]
        else:
            value = padded[n, block * in_block + rci.var, row, col]
        return sum_reduce(
            widened_product(value, weight[ko, rco, ry, rx, rci, kb]), [rco, ry, rx, rci]
        )

    conv = compute(
        te_dims(out), body, name="conv2d_nchwc", tag="conv2d_nchwc", attrs={"weight_input": 1}
    )
    return check_output(narrowed(conv, out.dtype), out, "nn.conv2d_nchwc")


def _conv2d_nchwc_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    weight = tensor_arg(arg_types, 1, "nn.conv2d_nchwc")
    assert isinstance(out_type, TensorType)
    _, in_blocks, kernel_h, kernel_w, in_block, _ = weight.shape
    return 2 * out_type.size * in_blocks * in_block * kernel_h * kernel_w


# --- nn.depthwise_conv2d_nchwc: depthwise convolution on blocked channels ----------------


def _depthwise_nchwc_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "nn.depthwise_conv2d_nchwc"
    data, weight = tensor_args(arg_types, op)
    dtype = same_dtype([data, weight], op)
    if data.ndim != 5 or weight.ndim != 4:
        raise TypeInferenceError(
            f"{op}: data (shape {data.shape}) must be 5-D NCHW[b]c and weight "
            f"(shape {weight.shape}) 4-D C[b]HWc"
        )
    blocks, kernel_h, kernel_w, block = weight.shape
    if (data.shape[1], data.shape[4]) != (blocks, block):
        raise TypeInferenceError(
            f"{op}: weight (shape {weight.shape}) has {blocks} blocks of {block} channels, "
            f"data (shape {data.shape}) {data.shape[1]} of {data.shape[4]}"
        )
    out_h, out_w = conv2d_output_hw(data, weight, (kernel_h, kernel_w), attrs, op)
    return TensorType((data.shape[0], blocks, out_h, out_w, block), dtype)


def _depthwise_nchwc_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    """The NCHW depthwise convolution of the unblocked operands, blocked again."""
    data, weight = inputs
    blocks, kernel_h, kernel_w, block = weight.shape
    plain_weight = weight.transpose(0, 3, 1, 2).reshape(blocks * block, 1, kernel_h, kernel_w)
    attrs = Attrs({**attrs, "groups": blocks * block})
    return block_channels(conv2d_reference([unblock_channels(data), plain_weight], attrs), block)


def _depthwise_nchwc_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """out[n, k, y, x, c] = sum over (ry, rx) of pad[n, k, y', x', c] * weight[k, ry, rx, c]."""
    data, weight = inputs
    op = "nn.depthwise_conv2d_nchwc"
    (stride_h, stride_w), (top, left, bottom, right), (dil_h, dil_w), _ = conv2d_geometry(attrs, op)
    out = tensor_out(out_type, op)
    _, kernel_h, kernel_w, _ = weight.shape
    padded = pad_stage(data, (0, 0, top, left, 0), (0, 0, bottom, right, 0), 0)
    ry = reduce_axis(kernel_h, "ry")
    rx = reduce_axis(kernel_w, "rx")

    def body(n: PrimExpr, k: PrimExpr, y: PrimExpr, x: PrimExpr, c: PrimExpr) -> PrimExpr:
        row = y * stride_h + ry.var * dil_h
        col = x * stride_w + rx.var * dil_w
        return sum_reduce(
            widened_product(padded[n, k, row, col, c], weight[k, ry, rx, c]), [ry, rx]
        )

    conv = compute(
        te_dims(out),
        body,
        name="depthwise_conv2d_nchwc",
        tag="depthwise_conv2d_nchwc",
        attrs={"weight_input": 1},
    )
    return check_output(narrowed(conv, out.dtype), out, op)


def _depthwise_nchwc_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    weight = tensor_arg(arg_types, 1, "nn.depthwise_conv2d_nchwc")
    assert isinstance(out_type, TensorType)
    _, kernel_h, kernel_w, _ = weight.shape
    return 2 * out_type.size * kernel_h * kernel_w


# --- matrix products ---------------------------------------------------------------------


def _dense_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "nn.dense"
    data, weight = tensor_args(arg_types, op)
    dtype = same_dtype([data, weight], op)
    if data.ndim < 1 or weight.ndim != 2 or data.shape[-1] != weight.shape[1]:
        raise TypeInferenceError(
            f"{op}: data (shape {data.shape}) must be [..., K] and weight (shape "
            f"{weight.shape}) [N, K] with the same K"
        )
    return TensorType((*data.shape[:-1], weight.shape[0]), dtype)


def _dense_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    data = tensor_arg(arg_types, 0, "nn.dense")
    assert isinstance(out_type, TensorType)
    return 2 * out_type.size * data.shape[-1]


def _matmul_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "nn.matmul"
    lhs, rhs = tensor_args(arg_types, op)
    dtype = same_dtype([lhs, rhs], op)
    if lhs.ndim == 0 or rhs.ndim == 0:
        raise TypeInferenceError(
            f"{op}: operands must have rank >= 1, got shapes {lhs.shape} and {rhs.shape}"
        )
    left = (1, *lhs.shape) if lhs.ndim == 1 else lhs.shape
    right = (*rhs.shape, 1) if rhs.ndim == 1 else rhs.shape
    if left[-1] != right[-2]:
        raise TypeInferenceError(
            f"{op}: contraction dimensions differ: a has shape {lhs.shape} (K={left[-1]}) "
            f"but b has shape {rhs.shape} (K={right[-2]})"
        )
    try:
        batch = broadcast_shapes(left[:-2], right[:-2], op)
    except TypeInferenceError:
        raise TypeInferenceError(
            f"{op}: batch dimensions of shapes {lhs.shape} and {rhs.shape} do not broadcast"
        ) from None
    rows = (left[-2],) if lhs.ndim > 1 else ()
    cols = (right[-1],) if rhs.ndim > 1 else ()
    return TensorType(batch + rows + cols, dtype)


def _dense_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """out[..., n] = sum over k of data[..., k] * weight[n, k]."""
    data, weight = inputs
    out = tensor_out(out_type, "nn.dense")
    k = reduce_axis(data.shape[-1], "k")

    def body(*indices: PrimExpr) -> PrimExpr:
        return sum_reduce(
            widened_product(data[(*indices[:-1], k.var)], weight[indices[-1], k.var]), k
        )

    dense = compute(te_dims(out), body, name="dense", tag="dense", attrs={"weight_input": 1})
    return check_output(narrowed(dense, out.dtype), out, "nn.dense")


def _matmul_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """nn.matmul's symbolic relation: batch dims broadcast, then the rows of a and the
    columns of b; the contraction dims must be the same (both may be symbolic)."""
    op = "nn.matmul"
    lhs, rhs = tensor_args(arg_types, op)
    out = tensor_out(out_type, op)
    if lhs.ndim < 2 or rhs.ndim < 2:
        raise TypeInferenceError(f"{op}: symbolic operands must have rank >= 2")
    left, right = type_dims(lhs), type_dims(rhs)
    if left[-1] != right[-2]:
        raise TypeInferenceError(
            f"{op}: contraction dims differ: {format_expr(left[-1])} and {format_expr(right[-2])}"
        )
    batch = broadcast_dim_lists([left[:-2], right[:-2]], out.shape[:-2])
    return TensorType(out.shape, out.dtype, (*batch, left[-2], right[-1]))


def _matmul_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """numpy matmul: batch indices broadcast; a 1-D operand has no row (or column) index."""
    lhs, rhs = inputs
    out = tensor_out(out_type, "nn.matmul")
    k = reduce_axis(dims_of(lhs)[-1], "k")
    batch_ndim = out.ndim - (lhs.ndim > 1) - (rhs.ndim > 1)

    def body(*indices: PrimExpr) -> PrimExpr:
        batch, rest = indices[:batch_ndim], list(indices[batch_ndim:])
        if lhs.ndim > 1:
            row = rest.pop(0)
            left = lhs[(*broadcast_indices(lhs.shape[:-2], batch), row, k.var)]
        else:
            left = lhs[k.var]
        if rhs.ndim > 1:
            right = rhs[(*broadcast_indices(rhs.shape[:-2], batch), k.var, rest[0])]
        else:
            right = rhs[k.var]
        return sum_reduce(widened_product(left, right), k)

    matmul = compute(te_dims(out), body, name="matmul", tag="matmul", attrs={"weight_input": 1})
    return check_output(narrowed(matmul, out.dtype), out, "nn.matmul")


def _matmul_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    lhs = tensor_arg(arg_types, 0, "nn.matmul")
    assert isinstance(out_type, TensorType)
    return 2 * out_type.size * lhs.shape[-1]


def _batch_matmul_dims(
    lhs: TensorType, rhs: TensorType, attrs: Attrs
) -> tuple[int, int, int, int, int]:
    """(lhs batch, rhs batch, M, K, N) of a batch_matmul, checked."""
    op = "nn.batch_matmul"
    if lhs.ndim != 3 or rhs.ndim != 3:
        raise TypeInferenceError(
            f"{op}: a (shape {lhs.shape}) and b (shape {rhs.shape}) must both be 3-D"
        )
    lhs_batch, rows, lhs_k = lhs.shape
    if attrs["transpose_a"]:
        rows, lhs_k = lhs_k, rows
    rhs_batch, rhs_k, cols = rhs.shape
    if attrs["transpose_b"]:
        rhs_k, cols = cols, rhs_k
    if lhs_k != rhs_k:
        raise TypeInferenceError(
            f"{op}: contraction dimensions differ: a has shape {lhs.shape} (K={lhs_k}) but b "
            f"has shape {rhs.shape} (K={rhs_k}) with transpose_a={attrs['transpose_a']}, "
            f"transpose_b={attrs['transpose_b']}"
        )
    if lhs_batch != rhs_batch and 1 not in (lhs_batch, rhs_batch):
        raise TypeInferenceError(
            f"{op}: batch sizes of a (shape {lhs.shape}) and b (shape {rhs.shape}) differ"
        )
    return lhs_batch, rhs_batch, rows, lhs_k, cols


def _batch_matmul_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    lhs, rhs = tensor_args(arg_types, "nn.batch_matmul")
    dtype = same_dtype([lhs, rhs], "nn.batch_matmul")
    lhs_batch, rhs_batch, rows, _, cols = _batch_matmul_dims(lhs, rhs, attrs)
    return TensorType((max(lhs_batch, rhs_batch), rows, cols), dtype)


def _batch_matmul_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    lhs, rhs = inputs
    if attrs["transpose_a"]:
        lhs = lhs.transpose(0, 2, 1)
    if attrs["transpose_b"]:
        rhs = rhs.transpose(0, 2, 1)
    return np.asarray(np.matmul(lhs, rhs), dtype=inputs[0].dtype)


def _batch_matmul_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """out[b, i, j] = sum over k of a[b, i, k] * b[b, k, j], honouring transposes."""
    lhs, rhs = inputs
    out = tensor_out(out_type, "nn.batch_matmul")
    depth = lhs.shape[1] if attrs["transpose_a"] else lhs.shape[2]
    k = reduce_axis(depth, "k")

    def body(batch: PrimExpr, row: PrimExpr, col: PrimExpr) -> PrimExpr:
        lhs_batch = batch if lhs.shape[0] > 1 else index_const(0)
        rhs_batch = batch if rhs.shape[0] > 1 else index_const(0)
        left = lhs[lhs_batch, k.var, row] if attrs["transpose_a"] else lhs[lhs_batch, row, k.var]
        right = rhs[rhs_batch, col, k.var] if attrs["transpose_b"] else rhs[rhs_batch, k.var, col]
        return sum_reduce(widened_product(left, right), k)

    product = compute(
        out.shape, body, name="batch_matmul", tag="batch_matmul", attrs={"weight_input": 1}
    )
    return check_output(narrowed(product, out.dtype), out, "nn.batch_matmul")


def _batch_matmul_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    lhs, rhs = tensor_args(arg_types, "nn.batch_matmul")
    _, _, _, depth, _ = _batch_matmul_dims(lhs, rhs, attrs)
    assert isinstance(out_type, TensorType)
    return 2 * out_type.size * depth


# --- normalisation -----------------------------------------------------------------------


def _batch_norm_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "nn.batch_norm"
    types = tensor_args(arg_types, op)
    data = types[0]
    same_dtype(types, op)
    require_float(data, op)
    axis = normalize_axis(int(attrs["axis"]), data.ndim, op)
    channels = data.shape[axis]
    names = ("gamma", "beta", "moving_mean", "moving_var")
    for name, param in zip(names, types[1:], strict=True):
        if param.shape != (channels,):
            raise TypeInferenceError(
                f"{op}: {name} has shape {param.shape} but data (shape {data.shape}) has "
                f"{channels} channels on axis {axis}"
            )
    return data


def _channel_shape(ndim: int, axis: int, length: int) -> tuple[int, ...]:
    shape = [1] * ndim
    shape[axis] = length
    return tuple(shape)


def _batch_norm_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    data, gamma, beta, mean, var = inputs
    axis = int(attrs["axis"]) % data.ndim
    scale = gamma / np.sqrt(var + float(attrs["epsilon"]))
    shape = _channel_shape(data.ndim, axis, data.shape[axis])
    out = (data - mean.reshape(shape)) * scale.reshape(shape) + beta.reshape(shape)
    return np.asarray(out, dtype=data.dtype)


def _batch_norm_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """(x - mean[c]) * (gamma[c] / sqrt(var[c] + eps)) + beta[c], c the index on axis."""
    data = inputs[0]
    axis = int(attrs["axis"]) % data.ndim
    epsilon = float(attrs["epsilon"])

    def body(*indices: PrimExpr) -> PrimExpr:
        gamma, beta, mean, var = (param[indices[axis]] for param in inputs[1:])
        scale = gamma / intrinsic("sqrt", var + epsilon)
        return (data[indices] - mean) * scale + beta

    norm = compute(dims_of(data), body, name="batch_norm", tag="broadcast")
    return check_output(norm, out_type, "nn.batch_norm")


def _batch_norm_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """nn.batch_norm's symbolic relation: the data's dims, whose channel axis is static."""
    op = "nn.batch_norm"
    data = tensor_arg(arg_types, 0, op)
    axis = normalize_axis(int(attrs["axis"]), data.ndim, op)
    if any(isinstance(ty, TensorType) and ty.dims for ty in arg_types[1:]) or not isinstance(
        type_dims(data)[axis], IntImm
    ):
        raise TypeInferenceError(f"{op}: the channels (axis {axis} of {data}) must be static")
    return with_dims(tensor_out(out_type, op), type_dims(data))


def _same_float_relation(op: str) -> TypeRelation:
    def relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
        data = tensor_arg(arg_types, 0, op)
        require_float(data, op)
        if "axis" in attrs:
            normalize_axis(int(attrs["axis"]), data.ndim, op)
        return data

    return relation


def _compute_dtype(dtype: np.dtype[np.generic]) -> np.dtype[np.generic]:
    """At least float32, so half-precision references accumulate accurately."""
    return np.promote_types(dtype, np.float32)


def _softmax_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    """Softmax along `axis`. Half precision rounds each step to its own type, as ONNX's
    reference does (x - max, exp, the row sum accumulated in float32, the division);
    wider types compute in at least float32 and round once."""
    data = inputs[0]
    axis = int(attrs["axis"])
    if data.dtype.itemsize < 4:
        exps = np.exp(data - data.max(axis=axis, keepdims=True))
        return np.asarray(exps / exps.sum(axis=axis, keepdims=True), dtype=data.dtype)
    values = data.astype(_compute_dtype(data.dtype))
    shifted = np.exp(values - values.max(axis=axis, keepdims=True))
    return np.asarray(shifted / shifted.sum(axis=axis, keepdims=True), dtype=data.dtype)


def _insert(indices: Sequence[PrimExpr], axis: int, index: PrimExpr) -> tuple[PrimExpr, ...]:
    """Full indices from the indices of a tensor reduced along `axis`."""
    return (*indices[:axis], index, *indices[axis:])


def _drop(indices: Sequence[PrimExpr], axis: int) -> tuple[PrimExpr, ...]:
    """The indices of a tensor reduced along `axis`, from full indices."""
    return (*indices[:axis], *indices[axis + 1 :])


def _softmax_stages(
    data: Tensor, axis: int, name: str
) -> tuple[Tensor, Callable[[Sequence[PrimExpr]], PrimExpr]]:
    """The row max along `axis`, and x - max at full indices (accumulate dtype)."""
    acc = accumulate_dtype(data.dtype)
    dims = dims_of(data)
    reduced = dims[:axis] + dims[axis + 1 :]
    k = reduce_axis(dims[axis], "k")
    maxelem = compute(
        reduced,
        lambda *i: max_reduce(data[_insert(i, axis, k.var)], k),
        name=f"{name}_maxelem",
        tag="reduce",
    )

    def shifted(indices: Sequence[PrimExpr]) -> PrimExpr:
        return cast(acc, data[tuple(indices)]) - cast(acc, maxelem[_drop(indices, axis)])

    return maxelem, shifted


def _row_sum(
    values: Callable[[Sequence[PrimExpr]], PrimExpr], data: Tensor, axis: int, name: str
) -> Tensor:
    """The sum along `axis` of `values` (a function of full indices)."""
    dims = dims_of(data)
    reduced = dims[:axis] + dims[axis + 1 :]
    j = reduce_axis(dims[axis], "k")
    return compute(
        reduced,
        lambda *i: sum_reduce(values(_insert(i, axis, j.var)), j),
        name=f"{name}_expsum",
        tag="reduce",
    )


def _rounded_softmax(
    data: Tensor,
    axis: int,
    shifted: Callable[[Sequence[PrimExpr]], PrimExpr],
    acc: str,
    name: str,
) -> Tensor:
    """Softmax of a half-precision `data`, each step computed in `acc` and rounded to the
    data's type: x - max, exp (kept in the data's type), the row sum (accumulated in
    `acc`), and a true division of the two rounded values."""
    dtype = data.dtype

    def rounded(value: PrimExpr) -> PrimExpr:
        return cast(acc, cast(dtype, value))

    exps = compute(
        dims_of(data),
        lambda *i: cast(dtype, intrinsic("exp", rounded(shifted(i)))),
        name=f"{name}_exp",
    )
    expsum = _row_sum(lambda i: cast(acc, exps[tuple(i)]), data, axis, name)

    def body(*indices: PrimExpr) -> PrimExpr:
        total = rounded(expsum[_drop(indices, axis)])
        return cast(dtype, cast(acc, exps[indices]) / total)

    return compute(dims_of(data), body, name=name, tag="reduce")


def _softmax_te(log: bool) -> Callable[[Sequence[Tensor], Attrs, Type], Tensor]:
    name = "log_softmax" if log else "softmax"

    def te_compute(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
        data = inputs[0]
        axis = int(attrs["axis"]) % data.ndim
        _, shifted = _softmax_stages(data, axis, name)
        if log:
            expsum = _row_sum(lambda i: intrinsic("exp", shifted(i)), data, axis, name)

            def log_body(*indices: PrimExpr) -> PrimExpr:
                total = expsum[_drop(indices, axis)]
                return cast(data.dtype, shifted(indices) - intrinsic("log", total))

            return check_output(
                compute(dims_of(data), log_body, name=name, tag="reduce"), out_type, name
            )
        acc = accumulate_dtype(data.dtype)
        if acc != data.dtype:  # half precision: each step rounds, as `_softmax_reference`
            return check_output(_rounded_softmax(data, axis, shifted, acc, name), out_type, name)
        # exp(x - max) is its own stage, read by the sum and the output: a schedule may
        # compute it once (inlining it computes it in both).
        exps = compute(dims_of(data), lambda *i: intrinsic("exp", shifted(i)), name=f"{name}_exp")
        expsum = _row_sum(lambda i: exps[tuple(i)], data, axis, name)

        def body(*indices: PrimExpr) -> PrimExpr:
            # One division per row (hoisted out of the row's loop), a multiply per element.
            reciprocal = 1.0 / expsum[_drop(indices, axis)]
            return cast(data.dtype, exps[indices] * reciprocal)

        return check_output(compute(dims_of(data), body, name=name, tag="reduce"), out_type, name)

    return te_compute


def _log_softmax_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    data = inputs[0]
    values = data.astype(_compute_dtype(data.dtype))
    axis = int(attrs["axis"])
    shifted = values - values.max(axis=axis, keepdims=True)
    out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return np.asarray(out, dtype=data.dtype)


def _lrn_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    data = _same_float_relation("nn.lrn")(arg_types, attrs)
    if int(attrs["size"]) < 1:
        raise TypeInferenceError(f"nn.lrn: size must be >= 1, got {attrs['size']}")
    return data


def _lrn_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    """ONNX LRN: divide by (bias + alpha / size * sum of squares over nearby channels) ** beta."""
    data = inputs[0]
    size = int(attrs["size"])
    axis = int(attrs["axis"]) % data.ndim
    squares = np.moveaxis(data.astype(_compute_dtype(data.dtype)) ** 2, axis, 0)
    before = (size - 1) // 2
    padded = np.pad(squares, [(before, size - 1 - before)] + [(0, 0)] * (data.ndim - 1))
    channels = squares.shape[0]
    square_sum = np.zeros_like(squares)
    for offset in range(size):
        square_sum += padded[offset : offset + channels]
    denominator = (float(attrs["bias"]) + float(attrs["alpha"]) / size * square_sum) ** float(
        attrs["beta"]
    )
    return np.asarray(data / np.moveaxis(denominator, 0, axis), dtype=data.dtype)


def _lrn_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """Square-sum over a channel window (bounds as a reduce condition), then the power."""
    data = inputs[0]
    size = int(attrs["size"])
    axis = int(attrs["axis"]) % data.ndim
    acc = accumulate_dtype(data.dtype)
    before = (size - 1) // 2
    r = reduce_axis(size, "r")

    def square_sum(*indices: PrimExpr) -> PrimExpr:
        channel = indices[axis] + r.var - before
        value = cast(acc, data[(*indices[:axis], channel, *indices[axis + 1 :])])
        return sum_reduce(value * value, r, where=in_range(channel, 0, data.shape[axis]))

    squares = compute(dims_of(data), square_sum, name="lrn_sqsum", tag="reduce")

    def body(*indices: PrimExpr) -> PrimExpr:
        scaled = float(attrs["alpha"]) / size * squares[indices]
        denominator = intrinsic("pow", float(attrs["bias"]) + scaled, float(attrs["beta"]))
        return cast(data.dtype, cast(acc, data[indices]) / denominator)

    lrn = compute(dims_of(data), body, name="lrn", tag="reduce")
    return check_output(lrn, out_type, "nn.lrn")


def _layer_norm_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "nn.layer_norm"
    data, gamma, beta = tensor_args(arg_types, op)
    same_dtype([data, gamma, beta], op)
    require_float(data, op)
    axis = normalize_axis(int(attrs["axis"]), data.ndim, op)
    normalized = data.shape[axis:]
    for name, param in (("gamma", gamma), ("beta", beta)):
        fits = param.ndim <= len(normalized)
        if fits:
            try:
                fits = broadcast_shapes(param.shape, normalized, op) == normalized
            except TypeInferenceError:
                fits = False
        if not fits:
            raise TypeInferenceError(
                f"{op}: {name} (shape {param.shape}) does not broadcast to the normalised "
                f"shape {normalized} of data (shape {data.shape}, axis {axis})"
            )
    return data


def _layer_norm_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """nn.layer_norm's symbolic relation: the dims before `axis` may be symbolic; the
    normalised ones, gamma and beta are static."""
    op = "nn.layer_norm"
    data, gamma, beta = tensor_args(arg_types, op)
    axis = normalize_axis(int(attrs["axis"]), data.ndim, op)
    if any(not isinstance(dim, IntImm) for dim in type_dims(data)[axis:]) or any(
        param.dims for param in (gamma, beta)
    ):
        raise TypeInferenceError(f"{op}: the normalised dims (from axis {axis}) must be static")
    return out_type


def _layer_norm_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    data, gamma, beta = inputs
    axis = int(attrs["axis"]) % data.ndim
    axes = tuple(range(axis, data.ndim))
    values = data.astype(_compute_dtype(data.dtype))
    mean = values.mean(axis=axes, keepdims=True)
    centered = values - mean
    var = (centered * centered).mean(axis=axes, keepdims=True)
    out = centered / np.sqrt(var + float(attrs["epsilon"])) * gamma + beta
    return np.asarray(out, dtype=data.dtype)


def _layer_norm_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """Sum and squared-deviation sum over axes [axis, ndim), then normalise, scale, shift."""
    data, gamma, beta = inputs
    axis = int(attrs["axis"]) % data.ndim
    acc = accumulate_dtype(data.dtype)
    outer, inner = dims_of(data)[:axis], data.shape[axis:]
    count = math.prod(inner)

    def reduce_axes() -> list[IterVar]:
        return [reduce_axis(dim, f"r{i}") for i, dim in enumerate(inner)]

    sum_axes = reduce_axes()
    total = compute(
        outer,
        lambda *i: sum_reduce(cast(acc, data[(*i, *(r.var for r in sum_axes))]), sum_axes),
        name="layer_norm_sum",
        tag="reduce",
    )

    def centered(indices: Sequence[PrimExpr]) -> PrimExpr:
        return cast(acc, data[tuple(indices)]) - total[tuple(indices[:axis])] / float(count)

    sq_axes = reduce_axes()

    def square_sum(*indices: PrimExpr) -> PrimExpr:
        deviation = centered((*indices, *(r.var for r in sq_axes)))
        return sum_reduce(deviation * deviation, sq_axes)

    squares = compute(outer, square_sum, name="layer_norm_sqsum", tag="reduce")
    epsilon = float(attrs["epsilon"])

    def body(*indices: PrimExpr) -> PrimExpr:
        var = squares[tuple(indices[:axis])] / float(count)
        scale = cast(acc, read_broadcast(gamma, indices[axis:]))
        shift = cast(acc, read_broadcast(beta, indices[axis:]))
        normalized = centered(indices) / intrinsic("sqrt", var + epsilon)
        return cast(data.dtype, normalized * scale + shift)

    norm = compute(dims_of(data), body, name="layer_norm", tag="reduce")
    return check_output(norm, out_type, "nn.layer_norm")


def _scaled_flops(factor: int) -> FlopCounter:
    def flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
        return factor * elementwise_flops(arg_types, out_type, attrs)

    return flops


# --- the table ---------------------------------------------------------------------------

OPS: tuple[OpDef, ...] = (
    OpDef(
        name="nn.conv2d",
        pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
        num_inputs=2,
        attrs={"strides": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1), "groups": 1},
        type_relation=_conv2d_relation,
        reference=conv2d_reference,
        te_compute=_conv2d_te,
        symbolic_relation=symbolic_batch,
        flops=_conv2d_flops,
        doc="2-D convolution, NCHW data x OIHW weight; padding is (top, left, bottom, right)",
        input_names=("data", "weight"),
    ),
    OpDef(
        name="nn.conv2d_nchwc",
        pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
        num_inputs=2,
        attrs={"strides": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1), "groups": 1},
        type_relation=_conv2d_nchwc_relation,
        reference=_conv2d_nchwc_reference,
        te_compute=_conv2d_nchwc_te,
        symbolic_relation=symbolic_batch,
        flops=_conv2d_nchwc_flops,
        doc=(
            "2-D convolution on blocked channels: NCHW[bi]c (or NCHW) data x OIHW[bi]i[bo]o "
            "weight -> NCHW[bo]c (with groups, I is one group's input blocks); what "
            "BlockChannels makes of nn.conv2d on CPUs"
        ),
        input_names=("data", "weight"),
    ),
    OpDef(
        name="nn.depthwise_conv2d_nchwc",
        pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
        num_inputs=2,
        attrs={"strides": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1)},
        type_relation=_depthwise_nchwc_relation,
        reference=_depthwise_nchwc_reference,
        te_compute=_depthwise_nchwc_te,
        symbolic_relation=symbolic_batch,
        flops=_depthwise_nchwc_flops,
        doc=(
            "depthwise 2-D convolution on blocked channels: NCHW[b]c data x C[b]HWc weight "
            "-> NCHW[b]c; what BlockChannels makes of a depthwise nn.conv2d on CPUs"
        ),
        input_names=("data", "weight"),
    ),
    OpDef(
        name="nn.dense",
        pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
        num_inputs=2,
        attrs={},
        type_relation=_dense_relation,
        reference=lambda inputs, attrs: np.asarray(
            np.matmul(inputs[0], inputs[1].T), dtype=inputs[0].dtype
        ),
        te_compute=_dense_te,
        flops=_dense_flops,
        doc="data[..., K] @ weight[N, K].T",
        input_names=("data", "weight"),
        symbolic_relation=symbolic_rows,
    ),
    OpDef(
        name="nn.matmul",
        pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
        num_inputs=2,
        attrs={},
        type_relation=_matmul_relation,
        reference=lambda inputs, attrs: np.asarray(
            np.matmul(inputs[0], inputs[1]), dtype=inputs[0].dtype
        ),
        te_compute=_matmul_te,
        flops=_matmul_flops,
        doc="numpy matmul: batch dimensions broadcast, 1-D operands are promoted and dropped",
        input_names=("a", "b"),
        symbolic_relation=_matmul_dims,
    ),
    OpDef(
        name="nn.batch_matmul",
        pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
        num_inputs=2,
        attrs={"transpose_a": False, "transpose_b": False},
        type_relation=_batch_matmul_relation,
        reference=_batch_matmul_reference,
        te_compute=_batch_matmul_te,
        flops=_batch_matmul_flops,
        doc="a[B, M, K] @ b[B, K, N] (b is [B, N, K] when transpose_b); B = 1 broadcasts",
        input_names=("a", "b"),
    ),
    OpDef(
        name="nn.batch_norm",
        pattern=OpPattern.OPAQUE,
        num_inputs=5,
        attrs={"axis": 1, "epsilon": 1e-5},
        type_relation=_batch_norm_relation,
        reference=_batch_norm_reference,
        te_compute=_batch_norm_te,
        symbolic_relation=_batch_norm_dims,
        flops=_scaled_flops(2),
        doc="inference batch norm: (x - mean) / sqrt(var + eps) * gamma + beta along axis",
        input_names=("data", "gamma", "beta", "moving_mean", "moving_var"),
    ),
    OpDef(
        name="nn.dropout",
        pattern=OpPattern.OPAQUE,
        num_inputs=1,
        attrs={"rate": 0.5},
        type_relation=lambda arg_types, attrs: tensor_arg(arg_types, 0, "nn.dropout"),
        reference=lambda inputs, attrs: inputs[0].copy(),
        te_compute=lambda inputs, attrs, out_type: check_output(
            compute(dims_of(inputs[0]), lambda *i: inputs[0][i], name="dropout", tag="elemwise"),
            out_type,
            "nn.dropout",
        ),
        symbolic_relation=broadcast_dims,
        flops=zero_flops,
        doc="identity at inference",
        input_names=("data",),
    ),
    OpDef(
        name="nn.softmax",
        pattern=OpPattern.COMM_REDUCE,
        num_inputs=1,
        attrs={"axis": -1},
        type_relation=_same_float_relation("nn.softmax"),
        reference=_softmax_reference,
        te_compute=_softmax_te(log=False),
        flops=_scaled_flops(4),
        doc="exp(x - max) / sum(exp(x - max)) along axis",
        input_names=("data",),
        symbolic_relation=broadcast_dims,
    ),
    OpDef(
        name="nn.log_softmax",
        pattern=OpPattern.COMM_REDUCE,
        num_inputs=1,
        attrs={"axis": -1},
        type_relation=_same_float_relation("nn.log_softmax"),
        reference=_log_softmax_reference,
        te_compute=_softmax_te(log=True),
        flops=_scaled_flops(4),
        doc="x - max - log(sum(exp(x - max))) along axis",
        input_names=("data",),
        symbolic_relation=broadcast_dims,
    ),
    OpDef(
        name="nn.lrn",
        pattern=OpPattern.COMM_REDUCE,
        num_inputs=1,
        attrs={"size": REQUIRED, "alpha": 1e-4, "beta": 0.75, "bias": 1.0, "axis": 1},
        type_relation=_lrn_relation,
        reference=_lrn_reference,
        te_compute=_lrn_te,
        symbolic_relation=symbolic_batch,
        flops=_scaled_flops(4),
        doc="ONNX local response normalisation across channels",
        input_names=("data",),
    ),
    OpDef(
        name="nn.layer_norm",
        pattern=OpPattern.COMM_REDUCE,
        num_inputs=3,
        attrs={"axis": -1, "epsilon": 1e-5},
        type_relation=_layer_norm_relation,
        reference=_layer_norm_reference,
        te_compute=_layer_norm_te,
        flops=_scaled_flops(5),
        doc="normalise over axes [axis, ndim), then scale by gamma and shift by beta",
        input_names=("data", "gamma", "beta"),
        symbolic_relation=_layer_norm_dims,
    ),
)
