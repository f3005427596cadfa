"""Step 5: tuned kernels timed inside the compiled model beside their defaults."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from codegen.executor import compile_model
from codegen.measure import default_trace
from codegen.target import parse_target
from ir.graph.nodes import Constant, Function, Var, call
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.pipeline import optimize
from ir.graph.types import TensorType
from ir.reference import check_close, evaluate, random_inputs
from ir.schedule import Trace
from tests.tuner.test_tune import FAST, two_task_model
from tuner.in_model import check_in_model
from tuner.options import TuneOptions
from tuner.records import Record, load_records, records_chooser, tuned_record
from tuner.tasks import extract_tasks
from tuner.tune import tune_model

# Compares kernel timings: run alone (`make test`).
pytestmark = pytest.mark.serial

RNG = np.random.default_rng(3)
NAIVE = Trace().to_json()  # no schedule at all: scalar loops on one core


def dense_model() -> Function:
    """relu(dense(y, W)) big enough that its naive loops are far slower than its default."""
    y = Var("y", TensorType((64, 256), "float32"))
    weight = Constant((RNG.standard_normal((256, 256)) * 0.1).astype(np.float32))
    return optimize(infer_type(Function((y,), call("nn.relu", call("nn.dense", y, weight)))))


def _cold(key: str, target: str, trace: dict[str, object], cost_s: float) -> Record:
    return Record(key, target, trace, (cost_s,) * 3, "ok", timing="cold")


def test_a_schedule_that_wins_alone_but_loses_inside_the_model_is_not_kept() -> None:
    """Records claim (cold, alone) that the naive loops beat the default; inside the model
    they are slower, and the check's records make the default the declared best."""
    fn = dense_model()
    target = parse_target("llvm")
    key = str(target)
    (task,) = extract_tasks(fn, target)
    default = default_trace(task.to_json(), key)
    records = [_cold(task.key, key, default, 1e-3), _cold(task.key, key, NAIVE, 1e-6)]
    assert tuned_record(records, task.key, key).trace == NAIVE  # type: ignore[union-attr]

    check = check_in_model(fn, target, records, rounds=2, seconds=0.5)

    (timing,) = check.timings
    assert timing.workload_key == task.key and timing.calls == 1
    assert timing.tuned_s > timing.default_s and timing.kept == "default"
    assert check.reverted == (timing,)
    assert check.tuned_latency_s is not None and check.default_latency_s is not None
    assert check.tuned_latency_s > check.default_latency_s
    assert {r.timing for r in check.records} == {"in_model"}
    assert sorted(dict(r.trace) == NAIVE for r in check.records) == [False, True]
    assert all(len(r.costs_s) == 2 for r in check.records)  # one cost per round
    everything = [*records, *check.records]
    best = tuned_record(everything, task.key, key)
    assert best is not None and best.timing == "in_model" and dict(best.trace) == default
    # ... and a compile with all the records takes the default, and computes right.
    compiled = compile_model(fn, target, records_chooser(everything, key))
    ((_, schedule),) = compiled.kernel_schedules()
    assert schedule.trace.to_json() == default
    inputs = random_inputs(fn)
    check_close(compiled.run(inputs), evaluate(fn, inputs))


def test_nothing_tuned_is_nothing_to_time() -> None:
    fn = dense_model()
    check = check_in_model(fn, parse_target("llvm"), [], rounds=1, seconds=0.1)
    assert check.timings == () and check.records == () and check.tuned_latency_s is None


def test_a_later_check_decides_over_an_earlier_one() -> None:
    """Each check times its candidates side by side: the latest record of each counts (a
    candidate timed once before does not win on an old, luckier run)."""
    target = "llvm -mcpu=x"
    older = [
        Record("k", target, {"a": 1}, (1.0,), "ok", time=1.0, timing="in_model"),
        Record("k", target, {"a": 2}, (2.0,), "ok", time=1.0, timing="in_model"),
    ]
    newer = [
        Record("k", target, {"a": 1}, (3.0,), "ok", time=2.0, timing="in_model"),
        Record("k", target, {"a": 2}, (2.5,), "ok", time=2.0, timing="in_model"),
    ]
    cold = [Record("k", target, {"a": 3}, (0.1,), "ok", time=0.5, timing="cold")]
    assert dict(tuned_record([*older, *cold], "k", target).trace) == {"a": 1}  # type: ignore[union-attr]
    assert dict(tuned_record([*older, *newer, *cold], "k", target).trace) == {"a": 2}  # type: ignore[union-attr]
    assert dict(tuned_record(cold, "k", target).trace) == {"a": 3}  # type: ignore[union-attr]


def test_tune_model_ends_with_the_check_and_keeps_its_records(tmp_path: Path) -> None:
    fn = two_task_model()
    path = tmp_path / "records.jsonl"
    options = TuneOptions(8, batch_size=4, search="random", measure=FAST, remeasure_top=0)
    result = tune_model(fn, "llvm", options, path)
    check = result.in_model
    assert check is not None and check.tuned_latency_s is not None
    in_model = [r for r in load_records(path) if r.timing == "in_model"]
    assert len(in_model) == 2 * len(check.timings) and list(check.records) == in_model
    # Without it (or measured elsewhere, through a measurer) there is no step 5.
    off = tune_model(fn, "llvm", options.replace(in_model=False, trials=10), path)
    assert off.in_model is None


def _branching_dense_model(dense_taken: bool) -> Function:
    """An If on `sum(y) < -1e9` (false for the check's inputs in [-1, 1]): relu(dense(y, W))
    in the branch taken when `dense_taken`, else in the one never taken."""
    from ir.graph.nodes import If

    y = Var("y", TensorType((64, 256), "float32"))
    weight = Constant((RNG.standard_normal((256, 256)) * 0.1).astype(np.float32))
    a = Var("a", TensorType((64, 256), "float32"))
    dense = Function((a,), call("nn.relu", call("nn.dense", a, weight)))
    other = Function((a,), call("negative", a))
    never = call("less", call("sum", y, axis=None, keepdims=False), Constant(np.float32(-1e9)))
    then_branch, else_branch = (other, dense) if dense_taken else (dense, other)
    return optimize(infer_type(Function((y,), If(never, then_branch, else_branch, (y,)))))


@pytest.mark.parametrize("dense_taken", [True, False])
def test_kernels_inside_branches_are_checked_when_they_run(dense_taken: bool) -> None:
    """A kernel in the branch the inputs take is timed inside the model like any other; one
    in a branch they never take is kept as tuned, with no in-model record."""
    fn = _branching_dense_model(dense_taken)
    target = parse_target("llvm")
    key = str(target)
    task = next(task for task in extract_tasks(fn, target) if "dense" in task.name)
    default = default_trace(task.to_json(), key)
    records = [_cold(task.key, key, default, 1e-3), _cold(task.key, key, NAIVE, 1e-6)]

    check = check_in_model(fn, target, records, rounds=2, seconds=0.5)

    if dense_taken:
        (timing,) = check.timings
        assert timing.workload_key == task.key and timing.calls == 1
        assert timing.kept == "default" and len(check.records) == 2
    else:
        assert check.timings == () and check.records == ()
        assert check.tuned_latency_s is not None  # the model itself was timed
