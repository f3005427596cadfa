"""Converters for ONNX ops that read their input at positions computed at run time:
RoiAlign (bilinear samples pooled over each region of interest's bins) and DeformConv
(a convolution whose taps move by per-pixel offsets).

Both become graphs of ordinary ops: the sample positions and their bilinear weights are
elementwise arithmetic on the run-time operands (the regions, the offsets), each of a
sample's four neighbouring pixels is one `gather_elements` of the flattened input, and
the weighted neighbours are summed. The rest is a reduction (RoiAlign's average or
maximum over each bin's samples) or a matmul (DeformConv's weights applied to the
gathered columns, per group). Only the number of samples must be known when compiling:
RoiAlign with sampling_ratio 0 derives it from each region's size, so it needs the
regions' values (a constant, or the values `autotune run` specialises to).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ir.frontend.onnx.context import Converter, ConverterResult, NodeContext
from ir.graph.nodes import Constant, Expr
from ir.graph.types import TensorType

ROI_MODES = ("avg", "max")
ROI_TRANSFORMS = ("half_pixel", "output_half_pixel")


def _gather_pixels(ctx: NodeContext, flat: Expr, index: Expr, channels_axis: int) -> Expr:
    """`flat` [..., C, P] (C at `channels_axis`, P the flattened pixels) read at the int64
    pixel indices `index` [..., 1, S], the same for every channel: [..., C, S]."""
    flat_shape = _shape_of(flat)
    target = (*_shape_of(index)[:channels_axis], flat_shape[channels_axis], _shape_of(index)[-1])
    spread = ctx.call("broadcast_to", index, shape=target)
    return ctx.call("gather_elements", flat, spread, axis=len(target) - 1)


def _shape_of(value: Expr) -> tuple[int, ...]:
    """The static shape of a typed tensor `value`."""
    ty = value.checked_type
    assert isinstance(ty, TensorType), ty
    return ty.shape


# -- RoiAlign --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _AxisSamples:
    """Along one image axis, for every region, bin and sample of a bin: the two pixels a
    sample lies between (float, in range), the weight of each, and whether the sample
    lies outside the image (then it reads nothing)."""

    low: Expr
    high: Expr
    low_weight: Expr
    high_weight: Expr
    outside: Expr


def _roi_axis(
    ctx: NodeContext,
    rois: Expr,
    columns: tuple[int, int],
    image_size: int,
    pooled: int,
    grid: np.ndarray,
    half_pixel: bool,
    scale: float,
    dtype: str,
) -> _AxisSamples:
    """The samples along one axis (`columns`: the rois' start and end columns for it) of
    each region's `pooled` bins, `grid[r]` samples per bin ([R, pooled, G] each, G the
    largest grid), as ONNX's RoiAlign places and weights them."""
    count = _shape_of(rois)[0]
    shift = 0.5 if half_pixel else 0.0

    def column(index: int) -> Expr:
        picked = ctx.call("take", rois, Constant(np.array(index, np.int64)), axis=1)
        scaled = ctx.call("multiply", picked, ctx.scalar(scale, dtype))
        return ctx.call("subtract", scaled, ctx.scalar(shift, dtype))

    start, end = column(columns[0]), column(columns[1])
    extent = ctx.call("subtract", end, start)
    if not half_pixel:
        extent = ctx.call("maximum", extent, ctx.scalar(1.0, dtype))
    bin_size = ctx.call("divide", extent, ctx.scalar(float(pooled), dtype))
    bin_size = ctx.call("reshape", bin_size, newshape=(count, 1, 1))
    start = ctx.call("reshape", start, newshape=(count, 1, 1))
    widest = max(int(grid.max(initial=0)), 1)
    # Sample i of a bin of grid g lies (i + 0.5) / g of the way across it.
    steps = np.arange(widest, dtype=np.float64)[None, :] + 0.5
    fractions = (steps / np.maximum(grid, 1)[:, None]).astype(dtype).reshape(count, 1, widest)
    bins = np.arange(pooled, dtype=dtype).reshape(1, pooled, 1)
    along = ctx.call("add", Constant(bins), Constant(fractions))
    position = ctx.call("add", start, ctx.call("multiply", along, bin_size))
    outside = ctx.call(
        "logical_or",
        ctx.call("less", position, ctx.scalar(-1.0, dtype)),
        ctx.call("greater", position, ctx.scalar(float(image_size), dtype)),
    )
    position = ctx.call("maximum", position, ctx.scalar(0.0, dtype))
    last = ctx.scalar(float(image_size - 1), dtype)
    low = ctx.call("floor", position)
    inner = ctx.call("less", low, last)  # else at the last pixel: both neighbours are it
    low = ctx.call("where", inner, low, last)
    high = ctx.call("where", inner, ctx.call("add", low, ctx.scalar(1.0, dtype)), low)
    position = ctx.call("where", inner, position, low)
    high_weight = ctx.call("subtract", position, low)
    low_weight = ctx.call("subtract", ctx.scalar(1.0, dtype), high_weight)
    return _AxisSamples(low, high, low_weight, high_weight, outside)


