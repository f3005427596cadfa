"""MaxPool's second output, Indices: where in the input each window's maximum was taken.

ONNX counts the index over the whole input tensor flattened (batch and channel included,
padding not), its spatial part in row-major order, or column-major with storage_order=1.
Which input elements each window reads depends only on the shapes and the window, so a
table of them is built here: per output position, the flat spatial indices of its window
(the ones inside the input first, in row-major window order, then the padding, which
reads an appended lowest value). The graph gathers the windows, takes the first maximum of
each (`argmax`: ties go to the first, as onnxruntime), and looks its index up in a second
table in the storage order (one copy of it, not one per batch and channel).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ir.frontend.onnx.context import NodeContext
from ir.graph.nodes import Constant, Expr


def _flat(pixel: list[int], shape: tuple[int, ...]) -> int:
    """The row-major flat index of `pixel` in `shape`."""
    index = 0
    for coordinate, extent in zip(pixel, shape, strict=True):
        index = index * extent + coordinate
    return index


def _tables(
    spatial: tuple[int, ...],
    output: tuple[int, ...],
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    dilation: tuple[int, ...],
    begin_pads: tuple[int, ...],
    column_major: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """The read table [outputs, window] of row-major flat positions (prod(spatial) for a
    padding position) and the index table of the same shape in the storage order."""
    size = math.prod(spatial)
    reads = np.full((math.prod(output), math.prod(kernel)), size, np.int64)
    indices = np.zeros_like(reads)
    for row, position in enumerate(itertools.product(*(range(o) for o in output))):
        inside = []
        for offset in itertools.product(*(range(k) for k in kernel)):
            pixel = [
                position[d] * strides[d] - begin_pads[d] + offset[d] * dilation[d]
                for d in range(len(spatial))
            ]
            if all(0 <= pixel[d] < spatial[d] for d in range(len(spatial))):
                inside.append(pixel)
        for column, pixel in enumerate(inside):
            reads[row, column] = _flat(pixel, spatial)
            indices[row, column] = (
                _flat(pixel[::-1], spatial[::-1]) if column_major else _flat(pixel, spatial)
            )
    return reads, indices


def max_pool_indices(
    ctx: NodeContext,
    data: Expr,
    output_spatial: tuple[int, ...],
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    dilation: tuple[int, ...],
    begin_pads: tuple[int, ...],
) -> Expr:
    """The int64 Indices output of a MaxPool of `data` [N, C, *spatial] whose output has
    the spatial shape `output_spatial` (storage_order from the node)."""
    batch, channels, *rest = ctx.shape(0)
    spatial = tuple(rest)
    dtype = ctx.dtype(0)
    size = math.prod(spatial)
    reads, indices = _tables(
        spatial,
        output_spatial,
        kernel,
        strides,
        dilation,
        begin_pads,
        bool(ctx.int_attr("storage_order", 0)),
    )
    lowest = -np.inf if np.dtype(dtype).kind == "f" else np.iinfo(np.dtype(dtype)).min
    flat = ctx.call("reshape", data, newshape=(batch, channels, size))
    floor = Constant(np.full((batch, channels, 1), lowest, dtype))
    padded = ctx.call("concatenate", flat, floor, axis=2)
    windows = ctx.call("take", padded, Constant(reads), axis=2)  # [N, C, outputs, window]
    first = ctx.call("argmax", windows, axis=3, keepdims=True, select_last_index=False)
    # Row p's entry j of the index table is its flat element p * window + j.
    rows = np.arange(indices.shape[0], dtype=np.int64).reshape(-1, 1) * indices.shape[1]
    at = ctx.call("add", first, Constant(rows))  # [N, C, outputs, 1]
    spatial_index = ctx.call("take", Constant(indices.reshape(-1)), at, axis=0)
    planes = np.arange(batch * channels, dtype=np.int64).reshape(batch, channels, 1, 1) * size
    index = ctx.call("add", spatial_index, Constant(planes))
    return ctx.call("reshape", index, newshape=(batch, channels, *output_spatial))
