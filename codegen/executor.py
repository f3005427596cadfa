"""The JIT model executor: a graph planned as an artifact is (`codegen.aot.plan`), with its
kernels JIT-compiled in this process and run on numpy arrays.

The plan is the artifact's: each fused function gets its schedule from the chooser (a
tuned record, or the default one), constant arguments get their layout rewrites once into
one aligned weights buffer, and every intermediate tensor lives at its offset in one
aligned workspace by the liveness-based memory plan; kernel outputs that are model outputs
are written straight into fresh output arrays.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.aot.plan import (
    BranchStep,
    CopyStep,
    KernelBackend,
    KernelStep,
    ModelPlan,
    Step,
    ZeroStep,
    cpu_default,
    plan_model_with,
)
from codegen.aot.schedules import ScheduleChooser, TaskCoverage, default_chooser
from codegen.llvm import CompiledKernel, CpuTarget, compile_kernel, host_target
from codegen.llvm.jit import BoundKernel
from codegen.runtime.aligned import aligned_empty
from codegen.runtime.input_check import shape_difference
from ir.errors import AutotuneError, IRError
from ir.graph.nodes import Function
from ir.graph.types import TensorType, TupleType, Type
from ir.schedule.schedule import Schedule
from ir.tir.expr import IntImm
from ir.tir.expr import Var as SizeVar
from ir.tir.printer import format_expr
from ir.tir.sizes import SizeBindingError, SizedOperand, bind_operand_sizes, evaluate_dim


class InputError(AutotuneError):
    """A model input is missing or has the wrong shape or dtype."""


@dataclass(frozen=True)
class KernelCall:
    """One kernel call of an inference: the kernel and the arrays it is called with
    (inputs, then outputs), bound to one run's model inputs and outputs (checked once)."""

    name: str
    kernel: CompiledKernel
    arrays: tuple[np.ndarray, ...]
    bound: BoundKernel

    def __call__(self) -> None:
        """Run the kernel on its arrays."""
        self.bound()


@dataclass(frozen=True)
class CopyCall:
    """Copy one array into another of the same size (control flow's moves)."""

    name: str
    arrays: tuple[np.ndarray, ...]  # (source, target)

    def __call__(self) -> None:
        """Copy the source's bytes into the target."""
        source, target = self.arrays
        target.reshape(-1).view(np.uint8)[...] = source.reshape(-1).view(np.uint8)


@dataclass(frozen=True)
class RowCopyCall:
    """Copy one array into the row of another that an int64 array (a loop's iteration)
    names now (a loop's scan outputs)."""

    name: str
    arrays: tuple[np.ndarray, ...]  # (source, target, row)

    def __call__(self) -> None:
        """Copy the source's bytes into its row of the target."""
        source, target, row = self.arrays
        flat = source.reshape(-1).view(np.uint8)
        start = int(row) * flat.size
        target.reshape(-1).view(np.uint8)[start : start + flat.size] = flat


@dataclass(frozen=True)
class ZeroCall:
    """Set an array's bytes to zero."""

    name: str
    arrays: tuple[np.ndarray, ...]  # (target,)

    def __call__(self) -> None:
        """Zero the target."""
        self.arrays[0].reshape(-1).view(np.uint8)[...] = 0


@dataclass(frozen=True)
class BranchCall:
    """An If: runs the calls of the branch its one-element bool array picks."""

    name: str
    condition: np.ndarray
    then_calls: tuple[InferenceCall, ...]
    else_calls: tuple[InferenceCall, ...]
    arrays: tuple[np.ndarray, ...] = ()

    def taken(self) -> tuple[InferenceCall, ...]:
        """The calls of the branch the condition picks now."""
        return self.then_calls if bool(self.condition.reshape(-1)[0]) else self.else_calls

    def __call__(self) -> None:
        """Run the branch taken."""
        for call in self.taken():
            call()


