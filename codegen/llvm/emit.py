"""Loop IR kernels (PrimFunc) to LLVM IR modules.

The kernel is `void @name(ptr noalias nonnull %param0, ...)`, one pointer per buffer
parameter (inputs, then outputs), plus `void @name_packed(ptr %args)` taking an
array of those pointers: one calling convention for every kernel, for runtimes.

Statements map one to one: serial loops to counted loops, unrolled loops to copies
of their body, vectorized loops to vector code (vectorize.py), parallel loops to
GOMP regions (parallel.py), allocations to stack arrays or the heap; a loop over columns
around vectorized loops that read down a column becomes row loads and shuffles
(transpose.py), and a 4-step sum of byte products around an int32 vector one vpdpbusd per
vector (dot_product.py).
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from codegen.errors import CodegenError
from codegen.llvm.affine import is_non_negative
from codegen.llvm.context import (
    FunctionContext,
    ModuleContext,
    finish_function,
    new_function_context,
)
from codegen.llvm.dot_product import emit_dot_product
from codegen.llvm.dtypes import (
    I32,
    I64,
    PTR,
    VOID,
    check_dtype,
    constant,
    is_float,
    item_bytes,
    lanes_of,
    memory_type,
    scalar_type,
    splat,
    unify,
)
from codegen.llvm.exprs import emit_cast, emit_expr, emit_index
from codegen.llvm.loops import emit_counted_loop
from codegen.llvm.memory import (
    Access,
    classify_access,
    load_contiguous,
    scatter,
    store_contiguous,
    store_scalar,
)
from codegen.llvm.parallel import emit_parallel_loop
from codegen.llvm.target import CpuTarget
from codegen.llvm.transpose import emit_transposed_nest
from codegen.llvm.value_ranges import variable_ranges
from codegen.llvm.vectorize import bind_vector_let, emit_vectorized_loop
from ir.tir.expr import Buffer, IntImm, PrimExpr, binary
from ir.tir.stmt import (
    Allocate,
    Barrier,
    For,
    IfThenElse,
    LetStmt,
    PrimFunc,
    Seq,
    Stmt,
    Store,
)

MAX_UNROLL_COPIES = 64
MAX_STACK_BYTES = 64 * 1024
HEAP_ALIGN_BYTES = 64


def build_module(func: PrimFunc, target: CpuTarget) -> ir.Module:
    """The LLVM module of kernel `func` (unoptimised, not yet verified)."""
    _check_params(func)
    module = ir.Module(name=func.name)
    module_ctx = ModuleContext(module, target, func.name, variable_ranges(func))
    arguments = [PTR] * len(func.params) + [I64] * len(func.size_params)
    kernel = ir.Function(module, ir.FunctionType(VOID, arguments), func.name)
    kernel.attributes.add("nounwind")
    ctx = new_function_context(module_ctx, kernel)
    for buffer, argument in zip(func.params, kernel.args[: len(func.params)], strict=True):
        argument.name = buffer.name
        argument.add_attribute("noalias")
        argument.add_attribute("nonnull")
        ctx.buffers[buffer] = argument
    for var, argument in zip(func.size_params, kernel.args[len(func.params) :], strict=True):
        argument.name = var.name
        ctx.env[var] = argument
        ctx.non_negative.add(var)
    emit_stmt(ctx, func.body)
    finish_function(ctx)
    _emit_packed_entry(module, kernel)
    return module


def _check_params(func: PrimFunc) -> None:
    seen: set[str] = set()
    for buffer in func.params:
        check_dtype(buffer.dtype)
        if buffer.name in seen:
            raise CodegenError(f"{func.name}: two parameters are named {buffer.name!r}")
        seen.add(buffer.name)
    for var in func.size_params:
        if var.dtype != "int64" or var.name in seen:
            raise CodegenError(
                f"{func.name}: size parameter {var.name!r} must be an int64 of its own name"
            )
        seen.add(var.name)


def _emit_packed_entry(module: ir.Module, kernel: Any) -> None:
    """`<kernel>_packed(void **args)`: the buffers' pointers, then each size parameter's
    value in a slot of its own (an int64 where a pointer would be)."""
    packed = ir.Function(module, ir.FunctionType(VOID, [PTR]), f"{kernel.name}_packed")
    packed.attributes.add("nounwind")
    builder = ir.IRBuilder(packed.append_basic_block("entry"))
    pointers = []
    for position, argument in enumerate(kernel.args):
        slot = builder.gep(packed.args[0], [I64(position)], inbounds=True, source_etype=PTR)
        pointers.append(builder.load(slot, typ=argument.type))
    builder.call(kernel, pointers)
    builder.ret_void()


def emit_stmt(ctx: FunctionContext, stmt: Stmt) -> None:
    """Emit `stmt` at the builder's position."""
    if isinstance(stmt, Seq):
        for child in stmt.stmts:
            emit_stmt(ctx, child)
    elif isinstance(stmt, Store):
        _emit_store(ctx, stmt)
    elif isinstance(stmt, For):
        _emit_for(ctx, stmt)
    elif isinstance(stmt, Allocate):
        _emit_allocate(ctx, stmt)
    elif isinstance(stmt, IfThenElse):
        _emit_if(ctx, stmt)
    elif isinstance(stmt, LetStmt):
        _emit_let(ctx, stmt)
    elif isinstance(stmt, Barrier):
        pass  # threads of a CPU kernel never share a block: nothing to wait for
    else:
        raise CodegenError(f"cannot compile statement {type(stmt).__name__}")


