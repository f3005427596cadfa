"""Window ops: 2-D max / average pooling, global pooling and padding."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ir.errors import TypeInferenceError
from ir.graph.attrs import Attrs
from ir.graph.ops.common import (
    block_channels,
    int_tuple,
    tensor_arg,
    unblock_channels,
    window_output_size,
    window_pads,
)
from ir.graph.ops.registry import (
    REQUIRED,
    OpDef,
    OpPattern,
    Reference,
    TypeRelation,
    zero_flops,
)
from ir.graph.ops.te_common import (
    TeCompute,
    accumulate_dtype,
    check_output,
    in_range,
    index_const,
    lowest,
    numpy_scalar,
    pad_stage,
    symbolic_batch,
    te_dims,
    tensor_out,
    type_dims,
    with_dims,
)
from ir.graph.types import TensorType, Type
from ir.te.tensor import Tensor, compute, max_reduce, reduce_axis, sum_reduce
from ir.tir.expr import (
    INDEX_DTYPE,
    ExprLike,
    IntImm,
    IterVar,
    PrimExpr,
    cast,
    const,
    logical_and,
    maximum,
    minimum,
    select,
)
from ir.tir.printer import format_expr

# --- 2-D pooling ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _PoolGeometry:
    """Where every window of a 2-D pool lies in the padded input."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilation: tuple[int, ...]
    pads: tuple[int, int, int, int]  # top, left, bottom, right
    out_hw: tuple[int, int]
    extra: tuple[int, int]  # rows / columns past the bottom / right padding read by ceil_mode


def _blocked(attrs: Attrs, op: str) -> bool:
    layout = str(attrs.get("layout", "NCHW"))
    if layout not in ("NCHW", "NCHWc"):
        raise TypeInferenceError(f"{op}: layout must be NCHW or NCHWc, got {layout!r}")
    return layout == "NCHWc"


def _pool_geometry(shape: tuple[int, ...], attrs: Attrs, op: str) -> _PoolGeometry:
    rank = 5 if _blocked(attrs, op) else 4
    if len(shape) != rank:
        expected = "5-D (NCHW[b]c)" if rank == 5 else "4-D (NCHW)"
        raise TypeInferenceError(f"{op}: data must be {expected}, got shape {shape}")
    kernel = int_tuple(attrs["pool_size"], 2, "pool_size", op)
    strides = int_tuple(attrs["strides"], 2, "strides", op)
    dilation = int_tuple(attrs["dilation"], 2, "dilation", op)
    if min(kernel + strides + dilation) < 1:
        raise TypeInferenceError(
            f"{op}: pool_size {kernel}, strides {strides} and dilation {dilation} must be >= 1"
        )
    pads = window_pads(attrs["padding"], op)
    ceil_mode = bool(attrs["ceil_mode"])
    out_hw: list[int] = []
    extra: list[int] = []
    for dim in range(2):
        size = shape[2 + dim]
        before, after = pads[dim], pads[dim + 2]
        out = window_output_size(
            size, kernel[dim], strides[dim], dilation[dim], before, after, ceil_mode
        )
        if out < 1:
            raise TypeInferenceError(
                f"{op}: window {kernel} with dilation {dilation} does not fit data "
                f"(shape {shape}) padded by {pads}"
            )
        needed = (out - 1) * strides[dim] + (kernel[dim] - 1) * dilation[dim] + 1
        out_hw.append(out)
        extra.append(max(0, needed - (size + before + after)))
    return _PoolGeometry(
        kernel, strides, dilation, pads, (out_hw[0], out_hw[1]), (extra[0], extra[1])
    )


def _pool_relation(op: str) -> TypeRelation:
    def relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
        data = tensor_arg(arg_types, 0, op)
        geometry = _pool_geometry(data.shape, attrs, op)
        return TensorType(data.shape[:2] + geometry.out_hw + data.shape[4:], data.dtype)

    return relation


def _pad_window_input(data: np.ndarray, geometry: _PoolGeometry, value: object) -> np.ndarray:
    top, left, bottom, right = geometry.pads
    widths = ((0, 0), (0, 0), (top, bottom + geometry.extra[0]), (left, right + geometry.extra[1]))
    padded: np.ndarray = np.pad(data, widths, constant_values=value)  # type: ignore[call-overload]
    return padded


