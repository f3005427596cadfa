"""Converters for neural-network ONNX ops: convolution, dense layers, pooling, normalisation."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import onnx

from ir.frontend.onnx.context import Converter, ConverterResult, NodeContext, onnx_dtype_name
from ir.frontend.onnx.converters_volume import avg_pool3d, conv3d, max_pool3d
from ir.frontend.onnx.pool_indices import max_pool_indices
from ir.frontend.onnx.windows import AUTO_PADS, onnx_padding, split_padding, window_ints
from ir.graph.nodes import Constant, Expr
from ir.graph.types import TensorType
from ir.tir.expr import IntImm


@dataclass(frozen=True)
class Window:
    """A 2-D sliding window: kernel, strides, dilations and (top, left, bottom, right) padding."""

    kernel: tuple[int, int]
    strides: tuple[int, int]
    dilation: tuple[int, int]
    padding: tuple[int, int, int, int]


def _spatial_rank(ctx: NodeContext, most: int = 2) -> int:
    """1 to `most` spatial dims (1-D ops run as 2-D ops on a height of one), else
    unsupported."""
    rank = ctx.rank(0) - 2
    if not 1 <= rank <= most:
        kinds = "1-D and 2-D" if most == 2 else "1-D, 2-D and 3-D"
        raise ctx.unsupported(
            f"only {kinds} {ctx.op_type} is supported, got input {ctx.tensor_type(0)}"
        )
    return rank


def conv_window(ctx: NodeContext, kernel: tuple[int, ...], with_dilation: bool = True) -> Window:
    """Read strides, dilations and padding for a 1-D or 2-D window, as a 2-D Window."""
    rank = len(kernel)
    strides = window_ints(ctx, "strides", (1,) * rank, rank)
    dilation = window_ints(ctx, "dilations", (1,) * rank, rank) if with_dilation else (1,) * rank
    pads = onnx_padding(ctx, ctx.static_dims(0, 2), kernel, strides, dilation)
    if rank == 1:
        return Window((1, kernel[0]), (1, strides[0]), (1, dilation[0]), (0, pads[0], 0, pads[1]))
    return Window(
        (kernel[0], kernel[1]),
        (strides[0], strides[1]),
        (dilation[0], dilation[1]),
        (pads[0], pads[1], pads[2], pads[3]),
    )


def _to_2d(ctx: NodeContext, value: Expr, rank: int) -> Expr:
    """Insert a unit height into a 1-D (N, C, W) tensor."""
    return value if rank == 2 else ctx.call("expand_dims", value, axes=(2,))


def _from_2d(ctx: NodeContext, value: Expr, rank: int) -> Expr:
    """Remove the unit height added by `_to_2d`."""
    return value if rank == 2 else ctx.call("squeeze", value, axis=(2,))


def convert_conv(ctx: NodeContext) -> ConverterResult:
    """Conv -> nn.conv2d (+ add of the bias reshaped to (C, 1, 1)); 1-D runs as 2-D, 3-D
    as 2-D convs of depth slices."""
    rank = _spatial_rank(ctx, most=3)
    if rank == 3:
        return conv3d(ctx)
    weight_shape = ctx.shape(1)
    kernel = window_ints(ctx, "kernel_shape", weight_shape[2:], rank)
    window = conv_window(ctx, kernel)
    data = _to_2d(ctx, ctx.input(0), rank)
    weight = _to_2d(ctx, ctx.input(1), rank)
    out = ctx.call(
        "nn.conv2d",
        data,
        weight,
        strides=window.strides,
        padding=window.padding,
        dilation=window.dilation,
        groups=ctx.int_attr("group", 1),
    )
    bias = ctx.optional_input(2)
    if bias is not None:
        out = ctx.call("add", out, ctx.call("expand_dims", bias, axes=(1, 2)))
    return _from_2d(ctx, out, rank)


def _transposed_pads(
    ctx: NodeContext,
    spatial: tuple[int, ...],
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    dilation: tuple[int, ...],
    output_padding: tuple[int, ...],
) -> tuple[int, ...]:
    """ConvTranspose pads (begins..., ends...) from pads, auto_pad or output_shape."""
    rank = len(spatial)
    auto_pad = ctx.choice_attr("auto_pad", "NOTSET", AUTO_PADS)
    output_shape = ctx.ints_attr("output_shape")
    if output_shape is None and auto_pad in ("NOTSET", "VALID"):
        if auto_pad == "VALID":
            return (0,) * (2 * rank)
        return window_ints(ctx, "pads", (0,) * (2 * rank), 2 * rank)
    if output_shape is None:
        targets = tuple(size * stride for size, stride in zip(spatial, strides, strict=True))
    else:
        targets = output_shape[-rank:]
        if len(output_shape) not in (rank, rank + 2):
            raise ctx.error(f"attribute output_shape={list(output_shape)} needs {rank} values")
    begins: list[int] = []
    ends: list[int] = []
    for size, k, stride, dil, extra, target in zip(
        spatial, kernel, strides, dilation, output_padding, targets, strict=True
    ):
        total = stride * (size - 1) + extra + (k - 1) * dil + 1 - target
        begin, end = split_padding(total, auto_pad)
        begins.append(begin)
        ends.append(end)
    return (*begins, *ends)


@dataclass(frozen=True)
class TransposedWindow:
    """A 2-D ConvTranspose's geometry: input (N, C, H, W), weight (C, M / groups, kh, kw)."""

    batch: int
    channels: int
    spatial: tuple[int, int]
    per_group_out: int
    groups: int
    kernel: tuple[int, int]
    strides: tuple[int, int]
    dilation: tuple[int, int]
    extra: tuple[int, int]  # output_padding
    pads: tuple[int, int, int, int]  # (top, left, bottom, right)

    def out_size(self, axis: int) -> int:
        """The output's extent along spatial axis 0 (height) or 1 (width)."""
        return (
            self.strides[axis] * (self.spatial[axis] - 1)
            + self.extra[axis]
            + (self.kernel[axis] - 1) * self.dilation[axis]
            + 1
            - self.pads[axis]
            - self.pads[axis + 2]
        )


