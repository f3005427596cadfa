"""3-D convolution and pooling (N, C, D, H, W) as 2-D ops over depth slices.

The depth axis joins the batch, so one 2-D conv (or pool) covers every depth slice; a
3-D window is then the sum (or max) over its kd depth taps of those 2-D results, each
read at its own depth offset with the depth stride. A conv runs one 2-D conv per depth
tap of the kernel (the same workload, so one tuning task); the work is that of the 3-D
conv when the depth stride is 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ir.frontend.onnx.context import NodeContext
from ir.frontend.onnx.windows import onnx_padding, window_ints
from ir.graph.nodes import Constant, Expr


@dataclass(frozen=True)
class DepthWindow:
    """A 3-D window split into its depth part and the 2-D (height, width) rest."""

    kernel: tuple[int, int, int]
    strides: tuple[int, int, int]
    dilation: tuple[int, int, int]
    pads: tuple[int, int, int, int, int, int]  # (d, h, w) begins, then ends
    out_depth: int

    @property
    def plane_padding(self) -> tuple[int, int, int, int]:
        """(top, left, bottom, right) of the 2-D part."""
        return (self.pads[1], self.pads[2], self.pads[4], self.pads[5])


def _depth_window(ctx: NodeContext, kernel: tuple[int, ...], ceil_mode: bool) -> DepthWindow:
    depth = ctx.shape(0)[2]
    strides = window_ints(ctx, "strides", (1, 1, 1), 3)
    dilation = window_ints(ctx, "dilations", (1, 1, 1), 3)
    pads = onnx_padding(ctx, ctx.shape(0)[2:], kernel, strides, dilation)
    span = dilation[0] * (kernel[0] - 1) + 1
    room = depth + pads[0] + pads[3] - span
    if room < 0:
        raise ctx.error(f"the {kernel[0]}-deep window does not fit depth {depth} with its pads")
    out = (math.ceil(room / strides[0]) if ceil_mode else room // strides[0]) + 1
    if ceil_mode and (out - 1) * strides[0] >= depth + pads[0]:
        out -= 1  # the last window would start in the end padding
    return DepthWindow(
        (kernel[0], kernel[1], kernel[2]),
        (strides[0], strides[1], strides[2]),
        (dilation[0], dilation[1], dilation[2]),
        (pads[0], pads[1], pads[2], pads[3], pads[4], pads[5]),
        out,
    )


def _planes(ctx: NodeContext, data: Expr, window: DepthWindow, fill: float) -> tuple[Expr, int]:
    """The depth-padded input as (N * D', C, H, W) slices, and D' (padded with `fill`,
    enough for every window the output needs)."""
    n, channels, depth, height, width = ctx.shape(0)
    needed = (
        (window.out_depth - 1) * window.strides[0] + window.dilation[0] * (window.kernel[0] - 1) + 1
    )
    after = needed - depth - window.pads[0]
    if window.pads[0] or after:
        widths = ((0, 0), (0, 0), (window.pads[0], after), (0, 0), (0, 0))
        data = ctx.call("nn.pad", data, pad_width=widths, pad_value=fill)
    padded = depth + window.pads[0] + after
    slices = ctx.call("transpose", data, axes=(0, 2, 1, 3, 4))
    return ctx.call("reshape", slices, newshape=(n * padded, channels, height, width)), padded


def _depth_tap(ctx: NodeContext, planes: Expr, tap: int, window: DepthWindow, padded: int) -> Expr:
    """The 2-D results (N * D', C', H', W') at depth tap `tap` of every output depth:
    (N, out_depth, C', H', W')."""
    n = ctx.shape(0)[0]
    _, channels, height, width = planes.checked_type.shape  # type: ignore[union-attr]
    volume = ctx.call("reshape", planes, newshape=(n, padded, channels, height, width))
    begin = tap * window.dilation[0]
    end = begin + (window.out_depth - 1) * window.strides[0] + 1
    return ctx.call(
        "strided_slice",
        volume,
        begin=(begin,),
        end=(end,),
        strides=(window.strides[0],),
        axes=(1,),
    )


def _combined(ctx: NodeContext, taps: list[Expr], op: str) -> Expr:
    """Taps combined with `op` and moved back to (N, C', D', H', W')."""
    total = taps[0]
    for tap in taps[1:]:
        total = ctx.call(op, total, tap)
    return ctx.call("transpose", total, axes=(0, 2, 1, 3, 4))


def conv3d(ctx: NodeContext) -> Expr:
    """Conv over (N, C, D, H, W): the sum over depth taps of 2-D convs of depth slices."""
    weight_shape = ctx.shape(1)
    kernel = window_ints(ctx, "kernel_shape", weight_shape[2:], 3)
    window = _depth_window(ctx, kernel, ceil_mode=False)
    groups = ctx.int_attr("group", 1)
    planes, padded = _planes(ctx, ctx.input(0), window, 0.0)
    taps = []
    for tap in range(window.kernel[0]):
        plane_weight = ctx.call(
            "strided_slice", ctx.input(1), begin=(tap,), end=(tap + 1,), axes=(2,)
        )
        plane_weight = ctx.call("squeeze", plane_weight, axis=(2,))
        out = ctx.call(
            "nn.conv2d",
            planes,
            plane_weight,
            strides=window.strides[1:],
            padding=window.plane_padding,
            dilation=window.dilation[1:],
            groups=groups,
        )
        taps.append(_depth_tap(ctx, out, tap, window, padded))
    result = _combined(ctx, taps, "add")
    bias = ctx.optional_input(2)
    if bias is not None:
        result = ctx.call("add", result, ctx.call("expand_dims", bias, axes=(1, 2, 3)))
    return result


def _pooled_taps(
    ctx: NodeContext, window: DepthWindow, op: str, ceil_mode: bool, **attrs: object
) -> list[Expr]:
    """The 2-D pool `op` of every depth slice (padded with -inf for a max, else 0), read
    at each depth tap: (N, out_depth, C, H', W') per tap."""
    fill = -math.inf if op == "nn.max_pool2d" else 0.0
    planes, padded = _planes(ctx, ctx.input(0), window, fill)
    pooled = ctx.call(
        op,
        planes,
        pool_size=window.kernel[1:],
        strides=window.strides[1:],
        padding=window.plane_padding,
        dilation=window.dilation[1:],
        ceil_mode=ceil_mode,
        **attrs,
    )
    return [_depth_tap(ctx, pooled, tap, window, padded) for tap in range(window.kernel[0])]


def max_pool3d(ctx: NodeContext, kernel: tuple[int, ...], ceil_mode: bool) -> Expr:
    """MaxPool over (N, C, D, H, W): the max over depth taps of 2-D max pools."""
    window = _depth_window(ctx, kernel, ceil_mode)
    return _combined(ctx, _pooled_taps(ctx, window, "nn.max_pool2d", ceil_mode), "maximum")


def avg_pool3d(
    ctx: NodeContext, kernel: tuple[int, ...], ceil_mode: bool, count_include_pad: bool
) -> Expr:
    """AveragePool over (N, C, D, H, W): window sums over every depth tap of 2-D averages
    that count the padding (times their own counts, so sums), divided by each 3-D
    window's count: a constant computed here (taps inside the padded input, or inside the
    input itself)."""
    window = _depth_window(ctx, kernel, ceil_mode)
    taps = _pooled_taps(ctx, window, "nn.avg_pool2d", ceil_mode, count_include_pad=True)
    total = _combined(ctx, taps, "add")
    out = total.checked_type.shape[2:]  # type: ignore[union-attr]
    spatial = ctx.shape(0)[2:]
    with_pads = [_axis_counts(spatial, out, window, axis, True) for axis in range(3)]
    counted = [_axis_counts(spatial, out, window, axis, count_include_pad) for axis in range(3)]
    plane = with_pads[1][:, None] * with_pads[2][None, :]  # what each 2-D average divided by
    volume = counted[0][:, None, None] * counted[1][None, :, None] * counted[2][None, None, :]
    scale = Constant((plane[None, :, :] / np.maximum(volume, 1)).astype(ctx.dtype(0)))
    return ctx.call("multiply", total, scale)


def _axis_counts(
    spatial: tuple[int, ...], out: tuple[int, ...], window: DepthWindow, axis: int, pads: bool
) -> np.ndarray:
    """Per output position along `axis`, how many window taps fall inside the input (or
    inside the padded input, when `pads`)."""
    starts = np.arange(out[axis]) * window.strides[axis] - window.pads[axis]
    taps = starts[:, None] + np.arange(window.kernel[axis])[None, :] * window.dilation[axis]
    low, high = (0, spatial[axis])
    if pads:
        low, high = -window.pads[axis], spatial[axis] + window.pads[axis + 3]
    return np.asarray(((taps >= low) & (taps < high)).sum(axis=1), dtype=np.float64)
