"""Converters for ONNX control flow: If, Loop and Scan.

An If whose condition folds to a constant is its branch. Otherwise it becomes the graph
IR's If: each branch a closed function (what it reads from outside comes in as arguments)
and only the branch taken runs; both must give the same types, as the IR's If requires.

A Loop runs as the graph IR's Loop (the body a closed function, run once per iteration)
when its trip count is a run-time value or absent (a while loop), when its condition is a
run-time value, when its body can end it early, or when it is longer than
MAX_UNROLLED_ITERATIONS; its states must then keep their types, and it can have scan
outputs only with a constant trip count and a body that cannot end it early (else their
length would depend on the data). Otherwise, with a constant trip count, its body unrolls
into the graph, one copy per iteration (each copy folds with its iteration's number, and
the fused kernels of the copies are tuned once: they are the same workloads).

A Scan runs as the graph IR's Loop with scan outputs (its trip count is its scanned axis'
length, known at compile time): the body takes the scanned inputs whole and slices them by
its iteration. Where the body needs its slices as compile-time operands, or a state
changes type, it unrolls instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import onnx

from ir.errors import ValueDependentError
from ir.frontend.onnx.context import Captures, ConverterResult, NodeContext
from ir.graph.attrs import Attrs
from ir.graph.nodes import Constant, Expr, Function, If, Loop, Tuple, TupleGetItem, Var
from ir.graph.passes.infer_type import infer_expr
from ir.graph.types import TensorType, TupleType

MAX_UNROLLED_ITERATIONS = 4096  # a longer loop is refused rather than unrolled


def _graph(ctx: NodeContext, name: str) -> onnx.GraphProto:
    graph = ctx.attr(name)
    if not isinstance(graph, onnx.GraphProto):
        raise ctx.error(f"attribute {name} (a graph) is required")
    return graph


def _tensor_type(ctx: NodeContext, value: Expr, what: str) -> TensorType:
    ty = value.checked_type
    if not isinstance(ty, TensorType):
        raise ctx.unsupported(f"{what} must be a tensor, got {ty}")
    return ty


def convert_if(ctx: NodeContext) -> ConverterResult:
    """If(cond) -> the branch a constant condition picks, or both branches' outputs
    selected by `where(cond, then, else)`."""
    then_graph, else_graph = _graph(ctx, "then_branch"), _graph(ctx, "else_branch")
    condition = ctx.fold(ctx.input(0))
    if isinstance(condition, Constant):
        if condition.data.size != 1:
            raise ctx.error(f"the condition must have one element, got {condition.data.shape}")
        taken = then_graph if bool(condition.data.reshape(-1)[0]) else else_graph
        return ctx.convert_subgraph(taken, [])
    captures: Captures = {}
    then_values = ctx.convert_closure(then_graph, [], captures)
    else_values = ctx.convert_closure(else_graph, [], captures)
    for position, (then_value, else_value) in enumerate(zip(then_values, else_values, strict=True)):
        then_type = _tensor_type(ctx, then_value, f"output {position} of then_branch")
        else_type = _tensor_type(ctx, else_value, f"output {position} of else_branch")
        if then_type != else_type:
            raise ctx.unsupported(
                f"with a run-time condition, output {position} must have one type in both "
                f"branches; then_branch gives {then_type}, else_branch {else_type}"
            )
    condition = ctx.input(0)
    condition_type = _tensor_type(ctx, condition, "the condition")
    if condition_type.dtype != "bool" or condition_type.size != 1:
        raise ctx.error(f"the condition must be one bool, got {condition_type}")
    params = tuple(var for var, _ in captures.values())
    branches = [
        Function(params, _body(values), attrs=Attrs({"name": f"{ctx.name}_{which}"}))
        for which, values in (("then", then_values), ("else", else_values))
    ]
    args = tuple(outer for _, outer in captures.values())
    node = infer_expr(If(condition, branches[0], branches[1], args, span=ctx.name))
    return _fields(node, len(then_values))


def _body(values: Sequence[Expr]) -> Expr:
    """A function body returning `values`: the value itself when there is one."""
    if len(values) == 1:
        return values[0]
    return Tuple(tuple(values), ty=TupleType(tuple(value.checked_type for value in values)))


def _fields(node: Expr, count: int) -> list[Expr]:
    """The `count` outputs of a node returning one value or a tuple of `count`."""
    if count == 1 and not isinstance(node.checked_type, TupleType):
        return [node]
    return [infer_expr(TupleGetItem(node, index)) for index in range(count)]


def _slice(ctx: NodeContext, value: Expr, axis: int, index: int) -> Expr:
    """value[..., index, ...] at `axis`, the axis removed."""
    return ctx.call("take", value, Constant(np.array(index, np.int64)), axis=axis)


def _stack(ctx: NodeContext, values: Sequence[Expr], axis: int) -> Expr:
    """The values (of one shape) stacked along a new `axis`."""
    ty = _tensor_type(ctx, values[0], "a scan output")
    rank = len(ty.shape) + 1
    axis = ctx.axis(axis, rank)
    shape = (*ty.shape[:axis], 1, *ty.shape[axis:])
    parts = [ctx.call("reshape", value, newshape=shape) for value in values]
    return parts[0] if len(parts) == 1 else ctx.call("concatenate", *parts, axis=axis)


def _directions(ctx: NodeContext, name: str, count: int) -> tuple[int, ...]:
    values = ctx.ints_attr(name) or (0,) * count
    if len(values) != count:
        raise ctx.error(f"attribute {name} has {len(values)} values for {count} tensors")
    return values


def convert_scan(ctx: NodeContext) -> ConverterResult:
    """Scan -> the graph IR's Loop over the scanned axis (for Scan-8, one per sample of
    its batch), its body taking each iteration's slices and its scan outputs stacking up;
    or, where that loop cannot express the body (a state that changes type, a slice that
    must be a compile-time operand), the body unrolled over the axis."""
    if ctx.opset < 9:
        return _batched_scan(ctx)
    body = _graph(ctx, "body")
    num_scanned = ctx.int_attr("num_scan_inputs", 0)
    inputs = [ctx.input(index) for index in range(len(ctx.inputs))]
    num_states = len(inputs) - num_scanned
    if num_scanned < 1 or num_states < 0:
        raise ctx.error(f"num_scan_inputs={num_scanned} for {len(inputs)} inputs")
    if len(body.input) != len(inputs):
        raise ctx.error(f"the body takes {len(body.input)} inputs for {len(inputs)}")
    num_outputs = len(body.output) - num_states
    in_axes = ctx.ints_attr("scan_input_axes") or (0,) * num_scanned
    scan = _Scan(
        states=inputs[:num_states],
        scanned=inputs[num_states:],
        axes=[
            ctx.axis(axis, len(_tensor_type(ctx, value, "a scan input").shape))
            for axis, value in zip(in_axes, inputs[num_states:], strict=True)
        ],
        in_directions=_directions(ctx, "scan_input_directions", num_scanned),
        out_directions=_directions(ctx, "scan_output_directions", num_outputs),
        out_axes=ctx.ints_attr("scan_output_axes") or (0,) * num_outputs,
    )
    lengths = {
        _tensor_type(ctx, value, "a scan input").shape[axis]
        for value, axis in zip(scan.scanned, scan.axes, strict=True)
    }
    if len(lengths) != 1:
        raise ctx.error(f"the scan inputs have different lengths {sorted(lengths)}")
    length = lengths.pop()
    if length == 0 and num_outputs:
        raise ctx.unsupported("a Scan over an empty axis")
    return _scan(ctx, body, scan, length)


def _scan(ctx: NodeContext, body: onnx.GraphProto, scan: _Scan, length: int) -> list[Expr]:
    """A Scan-9's outputs: the IR's Loop (`_looped_scan`), or its body unrolled (at most
    MAX_UNROLLED_ITERATIONS times) where the loop cannot express it."""
    try:
        looped = _looped_scan(ctx, body, scan, length)
    except ValueDependentError:
        looped = None  # a slice decides a shape: each unrolled copy folds with its own
    if looped is not None:
        return looped
    if length > MAX_UNROLLED_ITERATIONS:
        raise ctx.unsupported(f"a Scan of {length} iterations (at most {MAX_UNROLLED_ITERATIONS})")
    return _unrolled_scan(ctx, body, scan, length)


@dataclass(frozen=True)
class _Scan:
    """A Scan node's operands and attributes (axes normalised)."""

    states: Sequence[Expr]
    scanned: Sequence[Expr]
    axes: Sequence[int]
    in_directions: Sequence[int]
    out_directions: Sequence[int]
    out_axes: Sequence[int]


