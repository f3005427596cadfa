"""Integer ops of quantized models: 8-bit convolutions accumulating exactly in int32.

`qnn.conv2d` is what RealizeQuantized makes of a float convolution between dequantized
8-bit values: the raw sum of products of the 8-bit data and weight, the data padded with
its zero point (so a padded position contributes what a dequantized zero would: nothing,
once the graph subtracts zero point x weight sum). `qnn.conv2d_nchwc` is the same on
blocked channels, its weight laid out for 4-way integer dot products: OIHW[bi/4]i[bo*4]
with element (o, i) at [o // bo, i // bi, y, x, (i % bi) // 4, (o % bo) * 4 + i % 4], so
each output channel's 4 consecutive input channels are 4 adjacent bytes (what AVX-512
VNNI's vpdpbusd multiplies and sums into one int32 lane).

Its `dot_form` says how the 4 products of a lane are summed, which the codegen maps to
instructions:

- QUAD: all 4 at once in int32 (vpdpbusd);
- PAIR: each adjacent pair in int16 first (AVX2's vpmaddubsw), exact only for weights
  whose pairs' magnitudes sum to at most PAIR_LIMIT (7-bit weights);
- WORD: the weight widened to int16 at compile time, each pair's products summed in
  int32 (vpmaddwd), exact for any int8 weight; its data may be int16 too (8-bit values
  widened by their producer, so that each pair is one broadcast with no shuffle). Its
  weight's last axis holds, per quad of input channels, first the pair (0, 1) of every
  output channel, then the pair (2, 3): element (o, i) at
  [..., (i % bi) // 4, (i % 4 // 2) * 2 * bo + (o % bo) * 2 + i % 2].
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ir.errors import TypeInferenceError
from ir.graph.attrs import Attrs
from ir.graph.nodes import Call, Function
from ir.graph.ops.common import (
    block_channels,
    tensor_arg,
    tensor_args,
    unblock_channels,
)
from ir.graph.ops.nn import conv2d_geometry, conv2d_output_hw, conv2d_reference
from ir.graph.ops.registry import OpDef, OpPattern
from ir.graph.ops.te_common import check_output, pad_stage, tensor_out
from ir.graph.traversal import post_order
from ir.graph.types import TensorType, Type
from ir.te.tensor import Tensor, compute, reduce_axis, sum_reduce
from ir.tir.expr import PrimExpr, cast

ACCUMULATOR = "int32"
EIGHT_BIT = ("uint8", "int8")
DOT_WIDTH = 4  # input channels summed per int32 lane by one dot-product instruction
PAIR_LIMIT = 128  # |w0| + |w1| <= 128: 255 * 128 = 32640, a uint8 pair's sum fits int16
QUAD = "quad"  # dot_form: 4 byte products summed per int32 lane (module docstring)
PAIR = "pair"  # dot_form: pairs of byte products summed in int16 first
WORD = "word"  # dot_form: int16 weights, pairs of products summed in int32
DOT_FORMS = (QUAD, PAIR, WORD)
_RANGES = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767)}


def _operands(arg_types: Sequence[Type], attrs: Attrs, op: str) -> tuple[TensorType, ...]:
    """The 8-bit data and weight of `op` (in the WORD form, the data possibly widened to
    int16, and a blocked weight int16), or an error naming what is not."""
    data, weight = tensor_args(arg_types, op)
    form = str(attrs["dot_form"])
    if form not in DOT_FORMS:
        raise TypeInferenceError(f"{op}: dot_form must be one of {DOT_FORMS}, got {form!r}")
    data_types = (*EIGHT_BIT, "int16") if form == WORD else EIGHT_BIT
    if data.dtype not in data_types:
        raise TypeInferenceError(f"{op}: data must be one of {data_types}, got {data.dtype}")
    widened = form == WORD and weight.ndim == 6
    if widened and weight.dtype != "int16":
        raise TypeInferenceError(f"{op}: a {WORD} form's weight must be int16, got {weight.dtype}")
    if not widened and weight.dtype not in EIGHT_BIT:
        raise TypeInferenceError(f"{op}: weight must be uint8 or int8, got {weight.dtype}")
    low, high = _RANGES[data.dtype]
    pad_value = int(attrs["pad_value"])
    if not low <= pad_value <= high:
        raise TypeInferenceError(
            f"{op}: pad_value {pad_value} is outside {data.dtype}'s range [{low}, {high}]"
        )
    return data, weight


def _padded_int64(data: np.ndarray, attrs: Attrs) -> np.ndarray:
    """`data` minus the pad value, in int64: padding it with zeros then pads with it."""
    return data.astype(np.int64) - int(attrs["pad_value"])


def _window_sums(weight: np.ndarray) -> np.ndarray:
    """Per output channel, the sum of its weights over its window (int64)."""
    sums: np.ndarray = weight.astype(np.int64).reshape(weight.shape[0], -1).sum(axis=1)
    return sums


# --- qnn.conv2d ----------------------------------------------------------------------------


def _qconv2d_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "qnn.conv2d"
    data, weight = _operands(arg_types, attrs, op)
    if data.ndim != 4 or weight.ndim != 4:
        raise TypeInferenceError(
            f"{op}: data (shape {data.shape}) and weight (shape {weight.shape}) must be 4-D"
        )
    _, _, _, groups = conv2d_geometry(attrs, op)
    out_channels, group_channels, kernel_h, kernel_w = weight.shape
    if data.shape[1] != group_channels * groups or out_channels % groups:
        raise TypeInferenceError(
            f"{op}: weight (shape {weight.shape}) does not fit data (shape {data.shape}) "
            f"in {groups} groups"
        )
    out_h, out_w = conv2d_output_hw(data, weight, (kernel_h, kernel_w), attrs, op)
    return TensorType((data.shape[0], out_channels, out_h, out_w), ACCUMULATOR)


def qconv2d_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    """The exact sum of products over each window of the data padded with `pad_value`
    (computed in int64: the padded data is the centred data padded with 0, plus the pad
    value times the window's weight sum), wrapped to int32."""
    data, weight = inputs
    centred = conv2d_reference([_padded_int64(data, attrs), weight.astype(np.int64)], attrs)
    sums = _window_sums(weight) * int(attrs["pad_value"])
    out: np.ndarray = (centred + sums.reshape(1, -1, 1, 1)).astype(np.int32)
    return out


def _qconv2d_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """out[n, k, y, x] = sum over (rc, ry, rx) of int32(pad) * int32(weight)."""
    data, weight = inputs
    (stride_h, stride_w), (top, left, bottom, right), (dil_h, dil_w), groups = conv2d_geometry(
        attrs, "qnn.conv2d"
    )
    out = tensor_out(out_type, "qnn.conv2d")
    out_channels, group_channels, kernel_h, kernel_w = weight.shape
    padded = pad_stage(data, (0, 0, top, left), (0, 0, bottom, right), int(attrs["pad_value"]))
    rc = reduce_axis(group_channels, "rc")
    ry = reduce_axis(kernel_h, "ry")
    rx = reduce_axis(kernel_w, "rx")
    per_group = out_channels // groups

    def body(n: PrimExpr, k: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
        channel = rc.var if groups == 1 else (k // per_group) * group_channels + rc.var
        value = padded[n, channel, y * stride_h + ry.var * dil_h, x * stride_w + rx.var * dil_w]
        product = cast(ACCUMULATOR, value) * cast(ACCUMULATOR, weight[k, rc, ry, rx])
        return sum_reduce(product, [rc, ry, rx])

    conv = compute(out.shape, body, name="qconv2d", tag="conv2d", attrs={"weight_input": 1})
    return check_output(conv, out, "qnn.conv2d")


# --- qnn.conv2d_nchwc ----------------------------------------------------------------------


def _nchwc_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    op = "qnn.conv2d_nchwc"
    data, weight = _operands(arg_types, attrs, op)
    if data.ndim not in (4, 5) or weight.ndim != 6:
        raise TypeInferenceError(
            f"{op}: data (shape {data.shape}) must be 4-D NCHW or 5-D NCHW[b]c and weight "
            f"(shape {weight.shape}) 6-D OIHW[bi/4]i[bo*4]"
        )
    out_blocks, in_blocks, kernel_h, kernel_w, quads, lanes = weight.shape
    in_block = quads * DOT_WIDTH
    channels = data.shape[1] if data.ndim == 4 else data.shape[1] * data.shape[4]
    if (
        lanes % DOT_WIDTH
        or in_blocks * in_block != channels
        or (data.ndim == 5 and data.shape[4] != in_block)
    ):
        raise TypeInferenceError(
            f"{op}: weight (shape {weight.shape}) expects {in_blocks} x {in_block} input "
            f"channels in groups of {DOT_WIDTH}, data (shape {data.shape}) has {channels}"
        )
    out_h, out_w = conv2d_output_hw(data, weight, (kernel_h, kernel_w), attrs, op)
    return TensorType((data.shape[0], out_blocks, out_h, out_w, lanes // DOT_WIDTH), ACCUMULATOR)


def unpack_dot_weight(weight: np.ndarray, form: str = QUAD) -> np.ndarray:
    """A qnn.conv2d_nchwc weight of dot form `form` back in OIHW (int8 for WORD too)."""
    out_blocks, in_blocks, kernel_h, kernel_w, quads, lanes = weight.shape
    out_block = lanes // DOT_WIDTH
    if form == WORD:
        halves = weight.reshape(*weight.shape[:5], 2, out_block, 2)
        weight = halves.transpose(0, 1, 2, 3, 4, 6, 5, 7).reshape(weight.shape).astype(np.int8)
    seven = weight.reshape(out_blocks, in_blocks, kernel_h, kernel_w, quads, out_block, DOT_WIDTH)
    return seven.transpose(0, 5, 1, 4, 6, 2, 3).reshape(
        out_blocks * out_block, in_blocks * quads * DOT_WIDTH, kernel_h, kernel_w
    )


def pack_dot_weight(
    weight: np.ndarray, in_block: int, out_block: int, form: str = QUAD
) -> np.ndarray:
    """An OIHW weight (input channels a multiple of `in_block`) in qnn.conv2d_nchwc's
    layout for dot form `form` (WORD: widened to int16, its pairs regrouped), its output
    channels padded with zeros to whole blocks of `out_block`."""
    extra = -weight.shape[0] % out_block
    if extra:
        weight = np.pad(weight, ((0, extra), (0, 0), (0, 0), (0, 0)))
    out_channels, channels, kernel_h, kernel_w = weight.shape
    seven = weight.reshape(
        out_channels // out_block,
        out_block,
        channels // in_block,
        in_block // DOT_WIDTH,
        DOT_WIDTH,
        kernel_h,
        kernel_w,
    ).transpose(0, 2, 5, 6, 3, 1, 4)
    packed = seven.reshape(*seven.shape[:5], out_block * DOT_WIDTH)
    if form == WORD:
        lanes = packed.reshape(*packed.shape[:5], out_block, 2, 2)
        packed = lanes.transpose(0, 1, 2, 3, 4, 6, 5, 7).reshape(packed.shape).astype(np.int16)
    return np.ascontiguousarray(packed)


def _nchwc_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    """The NCHW integer convolution of the unblocked operands, blocked again."""
    data, weight = inputs
    plain_data = data if data.ndim == 4 else unblock_channels(data)
    plain_weight = unpack_dot_weight(weight, str(attrs["dot_form"]))
    out = qconv2d_reference([plain_data, plain_weight], Attrs({**attrs, "groups": 1}))
    return block_channels(out, weight.shape[5] // DOT_WIDTH)


def _nchwc_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    """out[n, ko, y, x, kb] = sum over (co, ry, rx, cq, q) of int32(pad[n, co, y', x',
    cq * 4 + q]) * int32(weight[ko, co, ry, rx, cq, kb * 4 + q]): the 4 products of one
    output channel's adjacent weight bytes innermost. In the PAIR form (weights whose
    adjacent pairs sum to at most 128 in magnitude), the products of each pair of bytes
    are added in int16 first, over a dot axis of 2 pairs: what AVX2's vpmaddubsw computes,
    exact there because no pair sum leaves int16. In the WORD form, each pair's products
    of the uint8 data and the int16 weight are added in int32, over a dot axis of 2 pairs
    whose weights lie 2 x bo apart (what vpmaddwd computes, exact for any weight)."""
    data, weight = inputs
    (stride_h, stride_w), (top, left, bottom, right), (dil_h, dil_w), _ = conv2d_geometry(
        attrs, "qnn.conv2d_nchwc"
    )
    out = tensor_out(out_type, "qnn.conv2d_nchwc")
    _, in_blocks, kernel_h, kernel_w, quads, _ = weight.shape
    in_block = quads * DOT_WIDTH
    blocked = data.ndim == 5
    pad_after = (0, 0, bottom, right) + ((0,) if blocked else ())
    pad_before = (0, 0, top, left) + ((0,) if blocked else ())
    padded = pad_stage(data, pad_before, pad_after, int(attrs["pad_value"]))
    form = str(attrs["dot_form"])
    pairs = form != QUAD
    half = weight.shape[5] // 2  # (WORD: the second pair of each lane lies this far on)
    rco = reduce_axis(in_blocks, "rco")
    ry = reduce_axis(kernel_h, "ry")
    rx = reduce_axis(kernel_w, "rx")
    rcq = reduce_axis(quads, "rcq")
    dot = reduce_axis(DOT_WIDTH // 2, "rp") if pairs else reduce_axis(DOT_WIDTH, "rq")

    def body(n: PrimExpr, ko: PrimExpr, y: PrimExpr, x: PrimExpr, kb: PrimExpr) -> PrimExpr:
        row = y * stride_h + ry.var * dil_h
        col = x * stride_w + rx.var * dil_w

        def product(q: PrimExpr, dtype: str, lane: PrimExpr) -> PrimExpr:
            inner = rcq.var * DOT_WIDTH + q
            if blocked:
                value = padded[n, rco.var, row, col, inner]
            else:
                value = padded[n, rco.var * in_block + inner, row, col]
            weight_value = weight[ko, rco.var, ry.var, rx.var, rcq.var, lane]
            return cast(dtype, value) * cast(dtype, weight_value)

        def pair(dtype: str, first_lane: PrimExpr) -> PrimExpr:
            first = product(dot.var * 2, dtype, first_lane)
            return first + product(dot.var * 2 + 1, dtype, first_lane + 1)

        if form == PAIR:
            summed = pair("int16", kb * DOT_WIDTH + dot.var * 2)
            return sum_reduce(cast(ACCUMULATOR, summed), [rco, ry, rx, rcq, dot])
        if form == WORD:
            summed = pair(ACCUMULATOR, dot.var * half + kb * 2)
            return sum_reduce(summed, [rco, ry, rx, rcq, dot])
        return sum_reduce(
            product(dot.var, ACCUMULATOR, kb * DOT_WIDTH + dot.var), [rco, ry, rx, rcq, dot]
        )

    conv = compute(
        out.shape,
        body,
        name="qconv2d_nchwc",
        tag="conv2d_nchwc",
        attrs={"weight_input": 1, "dot_axis": dot.name, "dot_form": form},
    )
    return check_output(conv, out, "qnn.conv2d_nchwc")


def pair_sums_fit_int16(weight: np.ndarray) -> bool:
    """Whether an OIHW int8 `weight`'s adjacent input-channel pairs (0-1, 2-3, ...) times
    any uint8 values sum within int16: |w[2i]| + |w[2i + 1]| <= 128 everywhere."""
    if weight.shape[1] % 2:
        return False
    magnitudes = np.abs(weight.astype(np.int32))
    return bool(np.all(magnitudes[:, 0::2] + magnitudes[:, 1::2] <= PAIR_LIMIT))


def _conv_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    weight = tensor_arg(arg_types, 1, "qnn.conv2d")
    assert isinstance(out_type, TensorType)
    per_output = int(np.prod(weight.shape[1:]))
    if weight.ndim == 6:
        per_output //= weight.shape[5] // DOT_WIDTH
    return 2 * out_type.size * per_output


_CONV_ATTRS = {"strides": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1), "pad_value": 0}
_NCHWC_ATTRS = {**_CONV_ATTRS, "dot_form": QUAD}  # dot_form: see the module docstring

OPS: tuple[OpDef, ...] = (
    OpDef(
        name="qnn.conv2d",
        pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
        num_inputs=2,
        attrs={**_CONV_ATTRS, "groups": 1, "dot_form": QUAD},
        type_relation=_qconv2d_relation,
        reference=qconv2d_reference,
        te_compute=_qconv2d_te,
        flops=_conv_flops,
        doc=(
            "8-bit 2-D convolution accumulated exactly in int32: NCHW uint8/int8 data "
            "(padded with pad_value) x OIHW uint8/int8 weight -> int32; dot_form: the "
            "form its blocked qnn.conv2d_nchwc takes"
        ),
        input_names=("data", "weight"),
    ),
    OpDef(
        name="qnn.conv2d_nchwc",
        pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
        num_inputs=2,
        attrs=_NCHWC_ATTRS,
        type_relation=_nchwc_relation,
        reference=_nchwc_reference,
        te_compute=_nchwc_te,
        flops=_conv_flops,
        doc=(
            "qnn.conv2d on blocked channels: NCHW[bi]c (or NCHW) data x OIHW[bi/4]i[bo*4] "
            "weight (4 input channels adjacent per output channel) -> int32 NCHW[bo]c; "
            "dot_form: quad (vpdpbusd), pair (int16 pair sums, vpmaddubsw: 7-bit weights) "
            "or word (an int16 weight, vpmaddwd)"
        ),
        input_names=("data", "weight"),
    ),
)


def computes_on_integers(function: Function) -> bool:
    """Whether a (fused) function computes with an 8-bit integer op (`qnn.*`)."""
    return any(
        isinstance(node, Call) and isinstance(node.op, str) and node.op.startswith("qnn.")
        for node in post_order(function.body)
    )
