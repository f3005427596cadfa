"""One LLVM module for the whole model: every kernel, and the entry function that runs them.

    void autotune_model_entry(ptr workspace, ptr weights, ptr inputs, ptr outputs, ptr sizes)

`inputs` and `outputs` are arrays of data pointers, one per model input/output in the
manifest's order; `weights` is the weights blob (weights.bin); `sizes` the int64 values of
the model's size variables (plan.sizes; unused by a static model). Every value lives where
the plan put it, in a slot sized for the upper bounds; a kernel with symbolic dims takes
the values of its size variables after its pointers, and a copy of a symbolic value
computes its byte count from them. The entry calls each kernel
in plan order with pointers into the caller's arrays, the weights or the workspace, then
copies the outputs no kernel wrote in place. An If branches on its condition's byte and a
Loop counts its iterations in its int64 slot of the workspace, which also picks the row a
scan result goes to (plan.py's BranchStep, LoopStep and CopyStep). Kernels are optimised
one by one (the same O3 pipeline as the JIT) and linked in plan order, so the same plan
always gives the same module text, and the same object code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import llvmlite.binding as llvm
import llvmlite.ir as ir
import numpy as np

from codegen.aot.plan import (
    BranchStep,
    CopyStep,
    KernelStep,
    Location,
    LoopStep,
    ModelPlan,
    Step,
    ZeroStep,
)
from codegen.llvm.dtypes import I8, I32, I64, PTR, VOID
from codegen.llvm.jit import LLVM_LOCK, emit_object_code
from codegen.llvm.target import CpuTarget
from ir.errors import IRError
from ir.tir.expr import Binary, IntImm, PrimExpr
from ir.tir.expr import Var as SizeVar
from ir.tir.printer import format_expr

ENTRY_SYMBOL = "autotune_model_entry"


def _entry_module(plan: ModelPlan[str], triple: str, data_layout: str) -> ir.Module:
    module = ir.Module(name="autotune_model")
    module.triple = triple
    module.data_layout = data_layout
    kernels = [
        ir.Function(
            module,
            ir.FunctionType(VOID, [PTR] * len(k.func.params) + [I64] * len(k.func.size_params)),
            k.symbol,
        )
        for k in plan.kernels
    ]
    memcpy = ir.Function(module, ir.FunctionType(PTR, [PTR, PTR, I64]), "memcpy")
    memset = ir.Function(module, ir.FunctionType(PTR, [PTR, I32, I64]), "memset")
    entry = ir.Function(module, ir.FunctionType(VOID, [PTR] * 5), ENTRY_SYMBOL)
    entry.attributes.add("nounwind")
    workspace, weights, inputs, outputs, sizes = entry.args
    workspace.name, weights.name = "workspace", "weights"
    inputs.name, outputs.name, sizes.name = "inputs", "outputs", "sizes"
    builder = ir.IRBuilder(entry.append_basic_block("entry"))

    def load_pointer(array: Any, position: int) -> Any:
        slot = builder.gep(array, [I64(position)], inbounds=True, source_etype=PTR)
        return builder.load(slot, typ=PTR)

    input_pointers = [load_pointer(inputs, i) for i in range(len(plan.inputs))]
    output_pointers = [load_pointer(outputs, i) for i in range(len(plan.outputs))]
    size_values: dict[str, Any] = {}
    for position, size in enumerate(plan.sizes):
        slot = builder.gep(sizes, [I64(position)], inbounds=True, source_etype=I64)
        size_values[size.name] = builder.load(slot, typ=I64, name=size.name)

    def nbytes(value: int) -> Any:
        """The byte count of `value` at run time (its planned size where static)."""
        ty = plan.value_types.get(value)
        if ty is None or not ty.dims:
            return I64(plan.value_bytes[value])
        count = I64(np.dtype(ty.dtype).itemsize)
        for dim in ty.dims:
            count = builder.mul(count, emit_dim(builder, dim, size_values))
        return count

    def pointer(value: int) -> Any:
        location: Location = plan.locations[value]
        if location.kind == "input":
            return input_pointers[location.position]
        if location.kind == "output":
            return output_pointers[location.position]
        base = weights if location.kind == "weight" else workspace
        return builder.gep(base, [I64(location.position)], inbounds=True, source_etype=I8)

    def emit(steps: tuple[Step, ...] | list[Step]) -> None:
        for step in steps:
            if isinstance(step, KernelStep):
                func = plan.kernels[step.kernel].func
                pointers = [pointer(v) for v in (*step.args, *step.outputs)]
                extents = [size_values[var.name] for var in func.size_params]
                builder.call(kernels[step.kernel], pointers + extents)
            elif isinstance(step, CopyStep):
                emit_copy(step)
            elif isinstance(step, ZeroStep):
                builder.call(memset, [pointer(step.target), I32(0), nbytes(step.target)])
            elif isinstance(step, BranchStep):
                flag = builder.load(pointer(step.condition), typ=I8)
                with builder.if_else(builder.icmp_unsigned("!=", flag, I8(0))) as (then, other):
                    with then:
                        emit(step.then_steps)
                    with other:
                        emit(step.else_steps)
            else:
                emit_loop(step)

    def emit_copy(step: CopyStep) -> None:
        target = pointer(step.target)
        if step.row is not None:  # into row `row` of the target, rows of the source's size
            row = builder.load(pointer(step.row), typ=I64)
            offset = builder.mul(row, nbytes(step.source))
            target = builder.gep(target, [offset], inbounds=True, source_etype=I8)
        builder.call(memcpy, [target, pointer(step.source), nbytes(step.source)])

    def emit_loop(step: LoopStep) -> None:
        iteration = pointer(step.iteration)
        builder.store(I64(0), iteration)
        trips = builder.load(pointer(step.trip_count), typ=I64)
        check = builder.append_basic_block("loop_check")
        body = builder.append_basic_block("loop_body")
        done = builder.append_basic_block("loop_done")
        builder.branch(check)
        builder.position_at_end(check)
        count = builder.load(iteration, typ=I64)
        running = builder.icmp_unsigned("!=", builder.load(pointer(step.running), typ=I8), I8(0))
        more = builder.and_(builder.icmp_signed("<", count, trips), running)
        builder.cbranch(more, body, done)
        builder.position_at_end(body)
        emit(step.body)
        builder.store(builder.add(builder.load(iteration, typ=I64), I64(1)), iteration)
        builder.branch(check)
        builder.position_at_end(done)

    emit(plan.steps)
    for value, position in plan.copies:
        builder.call(memcpy, [output_pointers[position], pointer(value), nbytes(value)])
    builder.ret_void()
    return module


def emit_dim(builder: ir.IRBuilder, dim: PrimExpr, sizes: dict[str, Any]) -> Any:
    """The int64 value of a dim expression of size variables (`sizes`: name -> value)."""
    if isinstance(dim, IntImm):
        return I64(dim.value)
    if isinstance(dim, SizeVar):
        return sizes[dim.name]
    if isinstance(dim, Binary) and dim.op in _DIM_OPS:
        lhs, rhs = emit_dim(builder, dim.lhs, sizes), emit_dim(builder, dim.rhs, sizes)
        return _DIM_OPS[dim.op](builder, lhs, rhs)
    raise IRError(f"cannot compute the dim {format_expr(dim)} at run time")


def _floordiv(builder: ir.IRBuilder, lhs: Any, rhs: Any) -> Any:
    quotient = builder.sdiv(lhs, rhs)
    # Round toward negative infinity where the remainder's sign differs from the divisor's.
    remainder = builder.srem(lhs, rhs)
    inexact = builder.icmp_signed("!=", remainder, I64(0))
    signs_differ = builder.icmp_signed("<", builder.xor(remainder, rhs), I64(0))
    return builder.sub(quotient, builder.zext(builder.and_(inexact, signs_differ), I64))


def _floormod(builder: ir.IRBuilder, lhs: Any, rhs: Any) -> Any:
    return builder.sub(lhs, builder.mul(_floordiv(builder, lhs, rhs), rhs))


_DIM_OPS: dict[str, Callable[[ir.IRBuilder, Any, Any], Any]] = {
    "add": lambda builder, a, b: builder.add(a, b),
    "sub": lambda builder, a, b: builder.sub(a, b),
    "mul": lambda builder, a, b: builder.mul(a, b),
    "floordiv": _floordiv,
    "floormod": _floormod,
    "min": lambda builder, a, b: builder.select(builder.icmp_signed("<", a, b), a, b),
    "max": lambda builder, a, b: builder.select(builder.icmp_signed(">", a, b), a, b),
}


def build_model_module(plan: ModelPlan[str], target: CpuTarget) -> str:
    """The LLVM IR text of the whole model: the entry function, then every kernel."""
    kernel_texts = [kernel.code for kernel in plan.kernels]
    with LLVM_LOCK:
        probe = llvm.parse_assembly(kernel_texts[0]) if kernel_texts else None
        triple = probe.triple if probe is not None else target.triple
        data_layout = probe.data_layout if probe is not None else ""
        main = llvm.parse_assembly(str(_entry_module(plan, triple, data_layout)))
        for text in kernel_texts:
            main.link_in(llvm.parse_assembly(text))
        main.verify()
        return str(main)


def model_object_code(llvm_text: str, target: CpuTarget) -> bytes:
    """The model module as a position-independent ELF object."""
    return emit_object_code(llvm_text, target)


def uses_openmp(llvm_text: str) -> bool:
    """Whether the module calls libgomp (parallel kernels)."""
    return "GOMP_parallel" in llvm_text