def _looped_scan(
    ctx: NodeContext, body: onnx.GraphProto, scan: _Scan, length: int
) -> list[Expr] | None:
    """The Scan as the IR's Loop: the scanned inputs enter the body whole, each iteration
    takes its slices, and the scan outputs stack up as the loop's; None when a state
    changes type (the IR's Loop keeps its states' types)."""
    iteration = Var(f"{ctx.name}/iteration", TensorType((), "int64"))
    running = Var(f"{ctx.name}/running", TensorType((), "bool"))
    names = [info.name for info in body.input]
    state_params = [
        Var(name, _tensor_type(ctx, state, "a scan state"))
        for name, state in zip(names, scan.states, strict=False)
    ]
    sequences = [
        Var(f"{ctx.name}/scan_input_{position}", _tensor_type(ctx, value, "a scan input"))
        for position, value in enumerate(scan.scanned)
    ]
    backwards = ctx.call("subtract", Constant(np.array(length - 1, np.int64)), iteration)
    slices = [
        ctx.call("take", sequence, backwards if direction else iteration, axis=axis)
        for sequence, axis, direction in zip(sequences, scan.axes, scan.in_directions, strict=True)
    ]
    captures: Captures = {}
    results = ctx.convert_closure(body, [*state_params, *slices], captures)
    new_states, scanned = results[: len(scan.states)], results[len(scan.states) :]
    for state, new in zip(scan.states, new_states, strict=True):
        if _tensor_type(ctx, new, "a scan state") != _tensor_type(ctx, state, "a scan state"):
            return None
    for value in scanned:
        _tensor_type(ctx, value, "a scan output")
    flag = Constant(np.array(True))
    values = (flag, *new_states, *scanned)
    function = Function(
        (iteration, running, *state_params, *sequences, *(var for var, _ in captures.values())),
        Tuple(values, ty=TupleType(tuple(value.checked_type for value in values))),
        attrs=Attrs({"name": f"{ctx.name}_body"}),
    )
    node = infer_expr(
        Loop(
            Constant(np.array(length, np.int64)),
            flag,
            tuple(scan.states),
            (*scan.scanned, *(outer for _, outer in captures.values())),
            function,
            scan_outputs=len(scanned),
            span=ctx.name,
        )
    )
    outputs = [infer_expr(TupleGetItem(node, index)) for index in range(len(results))]
    for position, (direction, axis) in enumerate(
        zip(scan.out_directions, scan.out_axes, strict=True)
    ):
        stacked = outputs[len(scan.states) + position]
        if direction:
            rows = Constant(np.arange(length - 1, -1, -1, dtype=np.int64))
            stacked = ctx.call("take", stacked, rows, axis=0)
        rank = len(_tensor_type(ctx, stacked, "a scan output").shape)
        axis = ctx.axis(axis, rank)
        if axis:
            order = [*range(1, axis + 1), 0, *range(axis + 1, rank)]
            stacked = ctx.call("transpose", stacked, axes=order)
        outputs[len(scan.states) + position] = stacked
    return outputs


