"""tune_model end to end on a tiny two-task model; resume; the records schedule provider."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from codegen.executor import compile_model
from codegen.measure import (
    MeasureInput,
    MeasureOptions,
    MeasureResult,
    MeasureSession,
    default_trace,
)
from codegen.target import canonical_target, parse_target
from ir.graph.nodes import Constant, Function, Tuple, Var, call
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.pipeline import optimize
from ir.graph.types import TensorType
from ir.reference import check_close, evaluate
from ir.schedule import Trace
from ir.te.program import function_to_te
from ir.tir.expr import IntImm
from ir.tir.expr import Var as SizeVar
from tests.tuner.test_scheduler import FakeClock
from tuner.options import TuneOptions
from tuner.records import (
    Record,
    RecordLog,
    compute_candidate_id,
    load_records,
    records_chooser,
    tuned_record,
)
from tuner.scheduler import TaskScheduler
from tuner.search import make_search
from tuner.space import SearchSpace
from tuner.space.select import search_space_for
from tuner.tasks import Task, extract_tasks
from tuner.tune import TuneProgress, _Pace, tune_model, tune_tasks

# Compares kernel timings: run alone (`make test`).
pytestmark = pytest.mark.serial

RNG = np.random.default_rng(0)


FAST = MeasureOptions(repeat=2, min_repeat_ms=5.0)
SMALL_SEARCH = {"population": 32, "generations": 1}


def two_task_model() -> Function:
    """(relu(conv2d(x, W)), relu(dense(y, V))): two fused functions, two tasks."""
    x = Var("x", TensorType((1, 8, 10, 10), "float32"))
    y = Var("y", TensorType((4, 64), "float32"))
    # 12 output channels: no channel block divides them, so the conv stays NCHW and its
    # result needs no layout transform (a third task).
    conv_weight = Constant((RNG.standard_normal((12, 8, 3, 3)) * 0.2).astype(np.float32))
    dense_weight = Constant((RNG.standard_normal((32, 64)) * 0.1).astype(np.float32))
    body = Tuple(
        (
            call("nn.relu", call("nn.conv2d", x, conv_weight, padding=(1, 1))),
            call("nn.relu", call("nn.dense", y, dense_weight)),
        )
    )
    return optimize(infer_type(Function((x, y), body)))


def model_inputs() -> dict[str, np.ndarray]:
    return {
        "x": RNG.standard_normal((1, 8, 10, 10)).astype(np.float32),
        "y": RNG.standard_normal((4, 64)).astype(np.float32),
    }


@pytest.mark.slow
def test_tune_resume_and_compile_with_the_records(tmp_path: Path) -> None:
    fn = two_task_model()
    assert len(extract_tasks(fn, parse_target("llvm"))) == 2
    path = tmp_path / "records.jsonl"
    events: list[TuneProgress] = []
    batches: list[tuple[int, bool, int]] = []  # (candidates, timed in turns, repeats)

    with MeasureSession() as session:

        def measurer(
            inputs: Sequence[MeasureInput], options: MeasureOptions
        ) -> list[MeasureResult]:
            batches.append((len(inputs), options.in_turn, options.repeat))
            return session.measure_batch(inputs, options)

        result = tune_model(
            fn,
            "llvm",
            TuneOptions(16, batch_size=8, measure=FAST, search_options=SMALL_SEARCH),
            path,
            progress=events.append,
            measurer=measurer,
        )

    # Step 1. Each task's default schedule was measured first (the survey); then the
    # task of the bigger share (weight x default cost) got the first round of 8, the
    # other the 6 trials left. Every candidate is a record.
    assert result.measured == 16
    assert [(event.task_index, event.batch_trials) for event in events[:2]] == [(0, 1), (1, 1)]
    shares = [event.task_best_cost_s for event in events[:2]]
    assert all(share is not None for share in shares)
    bigger = int(shares[1] > shares[0])  # type: ignore[operator]  (both tasks weigh 1)
    assert (events[2].task_index, events[2].batch_trials) == (bigger, 8)
    assert sum(event.batch_trials for event in events[3:]) == 6
    assert events[-1].total_trials == 16
    records = load_records(path)
    first_measurements = {r.candidate_id for r in records}
    assert len(first_measurements) == 16
    # The top candidates of each task were re-measured with more repeats, and with them
    # the default schedule and the space's points nearest it, so the declared best is
    # confirmed against them.
    assert 0 < result.remeasured <= 2 * (3 + 3)
    assert len(records) == 16 + result.remeasured
    assert all(len(r.costs_s) == FAST.repeat * 3 for r in records[16:] if r.status == "ok")
    # ... in one batch per task, after the tuning batches. Every batch is timed in turns.
    assert all(turns for _, turns, _ in batches)
    repeats = [repeat for _, _, repeat in batches]
    assert repeats == sorted(repeats) and repeats.count(FAST.repeat * 3) <= 2
    assert sum(count for count, _, repeat in batches if repeat > FAST.repeat) == result.remeasured
    target = canonical_target("llvm")
    remeasured = {r.candidate_id for r in records[16:]}
    for each, summary in zip(extract_tasks(fn, parse_target("llvm")), result.tasks, strict=True):
        default = compute_candidate_id(each.key, target, default_trace(each.to_json(), target))
        assert default in remeasured
        # The default is the space's default point; the space's other prior point (a conv
        # tiled over columns), where there is one, was measured in the task's first round
        # after the survey (the gradient may give the bigger share both), and re-measured.
        space = search_space_for(
            function_to_te(each.function), parse_target(target), each.constant_params
        )
        assert isinstance(space, SearchSpace)
        assert compute_candidate_id(each.key, target, space.default_point().to_json()) == default
        for prior in space.prior_points()[1:]:
            nearest = compute_candidate_id(each.key, target, prior.to_json())
            assert summary.trials == 1 or nearest in first_measurements
            assert summary.trials == 1 or nearest in remeasured
    for task in result.tasks:
        assert task.best_gflops is not None and task.best_gflops > 0
    assert result.estimated_latency_s is not None

    # Step 2. A run killed while writing leaves a torn last line. Resuming with the budget
    # spent skips it, and measures and re-measures nothing.
    with path.open("a") as file:
        file.write(records[0].dumps()[:120])
    again = tune_model(
        fn,
        "llvm",
        TuneOptions(16, batch_size=8, measure=FAST, search_options=SMALL_SEARCH, in_model=False),
        path,
    )
    assert again.measured == 0 and again.remeasured == 0
    assert [task.trials for task in again.tasks] == [task.trials for task in result.tasks]
    assert [task.best_cost_s for task in again.tasks] == [task.best_cost_s for task in result.tasks]
    assert len(load_records(path)) == len(records)

    # Step 3. The records compile a model that matches the reference, with the tuned traces.
    compiled = compile_model(fn, chooser=records_chooser(records, target))
    assert all(task.hit for task in compiled.coverage)
    inputs = model_inputs()
    for got, want in zip(compiled.run(inputs), evaluate(fn, inputs), strict=True):
        check_close(got, want)
    expected = {
        Trace.from_json(tuned_record(records, task.key, target).trace).dumps()  # type: ignore[union-attr]
        for task in extract_tasks(fn, parse_target("llvm"))
    }
    assert {schedule.trace.dumps() for _, schedule in compiled.kernel_schedules()} == expected


SYMBOLIC_WEIGHT = (RNG.standard_normal((32, 64)) * 0.1).astype(np.float32)
SYMBOLIC_BIAS = RNG.standard_normal(32).astype(np.float32)


def symbolic_dense_model(rows: int = 48) -> Function:
    """relu(dense(y, W) + b) over a symbolic number of rows, at most `rows`."""
    y = Var("y", TensorType((rows, 64), "float32", (SizeVar("rows"), IntImm(64))))
    dense = call("nn.dense", y, Constant(SYMBOLIC_WEIGHT))
    body = call("nn.relu", call("add", dense, Constant(SYMBOLIC_BIAS)))
    return optimize(infer_type(Function((y,), body)))


def test_a_symbolic_model_tunes_at_its_bounds_and_its_records_compile_every_size(
    tmp_path: Path,
) -> None:
    fn = symbolic_dense_model()
    (task,) = extract_tasks(fn, parse_target("llvm"))
    assert '"dims": ["rows", "64"]' in json.dumps(task.to_json())
    path = tmp_path / "records.jsonl"
    options = TuneOptions(6, batch_size=3, measure=FAST, search_options=SMALL_SEARCH)
    result = tune_model(fn, "llvm", options, path)
    assert result.measured == 6 and result.tasks[0].best_gflops is not None
    records = load_records(path)
    assert {record.workload_key for record in records} == {task.key}
    compiled = compile_model(fn, chooser=records_chooser(records, canonical_target("llvm")))
    assert all(coverage.hit for coverage in compiled.coverage)
    for count in (1, 7, 48):
        y = RNG.standard_normal((count, 64)).astype(np.float32)
        check_close(compiled.run({"y": y}), np.maximum(y @ SYMBOLIC_WEIGHT.T + SYMBOLIC_BIAS, 0))


def test_a_wide_range_tunes_its_small_size_bucket_weighted_by_the_histogram(
    tmp_path: Path,
) -> None:
    """Rows up to 160: the dense is two tasks, the whole range and rows <= 32, shared by
    the histogram (3 runs in 4 at 16 rows). The bucket's search keeps the whole range's
    weight layout, and the compile takes a record for each."""
    fn = symbolic_dense_model(rows=160)
    target = parse_target("llvm")
    whole, bucket = extract_tasks(fn, target, {"rows": {16: 3.0, 150: 1.0}})
    assert (whole.share, bucket.share, bucket.layouts_of) == (0.25, 0.75, whole.key)
    assert (whole.covers, bucket.covers) == ({"rows": 160}, {"rows": 32})
    assert (whole.measure_at, bucket.measure_at) == ({"rows": 150}, {"rows": 16})
    uniform = extract_tasks(fn, target)
    assert [task.share for task in uniform] == [1 - 32 / 160, 32 / 160]
    path = tmp_path / "records.jsonl"
    options = TuneOptions(16, batch_size=4, measure=FAST, search_options=SMALL_SEARCH)
    result = tune_tasks([whole, bucket], target, options, RecordLog(path))
    assert [(task.share, task.covers) for task in result.tasks] == [
        (0.25, {"rows": 160}),
        (0.75, {"rows": 32}),
    ]
    records = [record for record in load_records(path) if record.status == "ok"]
    layouts = {
        key: {
            json.dumps(_layout_steps(record.trace), sort_keys=True)
            for record in records
            if record.workload_key == key
        }
        for key in (whole.key, bucket.key)
    }
    default = json.dumps(_layout_steps(default_trace_json(bucket)), sort_keys=True)
    assert layouts[bucket.key] - {default} <= layouts[whole.key]
    compiled = compile_model(fn, chooser=records_chooser(records, canonical_target("llvm")))
    assert [coverage.workload_key for coverage in compiled.coverage] == [whole.key, bucket.key]
    assert compiled.coverage[0].hit
    for count in (1, 16, 32, 33, 160):
        y = RNG.standard_normal((count, 64)).astype(np.float32)
        check_close(compiled.run({"y": y}), np.maximum(y @ SYMBOLIC_WEIGHT.T + SYMBOLIC_BIAS, 0))


def _layout_steps(trace: Mapping[str, Any]) -> list[Any]:
    return [step for step in trace["steps"] if step["kind"] == "layout_rewrite"]


def default_trace_json(task: Task) -> dict[str, Any]:
    program = function_to_te(task.function)
    return SearchSpace(program, constant_inputs=task.constant_params).default_point().to_json()


def test_chooser_falls_back_to_the_default_schedule() -> None:
    fn = two_task_model()
    compiled = compile_model(fn, chooser=records_chooser([], canonical_target("llvm")))
    assert not any(task.hit for task in compiled.coverage)
    default = compile_model(fn)
    assert [s.trace for _, s in compiled.kernel_schedules()] == [
        s.trace for _, s in default.kernel_schedules()
    ]


def _record(
    trace: dict[str, object], costs: list[float], status: str = "ok", time: float = 0.0
) -> Record:
    return Record("key", "llvm -mcpu=x", trace, costs, status, time=time)


def test_tuned_record_prefers_re_measured_candidates() -> None:
    a = {"version": 1, "steps": [{"kind": "compute_root", "stage": "a"}]}
    b = {"version": 1, "steps": [{"kind": "compute_root", "stage": "b"}]}
    c = {"version": 1, "steps": [{"kind": "compute_root", "stage": "c"}]}
    records = [
        _record(a, [1.0], time=1),
        _record(b, [2.0], time=2),
        _record(c, [0.5], status="wrong_result", time=3),
        _record(b, [1.5, 1.5, 1.5], time=4),  # b re-measured: confirmed at 1.5
    ]
    # Without re-measurements the lowest median wins; failures never do.
    assert tuned_record(records[:3], "key", "llvm -mcpu=x") is records[0]
    # a's single short measurement does not beat b's confirmed one.
    assert tuned_record(records, "key", "llvm -mcpu=x") is records[3]
    assert tuned_record(records, "other", "llvm -mcpu=x") is None
    assert tuned_record(records, "key", "llvm -mcpu=y") is None


def test_the_default_schedule_is_measured_once_when_the_search_proposes_it_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tuning puts the default schedule first in a task's first batch. Here the search also
    # proposes it in that batch: the default is taken to be its first proposal.
    x = Var("x", TensorType((1, 2, 9, 9, 16), "float32"))
    pool = call("nn.max_pool2d", x, pool_size=(3, 3), strides=(2, 2), layout="NCHWc")
    fn = optimize(infer_type(Function((x,), pool)))
    (task,) = extract_tasks(fn, parse_target("llvm"))
    program = function_to_te(task.function)
    space = search_space_for(program, parse_target(task.target), task.constant_params)
    proposals = make_search("random", space, random.Random(0)).generate(8)
    monkeypatch.setattr(
        "tuner.tune.default_schedule_for",
        lambda *_: SimpleNamespace(trace=proposals[0]),
    )
    path = tmp_path / "records.jsonl"
    result = tune_model(
        fn,
        "llvm",
        TuneOptions(
            8, batch_size=8, search="random", measure=FAST, remeasure_top=0, in_model=False
        ),
        path,
    )
    candidates = [record.candidate_id for record in load_records(path)]
    assert result.measured == len(candidates) == len(set(candidates))


def test_a_dense_measures_its_default_first_then_samples_one_per_batch(
    tmp_path: Path,
) -> None:
    y = Var("y", TensorType((4, 64), "float32"))
    weight = Constant((RNG.standard_normal((48, 64)) * 0.1).astype(np.float32))
    fn = optimize(infer_type(Function((y,), call("nn.dense", y, weight))))
    (task,) = extract_tasks(fn, parse_target("llvm"))
    path = tmp_path / "records.jsonl"
    tune_model(
        fn,
        "llvm",
        TuneOptions(
            3, batch_size=1, search="random", measure=FAST, remeasure_top=0, in_model=False
        ),
        path,
    )
    space = search_space_for(
        function_to_te(task.function), parse_target(task.target), task.constant_params
    )
    assert isinstance(space, SearchSpace)
    first, second, third = (Trace.from_json(dict(r.trace)) for r in load_records(path))
    assert first == Trace.from_json(default_trace(task.to_json(), task.target))
    assert first == space.default_point() and space.prior_points() == [first]
    assert len({first, second, third}) == 3


def test_a_conv_measures_its_point_tiled_over_columns_third(tmp_path: Path) -> None:
    """A conv read at unit stride along 32 columns: after the default (the space's default
    point), the multi-level tiling with its register tile over columns."""
    data = Var("x", TensorType((1, 8, 6, 32), "float32"))
    weight = Constant((RNG.standard_normal((16, 8, 3, 3)) * 0.1).astype(np.float32))
    fn = optimize(infer_type(Function((data,), call("nn.conv2d", data, weight, padding=(1, 1)))))
    (task,) = extract_tasks(fn, parse_target("llvm"))
    path = tmp_path / "records.jsonl"
    tune_model(
        fn,
        "llvm",
        TuneOptions(
            4, batch_size=2, search="random", measure=FAST, remeasure_top=0, in_model=False
        ),
        path,
    )
    space = search_space_for(
        function_to_te(task.function), parse_target(task.target), task.constant_params
    )
    assert isinstance(space, SearchSpace)
    traces = [Trace.from_json(dict(r.trace)) for r in load_records(path)]
    default = Trace.from_json(default_trace(task.to_json(), task.target))
    assert traces[:2] == [default, *space.prior_points()[1:]] == space.prior_points()
    assert len(set(traces)) == 4
    assert all(r.status == "ok" for r in load_records(path))


def test_batches_fit_the_time_left_at_the_measured_pace() -> None:
    """Under a time limit the first batch is small (the pace is unknown), later ones are
    cut to what the time left holds at the seconds per candidate so far (at least one),
    and without a limit nothing is cut."""
    clock = FakeClock()
    limited = TaskScheduler([1], max_trials=1000, time_limit_s=10.0, clock=clock)
    pace = _Pace()
    assert pace.fitting(16, TaskScheduler([1], max_trials=1000)) == 16
    assert pace.fitting(16, limited) == _Pace.FIRST_BATCH_UNDER_LIMIT
    pace.note(4, 2.0)  # 0.5 s per candidate
    clock.now = 7.0  # 3 s left: 6 candidates
    assert pace.fitting(16, limited) == 6
    assert pace.fitting(4, limited) == 4
    clock.now = 9.9
    assert pace.fitting(16, limited) == 1


def test_a_time_limited_run_measures_a_small_first_batch(tmp_path: Path) -> None:
    y = Var("y", TensorType((4, 64), "float32"))
    weight = Constant((RNG.standard_normal((48, 64)) * 0.1).astype(np.float32))
    fn = optimize(infer_type(Function((y,), call("nn.dense", y, weight))))
    batches: list[int] = []

    with MeasureSession() as session:

        def measurer(
            inputs: Sequence[MeasureInput], options: MeasureOptions
        ) -> list[MeasureResult]:
            batches.append(len(inputs))
            return session.measure_batch(inputs, options)

        tune_model(
            fn,
            "llvm",
            TuneOptions(
                6, time_limit_s=600.0, batch_size=4, search="random", measure=FAST, remeasure_top=0
            ),
            tmp_path / "r.jsonl",
            measurer=measurer,
        )
    # The survey measures the default alone, which sets the pace; the next batch is timed
    # with the default beside its 4 candidates (calibration), and the last trial is alone.
    assert batches == [1, 4 + 1, 1]


def test_warm_and_cold_records_are_never_compared(tmp_path: Path) -> None:
    x = Var("x", TensorType((1, 2, 9, 9, 16), "float32"))
    pool = call("nn.max_pool2d", x, pool_size=(3, 3), strides=(2, 2), layout="NCHWc")
    fn = optimize(infer_type(Function((x,), pool)))
    (task,) = extract_tasks(fn, parse_target("llvm"))
    path = tmp_path / "records.jsonl"
    cold = dataclasses.replace(FAST, flush_cache=True)
    warm_run = tune_model(
        fn, "llvm", TuneOptions(3, batch_size=3, measure=FAST, in_model=False), path
    )
    # A cold run neither resumes from nor counts the warm records: it measures anew.
    cold_run = tune_model(
        fn, "llvm", TuneOptions(3, batch_size=3, measure=cold, in_model=False), path
    )
    assert warm_run.measured == cold_run.measured == 3
    records = load_records(path)
    assert {r.timing for r in records[:3]} == {"warm"}
    assert {r.timing for r in records[warm_run.measured + warm_run.remeasured :]} == {"cold"}
    # Cold costs decide the best wherever the workload has some, however low a warm one.
    fastest_warm = min((r for r in records if r.timing == "warm"), key=lambda r: r.median_cost_s)
    lucky = dataclasses.replace(fastest_warm, costs_s=[1e-9] * 9, time=fastest_warm.time + 1)
    best = tuned_record([*records, lucky, lucky], task.key, task.target)
    assert best is not None and best.timing == "cold"
    warm_only = [r for r in records if r.timing == "warm"]
    assert tuned_record([*warm_only, lucky, lucky], task.key, task.target) == lucky


def test_a_saved_model_of_other_features_is_not_warm_started(tmp_path: Path) -> None:
    """A cost model saved by a tuner that extracted other features (an older version) is
    set aside with a warning; tuning starts a fresh model and saves that one."""
    from tuner.cost_model import XGBCostModel
    from tuner.feature_schema import NUM_FEATURES

    saved = tmp_path / "model.npz"
    old = XGBCostModel(min_samples=4)
    rows = [np.full(NUM_FEATURES - 3, float(i), np.float32) for i in range(8)]
    old.update(rows, [float(i + 1) for i in range(8)], ["task"] * 8)
    old.save(saved)
    fn = two_task_model()
    tune_model(
        fn,
        "llvm",
        TuneOptions(
            4, batch_size=2, measure=FAST, search_options=SMALL_SEARCH, cost_model_path=saved
        ),
        tmp_path / "run.jsonl",
    )
    again = XGBCostModel()
    again.load(saved)
    assert again.feature_width() == NUM_FEATURES


def test_a_slow_batch_is_ranked_on_the_default_schedules_scale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch timed in a slow spell (here every cost of the second batch 1.5x, the
    default's beside them too) reaches the search and the cost model on the scale of the
    first batch; the records keep what was measured, and the default measured beside a
    batch is not a record."""
    y = Var("y", TensorType((4, 64), "float32"))
    weight = Constant((RNG.standard_normal((48, 64)) * 0.1).astype(np.float32))
    fn = optimize(infer_type(Function((y,), call("nn.dense", y, weight))))
    (task,) = extract_tasks(fn, parse_target("llvm"))
    default_json = default_trace(task.to_json(), task.target)

    def true_cost(trace_json: object) -> float:  # a fixed cost per candidate
        return 1e-3 * (1 + random.Random(json.dumps(trace_json, sort_keys=True)).random())

    batches: list[list[dict[str, object]]] = []

    def measurer(inputs: Sequence[MeasureInput], options: MeasureOptions) -> list[MeasureResult]:
        batches.append([dict(i.trace_json) for i in inputs])
        spell = 1.5 if len(batches) == 3 else 1.0
        return [MeasureResult("ok", (true_cost(i.trace_json) * spell,) * 3) for i in inputs]

    notified: list[tuple[list[Trace], list[float | None]]] = []
    real_make_search = make_search

    def recording_search(*args: object, **kwargs: object) -> object:
        search = real_make_search(*args, **kwargs)  # type: ignore[arg-type]
        notify = search.notify

        def note(traces: Sequence[Trace], costs: Sequence[float | None]) -> None:
            notified.append((list(traces), list(costs)))
            notify(traces, costs)

        search.notify = note  # type: ignore[method-assign]
        return search

    monkeypatch.setattr("tuner.tune.make_search", recording_search)
    path = tmp_path / "records.jsonl"
    tune_model(
        fn,
        "llvm",
        TuneOptions(12, batch_size=6, search="random", remeasure_top=0),
        path,
        measurer=measurer,
    )
    assert [len(b) for b in batches] == [1, 6 + 1, 5 + 1]  # the survey, then two batches
    assert batches[0] == [default_json] and batches[2][-1] == default_json
    records = load_records(path)
    assert len(records) == 12 and default_json not in [dict(r.trace) for r in records[7:]]
    assert [r.median_cost_s for r in records[7:]] == pytest.approx(
        [true_cost(dict(r.trace)) * 1.5 for r in records[7:]]
    )
    # Both batches reach the search at the candidates' true costs.
    for traces, costs in notified:
        assert costs == pytest.approx([true_cost(t.to_json()) for t in traces])