def _emit_store(ctx: FunctionContext, store: Store) -> None:
    buffer = store.buffer
    if store.value.dtype != buffer.dtype:
        raise CodegenError(
            f"store of a {store.value.dtype} value into {buffer.dtype} buffer {buffer.name}"
        )
    access = classify_access(ctx, store.index)
    if access.kind == "strided":
        access = Access("scattered", store.index)  # strided stores go lane by lane
    index = emit_index(ctx, access.index)
    if access.kind == "contiguous" and lanes_of(index) > 1:
        index = emit_index(ctx, store.index)  # lane 0's index came out per lane
        access = Access("scattered", store.index)
    value = emit_expr(ctx, store.value)
    mask = ctx.mask
    if lanes_of(index) > 1 or (mask is not None and access.kind != "contiguous"):
        scatter(ctx, buffer, index, value, mask)
    elif mask is not None and access.kind == "contiguous" and _within_stack(ctx, buffer, index):
        # A partial tile's lanes in a stack array that holds them all: blend, store them all.
        old = load_contiguous(ctx, buffer, index, ctx.lanes)
        vector = splat(ctx.builder, value, ctx.lanes)
        store_contiguous(ctx, buffer, index, ctx.builder.select(mask, vector, old))
    elif access.kind == "contiguous":
        store_contiguous(ctx, buffer, index, splat(ctx.builder, value, ctx.lanes), mask)
    elif lanes_of(value) > 1:
        # Every lane writes the same element: the last lane's write is the one that stays.
        last = ctx.builder.extract_element(value, I32(lanes_of(value) - 1))
        store_scalar(ctx, buffer, index, last)
    else:
        store_scalar(ctx, buffer, index, value)


def _within_stack(ctx: FunctionContext, buffer: Buffer, first: Any) -> bool:
    """Whether `buffer` is a stack array and the lanes from element `first` (a constant:
    the unrolled offset of a register tile) all lie in it."""
    if buffer not in ctx.stack_buffers or not isinstance(first, ir.Constant):
        return False
    start = first.constant
    return isinstance(start, int) and start >= 0 and start + ctx.lanes <= buffer.size


def _emit_for(ctx: FunctionContext, loop: For) -> None:
    if is_float(loop.var.dtype) or loop.var.dtype == "bool":
        raise CodegenError(
            f"loop variable {loop.var.name} must be an integer; got {loop.var.dtype}"
        )
    if loop.kind == "vectorized":
        emit_vectorized_loop(ctx, loop, emit_stmt)
    elif loop.kind == "parallel":
        emit_parallel_loop(ctx, loop, emit_stmt)
    elif emit_dot_product(ctx, loop) or emit_transposed_nest(ctx, loop, emit_stmt):
        pass
    elif loop.kind == "unrolled":
        _emit_unrolled(ctx, loop)
    elif loop.kind == "serial":
        end = _loop_end(ctx, loop)
        begin = constant(end.type, 0)
        emit_counted_loop(ctx, loop.var, begin, end, lambda: emit_stmt(ctx, loop.body))
    elif loop.kind == "thread_binding":
        raise CodegenError(
            f"loop {loop.var.name} is bound to {loop.thread_tag or 'a GPU thread axis'}; "
            "thread bindings are for GPU targets, not llvm"
        )
    else:
        raise CodegenError(f"unknown loop kind {loop.kind!r} for loop {loop.var.name}")


