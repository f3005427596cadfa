"""From a fused graph to a run plan: kernels in call order, where every tensor lives.

Step 1. Walk the main function in post order. Inputs are the caller's arrays; constants
        go to the weights; each call of a fused function gets its schedule from the
        chooser (once per distinct workload), is lowered under a stable symbol name and
        compiled by the plan's backend (`KernelBackend`: optimised LLVM IR for a CPU,
        CUDA C within the device limits for a GPU; a tuned schedule that does not compile
        falls back to the default one and is reported as a miss), and writes fresh values. Constant
        arguments get the layout rewrite their kernel's schedule asks for, applied
        here, once.
Step 2. Model outputs produced by a kernel are written straight into the caller's output
        arrays; any other output (an input or a weight returned as is, or a value returned
        twice) is copied there at the end of a run.
Step 3. Every other kernel output is an intermediate tensor: the memory plan places it in
        the workspace (memory.py).

Control flow plans as nested steps. An If is a BranchStep: each branch's steps, then copies
of its results into the If's values. A Loop is a LoopStep: copies of the initial states
and condition into the loop's own storage before it, and in its body the body's steps,
then a copy of each scan result into its row of the scan output (zeroed first when the
loop may end early), then copies of the new states and condition into that storage.
Steps are numbered in plan order, nested ones included; a value read inside a loop but
made before it lives until the loop ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

import numpy as np

from codegen.aot.memory import Lifetime, MemoryPlan, plan_memory
from codegen.aot.schedules import ScheduleChoice, ScheduleChooser, TaskCoverage
from codegen.aot.weights import WeightsBlob
from codegen.llvm.jit import optimized_llvm_ir
from codegen.llvm.target import CpuTarget
from ir.errors import AutotuneError, IRError
from ir.graph.nodes import Call, Constant, Expr, Function, If, Loop, Tuple, TupleGetItem, Var
from ir.graph.passes.narrow_sizes import narrow_sizes, small_size_limits
from ir.graph.traversal import post_order
from ir.graph.types import TensorType, TupleType, Type, tensor_types
from ir.lower import lower
from ir.lower.dispatch import dispatch_on_sizes
from ir.schedule.default import default_schedule
from ir.schedule.hardware import HardwareParams
from ir.schedule.schedule import Schedule
from ir.te.program import TEProgram, function_to_te
from ir.tir.expr import IntImm
from ir.tir.expr import Var as SizeVar
from ir.tir.printer import format_expr
from ir.tir.stmt import PrimFunc


@dataclass(frozen=True)
class TensorSpec:
    """A model input or output as the ABI describes it: its shape (the upper bounds where
    symbolic) and, for a symbolic one, the text of each dim (`batch`, `(n * 6)`, `16`)."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    dims: tuple[str, ...] = ()

    @staticmethod
    def of(name: str, ty: TensorType) -> TensorSpec:
        """The spec of a value named `name` of type `ty`."""
        return TensorSpec(name, tuple(ty.shape), ty.dtype, tuple(map(format_expr, ty.dims)))

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        data: dict[str, Any] = {"name": self.name, "shape": list(self.shape), "dtype": self.dtype}
        if self.dims:
            data["dims"] = list(self.dims)
        return data


@dataclass(frozen=True)
class SizeSpec:
    """A size variable of a model's symbolic input dims: its name and largest value (its
    smallest is 1)."""

    name: str
    upper: int

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {"name": self.name, "upper": self.upper}


@dataclass(frozen=True)
class Location:
    """Where a value lives: `input`/`output` (index into the caller's arrays), `weight`
    or `workspace` (byte offset)."""

    kind: str
    position: int


CodeT = TypeVar("CodeT")  # what a backend makes of a kernel: code text, or a callable kernel


@dataclass
class PlannedKernel(Generic[CodeT]):
    """One distinct compiled kernel: the fused function and constant parameters it
    computes, the schedule it was compiled with, and what the backend made of it."""

    symbol: str
    func: PrimFunc
    coverage: TaskCoverage
    code: CodeT  # `func` compiled by the backend: optimised LLVM IR, CUDA C, a JIT kernel
    function: Function
    constants: frozenset[str]
    schedule: Schedule
    bucket: TaskCoverage | None = None  # the small-size body's, where the kernel has one