def test_the_points_nearest_the_default_are_re_measured_even_when_first_measured_slow(
    tmp_path: Path,
) -> None:
    """A first measurement of a prior point (a conv tiled over columns) three times too
    slow leaves it out of the top candidates; it is re-measured with them and the default
    all the same, and declared best when it is."""
    data = Var("x", TensorType((1, 8, 6, 32), "float32"))
    weight = Constant((RNG.standard_normal((16, 8, 3, 3)) * 0.1).astype(np.float32))
    fn = optimize(infer_type(Function((data,), call("nn.conv2d", data, weight, padding=(1, 1)))))
    (task,) = extract_tasks(fn, parse_target("llvm"))
    space = search_space_for(
        function_to_te(task.function), parse_target(task.target), task.constant_params
    )
    assert isinstance(space, SearchSpace)
    _, point = space.prior_points()
    default_json = default_trace(task.to_json(), task.target)
    batches: list[list[dict[str, object]]] = []

    def measurer(inputs: Sequence[MeasureInput], options: MeasureOptions) -> list[MeasureResult]:
        batches.append([dict(i.trace_json) for i in inputs])
        results = []
        for each in inputs:
            cost = 2e-3 + 1e-3 * random.Random(json.dumps(each.trace_json, sort_keys=True)).random()
            if each.trace_json == point.to_json():  # the fastest, but slow at first
                cost = 1e-3 if len(batches) > 2 else 9e-3
            elif each.trace_json == default_json:  # slower than the others
                cost = 4e-3
            results.append(MeasureResult("ok", (cost,) * 3))
        return results

    path = tmp_path / "records.jsonl"
    result = tune_model(
        fn,
        "llvm",
        TuneOptions(8, batch_size=8, search="random", remeasure_top=2),
        path,
        measurer=measurer,
    )
    survey, first, remeasured = batches
    assert survey == [default_json] and point.to_json() in first and point.to_json() in remeasured
    assert len(remeasured) == 2 + 2 and default_json in remeasured  # the top two, and those
    best = tuned_record(load_records(path), task.key, task.target)
    assert best is not None and dict(best.trace) == point.to_json()
    assert result.tasks[0].best_gflops is not None