@dataclass(frozen=True)
class LoopCall:
    """A Loop: runs its body's calls while the iteration is below the trip count and the
    running flag holds."""

    name: str
    trip_count: np.ndarray
    running: np.ndarray
    iteration: np.ndarray
    body: tuple[InferenceCall, ...]
    arrays: tuple[np.ndarray, ...] = ()

    def run_with(self, run_body: Callable[[tuple[InferenceCall, ...]], None]) -> None:
        """Run the loop, each pass of its body by `run_body(self.body)`."""
        self.iteration[...] = 0
        trips = int(self.trip_count.reshape(-1)[0])
        while int(self.iteration) < trips and bool(self.running):
            run_body(self.body)
            self.iteration[...] += 1

    def __call__(self) -> None:
        """Run the loop."""
        self.run_with(_run_all)


# One unit of an inference; `call()` runs it.
InferenceCall = KernelCall | CopyCall | RowCopyCall | ZeroCall | BranchCall | LoopCall


def _run_all(calls: Sequence[InferenceCall]) -> None:
    for call in calls:
        call()


def run_observed(calls: Sequence[InferenceCall], observe: Callable[[KernelCall], None]) -> None:
    """Run `calls` as an inference does, except that each kernel call, however deep in
    branches and loops, is run by `observe(call)` (which must run it: a timer, say)."""
    for call in calls:
        if isinstance(call, KernelCall):
            observe(call)
        elif isinstance(call, BranchCall):
            run_observed(call.taken(), observe)
        elif isinstance(call, LoopCall):
            call.run_with(lambda body: run_observed(body, observe))
        else:
            call()


@dataclass(frozen=True)
class BoundRun:
    """One inference's calls bound to its arrays, in order (kernel calls, and the copies,
    branches and loops of control flow); `finish` after running them all."""

    calls: list[InferenceCall]
    outputs: list[np.ndarray]
    copies: list[tuple[np.ndarray, int]]  # (array, output position) no kernel writes
    result_type: Type

    def finish(self) -> Any:
        """Copy the outputs no kernel writes (an input or a weight returned as it is) and
        give the model's result: an array, or a tuple of arrays."""
        for array, position in self.copies:
            self.outputs[position][...] = array
        return _shaped(self.result_type, iter(self.outputs))


def _view(buffer: np.ndarray, offset: int, shape: tuple[int, ...], dtype_name: str) -> np.ndarray:
    dtype = np.dtype(dtype_name)
    count = int(np.prod(shape, dtype=np.int64))
    raw = buffer[offset : offset + count * dtype.itemsize]
    return raw.view(dtype).reshape(shape)


def runtime_shape(ty: TensorType, sizes: Mapping[SizeVar, int]) -> tuple[int, ...]:
    """The shape of a value of type `ty` when its size variables are `sizes` (its static
    shape where it has no symbolic dims)."""
    if not ty.dims:
        return ty.shape
    return tuple(evaluate_dim(dim, sizes) for dim in ty.dims)


SIZES_KEPT = 8  # the sets of size values whose bound calls a symbolic model keeps


@dataclass
class _AtSizes:
    """A symbolic model at one set of size values: the views of its symbolic
    intermediates and the kernel calls on those (and weights) alone, bound once."""

    sizes: dict[SizeVar, int]
    arrays: dict[int, np.ndarray]
    calls: dict[KernelStep, KernelCall]