def _batched_scan(ctx: NodeContext) -> ConverterResult:
    """Scan-8: every input has a leading batch axis and the scanned inputs scan their axis
    1; the body sees one sample. Each sample runs as a Scan-9 of its own (a loop), and the
    results stack along the batch axis. Sequence lengths, if given, must be constants
    equal to the scanned length (shorter sequences are not supported)."""
    body = _graph(ctx, "body")
    num_scanned = ctx.int_attr("num_scan_inputs", 0)
    inputs = [ctx.input(index) for index in range(1, len(ctx.inputs))]
    num_states = len(inputs) - num_scanned
    if num_scanned < 1 or num_states < 0 or len(body.input) != len(inputs):
        raise ctx.error(
            f"num_scan_inputs={num_scanned} for {len(inputs)} inputs and a body of "
            f"{len(body.input)}"
        )
    shapes = [_tensor_type(ctx, value, "a Scan input").shape for value in inputs]
    batches = {shape[0] if shape else None for shape in shapes}
    lengths = {shape[1] if len(shape) > 1 else None for shape in shapes[num_states:]}
    if len(batches) != 1 or None in batches or len(lengths) != 1 or None in lengths:
        raise ctx.error(f"the inputs' batch axes or scanned lengths differ: shapes {shapes}")
    batch, length = batches.pop(), lengths.pop()
    assert batch is not None and length is not None
    if ctx.optional_input(0) is not None:
        given = ctx.static_value(0, "sequence_lens").reshape(-1)
        if given.size != batch or not (given == length).all():
            raise ctx.unsupported(
                f"sequence_lens {given.tolist()} shorter than the scanned length {length}"
            )
    if length == 0:
        raise ctx.unsupported("a Scan over an empty axis")
    num_outputs = len(body.output) - num_states
    samples = []
    for sample in range(batch):
        picked = [_slice(ctx, value, 0, sample) for value in inputs]
        scan = _Scan(
            states=picked[:num_states],
            scanned=picked[num_states:],
            axes=[0] * num_scanned,
            in_directions=_directions(ctx, "directions", num_scanned),
            out_directions=(0,) * num_outputs,
            out_axes=(0,) * num_outputs,
        )
        samples.append(_scan(ctx, body, scan, length))
    return [
        _stack(ctx, [results[index] for results in samples], 0) for index in range(len(samples[0]))
    ]


