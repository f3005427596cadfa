"""Sliding-window attributes shared by the convolution and pooling converters: kernel,
strides, dilations and pads (explicit or from auto_pad), for any number of spatial dims."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ir.frontend.onnx.context import NodeContext

AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def window_ints(ctx: NodeContext, name: str, default: Sequence[int], rank: int) -> tuple[int, ...]:
    """An ints attribute with `rank` values (`default` when absent), else ModelImportError."""
    value = ctx.ints_attr(name)
    value = tuple(default) if value is None else value
    if len(value) != rank:
        raise ctx.error(f"attribute {name}={list(value)} must have {rank} values")
    return value


def split_padding(total: int, auto_pad: str) -> tuple[int, int]:
    """(begin, end) padding of `total`: the odd one at the end for SAME_UPPER, else at the
    beginning (SAME_LOWER, and ConvTranspose's output_shape without auto_pad)."""
    small, large = total // 2, total - total // 2
    return (small, large) if auto_pad == "SAME_UPPER" else (large, small)


def onnx_padding(
    ctx: NodeContext,
    spatial: tuple[int, ...],
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    dilation: tuple[int, ...],
) -> tuple[int, ...]:
    """ONNX pads (begins..., ends...) from `pads` or `auto_pad`."""
    rank = len(spatial)
    auto_pad = ctx.choice_attr("auto_pad", "NOTSET", AUTO_PADS)
    if auto_pad == "NOTSET":
        return window_ints(ctx, "pads", (0,) * (2 * rank), 2 * rank)
    if auto_pad == "VALID":
        return (0,) * (2 * rank)
    # SAME_*: the output has ceil(in / stride) elements; odd padding goes at the end for
    # SAME_UPPER and at the beginning for SAME_LOWER.
    begins: list[int] = []
    ends: list[int] = []
    for size, k, stride, dil in zip(spatial, kernel, strides, dilation, strict=True):
        out = math.ceil(size / stride)
        total = max((out - 1) * stride + (k - 1) * dil + 1 - size, 0)
        begin, end = split_padding(total, auto_pad)
        begins.append(begin)
        ends.append(end)
    return (*begins, *ends)
