"""Parallel loops through libgomp: outline the loop, then `GOMP_parallel` runs it on
`target.num_cores` threads, each taking one static chunk of the iterations.

    kernel:   closure = {buffer pointers..., captured values..., extent}
              GOMP_parallel(@worker, &closure, num_cores, 0)
    worker:   chunk = ceil(extent / nthreads); begin = min(tid * chunk, extent)
              @body(pointers..., values..., begin, min(begin + chunk, extent))
    body:     for var in range(begin, end): <loop body>

The body function takes the buffers as `noalias` arguments, so LLVM keeps knowing
they do not overlap after inlining it into the worker. Parallel loops inside a
parallel region run serially: one level of threads is enough on a CPU. So does a loop
whose extents are known only at run time (symbolic dims) when the sizes it is called
with leave it less work than the schedule rules parallelize (`MIN_PARALLEL_WORK`): the
threads would cost more than they save.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import llvmlite.ir as ir

from codegen.llvm.context import FunctionContext, finish_function, new_function_context
from codegen.llvm.dtypes import I32, I64, PTR, VOID, constant, scalar_type
from codegen.llvm.exprs import emit_cast, emit_expr
from codegen.llvm.loops import emit_counted_loop
from ir.schedule.rules.loops import MIN_PARALLEL_WORK
from ir.tir.expr import Buffer, IntImm, Load, PrimExpr, Var
from ir.tir.stmt import For, IfThenElse, LetStmt, Stmt, Store
from ir.tir.visit import walk_expr, walk_stmt
from ir.tir.work import statement_count

EmitStmt = Callable[[FunctionContext, Stmt], None]


def emit_parallel_loop(ctx: FunctionContext, loop: For, emit_stmt: EmitStmt) -> None:
    """Emit a `parallel` loop: outlined and run by GOMP, or serially when already inside a
    parallel region or when the target has one core."""
    extent = emit_cast(ctx, emit_expr(ctx, loop.extent), loop.extent.dtype, loop.var.dtype)
    if ctx.in_parallel or ctx.target.num_cores == 1:
        zero = constant(extent.type, 0)
        emit_counted_loop(ctx, loop.var, zero, extent, lambda: emit_stmt(ctx, loop.body))
        return
    # Step 1. What the body uses from outside: buffers and bound variables.
    used_vars, used_buffers = _uses(loop.body)
    buffers = sorted((b for b in used_buffers if b in ctx.buffers), key=lambda b: b.name)
    variables = sorted((v for v in used_vars if v in ctx.env), key=lambda v: v.name)
    values = [ctx.env[var] for var in variables]
    # Step 2. The closure: one struct on the kernel's stack.
    field_types = [PTR] * len(buffers) + [value.type for value in values] + [extent.type]
    closure_type = ir.LiteralStructType(field_types)
    closure = ctx.entry_alloca(closure_type)
    fields = [ctx.pointer(buffer) for buffer in buffers] + values + [extent]
    for position, value in enumerate(fields):
        slot = ctx.builder.gep(
            closure, [I32(0), I32(position)], inbounds=True, source_etype=closure_type
        )
        ctx.builder.store(value, slot)
    # Step 3. The body function, and the worker every thread runs.
    module_ctx = ctx.module_ctx
    worker_name = module_ctx.unique_name("parallel")
    body = _build_body(ctx, loop, buffers, variables, values, emit_stmt, f"{worker_name}_body")
    worker = _build_worker(ctx, worker_name, closure_type, body)
    # Step 4. Run it: on this thread alone where the run-time sizes leave too little work.
    gomp_parallel = module_ctx.declare("GOMP_parallel", ir.FunctionType(VOID, [PTR, PTR, I32, I32]))
    work = statement_count(loop, ctx.env.keys())
    if work is None or isinstance(work, IntImm):
        ctx.builder.call(gomp_parallel, [worker, closure, I32(ctx.target.num_cores), I32(0)])
        return
    work_value = emit_cast(ctx, emit_expr(ctx, work), work.dtype, "int64")
    small = ctx.builder.icmp_signed("<", work_value, I64(MIN_PARALLEL_WORK))
    with ctx.builder.if_else(small) as (serial, threaded):
        with serial:
            ctx.builder.call(body, [*fields[:-1], constant(extent.type, 0), extent])
        with threaded:
            ctx.builder.call(gomp_parallel, [worker, closure, I32(ctx.target.num_cores), I32(0)])


def _uses(body: Stmt) -> tuple[set[Var], set[Buffer]]:
    variables: set[Var] = set()
    buffers: set[Buffer] = set()
    for stmt in walk_stmt(body):
        for expr in _stmt_exprs(stmt):
            for node in walk_expr(expr):
                if isinstance(node, Var):
                    variables.add(node)
                elif isinstance(node, Load):
                    buffers.add(node.buffer)
        if isinstance(stmt, Store):
            buffers.add(stmt.buffer)
    return variables, buffers


def _stmt_exprs(stmt: Stmt) -> tuple[PrimExpr, ...]:
    if isinstance(stmt, For):
        return (stmt.extent,)
    if isinstance(stmt, Store):
        return (stmt.index, stmt.value)
    if isinstance(stmt, IfThenElse):
        return (stmt.condition,)
    if isinstance(stmt, LetStmt):
        return (stmt.value,)
    return ()


def _build_body(
    ctx: FunctionContext,
    loop: For,
    buffers: list[Buffer],
    variables: list[Var],
    values: list[Any],
    emit_stmt: EmitStmt,
    name: str,
) -> Any:
    loop_type = scalar_type(loop.var.dtype)
    argument_types = [PTR] * len(buffers) + [value.type for value in values]
    function_type = ir.FunctionType(VOID, [*argument_types, loop_type, loop_type])
    function = ir.Function(ctx.module_ctx.module, function_type, name)
    function.linkage = "internal"
    function.attributes.add("nounwind")
    for argument in function.args[: len(buffers)]:
        argument.add_attribute("noalias")
        argument.add_attribute("nonnull")
    body_ctx = new_function_context(ctx.module_ctx, function, in_parallel=True)
    for buffer, argument in zip(buffers, function.args, strict=False):
        body_ctx.buffers[buffer] = argument
    captured = function.args[len(buffers) : len(buffers) + len(values)]
    for var, argument in zip(variables, captured, strict=True):
        body_ctx.env[var] = argument
        if var in ctx.non_negative:
            body_ctx.non_negative.add(var)
    begin, end = function.args[-2], function.args[-1]
    emit_counted_loop(body_ctx, loop.var, begin, end, lambda: emit_stmt(body_ctx, loop.body))
    finish_function(body_ctx)
    return function


def _build_worker(ctx: FunctionContext, name: str, closure_type: Any, body: Any) -> Any:
    module_ctx = ctx.module_ctx
    function = ir.Function(module_ctx.module, ir.FunctionType(VOID, [PTR]), name)
    function.linkage = "internal"
    function.attributes.add("nounwind")
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    closure = function.args[0]
    # Step 1. Unpack the closure.
    fields = []
    for position, field_type in enumerate(closure_type.elements):
        slot = builder.gep(
            closure, [I32(0), I32(position)], inbounds=True, source_etype=closure_type
        )
        fields.append(builder.load(slot, typ=field_type))
    extent = fields.pop()
    # Step 2. This thread's static chunk [begin, end) of [0, extent).
    int_type = extent.type
    omp_type = ir.FunctionType(I32, [])
    thread = builder.call(module_ctx.declare("omp_get_thread_num", omp_type), [])
    threads = builder.call(module_ctx.declare("omp_get_num_threads", omp_type), [])
    thread, threads = builder.zext(thread, I64), builder.zext(threads, I64)
    if int_type != I64:
        thread, threads = builder.trunc(thread, int_type), builder.trunc(threads, int_type)
    zero = constant(int_type, 0)
    count = builder.select(builder.icmp_signed("<", extent, zero), zero, extent)
    chunk = builder.udiv(builder.add(count, builder.sub(threads, constant(int_type, 1))), threads)
    begin = _minimum(builder, builder.mul(thread, chunk), count)
    end = _minimum(builder, builder.add(begin, chunk), count)
    # Step 3. Run the chunk.
    builder.call(body, [*fields, begin, end])
    builder.ret_void()
    return function


def _minimum(builder: ir.IRBuilder, lhs: Any, rhs: Any) -> Any:
    return builder.select(builder.icmp_signed("<", lhs, rhs), lhs, rhs)
