"""The JIT model executor: compile every fused function of a graph and run it with numpy.

Each primitive function becomes a TE program, gets a schedule (the default one, or one a
`ScheduleProvider` supplies, e.g. from tuning records), is lowered and JIT-compiled.
Identical fused functions share one kernel. Constant arguments are prepared once (with the
layout rewrites their schedule asks for); intermediate arrays are allocated once and reused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.llvm import CompiledKernel, Target, compile_kernel, host_target
from codegen.runtime.loader import aligned_copy, aligned_empty
from ir.errors import AutotuneError, IRError
from ir.graph.nodes import Call, Constant, Function, Tuple, TupleGetItem, Var
from ir.graph.traversal import post_order
from ir.graph.types import TensorType, TupleType, Type
from ir.lower import lower
from ir.schedule.default import default_schedule
from ir.schedule.hardware import HardwareParams
from ir.schedule.schedule import Schedule
from ir.te.program import TEProgram, function_to_te

ScheduleProvider = Callable[[Function, TEProgram, frozenset[str]], Schedule | None]


class InputError(AutotuneError):
    """A model input is missing or has the wrong shape or dtype."""


def hardware_of(target: Target) -> HardwareParams:
    """The schedule-relevant parameters of a CPU target."""
    return HardwareParams(
        vector_bytes=target.vector_bits // 8,
        num_cores=target.num_cores,
        # x86 has 16 vector registers, 32 with AVX-512 (the default); AArch64 has 32.
        vector_registers=32 if target.triple.startswith(("aarch64", "arm64")) else 0,
    )


@dataclass
class _Step:
    kernel: CompiledKernel
    args: list[int]  # value slots passed as inputs
    outputs: list[int]  # value slots written
    name: str


def _tensor_types(ty: Type) -> list[TensorType]:
    if isinstance(ty, TensorType):
        return [ty]
    if isinstance(ty, TupleType):
        return [t for field in ty.fields for t in _tensor_types(field)]
    raise IRError(f"unsupported value type {ty}")


class CompiledModel:
    """A fused, typed graph compiled to kernels; call `run` with named numpy inputs."""

    def __init__(
        self,
        fn: Function,
        target: Target | None = None,
        schedule_provider: ScheduleProvider | None = None,
    ) -> None:
        self.function = fn
        self.target = target or host_target()
        self.hardware = hardware_of(self.target)
        self.provider = schedule_provider
        self.params = [(p.name, p.type_annotation) for p in fn.params]
        self.kernels: dict[Function, tuple[CompiledKernel, Schedule]] = {}
        self._values: list[np.ndarray | None] = []
        self._steps: list[_Step] = []
        self._input_slots: dict[str, int] = {}
        self._result: Any = None
        self._build()

    # -- building --------------------------------------------------------------------------

    def _new_slot(self, value: np.ndarray | None = None) -> int:
        self._values.append(value)
        return len(self._values) - 1

    def _kernel_for(
        self, prim: Function, constants: frozenset[str]
    ) -> tuple[CompiledKernel, Schedule]:
        cached = self.kernels.get(prim)
        if cached is not None and cached[1] is not None:
            return cached
        program = function_to_te(prim)
        schedule = None
        if self.provider is not None:
            schedule = self.provider(prim, program, constants)
        if schedule is None:
            schedule = default_schedule(program, self.hardware, constants)
        kernel = compile_kernel(lower(schedule), self.target)
        self.kernels[prim] = (kernel, schedule)
        return kernel, schedule

    def _build(self) -> None:
        slots: dict[int, Any] = {}  # node id -> slot index or tuple of slot structures
        for param in self.function.params:
            ty = param.type_annotation
            if not isinstance(ty, TensorType):
                raise IRError(f"input %{param.name} must be a tensor, got {ty}")
            slot = self._new_slot()
            self._input_slots[param.name] = slot
            slots[id(param)] = slot
        for node in post_order(self.function.body):
            if id(node) in slots:
                continue
            if isinstance(node, Var):
                raise IRError(f"free variable %{node.name} in the model")
            if isinstance(node, Constant):
                slots[id(node)] = self._new_slot(aligned_copy(node.data))
            elif isinstance(node, Tuple):
                slots[id(node)] = tuple(slots[id(f)] for f in node.fields)
            elif isinstance(node, TupleGetItem):
                slots[id(node)] = slots[id(node.tuple_value)][node.index]
            elif isinstance(node, Call):
                slots[id(node)] = self._build_call(node, slots)
            else:
                raise IRError(f"cannot execute {type(node).__name__} in the main function")
        self._result = slots[id(self.function.body)]

    def _build_call(self, node: Call, slots: Mapping[int, Any]) -> Any:
        if not isinstance(node.op, Function):
            raise IRError(
                f"{node.op_name}: the model must be fused (run the pass pipeline) before compiling"
            )
        prim = node.op
        constants = frozenset(
            f"p{i}" for i, arg in enumerate(node.args) if isinstance(arg, Constant)
        )
        kernel, schedule = self._kernel_for(prim, constants)
        args: list[int] = []
        for index, arg in enumerate(node.args):
            slot = slots[id(arg)]
            if not isinstance(slot, int):
                raise IRError(f"{prim.attrs.get('name')}: tuple arguments are not supported")
            layout = schedule.input_layouts.get(f"p{index}")
            if layout is not None:
                if not isinstance(arg, Constant):
                    raise IRError(f"layout rewrite of non-constant input p{index}")
                slot = self._new_slot(aligned_copy(layout.apply(arg.data)))
            args.append(slot)
        outputs = [  # (aligned as the artifact's workspace is: kernels run as measured)
            self._new_slot(aligned_empty(t.shape, t.dtype))
            for t in _tensor_types(node.checked_type)
        ]
        self._steps.append(_Step(kernel, args, outputs, kernel.name))
        if isinstance(node.checked_type, TupleType):
            return tuple(outputs)
        return outputs[0]

    # -- running ---------------------------------------------------------------------------

    def check_inputs(self, inputs: Mapping[str, np.ndarray]) -> None:
        """Raise InputError naming the input when one is missing, unknown or mistyped."""
        check_model_inputs(self.function, inputs)

    def run(self, inputs: Mapping[str, np.ndarray]) -> Any:
        """Run the model; returns an array, or a tuple of arrays for tuple outputs."""
        self.check_inputs(inputs)
        values = self._values
        for name, slot in self._input_slots.items():
            values[slot] = np.require(inputs[name], requirements=["C", "W"])
        for step in self._steps:
            step.kernel(*(values[i] for i in step.args), *(values[i] for i in step.outputs))
        return self._collect(self._result)

    def _collect(self, slot: Any) -> Any:
        if isinstance(slot, tuple):
            return tuple(self._collect(item) for item in slot)
        value = self._values[slot]
        assert value is not None
        return value.copy()

    @property
    def num_kernels(self) -> int:
        """Distinct compiled kernels."""
        return len(self.kernels)

    def kernel_schedules(self) -> Sequence[tuple[Function, Schedule]]:
        """Each distinct fused function with the schedule it was compiled with."""
        return [(prim, schedule) for prim, (_, schedule) in self.kernels.items()]


def check_model_inputs(fn: Function, inputs: Mapping[str, np.ndarray]) -> None:
    """Raise InputError naming the input when one is missing, unknown or mistyped."""
    names = [param.name for param in fn.params]
    unknown = sorted(set(inputs) - set(names))
    if unknown:
        raise InputError(f"unknown input(s) {unknown}; the model's inputs are {names}")
    for param in fn.params:
        ty = param.type_annotation
        assert isinstance(ty, TensorType)
        if param.name not in inputs:
            raise InputError(
                f"missing input {param.name!r} (expected shape {list(ty.shape)} {ty.dtype})"
            )
        value = np.asarray(inputs[param.name])
        if value.shape != ty.shape or value.dtype.name != ty.dtype:
            raise InputError(
                f"input {param.name!r}: expected shape {list(ty.shape)} {ty.dtype}, "
                f"got shape {list(value.shape)} {value.dtype.name}"
            )


def compile_model(
    fn: Function,
    target: Target | None = None,
    schedule_provider: ScheduleProvider | None = None,
) -> CompiledModel:
    """Compile a fused, typed graph (the output of the pass pipeline) for `target`."""
    return CompiledModel(fn, target, schedule_provider)