def _adaptive_grids(
    ctx: NodeContext, pooled: tuple[int, int], half_pixel: bool, scale: float
) -> tuple[np.ndarray, np.ndarray]:
    """sampling_ratio 0: per region and axis (y, x), ceil(region size / bins) samples per
    bin, from the regions' values (which must be known when compiling)."""
    rois = ctx.static_value(1, "rois: with sampling_ratio 0 their sizes set the sample count")
    shift = np.float32(0.5 if half_pixel else 0.0)
    scaled = rois.astype(np.float32) * np.float32(scale) - shift
    grids = []
    for (start, end), bins in zip(((1, 3), (0, 2)), pooled, strict=True):
        extent = scaled[:, end] - scaled[:, start]
        if not half_pixel:
            extent = np.maximum(extent, np.float32(1.0))
        grids.append(np.ceil(extent / np.float32(bins)).astype(np.int64))
    return grids[0], grids[1]


def convert_roi_align(ctx: NodeContext) -> ConverterResult:
    """RoiAlign(X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R]) ->
    [R, C, output_height, output_width]: per bin, the average (or the maximum) of its
    bilinearly interpolated samples, placed and weighted as ONNX's reference does."""
    shape, rois_shape, indices_shape = ctx.shape(0), ctx.shape(1), ctx.shape(2)
    if len(shape) != 4 or len(rois_shape) != 2 or rois_shape[1] != 4:
        raise ctx.error(f"X must be [N, C, H, W] and rois [R, 4], got {shape} and {rois_shape}")
    if indices_shape != rois_shape[:1]:
        raise ctx.error(
            f"batch_indices must be [R] with R = {rois_shape[0]} regions, got {indices_shape}"
        )
    mode = ctx.choice_attr("mode", "avg", ROI_MODES)
    default = "half_pixel" if ctx.opset >= 16 else "output_half_pixel"
    transform = ctx.choice_attr("coordinate_transformation_mode", default, ROI_TRANSFORMS)
    pooled = (ctx.int_attr("output_height", 1), ctx.int_attr("output_width", 1))
    ratio = ctx.int_attr("sampling_ratio", 0)
    scale = ctx.float_attr("spatial_scale", 1.0)
    if min(pooled) < 1 or ratio < 0:
        raise ctx.error(
            f"output_height and output_width must be positive and sampling_ratio at least 0, "
            f"got {pooled[0]}, {pooled[1]} and {ratio}"
        )
    n, channels, height, width = shape
    count = rois_shape[0]
    half_pixel = transform == "half_pixel"
    dtype = ctx.dtype(0)
    if ratio > 0:
        grid_y = grid_x = np.full(count, ratio, np.int64)
    else:
        grid_y, grid_x = _adaptive_grids(ctx, pooled, half_pixel, scale)
    rois = ctx.input(1)
    if ctx.dtype(1) != dtype:
        rois = ctx.call("cast", rois, dtype=dtype)
    y = _roi_axis(ctx, rois, (1, 3), height, pooled[0], grid_y, half_pixel, scale, dtype)
    x = _roi_axis(ctx, rois, (0, 2), width, pooled[1], grid_x, half_pixel, scale, dtype)
    rows, cols = max(int(grid_y.max(initial=0)), 1), max(int(grid_x.max(initial=0)), 1)
    samples = (count, pooled[0], rows, pooled[1], cols)

    def along_y(value: Expr) -> Expr:
        return ctx.call("reshape", value, newshape=(count, pooled[0], rows, 1, 1))

    def along_x(value: Expr) -> Expr:
        return ctx.call("reshape", value, newshape=(count, 1, 1, pooled[1], cols))

    outside = ctx.call("logical_or", along_y(y.outside), along_x(x.outside))
    flat = ctx.call("reshape", ctx.input(0), newshape=(n, channels, height * width))
    images = ctx.call("take", flat, ctx.input(2), axis=0)  # [R, C, H * W]
    zero = ctx.scalar(0.0, dtype)
    corners: list[Expr] = []
    for row, row_weight in ((y.low, y.low_weight), (y.high, y.high_weight)):
        for col, col_weight in ((x.low, x.low_weight), (x.high, x.high_weight)):
            pixel = ctx.call(
                "add",
                ctx.call("multiply", along_y(row), ctx.scalar(float(width), dtype)),
                along_x(col),
            )
            index = ctx.call("cast", pixel, dtype="int64")
            index = ctx.call("reshape", index, newshape=(count, 1, math.prod(samples[1:])))
            values = _gather_pixels(ctx, images, index, 1)
            values = ctx.call("reshape", values, newshape=(count, channels, *samples[1:]))
            weight = ctx.call("multiply", along_y(row_weight), along_x(col_weight))
            weight = ctx.call("where", outside, zero, weight)
            weighted = ctx.call("multiply", values, ctx.call("expand_dims", weight, axes=(1,)))
            corners.append(weighted)
    # Samples past a region's own grid (regions with fewer samples than the widest).
    ragged = not (np.all(grid_y == rows) and np.all(grid_x == cols))
    valid = (np.arange(rows)[None, :] < grid_y[:, None])[:, None, :, None, None] & (
        np.arange(cols)[None, :] < grid_x[:, None]
    )[:, None, None, None, :]
    valid = valid.reshape(count, 1, 1, rows, 1, cols)
    if mode == "avg":
        total = corners[0]
        for corner in corners[1:]:
            total = ctx.call("add", total, corner)
        if ragged:
            total = ctx.call("multiply", total, Constant(valid.astype(dtype)))
        summed = ctx.call("sum", total, axis=(3, 5), keepdims=False)
        divisors = np.maximum(grid_y * grid_x, 1).astype(dtype).reshape(count, 1, 1, 1)
        return ctx.call("divide", summed, Constant(divisors))
    largest = corners[0]
    for corner in corners[1:]:
        largest = ctx.call("maximum", largest, corner)
    if ragged:
        lowest = ctx.scalar(-np.inf, dtype)
        largest = ctx.call("where", Constant(valid), largest, lowest)
    result = ctx.call("max", largest, axis=(3, 5), keepdims=False)
    empty = (grid_y <= 0) | (grid_x <= 0)
    if np.any(empty):  # no sample at all: 0, as the reference leaves it
        result = ctx.call("where", Constant(empty.reshape(count, 1, 1, 1)), zero, result)
    return result


