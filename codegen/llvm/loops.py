"""Counted loops with an i64 (or the loop variable's type) induction variable, and the
`!llvm.loop` metadata that asks LLVM to unroll or vectorize them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import llvmlite.ir as ir

from codegen.llvm.context import FunctionContext
from codegen.llvm.dtypes import I1, I32, constant
from ir.tir.expr import Var


def emit_counted_loop(
    ctx: FunctionContext,
    var: Var,
    begin: Any,
    end: Any,
    emit_body: Callable[[], None],
    hints: dict[str, int | bool] | None = None,
) -> None:
    """`for var in range(begin, end): emit_body()` (a signed compare on var's type).

    `hints` become loop metadata, e.g. {"llvm.loop.unroll.full": True}.
    """
    builder = ctx.builder
    name = var.name
    preheader = builder.block
    header = builder.append_basic_block(f"{name}.header")
    body = builder.append_basic_block(f"{name}.body")
    exit_block = builder.append_basic_block(f"{name}.exit")
    builder.branch(header)

    builder.position_at_end(header)
    induction = builder.phi(begin.type, name=name)
    induction.add_incoming(begin, preheader)
    builder.cbranch(builder.icmp_signed("<", induction, end), body, exit_block)

    builder.position_at_end(body)
    # Loops of the IR start at 0 and parallel chunks at a non-negative begin.
    with ctx.bind(var, induction, non_negative=True):
        emit_body()
    step = builder.add(induction, constant(induction.type, 1), name=f"{name}.next", flags=["nsw"])
    induction.add_incoming(step, builder.block)
    back_edge = builder.branch(header)
    if hints:
        back_edge.set_metadata("llvm.loop", loop_metadata(ctx.module_ctx.module, hints))
    builder.position_at_end(exit_block)


def loop_metadata(module: ir.Module, hints: dict[str, int | bool]) -> Any:
    """A distinct, self-referencing `!llvm.loop` node carrying `hints`."""
    properties = []
    for key, value in hints.items():
        operand = I1(int(value)) if isinstance(value, bool) else I32(value)
        properties.append(module.add_metadata([ir.MetaDataString(module, key), operand]))
    # The node must refer to itself (which makes it unique); Module.add_metadata would
    # return a cached, shared node, so build it directly.
    node = ir.values.MDValue(module, [], name=str(len(module.metadata)))
    node.operands = (node, *properties)
    return node
