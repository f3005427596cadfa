"""Converters for ONNX's spectral ops on static shapes: DFT, STFT and MelWeightMatrix.

A discrete Fourier transform of static length is a matrix product: the signal axis moves
last, its real and imaginary parts (ONNX's trailing axis of 1 or 2) multiply constant
cosine and sine matrices, and the two products combine into the real and imaginary parts
of the result. It computes in float64 and rounds once to the signal's type, as ONNX's
reference (numpy's FFT) does: a bin that cancels to zero then comes out as zero, not as
the float32 rounding error of the larger terms. Cropping or zero-padding
the signal to `dft_length` is in the matrices (their rows past the signal, or past the
transform's length, are zero), and so are a one-sided spectrum's bins, the 1/n of an
inverse transform, and an inverse one-sided transform's Hermitian symmetry (each bin
between the first and the Nyquist bin counted twice). STFT cuts the signal into frames
(a gather), weights them by the window, and transforms each frame. MelWeightMatrix, all
of its inputs known at compile time, is a constant.
"""

from __future__ import annotations

import numpy as np

from ir.frontend.onnx.context import ConverterResult, NodeContext, onnx_dtype_name
from ir.graph.nodes import Constant, Expr
from ir.graph.types import TensorType


def _tensor_type(ctx: NodeContext, value: Expr) -> TensorType:
    ty = value.checked_type
    if not isinstance(ty, TensorType):
        raise ctx.error(f"expected a tensor, got {ty}")
    return ty


def _split_complex(ctx: NodeContext, value: Expr, rank: int) -> tuple[Expr, Expr | None]:
    """The real part, and the imaginary one (None for a real signal), of a signal whose
    last axis holds 1 or 2 values."""
    parts = _tensor_type(ctx, value).shape[-1]
    if parts not in (1, 2):
        raise ctx.error(f"the last axis holds real and imaginary parts (1 or 2), got {parts}")
    real = ctx.call("take", value, Constant(np.array(0, np.int64)), axis=rank - 1)
    if parts == 1:
        return real, None
    return real, ctx.call("take", value, Constant(np.array(1, np.int64)), axis=rank - 1)


def _product(ctx: NodeContext, signal: Expr, matrix: np.ndarray, dtype: str) -> Expr:
    """signal [..., n] @ matrix [n, k] -> [..., k]."""
    return ctx.call("nn.matmul", signal, Constant(matrix.astype(dtype)))


def _transform_last(
    ctx: NodeContext,
    real: Expr,
    imaginary: Expr | None,
    length: int,
    inverse: bool,
    onesided: bool,
    dtype: str,
) -> tuple[Expr, Expr | None]:
    """The DFT of length `length` along the last axis (of n samples or bins): the real and
    imaginary parts of the result (None: a real result, an inverse one-sided transform)."""
    count = _tensor_type(ctx, real).shape[-1]
    rows = np.arange(count, dtype=np.float64)[:, None]
    if inverse and onesided:  # bins -> `length` real samples
        bins = length // 2 + 1
        times = np.arange(length, dtype=np.float64)[None, :]
        angle = 2.0 * np.pi * rows * times / length
        weight = np.where((rows == 0) | (2 * rows == length), 1.0, 2.0) / length
        weight = np.where(rows < bins, weight, 0.0)
        cosine, sine = weight * np.cos(angle), weight * np.sin(angle)
        result = _product(ctx, real, cosine, dtype)
        if imaginary is not None:
            result = ctx.call("subtract", result, _product(ctx, imaginary, sine, dtype))
        return result, None
    outputs = length // 2 + 1 if onesided else length
    columns = np.arange(outputs, dtype=np.float64)[None, :]
    angle = 2.0 * np.pi * rows * columns / length
    keep = np.where(rows < length, 1.0 / length if inverse else 1.0, 0.0)
    cosine, sine = keep * np.cos(angle), keep * np.sin(angle)
    sign = 1.0 if inverse else -1.0  # e^(sign i angle) = cos + sign i sin
    real_out = _product(ctx, real, cosine, dtype)
    imaginary_out = _product(ctx, real, sign * sine, dtype)
    if imaginary is not None:
        real_out = ctx.call("subtract", real_out, _product(ctx, imaginary, sign * sine, dtype))
        imaginary_out = ctx.call("add", imaginary_out, _product(ctx, imaginary, cosine, dtype))
    return real_out, imaginary_out