# -- DeformConv ------------------------------------------------------------------------------


def _tap_weights(
    ctx: NodeContext, position: Expr, size: int, dtype: str
) -> list[tuple[Expr, Expr]]:
    """The two pixels (clamped inside, float) around each `position` along an axis of
    `size` pixels and their bilinear weights, zero for a pixel outside the input."""
    one = ctx.scalar(1.0, dtype)
    low = ctx.call("floor", position)
    fraction = ctx.call("subtract", position, low)
    taps = []
    for pixel, weight in (
        (low, ctx.call("subtract", one, fraction)),
        (ctx.call("add", low, one), fraction),
    ):
        outside = ctx.call(
            "logical_or",
            ctx.call("less", pixel, ctx.scalar(0.0, dtype)),
            ctx.call("greater", pixel, ctx.scalar(float(size - 1), dtype)),
        )
        weight = ctx.call("where", outside, ctx.scalar(0.0, dtype), weight)
        taps.append((ctx.call("clip", pixel, a_min=0.0, a_max=float(size - 1)), weight))
    return taps


def convert_deform_conv(ctx: NodeContext) -> ConverterResult:
    """DeformConv (2-D) -> per kernel tap and output pixel, the input bilinearly sampled
    (zero outside) at the tap's position moved by its offset, times the mask, gathered
    into columns [N, group, C / group * kH * kW, oH * oW]; the weights as one batched
    matmul per group, plus the bias."""
    shape, weight_shape, offset_shape = ctx.shape(0), ctx.shape(1), ctx.shape(2)
    if len(shape) != 4 or len(weight_shape) != 4:
        raise ctx.unsupported(
            f"only 2-D DeformConv: X (N, C, H, W) and W (M, C/group, kH, kW), got {shape} "
            f"and {weight_shape}"
        )
    n, channels, height, width = shape
    outputs, group_channels, kernel_h, kernel_w = weight_shape
    kernel = ctx.ints_attr("kernel_shape") or (kernel_h, kernel_w)
    strides = ctx.ints_attr("strides") or (1, 1)
    dilations = ctx.ints_attr("dilations") or (1, 1)
    pads = ctx.ints_attr("pads") or (0, 0, 0, 0)
    groups, offset_groups = ctx.int_attr("group", 1), ctx.int_attr("offset_group", 1)
    if tuple(kernel) != (kernel_h, kernel_w) or len(strides) != 2 or len(dilations) != 2:
        raise ctx.error(
            f"kernel_shape {kernel} must be W's {(kernel_h, kernel_w)}, and strides and "
            f"dilations two values each, got {strides} and {dilations}"
        )
    if len(pads) != 4:
        raise ctx.error(f"pads must hold 4 values, got {pads}")
    if groups < 1 or offset_groups < 1 or channels != group_channels * groups:
        raise ctx.error(
            f"X's {channels} channels must be W's {group_channels} per group times "
            f"group={groups} (offset_group={offset_groups})"
        )
    if outputs % groups or channels % offset_groups:
        raise ctx.error(
            f"W's {outputs} outputs must divide into group={groups} groups and X's "
            f"{channels} channels into offset_group={offset_groups} groups"
        )
    out_h = (height + pads[0] + pads[2] - (kernel_h - 1) * dilations[0] - 1) // strides[0] + 1
    out_w = (width + pads[1] + pads[3] - (kernel_w - 1) * dilations[1] - 1) // strides[1] + 1
    taps = kernel_h * kernel_w
    if offset_shape != (n, offset_groups * 2 * taps, out_h, out_w):
        raise ctx.error(
            f"offset must be {(n, offset_groups * 2 * taps, out_h, out_w)} (N, offset_group "
            f"* 2 * kH * kW, oH, oW), got {offset_shape}"
        )
    bias, mask = ctx.optional_input(3), ctx.optional_input(4)
    if bias is not None and ctx.shape(3) != (outputs,):
        raise ctx.error(f"B must be [{outputs}], got {ctx.shape(3)}")
    if mask is not None and ctx.shape(4) != (n, offset_groups * taps, out_h, out_w):
        raise ctx.error(
            f"mask must be {(n, offset_groups * taps, out_h, out_w)}, got {ctx.shape(4)}"
        )
    dtype = ctx.dtype(0)
    # Where each tap reads without offsets, per output row (kH, oH) and column (kW, oW).
    rows = (np.arange(kernel_h)[:, None] * dilations[0] + np.arange(out_h) * strides[0]) - pads[0]
    cols = (np.arange(kernel_w)[:, None] * dilations[1] + np.arange(out_w) * strides[1]) - pads[1]
    base_y = np.repeat(rows, kernel_w, axis=0).reshape(taps, out_h, 1).astype(dtype)
    base_x = np.tile(cols, (kernel_h, 1)).reshape(taps, 1, out_w).astype(dtype)
    pairs = ctx.call("reshape", ctx.input(2), newshape=(n, offset_groups, taps, 2, out_h, out_w))

    def moved(axis: int, base: np.ndarray) -> Expr:
        part = ctx.call("take", pairs, Constant(np.array(axis, np.int64)), axis=3)
        return ctx.call("add", part, Constant(base))

    y_taps = _tap_weights(ctx, moved(0, base_y), height, dtype)
    x_taps = _tap_weights(ctx, moved(1, base_x), width, dtype)
    per_group = channels // offset_groups
    count = taps * out_h * out_w
    flat = ctx.call("reshape", ctx.input(0), newshape=(n, offset_groups, per_group, height * width))
    scale = mask
    if scale is not None:
        scale = ctx.call("reshape", scale, newshape=(n, offset_groups, taps, out_h, out_w))
    columns: Expr | None = None
    for row, row_weight in y_taps:
        for col, col_weight in x_taps:
            pixel = ctx.call("add", ctx.call("multiply", row, ctx.scalar(float(width), dtype)), col)
            index = ctx.call("cast", pixel, dtype="int64")
            index = ctx.call("reshape", index, newshape=(n, offset_groups, 1, count))
            weight = ctx.call("multiply", row_weight, col_weight)
            if scale is not None:
                weight = ctx.call("multiply", weight, scale)
            weight = ctx.call("reshape", weight, newshape=(n, offset_groups, 1, count))
            term = ctx.call("multiply", _gather_pixels(ctx, flat, index, 2), weight)
            columns = term if columns is None else ctx.call("add", columns, term)
    assert columns is not None
    depth = group_channels * taps
    columns = ctx.call("reshape", columns, newshape=(n, groups, depth, out_h * out_w))
    weights = ctx.call("reshape", ctx.input(1), newshape=(1, groups, outputs // groups, depth))
    product = ctx.call("nn.matmul", weights, columns)  # [N, group, M / group, oH * oW]
    result = ctx.call("reshape", product, newshape=(n, outputs, out_h, out_w))
    if bias is not None:
        result = ctx.call("add", result, ctx.call("reshape", bias, newshape=(1, outputs, 1, 1)))
    return result


CONVERTERS: dict[str, Converter] = {
    "DeformConv": convert_deform_conv,
    "RoiAlign": convert_roi_align,
}