def _unrolled_scan(ctx: NodeContext, body: onnx.GraphProto, scan: _Scan, length: int) -> list[Expr]:
    """The Scan's body unrolled over the scanned axis: the states run through every copy,
    the scan outputs stack up."""
    states = list(scan.states)
    collected: list[list[Expr]] = [[] for _ in scan.out_directions]
    for step in range(length):
        slices = [
            _slice(ctx, value, axis, length - 1 - step if direction else step)
            for value, axis, direction in zip(
                scan.scanned, scan.axes, scan.in_directions, strict=True
            )
        ]
        results = ctx.convert_subgraph(body, [*states, *slices])
        states = results[: len(states)]
        for position, value in enumerate(results[len(states) :]):
            collected[position].append(value)
    outputs = []
    for values, direction, axis in zip(collected, scan.out_directions, scan.out_axes, strict=True):
        outputs.append(_stack(ctx, values[::-1] if direction else values, axis))
    return [*states, *outputs]


def _flag(ctx: NodeContext, value: Expr) -> Expr:
    """A one-element bool condition as a scalar."""
    return ctx.call("reshape", value, newshape=())


def convert_loop(ctx: NodeContext) -> ConverterResult:
    """Loop(M, cond, states...) -> the graph IR's Loop, or its body unrolled M times (see
    the module doc for which). Unrolled, while the condition folds to a constant the copies
    follow it and the scan outputs stack up along a new first axis; once it depends on
    run-time values, every remaining copy runs and keeps its states only while the
    condition has held (`where(running, new, old)`)."""
    body = _graph(ctx, "body")
    trip_input, condition_input = ctx.optional_input(0), ctx.optional_input(1)
    states = [ctx.input(index) for index in range(2, len(ctx.inputs))]
    num_scan_outputs = len(body.output) - 1 - len(states)
    trips = None if trip_input is None else ctx.fold(trip_input)
    condition = None if condition_input is None else ctx.fold(condition_input)
    constant_trips = isinstance(trips, Constant)
    why_not = "scan outputs: their count would depend on the data"
    run_time_condition = condition is not None and not isinstance(condition, Constant)
    if num_scan_outputs == 0 or (constant_trips and not run_time_condition):
        required = (
            not constant_trips
            or int(_scalar_of(trips)) > MAX_UNROLLED_ITERATIONS
            or run_time_condition
        )
        native = _native_loop(
            ctx, body, trip_input, condition_input, states, num_scan_outputs, required
        )
        if isinstance(native, list):
            return native
        why_not = native or why_not
    if trip_input is None:
        raise ctx.unsupported(f"a Loop without a trip count that has {why_not}")
    # A run-time trip count raises ValueDependentError: compiling for its value unrolls.
    count = int(ctx.static_scalar(0, f"M, the trip count of a Loop with {why_not}"))
    if count > MAX_UNROLLED_ITERATIONS:
        raise ctx.unsupported(
            f"a Loop of {count} iterations with {why_not.split(':')[0]} (at most "
            f"{MAX_UNROLLED_ITERATIONS} unroll)"
        )
    return _unrolled_loop(ctx, body, count, condition_input, states)