def _dft(
    ctx: NodeContext, value: Expr, axis: int, length: int | None, inverse: bool, onesided: bool
) -> Expr:
    """ONNX DFT of `value` (its last axis: 1 or 2 parts) along `axis` (not the last)."""
    ty = _tensor_type(ctx, value)
    rank = len(ty.shape)
    if not ty.dtype.startswith("float"):
        raise ctx.error(f"the signal must be a float tensor, got {ty.dtype}")
    if axis == rank - 1:
        raise ctx.error("the transform's axis cannot be the last one (real and imaginary parts)")
    count = ty.shape[axis]
    if length is None:
        length = 2 * (count - 1) if inverse and onesided else count
    if length < 1:
        raise ctx.error(f"dft_length must be positive, got {length}")
    order = [i for i in range(rank - 1) if i != axis] + [axis]
    moved = ctx.call("transpose", value, axes=(*order, rank - 1))
    if ty.dtype != "float64":
        moved = ctx.call("cast", moved, dtype="float64")
    real, imaginary = _split_complex(ctx, moved, rank)
    real_out, imaginary_out = _transform_last(
        ctx, real, imaginary, length, inverse, onesided, "float64"
    )
    parts = [real_out] if imaginary_out is None else [real_out, imaginary_out]
    if ty.dtype != "float64":
        parts = [ctx.call("cast", part, dtype=ty.dtype) for part in parts]
    inner_shape = _tensor_type(ctx, real_out).shape
    stacked = [ctx.call("reshape", part, newshape=(*inner_shape, 1)) for part in parts]
    joined = stacked[0] if len(stacked) == 1 else ctx.call("concatenate", *stacked, axis=rank - 1)
    back = [order.index(i) for i in range(rank - 1)]
    return ctx.call("transpose", joined, axes=(*back, rank - 1))


def convert_dft(ctx: NodeContext) -> ConverterResult:
    """DFT(input, dft_length, axis) -> matrix products (see the module docstring); the axis
    is an attribute before opset 20 (default 1), an input from it (default -2)."""
    rank = ctx.rank(0)
    if ctx.opset < 20:
        axis_value = ctx.int_attr("axis", 1)
    elif ctx.optional_input(2) is not None:
        axis_value = int(ctx.static_scalar(2, "axis"))
    else:
        axis_value = -2
    axis = ctx.axis(axis_value, rank)
    length = None
    if ctx.optional_input(1) is not None:
        length = int(ctx.static_scalar(1, "dft_length"))
    inverse, onesided = bool(ctx.int_attr("inverse", 0)), bool(ctx.int_attr("onesided", 0))
    return _dft(ctx, ctx.input(0), axis, length, inverse, onesided)


def convert_stft(ctx: NodeContext) -> ConverterResult:
    """STFT(signal, frame_step, window, frame_length) -> frames gathered from the signal
    [batch, length, 1|2], weighted by the window, each transformed (one-sided by default):
    [batch, frames, bins, 2]."""
    signal = ctx.input(0)
    shape = ctx.shape(0)
    if len(shape) != 3:
        raise ctx.error(f"the signal must be [batch, length, 1 or 2], got shape {shape}")
    step = int(ctx.static_scalar(1, "frame_step"))
    window = ctx.optional_input(2)
    if ctx.optional_input(3) is not None:
        frame = int(ctx.static_scalar(3, "frame_length"))
    elif window is not None:
        frame = ctx.shape(2)[0]
    else:
        frame = shape[1]
    if step < 1 or not 1 <= frame <= shape[1]:
        raise ctx.error(
            f"frame_step {step} and frame_length {frame} do not fit a signal of {shape[1]}"
        )
    frames = (shape[1] - frame) // step + 1
    starts = np.arange(frames, dtype=np.int64)[:, None] * step
    indices = starts + np.arange(frame, dtype=np.int64)[None, :]
    framed = ctx.call("take", signal, Constant(indices), axis=1)  # [batch, frames, frame, c]
    if window is not None:
        if ctx.shape(2) != (frame,):
            raise ctx.error(f"the window must have shape ({frame},), got {ctx.shape(2)}")
        weights = ctx.call("reshape", window, newshape=(1, 1, frame, 1))
        framed = ctx.call("multiply", framed, weights)
    onesided = bool(ctx.int_attr("onesided", 1))
    return _dft(ctx, framed, 2, frame, inverse=False, onesided=onesided)


