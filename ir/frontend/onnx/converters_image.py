"""Converters for ONNX image resizing: Resize (nearest, linear, cubic) and Upsample.

A resize is separable: along each resized axis every output element is a weighted sum of
a few input elements (1 for nearest, 2 for linear, 4 for cubic). The positions and
weights depend only on the shapes and attributes, so they are computed here, in float32
as ONNX Runtime computes them, and the graph gets, per axis and tap, a `take` of the
input along that axis times a constant weight column. Out-of-range taps are clamped to
the edge, as the ONNX reference pads with edge values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ir.frontend.onnx.context import Converter, ConverterResult, NodeContext
from ir.graph.nodes import Constant, Expr

MODES = ("nearest", "linear", "cubic")
# tf_crop_and_resize and tf_half_pixel_for_nn are refused by name.
COORDINATE_MODES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
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


@dataclass(frozen=True)
class AxisTaps:
    """For one resized axis: input index and weight of each output element's taps."""

    indices: np.ndarray  # (out, taps) int64, in [0, in)
    weights: np.ndarray  # (out, taps) float32


def original_coordinates(mode: ResizeMode, in_size: int, out_size: int, scale: float) -> np.ndarray:
    """The input coordinate (float32) of every output position along one axis."""
    x = np.arange(out_size, dtype=F32)
    scale32 = F32(scale)
    if mode.coordinates == "asymmetric":
        return x / scale32
    if mode.coordinates == "align_corners":
        if out_size == 1:
            return np.zeros(1, F32)
        return x * F32(in_size - 1) / F32(out_size - 1)
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


def axis_taps(mode: ResizeMode, in_size: int, out_size: int, scale: float) -> AxisTaps:
    """Taps of every output position along one axis for `mode`."""
    coordinates = original_coordinates(mode, in_size, out_size, scale)
    if mode.mode == "nearest":
        index = _nearest_index(mode, coordinates).astype(np.int64)
        indices = np.clip(index, 0, in_size - 1)[:, None]
        return AxisTaps(indices, np.ones(indices.shape, F32))
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
    return AxisTaps(np.clip(raw, 0, in_size - 1), weights)


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


def resize(
    ctx: NodeContext,
    mode: ResizeMode,
    out_shape: Sequence[int],
    scales: Sequence[float],
) -> Expr:
    """The node's input resized to `out_shape`, axis by axis (unchanged axes skipped)."""
    shape = ctx.shape(0)
    dtype = ctx.dtype(0)
    if mode.mode != "nearest" and not dtype.startswith("float"):
        raise ctx.unsupported(f"{mode.mode} resize of {dtype} data; only nearest for integers")
    result = ctx.input(0)
    for axis, (in_size, out_size, scale) in enumerate(zip(shape, out_shape, scales, strict=True)):
        if out_size < 1:
            raise ctx.error(f"output size {out_size} along axis {axis} must be positive")
        if in_size == out_size and scale == 1.0:
            continue
        taps = axis_taps(mode, in_size, out_size, scale)
        result = resize_axis(ctx, result, axis, len(shape), taps, dtype)
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
    )


def convert_resize(ctx: NodeContext) -> ConverterResult:
    """Resize (opset 10 to 19) -> per-axis `take`s weighted by constant columns."""
    rank = len(ctx.shape(0))
    if ctx.opset < 11:
        mode = _mode(ctx, legacy=True)
        out, scales = _sizes_and_scales(ctx, 1, None, tuple(range(rank)), "stretch")
        return resize(ctx, mode, out, scales)
    mode = _mode(ctx, legacy=False)
    axes_attr = ctx.ints_attr("axes")
    axes = tuple(range(rank)) if axes_attr is None else tuple(ctx.axis(a, rank) for a in axes_attr)
    policy = ctx.choice_attr("keep_aspect_ratio_policy", "stretch", ASPECT_POLICIES)
    out, scales = _sizes_and_scales(ctx, 2, 3, axes, policy)
    shrinks = any(o < i for o, i in zip(out, ctx.shape(0), strict=True))
    if ctx.int_attr("antialias", 0) and mode.mode != "nearest" and shrinks:
        raise ctx.unsupported_attr("antialias", 1)
    return resize(ctx, mode, out, scales)


def convert_upsample(ctx: NodeContext) -> ConverterResult:
    """Upsample (opset 9, deprecated) -> Resize-10's semantics."""
    rank = len(ctx.shape(0))
    out, scales = _sizes_and_scales(ctx, 1, None, tuple(range(rank)), "stretch")
    return resize(ctx, _mode(ctx, legacy=True), out, scales)


CONVERTERS: dict[str, Converter] = {
    "Resize": convert_resize,
    "Upsample": convert_upsample,
}
