"""Tensor expressions: placeholders, computes and reductions that describe what to compute."""

from ir.te.tensor import (
    ComputeOp,
    Dim,
    PlaceholderOp,
    Tensor,
    compute,
    max_reduce,
    min_reduce,
    placeholder,
    reduce_axis,
    size_var,
    sum_reduce,
)

TE_VERSION = "2"  # bump when a TE compute changes what a workload computes or how it lowers

__all__ = [
    "ComputeOp",
    "Dim",
    "PlaceholderOp",
    "Tensor",
    "compute",
    "max_reduce",
    "min_reduce",
    "placeholder",
    "reduce_axis",
    "size_var",
    "sum_reduce",
]