@dataclass(frozen=True)
class KernelBackend(Generic[CodeT]):
    """How a plan compiles its kernels: `compile` turns a lowered function into code
    (raising AutotuneError when it cannot), `default` gives a workload's untuned schedule."""

    compile: Callable[[PrimFunc], CodeT]
    default: Callable[[TEProgram, frozenset[str]], Schedule]


def cpu_default(hardware: HardwareParams) -> Callable[[TEProgram, frozenset[str]], Schedule]:
    """The CPU default schedule of a workload, for a `KernelBackend`."""
    return lambda program, constants: default_schedule(program, hardware, constants)


def cpu_backend(target: CpuTarget) -> KernelBackend[str]:
    """Optimised LLVM IR for a CPU target; the CPU default schedules."""
    return KernelBackend(
        compile=lambda func: optimized_llvm_ir(func, target), default=cpu_default(target.hardware)
    )


@dataclass(frozen=True)
class KernelStep:
    """One kernel call: value ids of its arguments, then of its outputs."""

    kernel: int
    args: tuple[int, ...]
    outputs: tuple[int, ...]


@dataclass(frozen=True)
class CopyStep:
    """Copy the bytes of value `source` into value `target` (of the same size), or, given
    `row` (an int64 value), into row `row` of `target` (rows of `source`'s size)."""

    source: int
    target: int
    row: int | None = None


@dataclass(frozen=True)
class ZeroStep:
    """Set every byte of value `target` to zero."""

    target: int


@dataclass(frozen=True)
class BranchStep:
    """Run `then_steps` when the one-element bool value `condition` holds, else `else_steps`."""

    condition: int
    then_steps: tuple[Step, ...]
    else_steps: tuple[Step, ...]


@dataclass(frozen=True)
class LoopStep:
    """Set the int64 value `iteration` to 0, then run `body` while it is below the int64
    value `trip_count` and the bool value `running` holds, adding 1 after each pass (the
    body's last steps copy the new states and condition into their storage)."""

    trip_count: int
    running: int
    iteration: int
    body: tuple[Step, ...]


Step = KernelStep | CopyStep | ZeroStep | BranchStep | LoopStep


def all_steps(steps: Sequence[Step]) -> list[Step]:
    """Every step of `steps`, each branch's and loop body's after the step holding them,
    in plan order."""
    found: list[Step] = []
    for step in steps:
        found.append(step)
        if isinstance(step, BranchStep):
            found += all_steps(step.then_steps) + all_steps(step.else_steps)
        elif isinstance(step, LoopStep):
            found += all_steps(step.body)
    return found


def kernel_steps(steps: Sequence[Step]) -> list[KernelStep]:
    """Every kernel call of `steps`, nested ones included, in plan order."""
    return [step for step in all_steps(steps) if isinstance(step, KernelStep)]


def has_control_steps(steps: Sequence[Step]) -> bool:
    """Whether the plan branches or loops (a straight line of kernel calls otherwise)."""
    return any(isinstance(step, BranchStep | LoopStep) for step in steps)


@dataclass
class ModelPlan(Generic[CodeT]):
    """Everything the module, the ABI and the manifest (or the JIT executor) are made
    from. Values are numbered; `value_types` gives each one's shape and dtype as its
    kernels read it (a weight after its layout rewrite)."""

    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    kernels: list[PlannedKernel[CodeT]]
    steps: list[Step]
    locations: dict[int, Location]
    copies: list[tuple[int, int]]  # (value id, output index) copied after the last step
    weights: WeightsBlob
    memory: MemoryPlan
    value_bytes: dict[int, int] = field(default_factory=dict)
    value_types: dict[int, TensorType] = field(default_factory=dict)
    # The size variables of the inputs' symbolic dims, in the order the ABI takes them.
    sizes: list[SizeSpec] = field(default_factory=list)

    @property
    def coverage(self) -> list[TaskCoverage]:
        """Per distinct workload, in first-call order: the record used or the default
        (a kernel's small-size bucket after the kernel)."""
        return [
            coverage
            for kernel in self.kernels
            for coverage in (kernel.coverage, kernel.bucket)
            if coverage is not None
        ]