def _per_group_weight(ctx: NodeContext, weight: Expr, window: TransposedWindow) -> Expr:
    """(C, M / g, kh, kw) -> (g, M / g, C / g, kh, kw): in and out channels swapped."""
    kh, kw = window.kernel
    split = (window.groups, window.channels // window.groups, window.per_group_out, kh, kw)
    return ctx.call("transpose", ctx.call("reshape", weight, newshape=split), axes=(0, 2, 1, 3, 4))


def _reversed(ctx: NodeContext, value: Expr, axis: int, size: int) -> Expr:
    if size == 1:
        return value
    return ctx.call("take", value, Constant(np.arange(size - 1, -1, -1, dtype=np.int64)), axis=axis)


def _conv_transpose_by_zero_insertion(
    ctx: NodeContext, data: Expr, weight: Expr, window: TransposedWindow
) -> Expr:
    """A plain conv (stride 1, same dilation) over the input with stride - 1 zeros between
    neighbours, padded by dilation * (kernel - 1) minus the pads (plus output_padding at
    the end), with the flipped per-group weight. Every tap is computed, zeros included."""
    n, channels = window.batch, window.channels
    (height, width), (stride_h, stride_w) = window.spatial, window.strides
    if stride_h > 1 or stride_w > 1:
        spread = ctx.call("reshape", data, newshape=(n, channels, height, 1, width, 1))
        gaps = ((0, 0), (0, 0), (0, 0), (0, stride_h - 1), (0, 0), (0, stride_w - 1))
        spread = ctx.call("nn.pad", spread, pad_width=gaps)
        data = ctx.call("reshape", spread, newshape=(n, channels, height * stride_h, -1))
    widths = [
        (
            window.dilation[axis] * (window.kernel[axis] - 1) - window.pads[axis],
            window.dilation[axis] * (window.kernel[axis] - 1)
            - window.pads[axis + 2]
            + window.extra[axis]
            - (window.strides[axis] - 1),
        )
        for axis in range(2)
    ]
    if any(value for pair in widths for value in pair):
        data = ctx.call("nn.pad", data, pad_width=((0, 0), (0, 0), *widths))
    kh, kw = window.kernel
    shape = (window.per_group_out * window.groups, channels // window.groups, kh, kw)
    weight = ctx.call("reshape", _per_group_weight(ctx, weight, window), newshape=shape)
    weight = _reversed(ctx, _reversed(ctx, weight, 2, kh), 3, kw)
    return ctx.call("nn.conv2d", data, weight, dilation=window.dilation, groups=window.groups)


def _conv_transpose_by_phases(
    ctx: NodeContext, data: Expr, weight: Expr, window: TransposedWindow
) -> Expr:
    """Stride s, dilation 1: output position t = s * q + r (before cropping the pads) sums
    x[q - j] * w[r + s * j] over j, a stride-1 conv of the input with the r-th phase of
    the kernel (every s-th tap, flipped). All s_h * s_w phases run as one conv with their
    kernels stacked along the output channels; a reshape and transpose interleave them and
    a crop takes the pads off. Only real taps are computed (1 / s**2 of zero insertion's)."""
    n, channels, groups, per_out = (
        window.batch,
        window.channels,
        window.groups,
        window.per_group_out,
    )
    (stride_h, stride_w), (kh, kw) = window.strides, window.kernel
    taps = (-(-kh // stride_h), -(-kw // stride_w))  # per phase, ceil(k / s)
    # Positions q of each phase that the output needs, up to its last element.
    phases = tuple(
        -(-(window.pads[axis] + window.out_size(axis)) // window.strides[axis]) for axis in range(2)
    )
    per_group = _per_group_weight(ctx, weight, window)  # (g, M/g, C/g, kh, kw)
    tails = ((0, 0),) * 3 + ((0, taps[0] * stride_h - kh), (0, taps[1] * stride_w - kw))
    if any(after for _, after in tails):
        per_group = ctx.call("nn.pad", per_group, pad_width=tails)
    split = (groups, per_out, channels // groups, taps[0], stride_h, taps[1], stride_w)
    phased = ctx.call("reshape", per_group, newshape=split)
    phased = _reversed(ctx, _reversed(ctx, phased, 3, taps[0]), 5, taps[1])
    phased = ctx.call("transpose", phased, axes=(0, 4, 6, 1, 2, 3, 5))
    stacked = (groups * stride_h * stride_w * per_out, channels // groups, *taps)
    kernel = ctx.call("reshape", phased, newshape=stacked)
    edges = tuple((taps[axis] - 1, phases[axis] - window.spatial[axis]) for axis in range(2))
    padded = ctx.call("nn.pad", data, pad_width=((0, 0), (0, 0), *edges))
    out = ctx.call("nn.conv2d", padded, kernel, groups=groups)
    split_out = (n, groups, stride_h, stride_w, per_out, *phases)
    out = ctx.call("reshape", out, newshape=split_out)
    out = ctx.call("transpose", out, axes=(0, 1, 4, 5, 2, 6, 3))
    out = ctx.call(
        "reshape",
        out,
        newshape=(n, groups * per_out, phases[0] * stride_h, phases[1] * stride_w),
    )
    crop = tuple(
        (
            -window.pads[axis],
            window.pads[axis] + window.out_size(axis) - phases[axis] * window.strides[axis],
        )
        for axis in range(2)
    )
    return ctx.call("nn.pad", out, pad_width=((0, 0), (0, 0), *crop))


def _conv_transpose_2d(
    ctx: NodeContext, data: Expr, weight: Expr, window: TransposedWindow
) -> Expr:
    """A 2-D ConvTranspose without bias: by kernel phases for dilation 1 and a stride,
    else by zero insertion."""
    if window.dilation == (1, 1) and window.strides != (1, 1):
        return _conv_transpose_by_phases(ctx, data, weight, window)
    return _conv_transpose_by_zero_insertion(ctx, data, weight, window)


def _conv_transpose_3d(
    ctx: NodeContext,
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    dilation: tuple[int, ...],
    extra: tuple[int, ...],
    pads: tuple[int, ...],
) -> Expr:
    """A 3-D ConvTranspose without bias over (N, C, D, H, W): per depth tap of the kernel,
    one 2-D ConvTranspose of every depth slice (the depth joins the batch), its slices
    then spread along the output depth (input slice d lands at d * stride + tap *
    dilation, less the front pad) and the taps summed."""
    n, channels, depth, height, width = ctx.shape(0)
    weight_shape = ctx.shape(1)
    out_depth = strides[0] * (depth - 1) + extra[0] + (kernel[0] - 1) * dilation[0] + 1
    out_depth -= pads[0] + pads[3]
    window = TransposedWindow(
        n * depth,
        channels,
        (height, width),
        weight_shape[1],
        ctx.int_attr("group", 1),
        (kernel[1], kernel[2]),
        (strides[1], strides[2]),
        (dilation[1], dilation[2]),
        (extra[1], extra[2]),
        (pads[1], pads[2], pads[4], pads[5]),
    )
    if out_depth < 1 or window.out_size(0) < 1 or window.out_size(1) < 1:
        raise ctx.error(f"the pads {list(pads)} leave an empty output")
    slices = ctx.call("transpose", ctx.input(0), axes=(0, 2, 1, 3, 4))
    planes = ctx.call("reshape", slices, newshape=(n * depth, channels, height, width))
    outputs = weight_shape[1] * window.groups
    plane_shape = (outputs, window.out_size(0), window.out_size(1))
    total: Expr | None = None
    for tap in range(kernel[0]):
        plane_weight = ctx.call(
            "strided_slice", ctx.input(1), begin=(tap,), end=(tap + 1,), axes=(2,)
        )
        plane_weight = ctx.call("squeeze", plane_weight, axis=(2,))
        out = _conv_transpose_2d(ctx, planes, plane_weight, window)
        out = ctx.call("reshape", out, newshape=(n, depth, 1, *plane_shape))
        spread_widths = ((0, 0), (0, 0), (0, strides[0] - 1), (0, 0), (0, 0), (0, 0))
        if strides[0] > 1:
            out = ctx.call("nn.pad", out, pad_width=spread_widths)
        out = ctx.call("reshape", out, newshape=(n, depth * strides[0], *plane_shape))
        # Negative widths crop: the front pad, and what lies past the output's depth.
        front = tap * dilation[0] - pads[0]
        back = out_depth - front - depth * strides[0]
        widths = ((0, 0), (front, back), (0, 0), (0, 0), (0, 0))
        out = ctx.call("nn.pad", out, pad_width=widths)
        total = out if total is None else ctx.call("add", total, out)
    assert total is not None
    return ctx.call("transpose", total, axes=(0, 2, 1, 3, 4))


def convert_conv_transpose(ctx: NodeContext) -> ConverterResult:
    """ConvTranspose -> nn.conv2d: by kernel phases for dilation 1 and a stride, else by
    zero insertion; 3-D as 2-D ConvTransposes of depth slices, one per depth tap.
    Constant weights are rearranged once, by constant folding."""
    rank = _spatial_rank(ctx, most=3)
    n, channels, *spatial = ctx.shape(0)
    weight_shape = ctx.shape(1)
    groups = ctx.int_attr("group", 1)
    if len(weight_shape) != rank + 2 or weight_shape[0] != channels or channels % groups:
        raise ctx.error(
            f"weight shape {weight_shape} does not fit input shape {ctx.shape(0)} "
            f"with group={groups} (expected ({channels}, out_channels / group, kernel...))"
        )
    kernel = window_ints(ctx, "kernel_shape", weight_shape[2:], rank)
    strides = window_ints(ctx, "strides", (1,) * rank, rank)
    dilation = window_ints(ctx, "dilations", (1,) * rank, rank)
    extra = window_ints(ctx, "output_padding", (0,) * rank, rank)
    pads = _transposed_pads(ctx, tuple(spatial), kernel, strides, dilation, extra)
    bias = ctx.optional_input(2)
    if rank == 3:
        out = _conv_transpose_3d(ctx, kernel, strides, dilation, extra, pads)
        if bias is not None:
            out = ctx.call("add", out, ctx.call("expand_dims", bias, axes=(1, 2, 3)))
        return out
    if rank == 1:
        spatial, kernel, strides, dilation, extra = (
            [1, *spatial],
            (1, *kernel),
            (1, *strides),
            (1, *dilation),
            (0, *extra),
        )
        pads = (0, pads[0], 0, pads[1])
    window = TransposedWindow(
        n,
        channels,
        (spatial[0], spatial[1]),
        weight_shape[1],
        groups,
        (kernel[0], kernel[1]),
        (strides[0], strides[1]),
        (dilation[0], dilation[1]),
        (extra[0], extra[1]),
        (pads[0], pads[1], pads[2], pads[3]),
    )
    for axis in range(2):
        if window.out_size(axis) < 1:
            raise ctx.error(f"the pads {list(pads)} leave an empty output")
    data = _to_2d(ctx, ctx.input(0), rank)
    weight = _to_2d(ctx, ctx.input(1), rank)
    out = _conv_transpose_2d(ctx, data, weight, window)
    if bias is not None:
        out = ctx.call("add", out, ctx.call("expand_dims", bias, axes=(1, 2)))
    return _from_2d(ctx, out, rank)


def _pool_attrs(ctx: NodeContext, window: Window) -> dict[str, object]:
    """A 2-D pool op's window attributes, ceil_mode from the node."""
    return {
        "pool_size": window.kernel,
        "strides": window.strides,
        "padding": window.padding,
        "dilation": window.dilation,
        "ceil_mode": bool(ctx.int_attr("ceil_mode", 0)),
    }


def convert_max_pool(ctx: NodeContext) -> ConverterResult:
    """MaxPool -> nn.max_pool2d, and the Indices output where it is used (1-D and 2-D,
    `pool_indices`); 3-D pools run as 2-D pools of depth slices."""
    rank = _spatial_rank(ctx, most=3)
    kernel = _required_kernel(ctx, rank)
    with_indices = len(ctx.node.output) > 1 and bool(ctx.node.output[1])
    if rank == 3:
        if with_indices:
            raise ctx.unsupported("the Indices output of a 3-D MaxPool is not supported")
        return max_pool3d(ctx, kernel, bool(ctx.int_attr("ceil_mode", 0)))
    window = conv_window(ctx, kernel)
    out = _from_2d(
        ctx,
        ctx.call("nn.max_pool2d", _to_2d(ctx, ctx.input(0), rank), **_pool_attrs(ctx, window)),
        rank,
    )
    if not with_indices:
        return out
    out_type = out.checked_type
    assert isinstance(out_type, TensorType)
    first = 2 - rank  # (a 1-D pool keeps the width of its 2-D window)
    begin_pads = (window.padding[0], window.padding[1])
    indices = max_pool_indices(
        ctx,
        ctx.input(0),
        tuple(out_type.shape[2:]),
        tuple(window.kernel[first:]),
        tuple(window.strides[first:]),
        tuple(window.dilation[first:]),
        tuple(begin_pads[first:]),
    )
    return [out, indices]


def convert_average_pool(ctx: NodeContext) -> ConverterResult:
    """AveragePool -> nn.avg_pool2d with count_include_pad and ceil_mode; 3-D pools run
    as 2-D pools of depth slices."""
    rank = _spatial_rank(ctx, most=3)
    kernel = _required_kernel(ctx, rank)
    if rank == 3:
        count_pads = bool(ctx.int_attr("count_include_pad", 0))
        return avg_pool3d(ctx, kernel, bool(ctx.int_attr("ceil_mode", 0)), count_pads)
    window = conv_window(ctx, kernel)
    out = ctx.call(
        "nn.avg_pool2d",
        _to_2d(ctx, ctx.input(0), rank),
        **_pool_attrs(ctx, window),
        count_include_pad=bool(ctx.int_attr("count_include_pad", 0)),
    )
    return _from_2d(ctx, out, rank)


def _required_kernel(ctx: NodeContext, rank: int) -> tuple[int, ...]:
    kernel = ctx.ints_attr("kernel_shape")
    if kernel is None:
        raise ctx.error("attribute kernel_shape is required")
    return window_ints(ctx, "kernel_shape", kernel, rank)


def global_pool(op: str, reduce_op: str) -> Converter:
    """GlobalAveragePool / GlobalMaxPool: the 2-D op on NCHW, else a keepdims reduction."""

    def convert(ctx: NodeContext) -> ConverterResult:
        data = ctx.input(0)
        ndim = ctx.rank(0)
        if ndim == 4:
            return ctx.call(op, data)
        if ndim < 3:
            raise ctx.error(f"expects an (N, C, ...) input, got {ctx.tensor_type(0)}")
        return ctx.call(reduce_op, data, axis=tuple(range(2, ndim)), keepdims=True)

    convert.__doc__ = f"ONNX -> {op}"
    return convert


def convert_gemm(ctx: NodeContext) -> ConverterResult:
    """Gemm -> alpha * nn.dense(A', B') + beta * C, with transposes for transA/transB."""
    lhs, rhs = ctx.input(0), ctx.input(1)
    dtype = ctx.dtype(0)
    if ctx.int_attr("transA", 0):
        lhs = ctx.call("transpose", lhs, axes=(1, 0))
    # nn.dense wants the weight as (N, K): that is B when transB is set, else B transposed.
    if not ctx.int_attr("transB", 0):
        rhs = ctx.call("transpose", rhs, axes=(1, 0))
    out = ctx.call("nn.dense", lhs, rhs)
    alpha = ctx.float_attr("alpha", 1.0)
    if alpha != 1.0:
        out = ctx.call("multiply", out, ctx.scalar(alpha, dtype))
    bias = ctx.optional_input(2)
    if bias is not None:
        beta = ctx.float_attr("beta", 1.0)
        if beta != 1.0:
            bias = ctx.call("multiply", bias, ctx.scalar(beta, dtype))
        out = ctx.call("add", out, bias)
    return out


def convert_matmul(ctx: NodeContext) -> ConverterResult:
    """MatMul -> nn.matmul (numpy semantics)."""
    return ctx.call("nn.matmul", ctx.input(0), ctx.input(1))


def convert_batch_norm(ctx: NodeContext) -> ConverterResult:
    """BatchNormalization -> nn.batch_norm on axis 1. In training mode (opset 14 and later)
    it normalises by the batch's own statistics (the mean and population variance over
    every axis but the channels), and also returns the running statistics moved towards
    them by (1 - momentum)."""
    epsilon = ctx.float_attr("epsilon", 1e-5)
    data, scale, bias, mean, variance = (ctx.input(index) for index in range(5))
    if not ctx.int_attr("training_mode", 0):
        out = ctx.call("nn.batch_norm", data, scale, bias, mean, variance, axis=1, epsilon=epsilon)
        return ctx.first_output(out)
    dtype = ctx.dtype(0)
    axes = tuple(axis for axis in range(ctx.rank(0)) if axis != 1)
    batch_mean = ctx.call("mean", data, axis=axes, keepdims=False)
    centred = ctx.call("subtract", data, ctx.call("mean", data, axis=axes, keepdims=True))
    batch_variance = ctx.call(
        "mean", ctx.call("multiply", centred, centred), axis=axes, keepdims=False
    )
    out = ctx.call(
        "nn.batch_norm", data, scale, bias, batch_mean, batch_variance, axis=1, epsilon=epsilon
    )
    momentum = ctx.float_attr("momentum", 0.9)

    def moved(running: Expr, batch: Expr) -> Expr:
        kept = ctx.call("multiply", running, ctx.scalar(momentum, dtype))
        return ctx.call("add", kept, ctx.call("multiply", batch, ctx.scalar(1 - momentum, dtype)))

    return [ctx.first_output(out), moved(mean, batch_mean), moved(variance, batch_variance)]


def convert_dropout(ctx: NodeContext) -> ConverterResult:
    """Dropout -> nn.dropout (SimplifyInference removes it), and the mask: all True, since
    inference keeps every element. The ratio is read only when it is a constant: it changes
    nothing in inference; in training mode only a ratio of 0 (which drops nothing) is
    supported."""
    if ctx.opset < 12:
        rate = ctx.float_attr("ratio", 0.5)
    else:
        ratio = ctx.optional_input(1)
        rate = 0.5
        if ratio is not None and isinstance(ctx.fold(ratio), Constant):
            rate = float(ctx.static_scalar(1, "ratio"))
        training = ctx.optional_input(2) is not None and ctx.static_scalar(2, "training_mode")
        if training and ratio is not None:  # a ratio of 0 drops nothing
            rate = float(ctx.static_scalar(1, "ratio"))
        if training and rate != 0.0:
            raise ctx.unsupported("training_mode=True is not supported (inference only)")
    out = ctx.first_output(ctx.call("nn.dropout", ctx.input(0), rate=rate))
    ty = ctx.tensor_type(0)
    if not ty.dims:
        return [out, Constant(np.ones(ty.shape, dtype=bool))]
    shape = tuple(ctx.dim_entry(dim) for dim in ty.dims)
    return [out, ctx.call("broadcast_to", Constant(np.array(True)), shape=shape)]


def convert_lp_pool(ctx: NodeContext) -> ConverterResult:
    """LpPool(p) -> (sum over each window of |x|^p)^(1/p): an average pool of |x|^p that
    counts the padding (zeros add nothing), times the window's size."""
    if ctx.int_attr("ceil_mode", 0):
        raise ctx.unsupported_attr("ceil_mode", 1, ("0",))
    p = ctx.int_attr("p", 2)
    if p <= 0:
        raise ctx.error(f"p must be positive, got {p}")
    dtype = ctx.dtype(0)
    magnitude = ctx.call("abs", ctx.input(0))
    powered = magnitude if p == 1 else ctx.call("power", magnitude, ctx.scalar(p, dtype))
    attrs = {**ctx.attrs, "count_include_pad": 1}
    pooled = convert_average_pool(replace(ctx, inputs=(powered, *ctx.inputs[1:]), attrs=attrs))
    assert isinstance(pooled, Expr)
    area = math.prod(_required_kernel(ctx, _spatial_rank(ctx, most=3)))
    total = ctx.call("multiply", pooled, ctx.scalar(area, dtype))
    if p == 1:
        return total
    if p == 2:
        return ctx.call("sqrt", total)
    return ctx.call("power", total, ctx.scalar(1.0 / p, dtype))


def softmax(op: str) -> Converter:
    """Softmax / LogSoftmax: opset < 13 coerces the input to 2-D at `axis` (default 1)."""

    def convert(ctx: NodeContext) -> ConverterResult:
        data = ctx.input(0)
        if ctx.opset >= 13:
            return ctx.call(op, data, axis=ctx.int_attr("axis", -1))
        ty = ctx.tensor_type(0)
        shape = ty.shape
        axis = ctx.int_attr("axis", 1)
        if not -len(shape) <= axis < max(len(shape), 1):
            raise ctx.error(f"axis {axis} is out of range for input {ty}")
        axis %= max(len(shape), 1)
        if axis == len(shape) - 1:
            return ctx.call(op, data, axis=-1)
        if ty.dims:  # symbolic rows of the static columns' extent
            if axis == 0:
                raise ctx.unsupported(f"axis 0 folds the symbolic dims of {ty} into a row")
            columns = math.prod(ctx.static_dims(0, axis))
            flat = ctx.call("reshape", data, newshape=(-1, columns))
            back = tuple(ctx.dim_entry(dim) for dim in ty.dims)
            return ctx.call("reshape", ctx.call(op, flat, axis=1), newshape=back)
        rows = math.prod(shape[:axis])
        flat = ctx.call("reshape", data, newshape=(rows, math.prod(shape) // max(rows, 1)))
        return ctx.call("reshape", ctx.call(op, flat, axis=1), newshape=shape)

    convert.__doc__ = f"ONNX -> {op}"
    return convert


def convert_lrn(ctx: NodeContext) -> ConverterResult:
    """LRN -> nn.lrn across channels (axis 1)."""
    size = ctx.attr("size")
    if size is None:
        raise ctx.error("attribute size is required")
    return ctx.call(
        "nn.lrn",
        ctx.input(0),
        size=int(size),
        alpha=ctx.float_attr("alpha", 1e-4),
        beta=ctx.float_attr("beta", 0.75),
        bias=ctx.float_attr("bias", 1.0),
        axis=1,
    )


def convert_layer_norm(ctx: NodeContext) -> ConverterResult:
    """LayerNormalization (opset 17) -> nn.layer_norm over the trailing axes from `axis`.

    Normalising over several trailing axes runs on a view that merges them into one.
    """
    data = ctx.input(0)
    data_type = ctx.tensor_type(0)
    shape = data_type.shape
    dtype = ctx.dtype(0)
    axis = ctx.axis(ctx.int_attr("axis", -1), len(shape))
    norm_shape = shape[axis:]
    if data_type.dims and (len(norm_shape) > 1 or not isinstance(data_type.dims[axis], IntImm)):
        raise ctx.unsupported(
            f"input {data_type}: with symbolic dims, only the last axis may be normalised, "
            "and it must be static"
        )
    scale = _to_norm_shape(ctx, ctx.input(1), norm_shape)
    bias_input = ctx.optional_input(2)
    if bias_input is None:
        bias: Expr = Constant(np.zeros(norm_shape, dtype=dtype))
    else:
        bias = _to_norm_shape(ctx, bias_input, norm_shape)
    epsilon = ctx.float_attr("epsilon", 1e-5)
    if len(norm_shape) == 1:
        out = ctx.call("nn.layer_norm", data, scale, bias, axis=-1, epsilon=epsilon)
    else:
        size = math.prod(norm_shape)
        flat = ctx.call("reshape", data, newshape=(*shape[:axis], size))
        scale = ctx.call("reshape", scale, newshape=(size,))
        bias = ctx.call("reshape", bias, newshape=(size,))
        out = ctx.call("nn.layer_norm", flat, scale, bias, axis=-1, epsilon=epsilon)
        out = ctx.call("reshape", out, newshape=shape)
    if len(ctx.node.output) == 1:
        return out
    return [out, *_layer_norm_statistics(ctx, data, axis, epsilon)]


def _layer_norm_statistics(
    ctx: NodeContext, data: Expr, axis: int, epsilon: float
) -> tuple[Expr, Expr]:
    """LayerNormalization's optional outputs: the mean and 1 / sqrt(variance + epsilon)
    over the normalised axes, kept as size-1 axes, in the `stash_type` (float32 unless
    set)."""
    stash = onnx_dtype_name(ctx.int_attr("stash_type", onnx.TensorProto.FLOAT), ctx.where)
    axes = tuple(range(axis, ctx.rank(0)))
    if ctx.dtype(0) != stash:
        data = ctx.call("cast", data, dtype=stash)
    mean = ctx.call("mean", data, axis=axes, keepdims=True)
    centered = ctx.call("subtract", data, mean)
    variance = ctx.call("mean", ctx.call("multiply", centered, centered), axis=axes, keepdims=True)
    shifted = ctx.call("add", variance, ctx.scalar(epsilon, stash))
    return mean, ctx.call("divide", ctx.scalar(1.0, stash), ctx.call("sqrt", shifted))


def _to_norm_shape(ctx: NodeContext, value: Expr, norm_shape: tuple[int, ...]) -> Expr:
    ty = value.checked_type
    if getattr(ty, "shape", None) == norm_shape:
        return value
    return ctx.call("broadcast_to", value, shape=norm_shape)


def _normalized_groups(ctx: NodeContext, data: Expr, groups: int, epsilon: float) -> Expr:
    """(x - mean) / sqrt(var + epsilon) over each of `groups` channel groups of a sample.

    The grouped view (N, groups, rest) runs through nn.layer_norm over its last axis with
    unit scale and zero shift; the result has the input's shape.
    """
    shape = ctx.shape(0)
    dtype = ctx.dtype(0)
    if len(shape) < 3:
        raise ctx.error(f"input must have a batch, a channel and spatial axes, got {shape}")
    size = math.prod(shape[1:]) // groups
    grouped = ctx.call("reshape", data, newshape=(shape[0], groups, size))
    unit = Constant(np.ones((size,), dtype=dtype))
    nothing = Constant(np.zeros((size,), dtype=dtype))
    out = ctx.call("nn.layer_norm", grouped, unit, nothing, axis=-1, epsilon=epsilon)
    return ctx.call("reshape", out, newshape=shape)


def _per_channel(ctx: NodeContext, value: Expr, rank: int) -> Expr:
    """A (C,) scale or shift as (C, 1, ...) so that it broadcasts along axis 1."""
    channels = ctx.shape(0)[1]
    ty = value.checked_type
    if getattr(ty, "shape", None) not in ((channels,), (1,)):
        raise ctx.error(f"scale and bias must have shape ({channels},), got {ty}")
    return ctx.call("reshape", value, newshape=(-1,) + (1,) * (rank - 2))


def _scaled_and_shifted(ctx: NodeContext, normalized: Expr, rank: int) -> Expr:
    """normalized * scale + bias, with the node's (C,) inputs 1 and 2 per channel."""
    scaled = ctx.call("multiply", normalized, _per_channel(ctx, ctx.input(1), rank))
    return ctx.call("add", scaled, _per_channel(ctx, ctx.input(2), rank))


def convert_instance_norm(ctx: NodeContext) -> ConverterResult:
    """InstanceNormalization: normalise each (sample, channel) over its spatial axes."""
    shape = ctx.shape(0)
    epsilon = ctx.float_attr("epsilon", 1e-5)
    normalized = _normalized_groups(ctx, ctx.input(0), shape[1] if len(shape) > 1 else 1, epsilon)
    return _scaled_and_shifted(ctx, normalized, len(shape))


def convert_group_norm(ctx: NodeContext) -> ConverterResult:
    """GroupNormalization (opset 21): normalise each (sample, channel group), then scale
    and shift each channel. (Opset 18's per-group scale is deprecated; the ONNX checker
    refuses it before import.)
    """
    shape = ctx.shape(0)
    groups = ctx.attr("num_groups")
    if groups is None:
        raise ctx.error("attribute num_groups is required")
    groups = int(groups)
    if len(shape) < 2 or groups < 1 or shape[1] % groups:
        raise ctx.error(f"num_groups={groups} must divide the {shape[1:2]} channels")
    normalized = _normalized_groups(ctx, ctx.input(0), groups, ctx.float_attr("epsilon", 1e-5))
    return _scaled_and_shifted(ctx, normalized, len(shape))


def convert_hardmax(ctx: NodeContext) -> ConverterResult:
    """Hardmax -> 1 where the first maximum along the axis is, else 0. Before opset 13 the
    input is viewed as 2-D: (dims before axis, dims from axis on)."""
    shape = ctx.shape(0)
    axis = ctx.axis(ctx.int_attr("axis", -1 if ctx.opset >= 13 else 1), len(shape))
    data, view = ctx.input(0), shape
    if ctx.opset < 13:
        view = (math.prod(shape[:axis]), math.prod(shape[axis:]))
        data, axis = ctx.call("reshape", data, newshape=view), 1
    first = ctx.call("argmax", data, axis=axis, keepdims=True)
    trailing = (1,) * (len(view) - axis - 1)
    positions = Constant(np.arange(view[axis], dtype=np.int64).reshape(view[axis], *trailing))
    out = ctx.call("cast", ctx.call("equal", first, positions), dtype=ctx.dtype(0))
    return ctx.call("reshape", out, newshape=shape) if view != shape else out


def convert_lp_norm(ctx: NodeContext) -> ConverterResult:
    """LpNormalization(axis, p) -> x / (sum |x| or sqrt(sum x^2)) along the axis."""
    axis = ctx.axis(ctx.int_attr("axis", -1), ctx.rank(0))
    p = ctx.int_attr("p", 2)
    if p not in (1, 2):
        raise ctx.unsupported_attr("p", p, ("1", "2"))
    data = ctx.input(0)
    if p == 1:
        norm = ctx.call("sum", ctx.call("abs", data), axis=(axis,), keepdims=True)
    else:
        squares = ctx.call("multiply", data, data)
        norm = ctx.call("sqrt", ctx.call("sum", squares, axis=(axis,), keepdims=True))
    # A zero norm (all of the slice zero) gives zeros, not 0 / 0.
    dtype = ctx.dtype(0)
    is_zero = ctx.call("equal", norm, ctx.scalar(0, dtype))
    safe = ctx.call("where", is_zero, ctx.scalar(1, dtype), norm)
    return ctx.call("divide", data, safe)


def convert_mean_variance_norm(ctx: NodeContext) -> ConverterResult:
    """MeanVarianceNormalization(axes) -> (x - mean) / (sqrt(mean((x - mean)^2)) + 1e-9),
    as the ONNX function adds its epsilon to the standard deviation (ONNX Runtime's kernel
    adds none: the two differ only where the deviation is near 1e-9)."""
    rank = ctx.rank(0)
    axes = tuple(ctx.axis(a, rank) for a in (ctx.ints_attr("axes") or (0, 2, 3)))
    data = ctx.input(0)
    centered = ctx.call("subtract", data, ctx.call("mean", data, axis=axes, keepdims=True))
    variance = ctx.call("mean", ctx.call("multiply", centered, centered), axis=axes, keepdims=True)
    spread = ctx.call("add", ctx.call("sqrt", variance), ctx.scalar(1e-9, ctx.dtype(0)))
    return ctx.call("divide", centered, spread)


CONVERTERS: dict[str, Converter] = {
    "AveragePool": convert_average_pool,
    "LpPool": convert_lp_pool,
    "BatchNormalization": convert_batch_norm,
    "Conv": convert_conv,
    "ConvTranspose": convert_conv_transpose,
    "Dropout": convert_dropout,
    "Gemm": convert_gemm,
    "GlobalAveragePool": global_pool("nn.global_avg_pool2d", "mean"),
    "GlobalMaxPool": global_pool("nn.global_max_pool2d", "max"),
    "GroupNormalization": convert_group_norm,
    "Hardmax": convert_hardmax,
    "InstanceNormalization": convert_instance_norm,
    "LayerNormalization": convert_layer_norm,
    "LogSoftmax": softmax("nn.log_softmax"),
    "LpNormalization": convert_lp_norm,
    "LRN": convert_lrn,
    "MatMul": convert_matmul,
    "MaxPool": convert_max_pool,
    "MeanVarianceNormalization": convert_mean_variance_norm,
    "Softmax": softmax("nn.softmax"),
}