def _scalar_of(value: Expr | None) -> int | float | bool:
    assert isinstance(value, Constant)
    return value.data.reshape(-1)[0].item()  # type: ignore[no-any-return]


def _loop_params(ctx: NodeContext, body: onnx.GraphProto, states: Sequence[Expr]) -> list[Var]:
    """The body's iteration, condition and state parameters, named as its inputs."""
    names = [info.name for info in body.input]
    if len(names) != 2 + len(states):
        raise ctx.error(f"the body takes {len(names)} inputs for {len(states)} loop states")
    types = [
        TensorType((), "int64"),
        TensorType((), "bool"),
        *(_tensor_type(ctx, state, "a loop state") for state in states),
    ]
    return [Var(name, ty) for name, ty in zip(names, types, strict=True)]


def _native_loop(
    ctx: NodeContext,
    body: onnx.GraphProto,
    trip_input: Expr | None,
    condition_input: Expr | None,
    states: Sequence[Expr],
    scan_outputs: int,
    required: bool,
) -> list[Expr] | str | None:
    """The IR's Loop's outputs; or why the loop cannot be one; or, unless `required`, None
    when its body cannot end it early (its condition output is the condition passed in,
    or a constant true): such a loop with a constant count unrolls instead. With scan
    outputs (and so a constant trip count), a body that can end the loop early is a reason
    (the outputs' length would depend on the data)."""
    params = _loop_params(ctx, body, states)
    captures: Captures = {}
    results = ctx.convert_closure(body, params, captures)
    condition_out = _flag(ctx, results[0])
    new_states, scanned = results[1 : 1 + len(states)], results[1 + len(states) :]
    folded = ctx.fold(results[0])
    never_false = folded is params[1] or (isinstance(folded, Constant) and bool(folded.data.all()))
    if never_false and not required:
        return None
    if scan_outputs and not never_false:
        return "scan outputs and a body that can end it early: their count would depend on the data"
    if scan_outputs and condition_input is not None and not _scalar_of(ctx.fold(condition_input)):
        return "scan outputs and a false condition: it runs no iteration"
    for position, (state, new) in enumerate(zip(states, new_states, strict=True)):
        old_type = _tensor_type(ctx, state, "a loop state")
        new_type = _tensor_type(ctx, new, "a loop state")
        if new_type != old_type:
            return (
                f"a state that changes type (state {position} goes from {old_type} to "
                f"{new_type} in one iteration): the IR's Loop keeps its states' types"
            )
    for value in scanned:
        _tensor_type(ctx, value, "a scan output")
    invariant_params = tuple(var for var, _ in captures.values())
    returned = (condition_out, *new_states, *scanned)
    function = Function(
        (*params, *invariant_params),
        Tuple(returned, ty=TupleType(tuple(value.checked_type for value in returned))),
        attrs=Attrs({"name": f"{ctx.name}_body"}),
    )
    trip_count = (
        Constant(np.array(np.iinfo(np.int64).max, np.int64))
        if trip_input is None
        else ctx.call("reshape", trip_input, newshape=())
    )
    condition = Constant(np.array(True)) if condition_input is None else _flag(ctx, condition_input)
    invariants = tuple(outer for _, outer in captures.values())
    if scan_outputs:  # a constant count (the caller's condition), their first dimension
        trip_count = Constant(np.array(_scalar_of(ctx.fold(trip_count)), np.int64))
    node = infer_expr(
        Loop(
            trip_count,
            condition,
            tuple(states),
            invariants,
            function,
            scan_outputs=scan_outputs,
            span=ctx.name,
        )
    )
    return [infer_expr(TupleGetItem(node, index)) for index in range(len(results) - 1)]