def _nbytes(ty: TensorType) -> int:
    return int(np.prod(ty.shape, dtype=np.int64)) * np.dtype(ty.dtype).itemsize


def _array_type(array: np.ndarray) -> TensorType:
    return TensorType(tuple(int(d) for d in array.shape), array.dtype.name)


def _flatten(structure: Any) -> list[Any]:
    if isinstance(structure, tuple):
        return [value for item in structure for value in _flatten(item)]
    return [structure]


class _Planner(Generic[CodeT]):
    """Builds a ModelPlan; one instance per compile."""

    def __init__(
        self,
        backend: KernelBackend[CodeT],
        chooser: ScheduleChooser,
        sizes: Mapping[str, int] | None = None,
    ):
        self.backend = backend
        self.chooser = chooser
        self.sizes = dict(sizes or {})  # the model's size variables and their upper bounds
        self.kernels: list[PlannedKernel[CodeT]] = []
        self.kernel_of: dict[tuple[Function, frozenset[str]], tuple[int, Schedule]] = {}
        self.calls: dict[int, int] = {}
        self.steps: list[Step] = []  # where steps go now (a branch's or a body's while planned)
        self.clock = 0  # steps planned so far, nested ones included: the liveness clock
        self.value_bytes: dict[int, int] = {}
        self.value_types: dict[int, TensorType] = {}
        self.locations: dict[int, Location] = {}
        self.weights = WeightsBlob()
        self.produced_by: dict[int, int] = {}  # value id -> clock of the step writing it
        self.reads: list[tuple[int, int]] = []  # (value id, clock of a step reading it)
        self.loop_spans: list[tuple[int, int]] = []  # (first, last) clock of each loop

    def emit(self, step: Step, reads: Sequence[int], writes: Sequence[int]) -> None:
        """Append `step`, which reads and writes these values, at the next clock tick."""
        self.clock += 1
        self.reads += [(value, self.clock) for value in reads]
        for value in writes:
            self.produced_by.setdefault(value, self.clock)
        self.steps.append(step)

    def copy(self, source: int, target: int) -> None:
        """Plan a copy of `source` into `target`."""
        self.emit(CopyStep(source, target), [source], [target])

    def nested(self, plan: Callable[[], Any]) -> tuple[tuple[Step, ...], Any]:
        """The steps `plan` emits, collected apart from the current ones, and its result."""
        outer, self.steps = self.steps, []
        try:
            result = plan()
            return tuple(self.steps), result
        finally:
            self.steps = outer

    def value_of(self, slot: Any) -> int:
        """The value id of a planned tensor (a constant goes to the weights)."""
        if isinstance(slot, Constant):
            return self.weight_value(np.asarray(slot.data))
        if not isinstance(slot, int):
            raise IRError("a tuple where a tensor is expected in control flow")
        return slot

    def new_value(self, ty: TensorType) -> int:
        value = len(self.value_bytes)
        self.value_bytes[value] = _nbytes(ty)
        self.value_types[value] = ty
        return value

    def weight_value(self, array: np.ndarray) -> int:
        value = self.new_value(_array_type(array))
        self.locations[value] = Location("weight", self.weights.add(array))
        return value

    def kernel_for(self, prim: Function, constants: frozenset[str]) -> tuple[int, Schedule]:
        known = self.kernel_of.get((prim, constants))
        if known is not None:
            return known
        program = function_to_te(prim)
        choice: ScheduleChoice = self.chooser(prim, program, constants)
        index = len(self.kernels)
        name = str(prim.attrs.get("name", "fn"))
        symbol = f"autotune_k{index:03d}_{_c_identifier(name)}"
        schedule, record_id, note = choice.schedule, choice.record_id, choice.note
        compiled: tuple[PrimFunc, CodeT, TaskCoverage | None] | None = None
        if schedule is not None:
            try:
                compiled = self._compile(schedule, symbol, prim, constants)
            except AutotuneError as err:  # a record that does not compile here is a miss
                schedule, record_id = None, None
                note = f"tuned schedule does not compile: {err}"[:500]
        if schedule is None or compiled is None:
            fresh = program if choice.schedule is None else function_to_te(prim)
            schedule = self.backend.default(fresh, constants)
            compiled = self._compile(schedule, symbol, prim, constants)
            record_id = None
        func, code, bucket = compiled
        coverage = TaskCoverage(name, choice.workload_key, record_id, calls=0, note=note)
        self.kernels.append(
            PlannedKernel(symbol, func, coverage, code, prim, constants, schedule, bucket)
        )
        self.kernel_of[(prim, constants)] = (index, schedule)
        return index, schedule

    def _compile(
        self, schedule: Schedule, symbol: str, prim: Function, constants: frozenset[str]
    ) -> tuple[PrimFunc, CodeT, TaskCoverage | None]:
        """`prim` lowered with `schedule` (and, where it has a small-size bucket, that
        bucket's body dispatched to by the sizes), compiled; the bucket's coverage."""
        func = lower(schedule, name=symbol)
        limits = small_size_limits(prim, self.sizes)
        if not limits:
            return func, self.backend.compile(func), None
        narrow = narrow_sizes(prim, {**self.sizes, **limits})
        small, bucket = self._small_sizes(narrow, constants, schedule, symbol)
        if small is not None:
            func = dispatch_on_sizes(small, func, limits)
        name = str(prim.attrs.get("name", "fn"))
        text = ", ".join(f"{size}<={limit}" for size, limit in limits.items())
        return func, self.backend.compile(func), replace(bucket, task=f"{name} [{text}]")

    def _small_sizes(
        self, narrow: Function, constants: frozenset[str], schedule: Schedule, symbol: str
    ) -> tuple[PrimFunc | None, TaskCoverage]:
        """The lowering of `narrow` (a kernel's function narrowed to its small-size
        bucket) with the chooser's schedule for it, or else the default one, and that
        choice's coverage. Either must lay the constants out as the whole range's
        `schedule` does (the constants are laid out once); None for the lowering when the
        default does not, or is `schedule` again (nothing to gain)."""
        program = function_to_te(narrow)
        choice = self.chooser(narrow, program, constants, schedule.input_layouts)
        key = choice.workload_key
        if choice.schedule is not None:
            try:
                func = lower(choice.schedule, name=symbol)
                return func, TaskCoverage("", key, choice.record_id, calls=0)
            except AutotuneError as err:  # (a miss, as for a whole kernel)
                note = f"tuned schedule does not compile: {err}"[:500]
                return self._small_default(program, constants, schedule, symbol, key, note)
        return self._small_default(program, constants, schedule, symbol, key, choice.note)

    def _small_default(
        self,
        program: TEProgram,
        constants: frozenset[str],
        schedule: Schedule,
        symbol: str,
        key: str | None,
        note: str,
    ) -> tuple[PrimFunc | None, TaskCoverage]:
        small = self.backend.default(program, constants)
        if small.trace.to_json() == schedule.trace.to_json():
            return None, TaskCoverage("", key, None, calls=0, note=note)
        if small.input_layouts != schedule.input_layouts:
            note = note or "the default lays the weights out otherwise: the whole range's body runs"
            return None, TaskCoverage("", key, None, calls=0, note=note)
        return lower(small, name=symbol), TaskCoverage("", key, None, calls=0, note=note)

    def call(self, node: Call, slots: dict[int, Any]) -> Any:
        if not isinstance(node.op, Function):
            raise IRError(
                f"{node.op_name}: the model must be fused (run the pass pipeline) before compiling"
            )
        prim = node.op
        constants = frozenset(
            f"p{i}" for i, arg in enumerate(node.args) if isinstance(arg, Constant)
        )
        index, schedule = self.kernel_for(prim, constants)
        self.calls[index] = self.calls.get(index, 0) + 1
        args = []
        for position, arg in enumerate(node.args):
            layout = schedule.input_layouts.get(f"p{position}")
            if isinstance(arg, Constant):
                # Weights enter the blob when a kernel reads them, in the layout it reads.
                data = arg.data if layout is None else layout.apply(arg.data)
                args.append(self.weight_value(np.asarray(data)))
                continue
            if layout is not None:
                raise IRError(f"layout rewrite of non-constant input p{position}")
            value = slots[id(arg)]
            if isinstance(value, Constant):  # a branch's or body's parameter bound to one
                args.append(self.weight_value(np.asarray(value.data)))
                continue
            if not isinstance(value, int):
                raise IRError(f"{prim.attrs.get('name')}: tuple arguments are not supported")
            args.append(value)
        outputs = [self.new_value(t) for t in tensor_types(node.checked_type)]
        self.emit(KernelStep(index, tuple(args), tuple(outputs)), args, outputs)
        return _structured(node.checked_type, iter(outputs))

    def walk(self, body: Expr, slots: dict[int, Any], where: str) -> Any:
        """Plan the nodes of one function's body (its parameters' slots given); the body's
        slot: a value id, a Constant or a tuple of them."""
        for node in post_order(body):
            if id(node) in slots:
                continue
            if isinstance(node, Var):
                raise IRError(f"free variable %{node.name} in {where}")
            if isinstance(node, Constant):
                slots[id(node)] = node  # placed in the weights when used (see call)
            elif isinstance(node, Tuple):
                slots[id(node)] = tuple(slots[id(item)] for item in node.fields)
            elif isinstance(node, TupleGetItem):
                slots[id(node)] = slots[id(node.tuple_value)][node.index]
            elif isinstance(node, Call):
                slots[id(node)] = self.call(node, slots)
            elif isinstance(node, If):
                slots[id(node)] = self.branch(node, slots)
            elif isinstance(node, Loop):
                slots[id(node)] = self.loop(node, slots)
            else:
                raise IRError(f"cannot compile {type(node).__name__} in {where}")
        return slots[id(body)]

    def apply(self, fn: Function, args: Sequence[Any], where: str) -> list[int]:
        """Plan `fn`'s body with its parameters bound to `args`; its result's value ids."""
        slots: dict[int, Any] = {}
        by_name = dict(zip((param.name for param in fn.params), args, strict=True))
        for node in post_order(fn.body):
            if isinstance(node, Var) and node.name in by_name:
                slots[id(node)] = by_name[node.name]
        result = self.walk(fn.body, slots, where)
        return [self.value_of(item) for item in _flatten(result)]

    def branch(self, node: If, slots: dict[int, Any]) -> Any:
        condition = self.value_of(slots[id(node.condition)])
        args = [slots[id(arg)] for arg in node.args]
        outputs = [self.new_value(t) for t in tensor_types(node.checked_type)]
        where = f"if {node.span!r}" if node.span else "an if"

        def plan_branch(fn: Function, name: str) -> None:
            for source, target in zip(
                self.apply(fn, args, f"{where} {name}"), outputs, strict=True
            ):
                self.copy(source, target)

        then_steps, _ = self.nested(lambda: plan_branch(node.then_branch, "then branch"))
        else_steps, _ = self.nested(lambda: plan_branch(node.else_branch, "else branch"))
        reads = [condition, *(v for v in _flatten(tuple(args)) if isinstance(v, int))]
        self.emit(BranchStep(condition, then_steps, else_steps), reads, [])
        return _structured(node.checked_type, iter(outputs))

    def loop(self, node: Loop, slots: dict[int, Any]) -> Any:
        trip_count = self.value_of(slots[id(node.trip_count)])
        loop_types = tensor_types(node.checked_type)
        storage = [self.new_value(ty) for ty in loop_types[: len(node.states)]]
        scanned = [self.new_value(ty) for ty in loop_types[len(node.states) :]]
        running = self.new_value(TensorType((), "bool"))
        iteration = self.new_value(TensorType((), "int64"))
        for state, target in zip(node.states, storage, strict=True):
            self.copy(self.value_of(slots[id(state)]), target)
        self.copy(self.value_of(slots[id(node.condition)]), running)
        if _may_end_early(node):
            for target in scanned:  # the rows of iterations that do not run
                self.emit(ZeroStep(target), [], [target])
        invariants = [slots[id(value)] for value in node.invariants]
        first = self.clock + 1
        # The loop sets its iteration before its body first runs; the scan outputs fill up
        # through it, so no value of the body may share their bytes.
        for value in (iteration, *scanned):
            self.produced_by.setdefault(value, first)
        where = f"loop {node.span!r} body" if node.span else "a loop body"

        def plan_body() -> None:
            results = self.apply(node.body, [iteration, running, *storage, *invariants], where)
            carried, rows = results[: 1 + len(storage)], results[1 + len(storage) :]
            # Rows first: a scan result may be a state's storage, overwritten by the moves.
            for source, target in zip(rows, scanned, strict=True):
                self.emit(CopyStep(source, target, iteration), [source, iteration], [target])
            moves = [(s, t) for s, t in zip(carried, [running, *storage], strict=True) if s != t]
            # A state moving into another state's storage is read before anything is written.
            staged = {s for s, _ in moves if s in storage or s == running}
            temporary = {s: self.new_value(self.value_types[s]) for s in sorted(staged)}
            for source, temp in temporary.items():
                self.copy(source, temp)
            for source, target in moves:
                self.copy(temporary.get(source, source), target)

        body, _ = self.nested(plan_body)
        self.emit(
            LoopStep(trip_count, running, iteration, body), [trip_count, running], [iteration]
        )
        self.loop_spans.append((first, self.clock))
        self.reads += [
            (value, self.clock) for value in (*storage, *scanned, running, iteration, trip_count)
        ]
        return tuple([*storage, *scanned])


