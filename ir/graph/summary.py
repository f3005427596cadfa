"""Summaries of a graph: op counts, fused functions with their ops, output shapes and FLOPs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ir.graph.nodes import Call, Constant, Function
from ir.graph.ops.registry import get_op
from ir.graph.traversal import nodes_everywhere, post_order
from ir.graph.types import TensorType, TupleType, Type, type_to_json
from ir.tir.expr import Var as SizeVar
from ir.tir.sizes import evaluate_dim


@dataclass(frozen=True)
class FusedFunctionSummary:
    """One primitive function of a fused graph."""

    name: str
    ops: tuple[str, ...]
    output_type: Type
    flops: int
    calls: int  # how many times the main function calls it

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "name": self.name,
            "ops": list(self.ops),
            "output": type_to_json(self.output_type),
            "flops": self.flops,
            "calls": self.calls,
        }


def op_counts(fn: Function) -> dict[str, int]:
    """How many calls of each op `fn` makes (inside fused functions too)."""
    counts: Counter[str] = Counter()
    for node in nodes_everywhere(fn):
        if isinstance(node, Call):
            if isinstance(node.op, Function):
                counts.update(op_counts(node.op))
            else:
                counts[node.op] += 1
    return dict(sorted(counts.items()))


def call_flops(call: Call, sizes: Mapping[SizeVar, int] | None = None) -> int:
    """FLOPs of one op call (a multiply-add counts 2); the call must be typed. Symbolic
    dims count at `sizes` (the values of their size variables), else at their bounds."""
    if isinstance(call.op, Function):
        return function_flops(call.op, sizes)
    op_def = get_op(call.op)
    arg_types = [_at_sizes(arg.checked_type, sizes) for arg in call.args]
    return int(op_def.flops(arg_types, _at_sizes(call.checked_type, sizes), call.attrs))


def function_flops(fn: Function, sizes: Mapping[SizeVar, int] | None = None) -> int:
    """FLOPs of all op calls in a typed function (a loop body's counted once); symbolic
    dims at `sizes`, else at their bounds."""
    return sum(call_flops(node, sizes) for node in nodes_everywhere(fn) if isinstance(node, Call))


def _at_sizes(ty: Type, sizes: Mapping[SizeVar, int] | None) -> Type:
    """`ty` with its symbolic dims at `sizes` (static: the shape they give)."""
    if not sizes:
        return ty
    if isinstance(ty, TensorType) and ty.dims:
        return TensorType(tuple(evaluate_dim(dim, sizes) for dim in ty.dims), ty.dtype)
    if isinstance(ty, TupleType):
        return TupleType(tuple(_at_sizes(field, sizes) for field in ty.fields))
    return ty


def fused_functions(fn: Function) -> list[FusedFunctionSummary]:
    """The primitive functions a fused graph calls, in call order (identical ones merged)."""
    summaries: dict[Function, list[Any]] = {}
    names: dict[Function, str] = {}
    for node in nodes_everywhere(fn):
        if isinstance(node, Call) and isinstance(node.op, Function):
            prim = node.op
            if prim in summaries:
                summaries[prim][0] += 1
                continue
            base = str(prim.attrs.get("name", "fn"))
            name, suffix = base, 1
            while name in names.values():
                name, suffix = f"{base}_{suffix}", suffix + 1
            names[prim] = name
            summaries[prim] = [1]
    result = []
    for prim, (count,) in summaries.items():
        ops = tuple(
            n.op for n in post_order(prim.body) if isinstance(n, Call) and isinstance(n.op, str)
        )
        result.append(
            FusedFunctionSummary(names[prim], ops, prim.ret_type, function_flops(prim), count)
        )
    return result


def graph_summary(fn: Function) -> dict[str, Any]:
    """Inputs, outputs, op counts, constant sizes and total FLOPs of a typed function."""
    constants = list({id(n): n for n in nodes_everywhere(fn) if isinstance(n, Constant)}.values())
    body_type = fn.body.checked_type
    outputs = list(body_type.fields) if isinstance(body_type, TupleType) else [body_type]
    return {
        "inputs": [{"name": p.name, **_as_json(p.type_annotation)} for p in fn.params],
        "outputs": [_as_json(ty) for ty in outputs],
        "ops": op_counts(fn),
        "nodes": sum(op_counts(fn).values()),
        "constants": len(constants),
        "constant_bytes": sum(int(c.data.nbytes) for c in constants),
        "flops": function_flops(fn),
    }


def _as_json(ty: Type) -> dict[str, Any]:
    data = type_to_json(ty)
    assert isinstance(data, dict)
    return data