def _unrolled_loop(
    ctx: NodeContext,
    body: onnx.GraphProto,
    trips: int,
    condition_input: Expr | None,
    states: list[Expr],
) -> ConverterResult:
    num_states = len(states)
    collected: list[list[Expr]] = [[] for _ in range(len(body.output) - 1 - num_states)]
    keep_going, running = True, None  # running: the run-time condition, once there is one
    if condition_input is not None:
        folded = ctx.fold(condition_input)
        if isinstance(folded, Constant):
            keep_going = bool(folded.data.reshape(-1)[0])
        else:
            running = _flag(ctx, condition_input)
    for step in range(trips):
        if running is None and not keep_going:
            break
        iteration = Constant(np.array(step, np.int64))
        condition = Constant(np.array(True)) if running is None else running
        results = ctx.convert_subgraph(body, [iteration, condition, *states])
        condition_out, new_states = results[0], results[1 : 1 + num_states]
        if running is not None:
            states = [
                _kept(ctx, running, new, old) for new, old in zip(new_states, states, strict=True)
            ]
            running = ctx.call("logical_and", running, _flag(ctx, condition_out))
            continue
        states = new_states
        for position, value in enumerate(results[1 + num_states :]):
            collected[position].append(value)
        folded = ctx.fold(condition_out)
        if isinstance(folded, Constant):
            keep_going = bool(folded.data.reshape(-1)[0])
        else:
            running = _flag(ctx, condition_out)
    if running is not None and collected:
        raise ctx.unsupported(
            "the loop condition depends on run-time values, so the number of its scan "
            "outputs would depend on the data"
        )
    if any(not values for values in collected):
        raise ctx.unsupported("a Loop with scan outputs that runs no iteration")
    return [*states, *(_stack(ctx, values, 0) for values in collected)]


def _kept(ctx: NodeContext, running: Expr, new: Expr, old: Expr) -> Expr:
    """`new` where the loop is still running, else `old` (of the same type)."""
    new_type = _tensor_type(ctx, new, "a loop-carried value")
    old_type = _tensor_type(ctx, old, "a loop-carried value")
    if new_type != old_type:
        raise ctx.unsupported(
            "with a run-time loop condition, a loop-carried value must keep its type; "
            f"it goes from {old_type} to {new_type}"
        )
    return ctx.call("where", running, new, old)


CONVERTERS = {
    "If": convert_if,
    "Loop": convert_loop,
    "Scan": convert_scan,
}