def _may_end_early(node: Loop) -> bool:
    """Whether a loop may stop before its trip count: its condition is not a constant true,
    or its body's is neither that nor the condition it is given."""
    if not (isinstance(node.condition, Constant) and bool(node.condition.data)):
        return True
    body = node.body.body
    flag = body.fields[0] if isinstance(body, Tuple) else None
    if flag is node.body.params[1]:
        return False
    return not (isinstance(flag, Constant) and bool(flag.data.all()))


def _structured(ty: Type, values: Any) -> Any:
    """Value ids shaped like `ty`: one id for a tensor, a tuple for a tuple type."""
    if isinstance(ty, TupleType):
        return tuple(_structured(field, values) for field in ty.fields)
    return next(values)


def _c_identifier(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)
    return cleaned[:48] or "fn"


def plan_model(
    fn: Function,
    target: CpuTarget,
    chooser: ScheduleChooser,
    output_names: Sequence[str] | None = None,
) -> ModelPlan[str]:
    """Plan a fused, typed main function (the output of the pass pipeline) for a CPU."""
    return plan_model_with(fn, cpu_backend(target), chooser, output_names)


def plan_model_with(
    fn: Function,
    backend: KernelBackend[CodeT],
    chooser: ScheduleChooser,
    output_names: Sequence[str] | None = None,
) -> ModelPlan[CodeT]:
    """Plan a fused, typed main function with kernels compiled by `backend`."""
    sizes = model_sizes(fn)
    planner = _Planner(backend, chooser, {size.name: size.upper for size in sizes})
    inputs, result = _walk(fn, planner)
    outputs, copies = _place_outputs(fn, planner, result, output_names)
    memory = _place_intermediates(planner, copies)
    kernels = [_with_calls(k, planner.calls.get(i, 0)) for i, k in enumerate(planner.kernels)]
    return ModelPlan(
        inputs=inputs,
        outputs=outputs,
        kernels=kernels,
        steps=planner.steps,
        locations=planner.locations,
        copies=copies,
        weights=planner.weights,
        memory=memory,
        value_bytes=planner.value_bytes,
        value_types=planner.value_types,
        sizes=sizes,
    )


