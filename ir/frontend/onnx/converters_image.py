"""Converters for ONNX image sampling: Resize (nearest, linear, cubic), Upsample and
GridSample.

A resize is separable: along each resized axis every output element is a weighted sum of
a few input elements (1 for nearest, 2 for linear, 4 for cubic; an antialiased linear or
cubic shrink by a scale s widens the filter to about 2/s or 4/s elements). The positions and
weights depend only on the shapes and attributes, so they are computed here, in float32
as ONNX Runtime computes them, and the graph gets, per axis and tap, a `take` of the
input along that axis times a constant weight column. Out-of-range taps are clamped to
the edge, as the ONNX reference pads with edge values.

GridSample's positions come from a runtime grid: per tap, the pixel coordinates are
computed in the graph and the flattened input is gathered there (`gather_elements`),
weighted and summed; taps outside the input count as zeros unless the padding mode
clamps or mirrors the coordinates first.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ir.frontend.onnx.context import Converter, ConverterResult, NodeContext
from ir.graph.nodes import Constant, Expr

MODES = ("nearest", "linear", "cubic")
# tf_half_pixel_for_nn is refused by name.
COORDINATE_MODES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
ASPECT_POLICIES = ("stretch", "not_larger", "not_smaller")

F32 = np.float32


@dataclass(frozen=True)
class ResizeMode:
    """How positions map back to the input and which input elements they read."""

    mode: str
    coordinates: str
    nearest: str
    cubic_a: float
    exclude_outside: bool
    extrapolation: float = 0.0  # tf_crop_and_resize: the value outside the input
    antialias: bool = False  # linear and cubic: when shrinking, the filter widens by 1/scale


@dataclass(frozen=True)
class AxisTaps:
    """For one resized axis: input index and weight of each output element's taps."""

    indices: np.ndarray  # (out, taps) int64, in [0, in)
    weights: np.ndarray  # (out, taps) float32
    outside: np.ndarray | None = None  # (out,) bool: takes the extrapolation value


def original_coordinates(
    mode: ResizeMode,
    in_size: int,
    out_size: int,
    scale: float,
    roi: tuple[float, float] = (0.0, 1.0),
) -> np.ndarray:
    """The input coordinate (float32) of every output position along one axis (`roi`:
    the crop's start and end, as fractions of the axis, for tf_crop_and_resize)."""
    x = np.arange(out_size, dtype=F32)
    scale32 = F32(scale)
    if mode.coordinates == "tf_crop_and_resize":
        start, end = F32(roi[0]), F32(roi[1])
        span = F32(in_size - 1)
        if out_size == 1:
            return np.full(1, F32(0.5) * (start + end) * span, F32)
        return start * span + x * (end - start) * span / F32(out_size - 1)
    if mode.coordinates == "asymmetric":
        return x / scale32
    if mode.coordinates == "align_corners":
        if out_size == 1:
            return np.zeros(1, F32)
        # The resized length is in_size * scale, before flooring to a size (as ONNX's
        # reference computes it): scales that do not give whole sizes stretch the grid.
        return x * F32(in_size - 1) / (F32(in_size) * scale32 - F32(1))
    if mode.coordinates == "pytorch_half_pixel" and out_size == 1:
        return np.zeros(1, F32)
    centered = (x + F32(0.5)) / scale32 - F32(0.5)
    if mode.coordinates == "half_pixel_symmetric":
        adjustment = F32(out_size) / (scale32 * F32(in_size))
        offset = F32(in_size) / F32(2) * (F32(1) - adjustment)
        return offset + centered
    return centered


def _nearest_index(mode: ResizeMode, coordinates: np.ndarray) -> np.ndarray:
    if mode.nearest == "floor":
        return np.asarray(np.floor(coordinates))
    if mode.nearest == "ceil":
        return np.asarray(np.ceil(coordinates))
    fraction = coordinates - np.floor(coordinates)
    tie = fraction == F32(0.5)
    rounded = np.floor(coordinates + F32(0.5))
    if mode.nearest == "round_prefer_floor":
        return np.where(tie, np.floor(coordinates), rounded)
    return np.where(tie, np.ceil(coordinates), rounded)