def test_a_re_measurement_far_slower_than_the_first_is_measured_again(tmp_path: Path) -> None:
    """A busy spell of the machine during the re-measurement (every kernel 250 times
    slower) is not what the user is handed: those candidates are measured again."""
    y = Var("y", TensorType((4, 64), "float32"))
    weight = Constant((RNG.standard_normal((48, 64)) * 0.1).astype(np.float32))
    fn = optimize(infer_type(Function((y,), call("nn.dense", y, weight))))
    (task,) = extract_tasks(fn, parse_target("llvm"))
    batches: list[int] = []

    def measurer(inputs: Sequence[MeasureInput], options: MeasureOptions) -> list[MeasureResult]:
        batches.append(len(inputs))
        busy = 250.0 if len(batches) == 3 else 1.0  # the re-measurement's spell
        results = []
        for each in inputs:
            cost = 1e-3 + 1e-4 * random.Random(json.dumps(each.trace_json, sort_keys=True)).random()
            results.append(MeasureResult("ok", (cost * busy,) * options.repeat))
        return results

    path = tmp_path / "records.jsonl"
    options = TuneOptions(6, batch_size=6, search="random", remeasure_top=2, calibrate=False)
    result = tune_model(fn, "llvm", options, path, measurer=measurer)
    _survey, _first, remeasured, again = batches
    assert again == remeasured  # every one of them ran 250x slower: measured again
    best = tuned_record(load_records(path), task.key, task.target)
    assert best is not None and best.median_cost_s < 1.2e-3
    assert result.tasks[0].best_cost_s is not None and result.tasks[0].best_cost_s < 1.2e-3


def test_calibration_can_be_turned_off(tmp_path: Path) -> None:
    y = Var("y", TensorType((4, 64), "float32"))
    weight = Constant((RNG.standard_normal((48, 64)) * 0.1).astype(np.float32))
    fn = optimize(infer_type(Function((y,), call("nn.dense", y, weight))))
    sizes: list[int] = []

    def measurer(inputs: Sequence[MeasureInput], options: MeasureOptions) -> list[MeasureResult]:
        sizes.append(len(inputs))
        return [MeasureResult("ok", (1e-3,) * 3) for _ in inputs]

    tune_model(
        fn,
        "llvm",
        TuneOptions(12, batch_size=6, search="random", remeasure_top=0, calibrate=False),
        tmp_path / "r.jsonl",
        measurer=measurer,
    )
    assert sizes == [1, 6, 5]  # the default alone first (the survey), never beside a batch
