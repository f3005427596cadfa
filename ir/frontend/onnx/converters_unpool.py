"""ONNX MaxUnpool: MaxPool's maxima put back where its Indices output says they came from,
zeros elsewhere.

MaxUnpool's indices are MaxPool's (its second output): each pooled value's position in
the pool's input, flattened over the whole tensor. A value taken from window q lies
inside window q, so the output element at spatial position p can only come from the at
most ceil(k / s) windows per axis that cover p. The graph therefore gathers, per such
candidate window (a constant table per axis), the pooled value and its index, and keeps
the value where the index names p: a gather and a compare per candidate, where a scatter
would need writes at run-time positions. An index outside its own window (not one
MaxPool with this kernel, these strides and pads could write) is dropped.

With output_shape, the indices count positions in a tensor of that shape (the pool's
input, which the pool's kernel, strides and pads alone cannot always tell: a 7-wide
input pooled by 2 gives the same 3 as a 6-wide one), as PyTorch's max_unpool and
onnxruntime read them; ONNX's reference evaluator reads them in the shape the attributes
infer and pads that at the end, which its own maintainers call inconsistent with the
pool's indices (onnx/onnx#2398; the review of onnx/onnx#8413), so that one backend test
case (test_maxunpool_export_with_output_shape) expects other values than this and
onnxruntime give.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ir.frontend.onnx.context import ConverterResult, NodeContext
from ir.frontend.onnx.windows import window_ints
from ir.graph.nodes import Constant, Expr


def _candidates(pooled: int, out: int, kernel: int, stride: int, pad: int) -> list[np.ndarray]:
    """Along one axis, per candidate j (0 .. ceil(kernel / stride) - 1), the window
    (index into the pooled axis, or -1) that covers each of the `out` positions as its
    j-th latest: windows q start at q * stride - pad and take `kernel` positions."""
    latest = (np.arange(out) + pad) // stride
    tables = []
    for j in range(-(-kernel // stride)):
        window = latest - j
        covers = (
            (window >= 0) & (window < pooled) & (np.arange(out) - (window * stride - pad) < kernel)
        )
        tables.append(np.where(covers, window, -1))
    return tables


def convert_max_unpool(ctx: NodeContext) -> ConverterResult:
    """MaxUnpool(X [N, C, *pooled], I (int64, like X)[, output_shape]) -> [N, C, *out]:
    out is output_shape when given (the indices count positions in it), else the pool's
    input shape that the attributes infer ((pooled - 1) * stride - pads + kernel)."""
    shape = ctx.shape(0)
    rank = len(shape) - 2
    if rank < 1 or ctx.shape(1) != shape:
        raise ctx.error(f"X ({shape}) and I ({ctx.shape(1)}) must be one [N, C, ...] shape")
    kernel = ctx.ints_attr("kernel_shape")
    if kernel is None or len(kernel) != rank:
        raise ctx.error(f"kernel_shape must give {rank} values, got {kernel}")
    strides = window_ints(ctx, "strides", (1,) * rank, rank)
    pads = window_ints(ctx, "pads", (0,) * (2 * rank), 2 * rank)
    n, channels, pooled = shape[0], shape[1], shape[2:]
    out = tuple(
        (pooled[d] - 1) * strides[d] - pads[d] - pads[d + rank] + kernel[d] for d in range(rank)
    )
    if min(out) < 1:
        raise ctx.error(f"the kernel, strides and pads {list(pads)} leave an empty output {out}")
    if ctx.optional_input(2) is not None:
        given = ctx.static_ints(2, "output_shape")
        final = given[-rank:] if len(given) in (rank, rank + 2) else ()
        if not final or min(final) < 1:
            raise ctx.error(
                f"output_shape {list(given)} must give {rank} (or {rank + 2}) positive dims"
            )
        out = final
    values, indices = ctx.input(0), ctx.input(1)
    # The pooled value's index within its own image: less its batch and channel's start.
    starts = np.arange(n * channels, dtype=np.int64).reshape(n, channels, *(1,) * rank)
    local = ctx.call("subtract", indices, Constant(starts * math.prod(out)))
    positions = Constant(np.arange(math.prod(out), dtype=np.int64).reshape(1, 1, *out))
    tables = [_candidates(pooled[d], out[d], kernel[d], strides[d], pads[d]) for d in range(rank)]
    result: Expr = Constant(np.zeros((1,) * (rank + 2), ctx.dtype(0)))
    for combination in itertools.product(*tables):
        picked_values, picked_indices = values, local
        covered = np.ones(out, bool)
        for axis, table in enumerate(combination):
            where = Constant(np.maximum(table, 0).astype(np.int64))
            picked_values = ctx.call("take", picked_values, where, axis=axis + 2)
            picked_indices = ctx.call("take", picked_indices, where, axis=axis + 2)
            covered &= (table >= 0).reshape(*(1,) * axis, -1, *(1,) * (rank - axis - 1))
        match = ctx.call("equal", picked_indices, positions)
        if not covered.all():
            match = ctx.call("logical_and", match, Constant(covered.reshape(1, 1, *out)))
        result = ctx.call("where", match, picked_values, result)
    return ctx.call("broadcast_to", result, shape=(n, channels, *out))


CONVERTERS = {"MaxUnpool": convert_max_unpool}