def mel_weight_matrix(
    bins: int, dft_length: int, sample_rate: int, lower_hz: float, upper_hz: float
) -> np.ndarray:
    """The (dft_length // 2 + 1, bins) matrix of triangular mel filters: the band from
    `lower_hz` to `upper_hz` cut into `bins` + 2 points equally spaced on the mel scale
    (2595 log10(1 + f / 700)), each point at the spectrum bin floor((dft_length + 1) f /
    sample_rate); filter i rises from point i to point i + 1 and falls to point i + 2.
    ValueError when a filter reaches past the spectrum's last bin."""

    def to_mel(hertz: float) -> float:
        return 2595.0 * float(np.log10(1.0 + hertz / 700.0))

    low, high = to_mel(lower_hz), to_mel(upper_hz)
    mels = low + np.arange(bins + 2) * (high - low) / (bins + 2)
    hertz = 700.0 * (10.0 ** (mels / 2595.0) - 1.0)
    points = np.floor((dft_length + 1) * hertz / sample_rate).astype(np.int64)
    matrix = np.zeros((dft_length // 2 + 1, bins))
    if max(int(points[: bins + 1].max()), int(points[-1]) - 1) >= len(matrix):
        raise ValueError(
            f"the filters reach spectrum bin {int(points[-1])}, past the {len(matrix)} bins "
            f"of a {dft_length}-point transform"
        )
    for band in range(bins):
        left, centre, right = (int(point) for point in points[band : band + 3])
        if centre == left:
            matrix[centre, band] = 1.0
        else:
            rows = np.arange(left, centre + 1)
            matrix[rows, band] = (rows - left) / (centre - left)
        if right > centre:
            rows = np.arange(centre, right)
            matrix[rows, band] = (right - rows) / (right - centre)
    return matrix


def convert_mel_weight_matrix(ctx: NodeContext) -> ConverterResult:
    """MelWeightMatrix (its five scalars known at compile time) -> the constant matrix
    (`mel_weight_matrix`) in `output_datatype`."""
    bins = int(ctx.static_scalar(0, "num_mel_bins"))
    dft_length = int(ctx.static_scalar(1, "dft_length"))
    sample_rate = int(ctx.static_scalar(2, "sample_rate"))
    lower, upper = (
        float(ctx.static_scalar(i, name))
        for i, name in ((3, "lower_edge_hertz"), (4, "upper_edge_hertz"))
    )
    if bins < 1 or dft_length < 1 or sample_rate < 1 or not 0 <= lower < upper:
        raise ctx.error(
            f"num_mel_bins {bins}, dft_length {dft_length} and sample_rate {sample_rate} "
            f"must be positive and 0 <= lower_edge_hertz {lower} < upper_edge_hertz {upper}"
        )
    try:
        matrix = mel_weight_matrix(bins, dft_length, sample_rate, lower, upper)
    except ValueError as err:
        raise ctx.error(f"upper_edge_hertz {upper} at sample_rate {sample_rate}: {err}") from None
    dtype = onnx_dtype_name(ctx.int_attr("output_datatype", 1), ctx.where)
    return Constant(matrix.astype(dtype))


CONVERTERS = {
    "DFT": convert_dft,
    "MelWeightMatrix": convert_mel_weight_matrix,
    "STFT": convert_stft,
}