def _walk(fn: Function, planner: _Planner[Any]) -> tuple[list[TensorSpec], list[int]]:
    """Step 1: inputs, weights and kernel calls in post order; the output value ids."""
    inputs: list[TensorSpec] = []
    values: list[int] = []
    for position, param in enumerate(fn.params):
        ty = param.type_annotation
        if not isinstance(ty, TensorType):
            raise IRError(f"input %{param.name} must be a tensor, got {ty}")
        value = planner.new_value(ty)
        planner.locations[value] = Location("input", position)
        values.append(value)
        inputs.append(TensorSpec.of(param.name, ty))
    return inputs, planner.apply(fn, values, "the model")


def model_sizes(fn: Function) -> list[SizeSpec]:
    """The size variables of `fn`'s inputs, in order of first appearance, each with its
    upper bound; IRError where an input dim is neither a size nor a size variable (a
    dim such as `n + 1` could not be read off the input arrays)."""
    sizes: dict[str, SizeSpec] = {}
    for param in fn.params:
        ty = param.type_annotation
        if not isinstance(ty, TensorType):
            continue
        for axis, (dim, upper) in enumerate(zip(ty.dims, ty.shape, strict=bool(ty.dims))):
            if isinstance(dim, IntImm):
                continue
            if not isinstance(dim, SizeVar):
                raise IRError(
                    f"input %{param.name} dim {axis} is {format_expr(dim)}: a model input's "
                    "dims must be sizes or size variables"
                )
            known = sizes.setdefault(dim.name, SizeSpec(dim.name, upper))
            if known.upper != upper:
                raise IRError(
                    f"size {dim.name} is at most {known.upper} in one input but at most "
                    f"{upper} in input %{param.name} (dim {axis})"
                )
    return list(sizes.values())


