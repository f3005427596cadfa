"""The op table: every op the graph IR knows, defined once per module family."""

from __future__ import annotations

from ir.graph.ops import bitwise, elemwise, nn, pooling, quantized, reduce, transform
from ir.graph.ops.registry import REQUIRED, OpDef, OpPattern, get_op

OP_TABLE: dict[str, OpDef] = {
    op.name: op
    for family in (bitwise, elemwise, nn, pooling, quantized, reduce, transform)
    for op in family.OPS
}

__all__ = ["OP_TABLE", "REQUIRED", "OpDef", "OpPattern", "get_op"]