def _cubic_weights(fraction: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic convolution weights of taps at -1, 0, 1, 2 around the position."""
    a32 = F32(a)

    def near(t: np.ndarray) -> np.ndarray:  # |t| <= 1
        return np.asarray(((a32 + 2) * t - (a32 + 3)) * t * t + 1)

    def far(t: np.ndarray) -> np.ndarray:  # 1 < |t| < 2
        return np.asarray(((a32 * t - 5 * a32) * t + 8 * a32) * t - 4 * a32)

    f = fraction.astype(F32)
    return np.stack([far(f + 1), near(f), near(1 - f), far(2 - f)], axis=1).astype(F32)


def axis_taps(
    mode: ResizeMode,
    in_size: int,
    out_size: int,
    scale: float,
    roi: tuple[float, float] = (0.0, 1.0),
) -> AxisTaps:
    """Taps of every output position along one axis for `mode`."""
    coordinates = original_coordinates(mode, in_size, out_size, scale, roi)
    outside = None
    if mode.coordinates == "tf_crop_and_resize":
        outside = (coordinates < 0) | (coordinates > in_size - 1)
        coordinates = np.clip(coordinates, 0, in_size - 1).astype(F32)
    if mode.mode == "nearest":
        index = _nearest_index(mode, coordinates).astype(np.int64)
        indices = np.clip(index, 0, in_size - 1)[:, None]
        return AxisTaps(indices, np.ones(indices.shape, F32), outside)
    if mode.antialias and scale < 1.0:
        return _antialias_taps(mode, coordinates, in_size, scale, outside)
    base = np.floor(coordinates)
    fraction = coordinates - base
    if mode.mode == "linear":
        offsets = np.array([0, 1])
        weights = np.stack([1 - fraction, fraction], axis=1).astype(F32)
    else:
        offsets = np.array([-1, 0, 1, 2])
        weights = _cubic_weights(fraction, mode.cubic_a)
    raw = base.astype(np.int64)[:, None] + offsets[None, :]
    if mode.exclude_outside:
        weights = np.where((raw >= 0) & (raw < in_size), weights, F32(0))
        weights = (weights / weights.sum(axis=1, keepdims=True)).astype(F32)
    return AxisTaps(np.clip(raw, 0, in_size - 1), weights, outside)


def _antialias_weights(mode: ResizeMode, fraction: float, scale: float) -> np.ndarray:
    """The normalised weights of an antialiased filter, its support widened by 1/scale, for
    a position `fraction` past its left neighbour (1 at a whole position): a triangle for
    linear, Keys' cubic for cubic, each tap's distance scaled by `scale`."""
    if mode.mode == "linear":
        start = math.floor(-1 / scale) + 1
        distances = (np.arange(start, 2 - start) - fraction) * scale
        weights = np.clip(1 - np.abs(distances), 0, 1)
    else:
        start = math.floor(-2 / scale) + 1
        distances = np.abs((np.arange(start, 2 - start) - fraction) * scale)
        a = mode.cubic_a
        near = ((a + 2) * distances - (a + 3)) * distances * distances + 1
        far = ((a * distances - 5 * a) * distances + 8 * a) * distances - 4 * a
        weights = np.where(distances <= 1, near, np.where(distances < 2, far, 0.0))
    return np.asarray(weights / weights.sum())


def _antialias_taps(
    mode: ResizeMode,
    coordinates: np.ndarray,
    in_size: int,
    scale: float,
    outside: np.ndarray | None,
) -> AxisTaps:
    """Taps of an antialiased linear or cubic shrink: each output position reads the n
    input elements nearest its coordinate (n fixed by the filter's support; a tie goes to
    the smaller index), edge elements repeated past the ends, as ONNX's reference picks
    them."""
    x = coordinates.astype(np.float64)
    whole = np.floor(x)
    fractions = np.where(x == whole, 1.0, x - whole)
    weights = np.stack([_antialias_weights(mode, float(f), scale) for f in fractions])
    taps = weights.shape[1]
    pad = -(-taps // 2)
    shifted = x + pad
    left = np.floor(shifted).astype(np.int64)
    fraction = shifted - left
    if taps % 2 == 0:
        offset = np.where(fraction == 0, -(taps // 2), -(taps // 2) + 1)
    else:
        offset = np.where(fraction <= 0.5, -((taps - 1) // 2), -((taps - 1) // 2) + 1)
    raw = (left + offset)[:, None] + np.arange(taps)[None, :] - pad
    if mode.exclude_outside:
        weights = np.where((raw >= 0) & (raw < in_size), weights, 0.0)
        totals = weights.sum(axis=1, keepdims=True)
        weights = weights / np.where(totals == 0, 1.0, totals)
    return AxisTaps(np.clip(raw, 0, in_size - 1), weights.astype(F32), outside)


def resize_axis(
    ctx: NodeContext, data: Expr, axis: int, rank: int, taps: AxisTaps, dtype: str
) -> Expr:
    """`data` resized along `axis`: the sum over taps of take(data, index) * weight."""
    result: Expr | None = None
    trailing = (1,) * (rank - axis - 1)
    for tap in range(taps.indices.shape[1]):
        picked = ctx.call("take", data, Constant(taps.indices[:, tap].copy()), axis=axis)
        weights = taps.weights[:, tap]
        if np.all(weights == 1):
            term = picked
        else:
            column = Constant(weights.astype(dtype).reshape(-1, *trailing))
            term = ctx.call("multiply", picked, column)
        result = term if result is None else ctx.call("add", result, term)
    assert result is not None
    return result


def _extrapolated(
    ctx: NodeContext, data: Expr, axis: int, rank: int, taps: AxisTaps, value: float
) -> Expr:
    """`data` with the positions along `axis` that fall outside the input set to `value`."""
    if taps.outside is None or not taps.outside.any():
        return data
    trailing = (1,) * (rank - axis - 1)
    mask = Constant(taps.outside.reshape(-1, *trailing))
    return ctx.call("where", mask, ctx.scalar(value, ctx.dtype(0)), data)


def resize(
    ctx: NodeContext,
    mode: ResizeMode,
    out_shape: Sequence[int],
    scales: Sequence[float],
    rois: Sequence[tuple[float, float]] | None = None,
) -> Expr:
    """The node's input resized to `out_shape`, axis by axis (unchanged axes skipped;
    `rois`: each axis's crop for tf_crop_and_resize)."""
    shape = ctx.shape(0)
    dtype = ctx.dtype(0)
    if mode.mode != "nearest" and not dtype.startswith("float"):
        raise ctx.unsupported(f"{mode.mode} resize of {dtype} data; only nearest for integers")
    result = ctx.input(0)
    for axis, (in_size, out_size, scale) in enumerate(zip(shape, out_shape, scales, strict=True)):
        if out_size < 1:
            raise ctx.error(f"output size {out_size} along axis {axis} must be positive")
        roi = (0.0, 1.0) if rois is None else rois[axis]
        if in_size == out_size and scale == 1.0 and roi == (0.0, 1.0):
            continue
        taps = axis_taps(mode, in_size, out_size, scale, roi)
        result = resize_axis(ctx, result, axis, len(shape), taps, dtype)
        result = _extrapolated(ctx, result, axis, len(shape), taps, mode.extrapolation)
    return result


def _sizes_and_scales(
    ctx: NodeContext,
    scales_at: int | None,
    sizes_at: int | None,
    axes: tuple[int, ...],
    policy: str,
) -> tuple[list[int], list[float]]:
    """Output shape and per-axis scale from the scales or sizes input."""
    shape = ctx.shape(0)
    rank = len(shape)
    out = list(shape)
    factors = [1.0] * rank
    scales = _optional_static(ctx, scales_at, "scales")
    sizes = _optional_static(ctx, sizes_at, "sizes")
    if (scales is None) == (sizes is None):
        raise ctx.error("exactly one of scales and sizes must be given")
    given = scales if scales is not None else sizes
    assert given is not None
    if len(given) != len(axes):
        what = "scales" if scales is not None else "sizes"
        raise ctx.error(f"{what} has {len(given)} values for {len(axes)} axes of {shape}")
    if scales is not None:
        for axis, scale in zip(axes, scales, strict=True):
            if scale <= 0:
                raise ctx.error(f"scale {scale} along axis {axis} must be positive")
            factors[axis] = float(F32(scale))
            out[axis] = math.floor(shape[axis] * factors[axis])
        return out, factors
    assert sizes is not None
    ratios = [float(F32(size) / F32(shape[axis])) for axis, size in zip(axes, sizes, strict=True)]
    if policy != "stretch":
        common = min(ratios) if policy == "not_larger" else max(ratios)
        ratios = [common] * len(axes)
        sizes = [math.floor(shape[axis] * common + 0.5) for axis in axes]
    for axis, size, ratio in zip(axes, sizes, ratios, strict=True):
        out[axis] = int(size)
        factors[axis] = ratio
    return out, factors


def _optional_static(ctx: NodeContext, index: int | None, what: str) -> list[float] | None:
    if index is None or ctx.optional_input(index) is None:
        return None
    value = ctx.static_value(index, what).reshape(-1)
    return None if value.size == 0 else [float(item) for item in value]


def _mode(ctx: NodeContext, legacy: bool) -> ResizeMode:
    mode = ctx.choice_attr("mode", "nearest", MODES if not legacy else MODES[:2])
    if legacy:  # Upsample and Resize-10: asymmetric coordinates, nearest rounds down
        return ResizeMode(mode, "asymmetric", "floor", -0.75, False)
    coordinates = ctx.choice_attr("coordinate_transformation_mode", "half_pixel", COORDINATE_MODES)
    nearest = ctx.choice_attr("nearest_mode", "round_prefer_floor", NEAREST_MODES)
    return ResizeMode(
        mode,
        coordinates,
        nearest,
        ctx.float_attr("cubic_coeff_a", -0.75),
        bool(ctx.int_attr("exclude_outside", 0)),
        ctx.float_attr("extrapolation_value", 0.0),
    )


def convert_resize(ctx: NodeContext) -> ConverterResult:
    """Resize (opset 10 to 19) -> per-axis `take`s weighted by constant columns."""
    rank = ctx.rank(0)
    if ctx.opset < 11:
        mode = _mode(ctx, legacy=True)
        out, scales = _sizes_and_scales(ctx, 1, None, tuple(range(rank)), "stretch")
        return resize(ctx, mode, out, scales)
    mode = _mode(ctx, legacy=False)
    axes_attr = ctx.ints_attr("axes")
    axes = tuple(range(rank)) if axes_attr is None else tuple(ctx.axis(a, rank) for a in axes_attr)
    policy = ctx.choice_attr("keep_aspect_ratio_policy", "stretch", ASPECT_POLICIES)
    out, scales = _sizes_and_scales(ctx, 2, 3, axes, policy)
    if ctx.int_attr("antialias", 0) and mode.mode != "nearest":
        mode = replace(mode, antialias=True)  # (it changes only the axes that shrink)
    rois = None
    if mode.coordinates == "tf_crop_and_resize":
        roi = _optional_static(ctx, 1, "roi")
        if roi is None or len(roi) != 2 * len(axes):
            raise ctx.error(f"tf_crop_and_resize needs a roi of 2 x {len(axes)} values")
        rois = [(0.0, 1.0)] * rank
        for position, axis in enumerate(axes):
            rois[axis] = (roi[position], roi[position + len(axes)])
    return resize(ctx, mode, out, scales, rois)


def convert_upsample(ctx: NodeContext) -> ConverterResult:
    """Upsample (opset 9, deprecated) -> Resize-10's semantics."""
    rank = ctx.rank(0)
    out, scales = _sizes_and_scales(ctx, 1, None, tuple(range(rank)), "stretch")
    return resize(ctx, _mode(ctx, legacy=True), out, scales)


GRID_MODES = ("bilinear", "nearest", "linear", "bicubic", "cubic")
GRID_PADDINGS = ("zeros", "border", "reflection")
GRID_CUBIC_A = -0.75  # the cubic convolution coefficient GridSample's cubic mode uses


def _grid_axis(
    ctx: NodeContext, grid: Expr, index: int, size: int, corners: bool, rank: int
) -> Expr:
    """Pixel coordinates along one axis (0: x, 1: y, 2: z) from the grid's [-1, 1] values
    (its last axis, `rank` + 1, holds them)."""
    dtype = ctx.dtype(1)
    last = rank + 1
    part = ctx.call("strided_slice", grid, begin=(index,), end=(index + 1,), axes=(last,))
    normalized = ctx.call("squeeze", part, axis=(last,))
    shifted = ctx.call("add", normalized, ctx.scalar(1.0, dtype))
    if corners:  # -1 and 1 are the centres of the corner pixels
        return ctx.call("multiply", shifted, ctx.scalar((size - 1) / 2, dtype))
    scaled = ctx.call("multiply", shifted, ctx.scalar(size / 2, dtype))
    return ctx.call("subtract", scaled, ctx.scalar(0.5, dtype))


def _padded_coordinates(
    ctx: NodeContext, coordinates: Expr, size: int, corners: bool, padding: str, clamp: bool = True
) -> Expr:
    """Coordinates moved inside the input for border (clamped) and reflection (mirrored
    at the edges, or at the pixel borders without align_corners, then clamped) padding.
    Without `clamp` (a cubic filter sees the difference), a reflected coordinate is not
    clamped, and border padding clamps only coordinates past the borders."""
    dtype = ctx.dtype(1)
    if padding == "reflection" and size > 1:
        low, span = (0.0, size - 1.0) if corners else (-0.5, float(size))
        offset = ctx.call("abs", ctx.call("subtract", coordinates, ctx.scalar(low, dtype)))
        folded = ctx.call("floor_mod", offset, ctx.scalar(2 * span, dtype))
        beyond = ctx.call("greater", folded, ctx.scalar(span, dtype))
        mirrored = ctx.call("subtract", ctx.scalar(2 * span, dtype), folded)
        reflected = ctx.call("where", beyond, mirrored, folded)
        coordinates = ctx.call("add", reflected, ctx.scalar(low, dtype))
        if not clamp:
            return coordinates
    if padding == "border" and not clamp:
        # Only a coordinate past the borders (the corner pixels' centres, or their outer
        # edges without align_corners) moves to the edge, as ONNX's reference has it.
        low, high = (0.0, size - 1.0) if corners else (-0.5, size - 0.5)
        outside = ctx.call(
            "logical_or",
            ctx.call("less", coordinates, ctx.scalar(low, dtype)),
            ctx.call("greater", coordinates, ctx.scalar(high, dtype)),
        )
        clamped = ctx.call("clip", coordinates, a_min=0.0, a_max=float(size - 1))
        return ctx.call("where", outside, clamped, coordinates)
    if padding in ("border", "reflection"):
        return ctx.call("clip", coordinates, a_min=0.0, a_max=float(size - 1))
    return coordinates


def _grid_tap(ctx: NodeContext, flat: Expr, taps: Sequence[Expr]) -> tuple[Expr, Expr]:
    """The input at integer positions `taps` (one per spatial axis, in the input's axis
    order, each shaped like the output's positions), clamped inside, as (N, C, *out); and
    whether each position was inside the input."""
    shape, grid_shape = ctx.shape(0), ctx.shape(1)
    n, channels, spatial = shape[0], shape[1], shape[2:]
    out = grid_shape[1:-1]
    dtype = ctx.dtype(1)
    inside: Expr | None = None
    position: Expr | None = None
    for tap, size in zip(taps, spatial, strict=True):
        within = ctx.call(
            "logical_and",
            ctx.call("greater", tap, ctx.scalar(-1.0, dtype)),
            ctx.call("less", tap, ctx.scalar(float(size), dtype)),
        )
        inside = within if inside is None else ctx.call("logical_and", inside, within)
        clamped = ctx.call("clip", tap, a_min=0.0, a_max=float(size - 1))
        position = (
            clamped
            if position is None
            else ctx.call(
                "add", ctx.call("multiply", position, ctx.scalar(float(size), dtype)), clamped
            )
        )
    assert inside is not None and position is not None
    count = math.prod(out)
    index = ctx.call("cast", position, dtype="int64")
    index = ctx.call("reshape", index, newshape=(n, 1, count))
    index = ctx.call("broadcast_to", index, shape=(n, channels, count))
    picked = ctx.call("gather_elements", flat, index, axis=2)
    return ctx.call("reshape", picked, newshape=(n, channels, *out)), inside


def _cubic_grid_weights(ctx: NodeContext, fraction: Expr) -> list[Expr]:
    """Keys' cubic convolution weights (a = -0.75) of the taps at -1, 0, 1, 2 around a
    position `fraction` past its left neighbour."""
    dtype = ctx.dtype(1)
    a = GRID_CUBIC_A

    def scalar(value: float) -> Expr:
        return ctx.scalar(value, dtype)

    def near(t: Expr) -> Expr:  # |t| <= 1: ((a + 2) t - (a + 3)) t t + 1
        inner = ctx.call("subtract", ctx.call("multiply", t, scalar(a + 2)), scalar(a + 3))
        return ctx.call("add", ctx.call("multiply", ctx.call("multiply", inner, t), t), scalar(1))

    def far(t: Expr) -> Expr:  # 1 < |t| < 2: ((a t - 5a) t + 8a) t - 4a
        inner = ctx.call("subtract", ctx.call("multiply", t, scalar(a)), scalar(5 * a))
        inner = ctx.call("add", ctx.call("multiply", inner, t), scalar(8 * a))
        return ctx.call("subtract", ctx.call("multiply", inner, t), scalar(4 * a))

    rest = ctx.call("subtract", scalar(1.0), fraction)
    return [
        far(ctx.call("add", fraction, scalar(1.0))),
        near(fraction),
        near(rest),
        far(ctx.call("add", rest, scalar(1.0))),
    ]


def convert_grid_sample(ctx: NodeContext) -> ConverterResult:
    """GridSample (2-D or 3-D; nearest, linear or, in 2-D, cubic; zeros, border or
    reflection padding) -> per tap, a gather of the flattened input at the grid's pixel
    positions, weighted and summed. Taps outside the input count as zeros, or, for a
    cubic filter's outer taps, are clamped or mirrored like the coordinates."""
    shape, grid_shape = ctx.shape(0), ctx.shape(1)
    spatial = shape[2:]
    rank = len(spatial)
    if rank not in (2, 3) or len(grid_shape) != rank + 2 or grid_shape[-1] != rank:
        raise ctx.unsupported(
            "only 2-D and 3-D GridSample: input (N, C, [D,] H, W) and grid "
            f"(N, [Do,] Ho, Wo, 2 or 3), got {shape} and {grid_shape}"
        )
    mode = ctx.choice_attr("mode", "bilinear" if ctx.opset < 20 else "linear", GRID_MODES)
    padding = ctx.choice_attr("padding_mode", "zeros", GRID_PADDINGS)
    corners = bool(ctx.int_attr("align_corners", 0))
    cubic = mode in ("bicubic", "cubic")
    if cubic and rank != 2:
        raise ctx.unsupported("cubic GridSample of a 3-D input (cubic mode is 2-D only)")
    dtype = ctx.dtype(1)
    flat = ctx.call("reshape", ctx.input(0), newshape=(shape[0], shape[1], math.prod(spatial)))
    grid = ctx.input(1)
    coordinates = [
        _padded_coordinates(
            ctx,
            _grid_axis(ctx, grid, rank - 1 - axis, size, corners, rank),
            size,
            corners,
            padding,
            clamp=not cubic,
        )
        for axis, size in enumerate(spatial)
    ]
    one = ctx.scalar(1.0, dtype)
    # Per axis, (tap position, its weight or None for 1).
    axis_taps: list[list[tuple[Expr, Expr | None]]] = []
    for coordinate, size in zip(coordinates, spatial, strict=True):
        if mode == "nearest":
            axis_taps.append([(ctx.call("round", coordinate), None)])
            continue
        base = ctx.call("floor", coordinate)
        fraction = ctx.call("subtract", coordinate, base)
        if not cubic:
            upper = ctx.call("add", base, one)
            axis_taps.append([(base, ctx.call("subtract", one, fraction)), (upper, fraction)])
            continue
        taps: list[tuple[Expr, Expr | None]] = []
        for offset, weight in zip((-1, 0, 1, 2), _cubic_grid_weights(ctx, fraction), strict=True):
            tap = ctx.call("add", base, ctx.scalar(float(offset), dtype))
            if padding != "zeros":  # outer taps read the edge, or its mirror image
                tap = _padded_coordinates(ctx, tap, size, corners, padding)
            taps.append((tap, weight))
        axis_taps.append(taps)
    total: Expr | None = None
    for combination in itertools.product(*axis_taps):
        value, inside = _grid_tap(ctx, flat, [position for position, _ in combination])
        factor = ctx.call("where", inside, one, ctx.scalar(0.0, dtype))
        for weight in (weight for _, weight in combination if weight is not None):
            factor = ctx.call("multiply", factor, weight)
        term = ctx.call("multiply", value, ctx.call("expand_dims", factor, axes=(1,)))
        total = term if total is None else ctx.call("add", total, term)
    assert total is not None
    return total


def convert_affine_grid(ctx: NodeContext) -> ConverterResult:
    """AffineGrid (2-D or 3-D) -> the constant pixel-centre grid (x, y[, z], 1) times
    theta^T, one batched matmul: (N, [D,] H, W, 2 or 3) normalized positions for
    GridSample."""
    size = ctx.static_ints(1, "size")
    theta = ctx.shape(0)
    rank = len(size) - 2
    if rank not in (2, 3) or theta != (size[0], rank, rank + 1):
        raise ctx.unsupported(
            "only 2-D and 3-D AffineGrid: theta (N, 2, 3) and size (N, C, H, W), or theta "
            f"(N, 3, 4) and size (N, C, D, H, W); got {theta} and {list(size)}"
        )
    n, spatial = size[0], tuple(size[2:])
    corners = bool(ctx.int_attr("align_corners", 0))

    def axis_positions(count: int) -> np.ndarray:
        if corners:
            return np.linspace(-1.0, 1.0, count) if count > 1 else np.zeros(1)
        return (np.arange(count) * 2.0 + 1.0) / count - 1.0

    # meshgrid over (D,) H, W; the grid lists x (W) first.
    mesh = np.meshgrid(*(axis_positions(count) for count in spatial), indexing="ij")
    count = math.prod(spatial)
    columns = [*mesh[::-1], np.ones_like(mesh[0])]
    base = np.stack(columns, axis=-1).reshape(1, count, rank + 1)
    dtype = ctx.dtype(0)
    positions = ctx.call("broadcast_to", Constant(base.astype(dtype)), shape=(n, count, rank + 1))
    grid = ctx.call("nn.batch_matmul", positions, ctx.input(0), transpose_b=True)
    return ctx.call("reshape", grid, newshape=(n, *spatial, rank))


CONVERTERS: dict[str, Converter] = {
    "AffineGrid": convert_affine_grid,
    "GridSample": convert_grid_sample,
    "Resize": convert_resize,
    "Upsample": convert_upsample,
}
