"""Converters for ONNX control flow: If, Loop and Scan.

An If whose condition folds to a constant is its branch. Otherwise it becomes the graph
IR's If: each branch a closed function (what it reads from outside comes in as arguments)
and only the branch taken runs; both must give the same types, as the IR's If requires.

A Loop runs as the graph IR's Loop (the body a closed function, run once per iteration)
when its trip count is a run-time value or absent (a while loop), when its condition is a
run-time value, when its body can end it early, or when it is longer than
MAX_UNROLLED_ITERATIONS; its states must then keep their types, and it cannot have scan
outputs (their count would depend on the data). Otherwise, with a constant trip count, its
body unrolls into the graph, one copy per iteration (each copy folds with its iteration's
number, and the fused kernels of the copies are tuned once: they are the same workloads).

A Scan's trip count is its scanned axis' length, known at compile time: its body unrolls.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx

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
    """Scan (opset 9 and later) -> its body unrolled over the scanned axis: the states run
    through every copy, the scan outputs stack up."""
    if ctx.opset < 9:
        raise ctx.unsupported("Scan-8 (with a batch axis and sequence_lens) is not supported")
    body = _graph(ctx, "body")
    num_scanned = ctx.int_attr("num_scan_inputs", 0)
    inputs = [ctx.input(index) for index in range(len(ctx.inputs))]
    num_states = len(inputs) - num_scanned
    if num_scanned < 1 or num_states < 0:
        raise ctx.error(f"num_scan_inputs={num_scanned} for {len(inputs)} inputs")
    states, scanned = inputs[:num_states], inputs[num_states:]
    num_outputs = len(body.output) - num_states
    in_directions = _directions(ctx, "scan_input_directions", num_scanned)
    out_directions = _directions(ctx, "scan_output_directions", num_outputs)
    in_axes = ctx.ints_attr("scan_input_axes") or (0,) * num_scanned
    out_axes = ctx.ints_attr("scan_output_axes") or (0,) * num_outputs
    axes = [
        ctx.axis(axis, len(_tensor_type(ctx, value, "a scan input").shape))
        for axis, value in zip(in_axes, scanned, strict=True)
    ]
    lengths = {
        _tensor_type(ctx, value, "a scan input").shape[axis]
        for value, axis in zip(scanned, axes, strict=True)
    }
    if len(lengths) != 1:
        raise ctx.error(f"the scan inputs have different lengths {sorted(lengths)}")
    length = lengths.pop()
    if length > MAX_UNROLLED_ITERATIONS:
        raise ctx.unsupported(f"a Scan of {length} iterations (at most {MAX_UNROLLED_ITERATIONS})")
    collected: list[list[Expr]] = [[] for _ in range(num_outputs)]
    for step in range(length):
        slices = [
            _slice(ctx, value, axis, length - 1 - step if direction else step)
            for value, axis, direction in zip(scanned, axes, in_directions, strict=True)
        ]
        results = ctx.convert_subgraph(body, [*states, *slices])
        states = results[:num_states]
        for position, value in enumerate(results[num_states:]):
            collected[position].append(value)
    outputs = []
    for values, direction, axis in zip(collected, out_directions, out_axes, strict=True):
        if not values:
            raise ctx.unsupported("a Scan over an empty axis")
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
    if num_scan_outputs == 0:
        required = (
            not constant_trips
            or int(_scalar_of(trips)) > MAX_UNROLLED_ITERATIONS
            or (condition is not None and not isinstance(condition, Constant))
        )
        native = _native_loop(ctx, body, trip_input, condition_input, states, required)
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
    required: bool,
) -> list[Expr] | str | None:
    """The IR's Loop's outputs; or why the loop cannot be one; or, unless `required`, None
    when its body cannot end it early (its condition output is the condition passed in,
    or a constant true): such a loop with a constant count unrolls instead."""
    params = _loop_params(ctx, body, states)
    captures: Captures = {}
    results = ctx.convert_closure(body, params, captures)
    condition_out, new_states = _flag(ctx, results[0]), results[1:]
    folded = ctx.fold(results[0])
    never_false = folded is params[1] or (isinstance(folded, Constant) and bool(folded.data.all()))
    if never_false and not required:
        return None
    for position, (state, new) in enumerate(zip(states, new_states, strict=True)):
        old_type = _tensor_type(ctx, state, "a loop state")
        new_type = _tensor_type(ctx, new, "a loop state")
        if new_type != old_type:
            return (
                f"a state that changes type (state {position} goes from {old_type} to "
                f"{new_type} in one iteration): the IR's Loop keeps its states' types"
            )
    invariant_params = tuple(var for var, _ in captures.values())
    results_type = TupleType((TensorType((), "bool"), *(v.checked_type for v in new_states)))
    function = Function(
        (*params, *invariant_params),
        Tuple((condition_out, *new_states), ty=results_type),
        attrs=Attrs({"name": f"{ctx.name}_body"}),
    )
    trip_count = (
        Constant(np.array(np.iinfo(np.int64).max, np.int64))
        if trip_input is None
        else ctx.call("reshape", trip_input, newshape=())
    )
    condition = Constant(np.array(True)) if condition_input is None else _flag(ctx, condition_input)
    invariants = tuple(outer for _, outer in captures.values())
    node = infer_expr(
        Loop(trip_count, condition, tuple(states), invariants, function, span=ctx.name)
    )
    return [infer_expr(TupleGetItem(node, index)) for index in range(len(states))]


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