def _window_slices(geometry: _PoolGeometry) -> list[tuple[slice, slice]]:
    """For each kernel position, the slices of the padded input it reads at every output."""
    out_h, out_w = geometry.out_hw
    (stride_h, stride_w), (dil_h, dil_w) = geometry.strides, geometry.dilation
    return [
        (
            slice(row * dil_h, row * dil_h + (out_h - 1) * stride_h + 1, stride_h),
            slice(col * dil_w, col * dil_w + (out_w - 1) * stride_w + 1, stride_w),
        )
        for row in range(geometry.kernel[0])
        for col in range(geometry.kernel[1])
    ]


def _lowest(dtype: np.dtype[np.generic]) -> object:
    if np.issubdtype(dtype, np.floating):
        return -np.inf
    if dtype == np.bool_:
        return False
    return np.iinfo(dtype).min  # type: ignore[type-var]


def _nchw_reference(reference: Reference) -> Reference:
    """`reference` (on NCHW) applied to NCHW[b]c data as well: unblocked, then blocked."""

    def blocked_or_plain(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
        data = inputs[0]
        if not _blocked(attrs, "pool"):
            return np.asarray(reference(inputs, attrs))
        plain = np.asarray(reference([unblock_channels(data)], Attrs({**attrs, "layout": "NCHW"})))
        return block_channels(plain, data.shape[4])

    return blocked_or_plain


def _max_pool2d_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    data = inputs[0]
    geometry = _pool_geometry(data.shape, attrs, "nn.max_pool2d")
    padded = _pad_window_input(data, geometry, _lowest(data.dtype))
    slices = _window_slices(geometry)
    out = padded[:, :, slices[0][0], slices[0][1]].copy()
    for rows, cols in slices[1:]:
        np.maximum(out, padded[:, :, rows, cols], out=out)
    return out


def _avg_pool2d_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    """Window sums over a zero-padded input, divided by the count of cells that count.

    Without count_include_pad only input cells count; with it the explicit padding counts
    too, but never the extra cells that ceil_mode reads past the padding (as onnxruntime).
    """
    data = inputs[0]
    geometry = _pool_geometry(data.shape, attrs, "nn.avg_pool2d")
    top, left, bottom, right = geometry.pads
    height, width = data.shape[2:]
    accumulate = np.promote_types(data.dtype, np.float32)
    padded = _pad_window_input(data.astype(accumulate, copy=False), geometry, 0)
    # Step 1. A 2-D mask of the cells that count toward the divisor.
    mask = np.zeros(padded.shape[2:], dtype=accumulate)
    if attrs["count_include_pad"]:
        mask[: top + height + bottom, : left + width + right] = 1
    else:
        mask[top : top + height, left : left + width] = 1
    # Step 2. Sum values and mask over each kernel position.
    total = np.zeros(data.shape[:2] + geometry.out_hw, dtype=accumulate)
    count = np.zeros(geometry.out_hw, dtype=accumulate)
    for rows, cols in _window_slices(geometry):
        total += padded[:, :, rows, cols]
        count += mask[rows, cols]
    return np.asarray(total / np.maximum(count, 1), dtype=data.dtype)


def _pool_window(
    data: Tensor, geometry: _PoolGeometry, pad_value: ExprLike, dtype: str | None = None
) -> tuple[list[IterVar], Callable[[PrimExpr, PrimExpr, PrimExpr, PrimExpr], PrimExpr]]:
    """A padding stage; returns the window's reduce axes and the read at (n, c, y, x)
    (and the channel within its block, for NCHW[b]c data)."""
    top, left, bottom, right = geometry.pads
    block = (0,) * (data.ndim - 4)
    after = (0, 0, bottom + geometry.extra[0], right + geometry.extra[1], *block)
    padded = pad_stage(data, (0, 0, top, left, *block), after, pad_value)
    ry = reduce_axis(geometry.kernel[0], "ry")
    rx = reduce_axis(geometry.kernel[1], "rx")
    (stride_h, stride_w), (dil_h, dil_w) = geometry.strides, geometry.dilation

    def read(n: PrimExpr, c: PrimExpr, y: PrimExpr, x: PrimExpr, *cb: PrimExpr) -> PrimExpr:
        row, col = y * stride_h + ry.var * dil_h, x * stride_w + rx.var * dil_w
        value = padded[n, c, row, col, *cb]
        return value if dtype is None else cast(dtype, value)

    return [ry, rx], read


_POOL_AXES = ("n", "c", "y", "x", "cb")  # cb: the channel within its block (NCHW[b]c)


def _max_pool2d_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """Pad with the dtype's lowest value, then the max over each window."""
    data = inputs[0]
    out = tensor_out(out_type, "nn.max_pool2d")
    geometry = _pool_geometry(data.shape, attrs, "nn.max_pool2d")
    axes, read = _pool_window(data, geometry, lowest(data.dtype))
    pool = compute(
        te_dims(out),
        lambda *i: max_reduce(read(*i), axes),
        "max_pool2d",
        "pool",
        axis_names=_POOL_AXES[: len(out.shape)],
    )
    return check_output(pool, out, "nn.max_pool2d")


def _window_count(
    out_index: PrimExpr, stride: int, dilation: int, kernel: int, low: int, high: int
) -> PrimExpr:
    """How many taps r in [0, kernel) of the window at `out_index` fall in [low, high)."""
    start = out_index * stride

    def first_tap_at_or_after(position: int) -> PrimExpr:
        # ceil((position - start) / dilation), clamped into [0, kernel].
        taps = (position - start + (dilation - 1)) // dilation
        return minimum(maximum(taps, 0), kernel)

    return maximum(first_tap_at_or_after(high) - first_tap_at_or_after(low), 0)


def _avg_pool2d_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """Window sums over a zero-padded input, divided by the count of cells that count there."""
    data = inputs[0]
    out = tensor_out(out_type, "nn.avg_pool2d")
    geometry = _pool_geometry(data.shape, attrs, "nn.avg_pool2d")
    acc = accumulate_dtype(data.dtype)
    axes, read = _pool_window(data, geometry, 0, acc)
    names = _POOL_AXES[: len(out.shape)]
    total = compute(
        te_dims(out),
        lambda *i: sum_reduce(read(*i), axes),
        "avg_pool2d_sum",
        "pool",
        axis_names=names,
    )
    top, left, bottom, right = geometry.pads
    height, width = data.shape[2:4]
    if attrs["count_include_pad"]:
        rows, cols = (0, top + height + bottom), (0, left + width + right)
    else:
        rows, cols = (top, top + height), (left, left + width)

    def body(*indices: PrimExpr) -> PrimExpr:
        (stride_h, stride_w), (dil_h, dil_w) = geometry.strides, geometry.dilation
        count_h = _window_count(indices[2], stride_h, dil_h, geometry.kernel[0], *rows)
        count_w = _window_count(indices[3], stride_w, dil_w, geometry.kernel[1], *cols)
        count = cast(acc, maximum(count_h * count_w, 1))
        return cast(data.dtype, total[indices] / count)

    mean = compute(te_dims(out), body, "avg_pool2d", "pool", axis_names=names)
    return check_output(mean, out, "nn.avg_pool2d")


def _pool_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    assert isinstance(out_type, TensorType)
    kernel = int_tuple(attrs["pool_size"], 2, "pool_size", "pool")
    return out_type.size * kernel[0] * kernel[1]


def _global_pool_relation(op: str) -> TypeRelation:
    def relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
        data = tensor_arg(arg_types, 0, op)
        if _blocked(attrs, op):
            if data.ndim != 5:
                raise TypeInferenceError(f"{op}: data must be 5-D (NCHW[b]c), got {data.shape}")
            return TensorType((*data.shape[:2], 1, 1, data.shape[4]), data.dtype)
        if data.ndim != 4:
            raise TypeInferenceError(f"{op}: data must be 4-D (NCHW), got shape {data.shape}")
        return TensorType((*data.shape[:2], 1, 1), data.dtype)

    return relation


def _global_pool_reference(reduce: str) -> Reference:
    def reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
        data = inputs[0]
        if reduce == "max":
            return np.asarray(data.max(axis=(2, 3), keepdims=True))
        values = data.astype(np.promote_types(data.dtype, np.float32), copy=False)
        return np.asarray(values.mean(axis=(2, 3), keepdims=True), dtype=data.dtype)

    return reference


def _global_pool_te(reduce: str) -> TeCompute:
    name = "global_max_pool2d" if reduce == "max" else "global_avg_pool2d"

    def te_compute(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
        data = inputs[0]
        out = tensor_out(out_type, f"nn.{name}")
        ry, rx = reduce_axis(data.shape[2], "ry"), reduce_axis(data.shape[3], "rx")
        names = ("n", "c", "i", "j", "cb")[: data.ndim]

        def window(n: PrimExpr, c: PrimExpr, i: PrimExpr, j: PrimExpr, *cb: PrimExpr) -> PrimExpr:
            return data[n, c, ry.var, rx.var, *cb]

        if reduce == "max":
            pool = compute(
                te_dims(out),
                lambda *i: max_reduce(window(*i), [ry, rx]),
                name,
                "pool",
                axis_names=names,
            )
            return check_output(pool, out, f"nn.{name}")
        acc = accumulate_dtype(data.dtype)
        total = compute(
            te_dims(out),
            lambda *i: sum_reduce(cast(acc, window(*i)), [ry, rx]),
            f"{name}_sum",
            "pool",
            axis_names=names,
        )
        count = float(data.shape[2] * data.shape[3])
        mean = compute(
            te_dims(out), lambda *i: cast(data.dtype, total[i] / count), name=name, tag="pool"
        )
        return check_output(mean, out, f"nn.{name}")

    return te_compute


def _input_size_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    return tensor_arg(arg_types, 0, "pool").size


# --- nn.pad --------------------------------------------------------------------------------

_PAD_MODES = ("constant", "edge", "reflect")


def _pad_widths(data: TensorType, attrs: Attrs) -> tuple[tuple[int, int], ...]:
    op = "nn.pad"
    pad_width = attrs["pad_width"]
    if not isinstance(pad_width, tuple) or len(pad_width) != data.ndim:
        raise TypeInferenceError(
            f"{op}: pad_width {pad_width!r} must hold one (before, after) pair per axis of "
            f"data (shape {data.shape})"
        )
    widths = tuple(int_tuple(pair, 2, "pad_width", op) for pair in pad_width)
    if attrs["mode"] not in _PAD_MODES:
        raise TypeInferenceError(f"{op}: mode must be one of {_PAD_MODES}, got {attrs['mode']!r}")
    return widths  # type: ignore[return-value]


def _pad_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "nn.pad"
    data = tensor_arg(arg_types, 0, op)
    widths = _pad_widths(data, attrs)
    shape: list[int] = []
    for axis, (dim, (before, after)) in enumerate(zip(data.shape, widths, strict=True)):
        kept = dim + min(before, 0) + min(after, 0)
        if kept < 0:
            raise TypeInferenceError(
                f"{op}: pad_width {widths} crops more than axis {axis} of data (shape "
                f"{data.shape}) holds"
            )
        grow = max(before, 0) + max(after, 0)
        if attrs["mode"] != "constant" and grow and kept == 0:
            raise TypeInferenceError(
                f"{op}: mode {attrs['mode']!r} cannot pad empty axis {axis} of data (shape "
                f"{data.shape}) with pad_width {widths}"
            )
        if attrs["mode"] == "reflect" and max(before, after) > kept - 1 and grow:
            raise TypeInferenceError(
                f"{op}: reflect padding {(before, after)} on axis {axis} needs more than the "
                f"{kept} elements data (shape {data.shape}) has there"
            )
        shape.append(kept + grow)
    return TensorType(tuple(shape), data.dtype)


def _pad_dims(arg_types: Sequence[Type], attrs: Attrs, out_type: Type) -> Type:
    """nn.pad's symbolic relation: an axis padded or cropped must be static; the others
    keep the data's dims."""
    data = tensor_arg(arg_types, 0, "nn.pad")
    out = tensor_out(out_type, "nn.pad")
    dims = type_dims(data)
    for axis, (dim, widths) in enumerate(zip(dims, _pad_widths(data, attrs), strict=True)):
        if any(widths) and not isinstance(dim, IntImm):
            raise TypeInferenceError(
                f"nn.pad: axis {axis} of {data} is symbolic ({format_expr(dim)}); only "
                "static axes pad"
            )
    grown = (
        dim if not any(widths) else IntImm(extent, INDEX_DTYPE)
        for dim, widths, extent in zip(dims, _pad_widths(data, attrs), out.shape, strict=True)
    )
    return with_dims(out, tuple(grown))


def _pad_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    """Crop negative widths first, then pad positive ones."""
    data = inputs[0]
    widths = _pad_widths(TensorType(data.shape, str(data.dtype)), attrs)
    crop = tuple(
        slice(max(-before, 0), dim - max(-after, 0))
        for dim, (before, after) in zip(data.shape, widths, strict=True)
    )
    grow = [(max(before, 0), max(after, 0)) for before, after in widths]
    cropped = data[crop]
    if attrs["mode"] == "constant":
        value = np.asarray(attrs["pad_value"]).astype(data.dtype)
        return np.asarray(np.pad(cropped, grow, mode="constant", constant_values=value))
    return np.asarray(np.pad(cropped, grow, mode=str(attrs["mode"])))  # type: ignore[call-overload]


def _pad_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """Output index o reads data at o - before: guarded (constant), clamped (edge), reflected."""
    data = inputs[0]
    out = tensor_out(out_type, "nn.pad")
    widths = _pad_widths(TensorType(data.shape, data.dtype), attrs)
    mode = attrs["mode"]
    fill = const(numpy_scalar(attrs["pad_value"], data.dtype), data.dtype)

    def body(*indices: PrimExpr) -> PrimExpr:
        inside: PrimExpr = index_const(1)
        source: list[PrimExpr] = []
        for index, dim, (before, after) in zip(indices, data.shape, widths, strict=True):
            if before == 0 and after == 0:  # (a symbolic batch is never padded)
                source.append(index)
                continue
            shifted = index - before
            start, stop = max(-before, 0), dim - max(-after, 0)  # the part that is kept
            if mode == "constant":
                if before > 0 or after > 0:
                    inside = logical_and(inside, in_range(shifted, 0, dim, lower=before > 0))
            elif mode == "edge":
                shifted = minimum(maximum(shifted, start), stop - 1)
            elif stop - start > 1:
                # Reflect p in [-(L-1), 2(L-1)] into [0, L): (L-1) - |(L-1) - |p||.
                last = stop - start - 1
                position = shifted - start
                mirrored = last - _abs_index(last - _abs_index(position))
                shifted = mirrored + start
            source.append(shifted)
        return select(inside, data[source], fill)

    return check_output(compute(te_dims(out), body, "pad", "injective"), out, "nn.pad")


def _abs_index(value: PrimExpr) -> PrimExpr:
    return maximum(value, -value)


# --- the table ---------------------------------------------------------------------------

_POOL_ATTRS: dict[str, object] = {
    "pool_size": REQUIRED,
    "strides": (1, 1),
    "padding": (0, 0, 0, 0),
    "dilation": (1, 1),
    "ceil_mode": False,
    "layout": "NCHW",  # or NCHWc: 5-D data with the channel block innermost
}

OPS: tuple[OpDef, ...] = (
    OpDef(
        name="nn.max_pool2d",
        pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
        num_inputs=1,
        attrs=_POOL_ATTRS,
        type_relation=_pool_relation("nn.max_pool2d"),
        reference=_nchw_reference(_max_pool2d_reference),
        te_compute=_max_pool2d_te,
        symbolic_relation=symbolic_batch,
        flops=_pool_flops,
        doc="2-D max pooling (NCHW); padding reads as -inf",
        input_names=("data",),
    ),
    OpDef(
        name="nn.avg_pool2d",
        pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
        num_inputs=1,
        attrs={**_POOL_ATTRS, "count_include_pad": False},
        type_relation=_pool_relation("nn.avg_pool2d"),
        reference=_nchw_reference(_avg_pool2d_reference),
        te_compute=_avg_pool2d_te,
        symbolic_relation=symbolic_batch,
        flops=_pool_flops,
        doc="2-D average pooling (NCHW); count_include_pad counts explicit padding cells",
        input_names=("data",),
    ),
    OpDef(
        name="nn.global_avg_pool2d",
        pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
        num_inputs=1,
        attrs={"layout": "NCHW"},
        type_relation=_global_pool_relation("nn.global_avg_pool2d"),
        reference=_nchw_reference(_global_pool_reference("mean")),
        te_compute=_global_pool_te("mean"),
        symbolic_relation=symbolic_batch,
        flops=_input_size_flops,
        doc="mean over H and W: [N, C, H, W] -> [N, C, 1, 1]",
        input_names=("data",),
    ),
    OpDef(
        name="nn.global_max_pool2d",
        pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
        num_inputs=1,
        attrs={"layout": "NCHW"},
        type_relation=_global_pool_relation("nn.global_max_pool2d"),
        reference=_nchw_reference(_global_pool_reference("max")),
        te_compute=_global_pool_te("max"),
        symbolic_relation=symbolic_batch,
        flops=_input_size_flops,
        doc="max over H and W: [N, C, H, W] -> [N, C, 1, 1]",
        input_names=("data",),
    ),
    OpDef(
        name="nn.pad",
        pattern=OpPattern.INJECTIVE,
        num_inputs=1,
        attrs={"pad_width": REQUIRED, "pad_value": 0.0, "mode": "constant"},
        type_relation=_pad_relation,
        reference=_pad_reference,
        te_compute=_pad_te,
        symbolic_relation=_pad_dims,
        flops=zero_flops,
        doc="pad (or crop, for negative widths) each axis; modes constant, edge, reflect",
        input_names=("data",),
    ),
)
