"""rfactor: a reduce axis split into partial results computed by a new stage."""

from __future__ import annotations

import json

import numpy as np
import pytest

from codegen.llvm import compile_kernel
from ir.errors import ScheduleError
from ir.lower import lower
from ir.schedule import Schedule, Trace
from ir.schedule.schedule import RFACTOR_TAIL
from ir.schedule.trace import Step
from ir.te.program import TEProgram
from ir.te.tensor import compute, max_reduce, placeholder, reduce_axis, sum_reduce
from ir.tir.expr import Select, binary, ne
from ir.tir.printer import format_func
from ir.tir.stmt import IfThenElse
from ir.tir.visit import walk_expr, walk_stmt

RNG = np.random.default_rng(7)


def _row_sums(rows: int, depth: int, width: int, combiner: str = "sum") -> TEProgram:
    """out[i] = combiner over (a, b) of x[i, a, b], with b (contiguous) the last axis."""
    x = placeholder((rows, depth, width), name="x")
    a, b = reduce_axis(depth, "a"), reduce_axis(width, "b")
    reducer = sum_reduce if combiner == "sum" else max_reduce
    out = compute((rows,), lambda i: reducer(x[i, a, b], (a, b)), name="out", tag="reduce")
    return TEProgram("row_sums", (x,), (out,))


def _run(schedule: Schedule, *inputs: np.ndarray) -> np.ndarray:
    func = lower(schedule)
    (output,) = func.outputs
    result = np.full(output.shape, np.nan, np.float32)
    compile_kernel(func)(*inputs, result)
    return result


def test_rfactor_makes_a_partial_stage_and_reduces_its_partials() -> None:
    schedule = Schedule(_row_sums(3, 4, 37))
    partial = schedule.rfactor("out", "b", 8)
    assert partial == "out_rf" and list(schedule.stages) == ["out_rf", "out"]
    partial_op, final_op = schedule.stages["out_rf"].op, schedule.stages["out"].op
    assert [(a.name, a.extent) for a in partial_op.axes] == [("i", 3), ("b_i", 8)]
    assert [(a.name, a.extent) for a in partial_op.reduce_axes] == [("a", 4), ("b_o", 5)]
    assert [(a.name, a.extent) for a in final_op.reduce_axes] == [("b_i", 8)]
    assert partial_op.attr(RFACTOR_TAIL) == ("b_o", "b_i", 37)  # 5 x 8 covers 37 and more
    assert schedule.stages["out"].is_output and not schedule.stages["out_rf"].is_output
    assert [step.kind for step in schedule.trace.steps] == ["rfactor"]
    replayed = Trace.from_json(json.loads(schedule.trace.dumps())).replay(_row_sums(3, 4, 37))
    assert format_func(lower(replayed)) == format_func(lower(schedule))


@pytest.mark.parametrize(("width", "factor"), [(37, 8), (37, 16), (32, 16), (20, 3)])
@pytest.mark.parametrize("combiner", ["sum", "max"])
def test_rfactored_reductions_compute_the_reference(width: int, factor: int, combiner: str) -> None:
    """The partials vectorized and the outer reduction right around them (the tail of a
    factor that does not divide the row is its own last step), then the partials
    reduced: the same numbers as numpy, without a mask or a guard in the kernel."""
    x = RNG.standard_normal((5, 3, width)).astype(np.float32)
    schedule = Schedule(_row_sums(5, 3, width, combiner))
    partial = schedule.rfactor("out", "b", factor)
    schedule.reorder(partial, "i", "a", "b_o", "b_i")
    schedule.vectorize(partial, "b_i")
    func = lower(schedule)
    assert not [s for s in walk_stmt(func.body) if isinstance(s, IfThenElse)]
    stores = [s for s in walk_stmt(func.body) if hasattr(s, "value")]
    assert not [n for s in stores for n in walk_expr(s.value) if isinstance(n, Select)]
    expected = x.sum(axis=(1, 2)) if combiner == "sum" else x.max(axis=(1, 2))
    np.testing.assert_allclose(_run(schedule, x), expected, rtol=1e-5, atol=1e-5)


def test_an_rfactor_keeps_the_reductions_condition() -> None:
    """A reduction that skips elements (its `where`) skips the same ones in its partials."""
    x = placeholder((4, 30), name="x")
    k = reduce_axis(30, "k")
    out = compute(
        (4,),
        lambda i: sum_reduce(x[i, k], k, where=ne(binary("floormod", k.var, 3), 0)),
        name="out",
    )
    schedule = Schedule(TEProgram("skip", (x,), (out,)))
    partial = schedule.rfactor("out", "k", 7)
    schedule.reorder(partial, "i", "k_o", "k_i")
    schedule.vectorize(partial, "k_i")
    values = RNG.standard_normal((4, 30)).astype(np.float32)
    expected = values[:, np.arange(30) % 3 != 0].sum(axis=1)
    np.testing.assert_allclose(_run(schedule, values), expected, rtol=1e-5, atol=1e-5)


def test_a_partial_computed_inside_the_final_reduction_keeps_its_tail_guarded() -> None:
    """Computed at the final stage's loop over the partials, the partial stage computes
    one partial per iteration: its last outer step is not peeled to a shorter inner loop
    (which would cut the wrong partial; found by tests/codegen/test_schedule_properties)."""
    x = RNG.standard_normal((3, 2, 29)).astype(np.float32)
    schedule = Schedule(_row_sums(3, 2, 29))
    partial = schedule.rfactor("out", "b", 4)
    schedule.compute_at(partial, "out", "b_i")
    np.testing.assert_allclose(_run(schedule, x), x.sum(axis=(1, 2)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("stage", "axis", "factor", "message"),
    [
        ("out", "b", 1, "factor must be an integer from 2 to 36"),
        ("out", "b", 37, "factor must be an integer from 2 to 36"),
        ("out", "b", True, "factor must be an integer"),
        ("out", "b", "8", "factor must be an integer"),
        ("out", "i", 2, "'i' is not a reduce axis of out; reduce axes: \\['a', 'b'\\]"),
        ("nothing", "b", 2, "no stage 'nothing'"),
    ],
)
def test_invalid_rfactors_are_refused_and_change_nothing(
    stage: str, axis: str, factor: object, message: str
) -> None:
    """(As a trace's step, which may hold anything.)"""
    schedule = Schedule(_row_sums(3, 4, 37))
    with pytest.raises(ScheduleError, match=message):
        schedule.apply(Step.make("rfactor", stage=stage, axis=axis, factor=factor))
    assert list(schedule.stages) == ["out"] and not schedule.trace.steps


def test_rfactor_comes_before_other_steps_and_only_on_reductions() -> None:
    schedule = Schedule(_row_sums(3, 4, 37))
    schedule.split("out", "i", factor=2)
    with pytest.raises(ScheduleError, match="rfactor must come before other steps on out"):
        schedule.rfactor("out", "b", 8)
    x = placeholder((4,), name="x")
    double = compute((4,), lambda i: x[i] * 2.0, name="double")
    elementwise = Schedule(TEProgram("double", (x,), (double,)))
    with pytest.raises(ScheduleError, match="double is not a reduction"):
        elementwise.rfactor("double", "i", 2)