def _loop_end(ctx: FunctionContext, loop: For) -> Any:
    return emit_cast(ctx, emit_expr(ctx, loop.extent), loop.extent.dtype, loop.var.dtype)


def _emit_unrolled(ctx: FunctionContext, loop: For) -> None:
    extent = loop.extent
    if isinstance(extent, IntImm) and extent.value <= MAX_UNROLL_COPIES:
        for iteration in range(extent.value):
            value = constant(scalar_type(loop.var.dtype), iteration)
            with ctx.bind(loop.var, value, non_negative=True):
                emit_stmt(ctx, loop.body)
        return
    # Too many copies to write out (or an unknown count): let LLVM unroll it.
    hint = "llvm.loop.unroll.full" if isinstance(extent, IntImm) else "llvm.loop.unroll.enable"
    end = _loop_end(ctx, loop)
    emit_counted_loop(
        ctx,
        loop.var,
        constant(end.type, 0),
        end,
        lambda: emit_stmt(ctx, loop.body),
        hints={hint: True},
    )


def _emit_allocate(ctx: FunctionContext, allocate: Allocate) -> None:
    buffer = allocate.buffer
    element_type = memory_type(buffer.dtype)
    size_bytes = buffer.size * item_bytes(buffer.dtype)
    if size_bytes <= MAX_STACK_BYTES:
        with (
            ctx.stack_array(element_type, buffer.size) as pointer,
            ctx.bind_buffer(buffer, pointer),
        ):
            ctx.stack_buffers.add(buffer)
            try:
                emit_stmt(ctx, allocate.body)
            finally:
                ctx.stack_buffers.discard(buffer)
        return
    # Too big for a thread's stack: the heap, 64-byte aligned (aligned_alloc wants the
    # size to be a multiple of the alignment).
    module_ctx = ctx.module_ctx
    aligned_alloc = module_ctx.declare("aligned_alloc", ir.FunctionType(PTR, [I64, I64]))
    free = module_ctx.declare("free", ir.FunctionType(VOID, [PTR]))
    if buffer.dims:  # (symbolic: the run-time size, not the upper bound's)
        elements: PrimExpr = buffer.dims[0]
        for dim in buffer.dims[1:]:
            elements = binary("mul", elements, dim)
        size = binary("mul", elements, item_bytes(buffer.dtype))
        padded = binary(
            "mul",
            binary("floordiv", binary("add", size, HEAP_ALIGN_BYTES - 1), HEAP_ALIGN_BYTES),
            HEAP_ALIGN_BYTES,
        )
        padded_bytes = emit_cast(ctx, emit_expr(ctx, padded), padded.dtype, "int64")
    else:
        padded_bytes = I64(-(-size_bytes // HEAP_ALIGN_BYTES) * HEAP_ALIGN_BYTES)
    pointer = ctx.builder.call(aligned_alloc, [I64(HEAP_ALIGN_BYTES), padded_bytes])
    with ctx.bind_buffer(buffer, pointer):
        emit_stmt(ctx, allocate.body)
    ctx.builder.call(free, [pointer])


def _emit_if(ctx: FunctionContext, branch: IfThenElse) -> None:
    condition = emit_expr(ctx, branch.condition)
    if lanes_of(condition) > 1:
        if branch.else_case is not None:
            raise CodegenError(f"condition {branch.condition} differs between vector lanes")
        # A guard on some lanes (a partial tile): its stores and loads are masked.
        saved = ctx.mask
        ctx.mask = (
            condition if saved is None else ctx.builder.and_(*unify(ctx.builder, saved, condition))
        )
        try:
            emit_stmt(ctx, branch.then_case)
        finally:
            ctx.mask = saved
        return
    if branch.else_case is None:
        with ctx.builder.if_then(condition):
            emit_stmt(ctx, branch.then_case)
        return
    with ctx.builder.if_else(condition) as (then_block, else_block):
        with then_block:
            emit_stmt(ctx, branch.then_case)
        with else_block:
            emit_stmt(ctx, branch.else_case)


def _emit_let(ctx: FunctionContext, let: LetStmt) -> None:
    value = emit_expr(ctx, let.value)
    non_negative = not is_float(let.var.dtype) and is_non_negative(let.value, ctx.non_negative)
    with ctx.bind(let.var, value, non_negative=non_negative):
        if lanes_of(value) > 1:
            with bind_vector_let(ctx, let.var, let.value):
                emit_stmt(ctx, let.body)
        else:
            emit_stmt(ctx, let.body)
