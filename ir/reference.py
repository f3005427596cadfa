"""The numpy oracle: evaluates graph IR with each op's reference, and compares results.

`check_close` is the single correctness gate: tests use it, and the workers use it to
mark a candidate `wrong_result`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ir.errors import IRError
from ir.graph.nodes import Call, Constant, Expr, Function, If, Loop, Tuple, TupleGetItem, Var
from ir.graph.ops.registry import get_op
from ir.graph.traversal import count_uses, post_order
from ir.graph.types import TensorType, TupleType

Value = Any  # np.ndarray | tuple[Value, ...]


def _evaluate_call(call: Call, args: Sequence[Value]) -> Value:
    if isinstance(call.op, Function):
        return evaluate(call.op, dict(zip((p.name for p in call.op.params), args, strict=True)))
    return get_op(call.op).reference(list(args), call.attrs)


def _apply(fn: Function, args: Sequence[Value]) -> Value:
    return evaluate_expr(fn.body, dict(zip((p.name for p in fn.params), args, strict=True)))


def _evaluate_if(node: If, condition: np.ndarray, args: Sequence[Value]) -> Value:
    taken = node.then_branch if bool(np.asarray(condition).reshape(-1)[0]) else node.else_branch
    return _apply(taken, args)


def _evaluate_loop(node: Loop, operands: Sequence[Value]) -> Value:
    count = len(node.states)
    trips, running = int(np.asarray(operands[0])), bool(np.asarray(operands[1]))
    states, invariants = list(operands[2 : 2 + count]), list(operands[2 + count :])
    assert isinstance(node.checked_type, TupleType)
    scanned = [
        np.zeros(ty.shape, ty.dtype)
        for ty in node.checked_type.fields[count:]
        if isinstance(ty, TensorType)
    ]
    iteration = 0
    while iteration < trips and running:
        operands = [np.array(iteration, np.int64), np.array(running), *states, *invariants]
        flag, *results = _apply(node.body, operands)
        states = results[:count]
        for rows, row in zip(scanned, results[count:], strict=True):
            rows[iteration] = row
        running = bool(np.asarray(flag))
        iteration += 1
    return tuple([*(np.asarray(state) for state in states), *scanned])


def evaluate_expr(expr: Expr, env: Mapping[str, Value]) -> Value:
    """Evaluate `expr` with free variables bound by name in `env`."""
    values: dict[int, Value] = {}
    uses = count_uses(expr)
    for node in post_order(expr):
        if isinstance(node, Var):
            if node.name not in env:
                raise IRError(f"no value bound for variable %{node.name}")
            result: Value = env[node.name]
        elif isinstance(node, Constant):
            result = node.data
        elif isinstance(node, Call):
            result = _evaluate_call(node, [values[id(arg)] for arg in node.args])
        elif isinstance(node, Tuple):
            result = tuple(values[id(f)] for f in node.fields)
        elif isinstance(node, TupleGetItem):
            result = values[id(node.tuple_value)][node.index]
        elif isinstance(node, If):
            result = _evaluate_if(
                node, values[id(node.condition)], [values[id(a)] for a in node.args]
            )
        elif isinstance(node, Loop):
            result = _evaluate_loop(node, [values[id(child)] for child in node.children()])
        elif isinstance(node, Function):
            raise IRError("cannot evaluate a nested function value")
        else:
            raise IRError(f"unknown node {type(node).__name__}")
        values[id(node)] = result
        # Free intermediate values as soon as their last user has run.
        for child in node.children():
            uses[id(child)] -= 1
            if uses[id(child)] == 0 and child is not expr:
                values.pop(id(child), None)
    return values[id(expr)]


def evaluate(fn: Function, inputs: Mapping[str, np.ndarray]) -> Value:
    """Run `fn` on named numpy inputs; checks that every parameter is given with its type."""
    env: dict[str, Value] = {}
    for param in fn.params:
        if param.name not in inputs:
            raise IRError(f"missing input {param.name!r}")
        value = np.asarray(inputs[param.name])
        expected = param.type_annotation
        if isinstance(expected, TensorType) and (
            value.shape != expected.shape or value.dtype.name != expected.dtype
        ):
            raise IRError(
                f"input {param.name!r}: expected shape {expected.shape} {expected.dtype}, "
                f"got {value.shape} {value.dtype.name}"
            )
        env[param.name] = value
    return evaluate_expr(fn.body, env)


def default_tolerance(dtype: np.dtype[Any] | str) -> tuple[float, float]:
    """The (rtol, atol) used for a dtype when none is given."""
    name = np.dtype(dtype).name
    if name == "float16":
        return 1e-2, 1e-3
    if name == "float32":
        return 1e-4, 1e-5
    if name == "float64":
        return 1e-9, 1e-12
    return 0.0, 0.0


def check_close(
    actual: np.ndarray,
    expected: np.ndarray,
    rtol: float | None = None,
    atol: float | None = None,
    what: str = "result",
) -> None:
    """Raise AssertionError naming the worst element when `actual` differs from `expected`.

    Tolerances default by dtype (exact for integers and bools). NaNs must match NaNs.
    """
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    if actual.shape != expected.shape:
        raise AssertionError(f"{what}: shape {actual.shape} != expected {expected.shape}")
    default_rtol, default_atol = default_tolerance(expected.dtype)
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    if actual.size == 0:
        return
    if expected.dtype.kind in "biu":
        bad = actual != expected
    else:
        act = actual.astype(np.float64)
        exp = expected.astype(np.float64)
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(act - exp) <= atol + rtol * np.abs(exp))
        bad &= ~(np.isnan(act) & np.isnan(exp))
        bad &= ~(np.isinf(act) & np.isinf(exp) & (np.sign(act) == np.sign(exp)))
    count = int(np.count_nonzero(bad))
    if count:
        if expected.dtype.kind in "biu":
            worst = tuple(int(i) for i in np.argwhere(bad)[0])
        else:
            err = np.where(bad, np.abs(actual.astype(np.float64) - expected), 0.0)
            worst = tuple(int(i) for i in np.unravel_index(int(np.nanargmax(err)), err.shape))
        raise AssertionError(
            f"{what}: {count} of {actual.size} elements differ (rtol={rtol}, atol={atol}); "
            f"worst at {worst}: got {actual[worst]!r}, expected {expected[worst]!r}"
        )


def random_inputs(fn: Function, seed: int = 0) -> dict[str, np.ndarray]:
    """Inputs for every parameter of `fn` drawn from `seed`: floats uniform in [-1, 1],
    integers and bools 0 or 1 (small, so valid as indices and as masks)."""
    rng = np.random.default_rng(seed)
    inputs = {}
    for param in fn.params:
        ty = param.type_annotation
        if not isinstance(ty, TensorType):
            raise IRError(f"parameter %{param.name} is not a tensor: {ty}")
        dtype = np.dtype(ty.dtype)
        if dtype.kind == "f":
            array = rng.uniform(-1.0, 1.0, ty.shape).astype(dtype)
        else:
            array = rng.integers(0, 2, ty.shape).astype(dtype)
        inputs[param.name] = np.array(array, order="C")  # (ascontiguousarray makes 0-d 1-d)
    return inputs
