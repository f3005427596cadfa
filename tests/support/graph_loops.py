"""Graph IR loops with scan outputs, shared by the graph IR and codegen tests."""

from __future__ import annotations

import numpy as np

from ir.graph.attrs import Attrs
from ir.graph.nodes import Function, Loop, Tuple, TupleGetItem, Var, call, const
from ir.graph.passes.infer_type import infer_type
from ir.graph.types import TensorType


def tracing_loop(trips: int, ends_early: bool) -> Function:
    """A graph IR loop with scan outputs: s = 0.5 * s + xs[i] for `trips` iterations
    (while sum(s) < limit, if `ends_early`); scan outputs: the state before each step, and
    twice the state after it."""
    vector = TensorType((8,), "float32")
    x, xs = Var("x", vector), Var("xs", TensorType((trips, 8), "float32"))
    limit = Var("limit", TensorType((), "float32"))
    i, running = Var("i", TensorType((), "int64")), Var("running", TensorType((), "bool"))
    s, seq, bound = (
        Var("s", vector),
        Var("seq", xs.type_annotation),
        Var("bound", limit.type_annotation),
    )
    new_s = call("add", call("multiply", s, const(np.float32(0.5))), call("take", seq, i, axis=0))
    going = call("less", call("sum", new_s, axis=None, keepdims=False), bound)
    flag = going if ends_early else running
    doubled = call("multiply", new_s, const(np.float32(2.0)))
    body = Function(
        (i, running, s, seq, bound), Tuple((flag, new_s, s, doubled)), Attrs({"name": "t"})
    )
    loop = Loop(const(np.int64(trips)), const(True), (x,), (xs, limit), body, scan_outputs=2)
    outputs = Tuple(tuple(TupleGetItem(loop, index) for index in range(3)))
    return infer_type(Function((x, xs, limit), outputs))


def python_trace(x: np.ndarray, xs: np.ndarray, limit: float) -> tuple[np.ndarray, ...]:
    """What `tracing_loop(len(xs), ends_early=True)` computes, in numpy."""
    state, before, doubled = x, np.zeros_like(xs), np.zeros_like(xs)
    for step, row in enumerate(xs):
        new = state * np.float32(0.5) + row
        before[step], doubled[step] = state, new * np.float32(2.0)
        state = new
        if not new.sum(dtype=np.float32) < limit:
            break
    return state, before, doubled