def _place_outputs(
    fn: Function, planner: _Planner[Any], result: list[int], output_names: Sequence[str] | None
) -> tuple[list[TensorSpec], list[tuple[int, int]]]:
    """Step 2: outputs a kernel makes are written in place; the others are copied."""
    types = tensor_types(fn.body.checked_type)
    names = list(output_names) if output_names else [f"output_{i}" for i in range(len(result))]
    if len(names) != len(result):
        raise IRError(f"{len(names)} output names for {len(result)} outputs")
    outputs = [TensorSpec.of(name, ty) for name, ty in zip(names, types, strict=True)]
    copies: list[tuple[int, int]] = []
    for position, value in enumerate(result):
        if value in planner.produced_by and value not in planner.locations:
            planner.locations[value] = Location("output", position)
        else:
            copies.append((value, position))
    return outputs, copies


def _place_intermediates(planner: _Planner[Any], copies: list[tuple[int, int]]) -> MemoryPlan:
    """Step 3: every other value a step writes lives in the workspace, by liveness (a value
    read inside a loop but written before it lives until the loop ends)."""
    last_use = dict(planner.produced_by)
    for value, clock in planner.reads:
        if value not in last_use:
            continue
        last = clock
        for first, end in planner.loop_spans:
            if first <= clock <= end and planner.produced_by[value] < first:
                last = max(last, end)
        last_use[value] = max(last_use[value], last)
    for value, _ in copies:
        if value in last_use:
            last_use[value] = planner.clock + 1  # read by the copies after the last step
    lifetimes = [
        Lifetime(value, planner.value_bytes[value], first, last_use[value])
        for value, first in planner.produced_by.items()
        if value not in planner.locations
    ]
    memory = plan_memory(lifetimes)
    for value, offset in memory.offsets.items():
        planner.locations[value] = Location("workspace", offset)
    return memory


def _with_calls(kernel: PlannedKernel[CodeT], calls: int) -> PlannedKernel[CodeT]:
    """`kernel` with its coverage (and its bucket's) counting `calls`."""
    bucket = None if kernel.bucket is None else replace(kernel.bucket, calls=calls)
    return replace(kernel, coverage=replace(kernel.coverage, calls=calls), bucket=bucket)