class CompiledModel:
    """A fused, typed graph compiled to kernels; call `run` with named numpy inputs."""

    def __init__(
        self,
        fn: Function,
        target: CpuTarget | None = None,
        chooser: ScheduleChooser | None = None,
        bound_values: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        self.function = fn
        self.target = target or host_target()
        # Model inputs the graph was specialised to (see codegen.prepare.prepare_for_inputs):
        # each run must feed these same values.
        self.bound_values: dict[str, np.ndarray] = dict(bound_values or {})
        backend = KernelBackend(
            compile=lambda func: compile_kernel(func, self.target),
            default=cpu_default(self.target.hardware),
        )
        self.plan: ModelPlan[CompiledKernel] = plan_model_with(
            fn, backend, chooser or default_chooser
        )
        self._weights = self.plan.weights.take_aligned_array()
        self._workspace = aligned_empty((max(1, self.plan.memory.workspace_bytes),), np.uint8)
        # Arrays of the values that stay put between runs (weights and intermediates).
        self._fixed: dict[int, np.ndarray] = {}
        self._input_values: dict[int, int] = {}  # value id -> input position
        self._output_values: dict[int, int] = {}  # value id -> output position
        # Intermediates of symbolic shapes: a view of the shape its sizes give, in the slot
        # planned for the upper bounds; those views and the kernel calls on them, by sizes.
        self._sized: dict[int, tuple[int, TensorType]] = {}
        self._by_sizes: OrderedDict[tuple[tuple[str, int], ...], _AtSizes] = OrderedDict()
        # Kernel calls on weights and intermediates alone, bound once: re-binding every
        # kernel on every run cost about a quarter of a small model's latency.
        self._fixed_calls: dict[KernelStep, KernelCall] = {}
        for value, location in self.plan.locations.items():
            ty = self.plan.value_types[value]
            if location.kind == "weight":
                self._fixed[value] = _view(self._weights, location.position, ty.shape, ty.dtype)
            elif location.kind == "workspace" and ty.dims:
                self._sized[value] = (location.position, ty)
            elif location.kind == "workspace":
                self._fixed[value] = _view(self._workspace, location.position, ty.shape, ty.dtype)
            elif location.kind == "input":
                self._input_values[value] = location.position
            else:
                self._output_values[value] = location.position
        # Each output's type (its value's, or the input's or weight's returned as it is).
        self._output_types = [TensorType(spec.shape, spec.dtype) for spec in self.plan.outputs]
        for value, position in (*self._output_values.items(), *self.plan.copies):
            self._output_types[position] = self.plan.value_types[value]

    # -- running ---------------------------------------------------------------------------

    def check_inputs(self, inputs: Mapping[str, np.ndarray]) -> dict[SizeVar, int]:
        """The size variables the inputs' shapes bind (none for a static model); InputError
        naming the input (and the dim) when one is missing, unknown or mistyped, outside
        its bounds, or differs from the value the model was specialised to."""
        for name, bound in self.bound_values.items():
            check_bound_input(name, bound, inputs)
        return check_model_inputs(
            self.function,
            {name: value for name, value in inputs.items() if name not in self.bound_values},
        )

    def bind(self, inputs: Mapping[str, np.ndarray]) -> BoundRun:
        """One inference bound to `inputs` (checked) and to fresh output arrays: its
        kernel calls in order, ready to run."""
        sizes = self.check_inputs(inputs)
        at = self._at_sizes(sizes)
        arrays = {**self._fixed, **at.arrays}
        names = [param.name for param in self.function.params]
        for value, position in self._input_values.items():
            arrays[value] = np.require(inputs[names[position]], requirements=["C", "W"])
        outputs = [aligned_empty(runtime_shape(ty, sizes), ty.dtype) for ty in self._output_types]
        for value, position in self._output_values.items():
            arrays[value] = outputs[position]
        calls = self._bind_steps(self.plan.steps, arrays, at)
        copies = [(arrays[value], position) for value, position in self.plan.copies]
        return BoundRun(calls, outputs, copies, self.function.body.checked_type)

    def _at_sizes(self, sizes: Mapping[SizeVar, int]) -> _AtSizes:
        """The views and kernel calls of these size values: made on their first run,
        then kept (for the last few sets of values a model ran at)."""
        key = tuple(sorted((var.name, value) for var, value in sizes.items()))
        at = self._by_sizes.get(key)
        if at is None:
            arrays = {
                value: _view(self._workspace, position, runtime_shape(ty, sizes), ty.dtype)
                for value, (position, ty) in self._sized.items()
            }
            at = self._by_sizes[key] = _AtSizes(dict(sizes), arrays, {})
            while len(self._by_sizes) > SIZES_KEPT:
                self._by_sizes.popitem(last=False)
        self._by_sizes.move_to_end(key)
        return at

    def _bind_steps(
        self, steps: Sequence[Step], arrays: dict[int, np.ndarray], at: _AtSizes
    ) -> list[InferenceCall]:
        calls: list[InferenceCall] = []
        for step in steps:
            if isinstance(step, KernelStep):
                kept = self._fixed_calls.get(step) or at.calls.get(step)
                calls.append(kept or self._bind_kernel(step, arrays, at))
            elif isinstance(step, CopyStep) and step.row is not None:
                row_arrays = (arrays[step.source], arrays[step.target], arrays[step.row])
                calls.append(RowCopyCall("copy_row", row_arrays))
            elif isinstance(step, CopyStep):
                calls.append(CopyCall("copy", (arrays[step.source], arrays[step.target])))
            elif isinstance(step, ZeroStep):
                calls.append(ZeroCall("zero", (arrays[step.target],)))
            elif isinstance(step, BranchStep):
                then_calls = tuple(self._bind_steps(step.then_steps, arrays, at))
                else_calls = tuple(self._bind_steps(step.else_steps, arrays, at))
                calls.append(BranchCall("if", arrays[step.condition], then_calls, else_calls))
            else:
                body = tuple(self._bind_steps(step.body, arrays, at))
                loop = LoopCall(
                    "loop",
                    arrays[step.trip_count],
                    arrays[step.running],
                    arrays[step.iteration],
                    body,
                )
                calls.append(loop)
        return calls

    def _bind_kernel(
        self, step: KernelStep, arrays: dict[int, np.ndarray], at: _AtSizes
    ) -> KernelCall:
        kernel = self.plan.kernels[step.kernel].code
        values = (*step.args, *step.outputs)
        bound = tuple(arrays[v] for v in values)
        call = KernelCall(kernel.name, kernel, bound, kernel.bind(*bound, sizes=at.sizes or None))
        if all(v in self._fixed for v in values):
            self._fixed_calls[step] = call
        elif all(v in self._fixed or v in at.arrays for v in values):
            at.calls[step] = call
        return call

    def run(self, inputs: Mapping[str, np.ndarray]) -> Any:
        """Run the model; returns an array, or a tuple of arrays for tuple outputs."""
        bound = self.bind(inputs)
        for call in bound.calls:
            call()
        return bound.finish()

    @property
    def num_kernels(self) -> int:
        """Distinct compiled kernels."""
        return len(self.plan.kernels)

    @property
    def coverage(self) -> list[TaskCoverage]:
        """Per distinct workload, in first-call order: the record used or the default."""
        return self.plan.coverage

    def kernel_schedules(self) -> Sequence[tuple[Function, Schedule]]:
        """Each distinct fused function with the schedule it was compiled with."""
        return [(kernel.function, kernel.schedule) for kernel in self.plan.kernels]

    def kernel_of(
        self, function: Function, constants: frozenset[str]
    ) -> tuple[CompiledKernel, Schedule]:
        """The kernel and schedule compiled for `function` called with these parameters
        ("p<i>") bound to constants; IRError when the model calls it no such way."""
        for kernel in self.plan.kernels:
            if kernel.function == function and kernel.constants == constants:
                return kernel.code, kernel.schedule
        raise IRError(f"{function.attrs.get('name')}: not a fused function of this model")


def _shaped(ty: Type, outputs: Iterator[np.ndarray]) -> Any:
    if isinstance(ty, TupleType):
        return tuple(_shaped(field, outputs) for field in ty.fields)
    if isinstance(ty, TensorType):
        return next(outputs)
    raise IRError(f"unsupported value type {ty}")


def check_model_inputs(fn: Function, inputs: Mapping[str, np.ndarray]) -> dict[SizeVar, int]:
    """The size variables the shapes of `inputs` bind (none where `fn`'s inputs are all
    static); InputError naming the input (and the dim) when one is missing, unknown or
    mistyped, or a shape breaks its symbolic dims' bounds or binds a size two ways."""
    names = [param.name for param in fn.params]
    unknown = sorted(set(inputs) - set(names))
    if unknown:
        raise InputError(f"unknown input(s) {unknown}; the model's inputs are {names}")
    operands: list[SizedOperand] = []
    shapes: list[tuple[int, ...]] = []
    for param in fn.params:
        ty = param.type_annotation
        assert isinstance(ty, TensorType)
        if param.name not in inputs:
            raise InputError(f"missing input {param.name!r} (expected {_expected(ty)})")
        value = np.asarray(inputs[param.name])
        if ty.dims:
            if value.dtype.name != ty.dtype or value.ndim != len(ty.dims):
                raise InputError(
                    f"input {param.name!r}: expected {_expected(ty)}, got shape "
                    f"{list(value.shape)} {value.dtype.name}"
                )
            operands.append(SizedOperand(f"input {param.name!r}", ty.dims, ty.shape))
            shapes.append(value.shape)
        elif value.shape != ty.shape or value.dtype.name != ty.dtype:
            raise InputError(
                f"input {param.name!r}: expected shape {list(ty.shape)} {ty.dtype}, "
                f"got shape {list(value.shape)} {value.dtype.name}"
                + shape_difference(ty.shape, value.shape)
            )
    if not operands:
        return {}
    try:
        return bind_operand_sizes(operands, shapes)
    except SizeBindingError as error:
        raise InputError(str(error)) from None


def _expected(ty: TensorType) -> str:
    if not ty.dims:
        return f"shape {list(ty.shape)} {ty.dtype}"
    dims = ", ".join(
        format_expr(dim) if not isinstance(dim, IntImm) else str(dim.value) for dim in ty.dims
    )
    bounds = ", ".join(
        f"{format_expr(dim)} <= {upper}"
        for dim, upper in zip(ty.dims, ty.shape, strict=True)
        if not isinstance(dim, IntImm)
    )
    return f"shape [{dims}] {ty.dtype} ({bounds})"


def check_bound_input(name: str, bound: np.ndarray, inputs: Mapping[str, np.ndarray]) -> None:
    """Raise InputError unless `inputs` feeds `name` the value `bound` a model was
    specialised to (same shape, dtype and elements; NaNs compare equal)."""
    if name not in inputs:
        raise InputError(
            f"missing input {name!r} (the model was compiled for one value of it, shape "
            f"{list(bound.shape)} {bound.dtype.name})"
        )
    value = np.asarray(inputs[name])
    same = value.shape == bound.shape and value.dtype == bound.dtype
    if not same or not np.array_equal(value, bound, equal_nan=bound.dtype.kind in "fc"):
        raise InputError(
            f"input {name!r}: the model was compiled for one value of it (it decides a shape "
            f"or another compile-time operand), {_summary(bound)}, and got {_summary(value)}; "
            "compile it again for this value"
        )


def _summary(array: np.ndarray, limit: int = 8) -> str:
    items = array.reshape(-1)[:limit].tolist()
    more = ", ..." if array.size > limit else ""
    return f"shape {list(array.shape)} {array.dtype.name} values {items}{more}"


def compile_model(
    fn: Function,
    target: CpuTarget | None = None,
    chooser: ScheduleChooser | None = None,
    bound_values: Mapping[str, np.ndarray] | None = None,
) -> CompiledModel:
    """Compile a fused, typed graph (the output of the pass pipeline) for `target`, each
    workload with the schedule `chooser` picks (default: the default schedule);
    `bound_values` are the inputs the graph was specialised to, checked at each run."""
    return CompiledModel(fn, target, chooser, bound_values)
