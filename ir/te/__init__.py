"""Tensor expressions: placeholders, computes and reductions that describe what to compute."""

from ir.te.tensor import (
    ComputeOp,
    PlaceholderOp,
    Tensor,
    compute,
    max_reduce,
    min_reduce,
    placeholder,
    reduce_axis,
    sum_reduce,
)

__all__ = [
    "ComputeOp",
    "PlaceholderOp",
    "Tensor",
    "compute",
    "max_reduce",
    "min_reduce",
    "placeholder",
    "reduce_axis",
    "sum_reduce",
]
