"""One LLVM module for the whole model: every kernel, and the entry function that runs them.

    void autotune_model_entry(ptr workspace, ptr weights, ptr inputs, ptr outputs)

`inputs` and `outputs` are arrays of data pointers, one per model input/output in the
manifest's order; `weights` is the weights blob (weights.bin). The entry calls each kernel
in plan order with pointers into the caller's arrays, the weights or the workspace, then
copies the outputs no kernel wrote in place. An If branches on its condition's byte and a
Loop counts its iterations in its int64 slot of the workspace, which also picks the row a
scan result goes to (plan.py's BranchStep, LoopStep and CopyStep). Kernels are optimised
one by one (the same O3 pipeline as the JIT) and linked in plan order, so the same plan
always gives the same module text, and the same object code.
"""

from __future__ import annotations

from typing import Any

import llvmlite.binding as llvm
import llvmlite.ir as ir

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

ENTRY_SYMBOL = "autotune_model_entry"


def _entry_module(plan: ModelPlan[str], triple: str, data_layout: str) -> ir.Module:
    module = ir.Module(name="autotune_model")
    module.triple = triple
    module.data_layout = data_layout
    kernels = [
        ir.Function(module, ir.FunctionType(VOID, [PTR] * len(k.func.params)), k.symbol)
        for k in plan.kernels
    ]
    memcpy = ir.Function(module, ir.FunctionType(PTR, [PTR, PTR, I64]), "memcpy")
    memset = ir.Function(module, ir.FunctionType(PTR, [PTR, I32, I64]), "memset")
    entry = ir.Function(module, ir.FunctionType(VOID, [PTR, PTR, PTR, PTR]), ENTRY_SYMBOL)
    entry.attributes.add("nounwind")
    workspace, weights, inputs, outputs = entry.args
    workspace.name, weights.name = "workspace", "weights"
    inputs.name, outputs.name = "inputs", "outputs"
    builder = ir.IRBuilder(entry.append_basic_block("entry"))

    def load_pointer(array: Any, position: int) -> Any:
        slot = builder.gep(array, [I64(position)], inbounds=True, source_etype=PTR)
        return builder.load(slot, typ=PTR)

    input_pointers = [load_pointer(inputs, i) for i in range(len(plan.inputs))]
    output_pointers = [load_pointer(outputs, i) for i in range(len(plan.outputs))]

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
                builder.call(
                    kernels[step.kernel], [pointer(v) for v in (*step.args, *step.outputs)]
                )
            elif isinstance(step, CopyStep):
                emit_copy(step)
            elif isinstance(step, ZeroStep):
                nbytes = I64(plan.value_bytes[step.target])
                builder.call(memset, [pointer(step.target), I32(0), nbytes])
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
            offset = builder.mul(row, I64(plan.value_bytes[step.source]))
            target = builder.gep(target, [offset], inbounds=True, source_etype=I8)
        nbytes = I64(plan.value_bytes[step.source])
        builder.call(memcpy, [target, pointer(step.source), nbytes])

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
        nbytes = plan.value_bytes[value]
        builder.call(memcpy, [output_pointers[position], pointer(value), I64(nbytes)])
    builder.ret_void()
    return module


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
