"""ONNX Col2Im on static shapes: the sliding blocks of an image (Im2Col's columns) summed
back into the image, in any number of spatial dims.

Which block elements land on each image element depends only on the shapes and the
attributes, so it is worked out here: per image element, the flat indices (into one
channel's blocks) of the at most prod(block_shape) elements that land there, the rest of
its row pointing at one zero appended to each channel's blocks. The graph is then one
`take` of those indices and a sum: no scatter, no conflicting writes.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ir.frontend.onnx.context import ConverterResult, NodeContext
from ir.graph.nodes import Constant


def _landing_indices(
    image: tuple[int, ...],
    block: tuple[int, ...],
    dilations: tuple[int, ...],
    pads: tuple[int, ...],
    strides: tuple[int, ...],
    counts: tuple[int, ...],
) -> np.ndarray:
    """[prod(image), J]: for each image element, the flat (kernel offset, block) indices
    of the block elements that land on it; prod(block) * prod(counts) pads each row."""
    dims = len(image)
    blocks = math.prod(counts)
    sentinel = math.prod(block) * blocks
    landing: list[list[int]] = [[] for _ in range(math.prod(image))]
    for kernel_index, offset in enumerate(itertools.product(*(range(k) for k in block))):
        for block_index, position in enumerate(itertools.product(*(range(c) for c in counts))):
            pixel = [
                position[d] * strides[d] - pads[d] + offset[d] * dilations[d] for d in range(dims)
            ]
            if all(0 <= pixel[d] < image[d] for d in range(dims)):
                flat = int(np.ravel_multi_index(pixel, image))
                landing[flat].append(kernel_index * blocks + block_index)
    width = max(1, max(len(row) for row in landing))
    table = np.full((len(landing), width), sentinel, np.int64)
    for flat, row in enumerate(landing):
        table[flat, : len(row)] = row
    return table


def convert_col2im(ctx: NodeContext) -> ConverterResult:
    """Col2Im(input [N, C * prod(block), L], image_shape, block_shape) -> [N, C, *image]."""
    shape = ctx.shape(0)
    image = ctx.static_ints(1, "image_shape")
    block = ctx.static_ints(2, "block_shape")
    dims = len(image)
    if len(shape) != 3 or len(block) != dims or dims < 1:
        raise ctx.error(
            f"input {shape}, image_shape {image} and block_shape {block} do not fit: the "
            "input is [N, C * prod(block_shape), L] and the two shapes have one length"
        )
    dilations = ctx.ints_attr("dilations") or (1,) * dims
    strides = ctx.ints_attr("strides") or (1,) * dims
    pads = ctx.ints_attr("pads") or (0,) * (2 * dims)
    if len(dilations) != dims or len(strides) != dims or len(pads) != 2 * dims:
        raise ctx.error(f"dilations, strides and pads must have {dims}, {dims}, {2 * dims} values")
    counts = tuple(
        (image[d] + pads[d] + pads[d + dims] - dilations[d] * (block[d] - 1) - 1) // strides[d] + 1
        for d in range(dims)
    )
    kernel = math.prod(block)
    if min(counts) < 1 or shape[1] % kernel or shape[2] != math.prod(counts):
        raise ctx.error(
            f"input {shape} does not hold the {counts} blocks of {block} that image_shape "
            f"{image} gives with these dilations, pads and strides"
        )
    batch, channels = shape[0], shape[1] // kernel
    dtype = ctx.dtype(0)
    flat = ctx.call("reshape", ctx.input(0), newshape=(batch, channels, kernel * shape[2]))
    zero = Constant(np.zeros((batch, channels, 1), dtype))
    padded = ctx.call("concatenate", flat, zero, axis=2)
    table = _landing_indices(image, block, dilations, pads[:dims], strides, counts)
    gathered = ctx.call("take", padded, Constant(table), axis=2)
    summed = ctx.call("sum", gathered, axis=(3,), keepdims=False)
    return ctx.call("reshape", summed, newshape=(batch, channels, *image))


CONVERTERS = {"Col2Im": convert_col2im}
