"""Tune a model: extract its tasks, search each one's schedules, measure, keep records.

Step 1. Extract the tasks of the fused model; give each a search space, a search
        strategy and a feature function (replay, lower, extract features; cached; a
        search round's batch spread over worker processes, `tuner.feature_pool`).
Step 2. Resume from the record log: candidates measured before count against the trial
        budget, seed the searches (never measured again: dedupe by candidate id) and
        train the cost model (records of every task of this model on this target).
Step 3. Each task's default schedule is measured (the survey: the scheduler then knows
        every task's share of the latency). Until the scheduler says stop: it picks a
        task, the task's search proposes a batch, the measurer measures it (in a child
        process; a CPU batch's candidates timed in turns, `MeasureOptions.in_turn`, with
        the task's default schedule beside them), the records are appended to the log,
        and the cost model is updated and the search told the costs, scaled to the
        default's first cost.
Step 4. Re-measure the top candidates of each task (by their first measurement), its
        default schedule and the space's prior points with more repeats, once; the
        best is then declared among the re-measured candidates (`tuner.remeasure`).
Step 5. A whole model measured on this machine (`tune_model` without a measurer, a CPU
        target, `TuneOptions.in_model`), after a call that measured anything: each tuned
        kernel timed inside the compiled model beside its default; those timings decide
        (`tuner.in_model`).

The measurer (a batch of `MeasureInput` to its `MeasureResult`s; by default a
`MeasureSession` kept for the whole run, so a child's start and a workload's reference
are paid once) and the record store (load and append `Record`s; a `RecordLog` file by default)
are pluggable, so the service measures through its worker fleet and keeps records in
its database with this same loop. The best of a task's records is `tuner.records.tuned_record`'s
choice, as everywhere records are read.
"""

from __future__ import annotations

import contextlib
import logging
import math
import random
import time
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from codegen.backends import default_schedule_for
from codegen.llvm import CpuTarget
from codegen.measure import MeasureOptions, MeasureSession
from codegen.target import Target, as_target
from ir.errors import AutotuneError
from ir.graph.nodes import Function
from ir.schedule import Trace
from ir.te.program import function_to_te
from tuner.cost_model import CostModel, XGBCostModel, make_cost_model
from tuner.feature_pool import FeaturePool
from tuner.feature_schema import NUM_FEATURES
from tuner.features import TYPICAL_CORE
from tuner.in_model import InModelCheck, check_in_model
from tuner.options import TuneOptions
from tuner.records import Record, RecordLog, tuned_record
from tuner.remeasure import remeasure
from tuner.scheduler import TaskScheduler
from tuner.search import make_search
from tuner.space import SearchSpace
from tuner.space.select import search_space_for
from tuner.task_run import (
    Featurizer,
    Measurer,
    RecordStore,
    TaskRun,
    candidate_id,
    first_records,
    measure_batch,
    median_cost,
    prior_points,
    take_seeds,
)
from tuner.tasks import Task, extract_tasks

__all__ = [
    "Measurer",
    "RecordStore",
    "TaskSummary",
    "TuneProgress",
    "TuneResult",
    "tune_model",
    "tune_tasks",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TuneProgress:
    """Reported after every measured batch."""

    task_index: int
    task_name: str
    batch_trials: int
    task_trials: int
    total_trials: int
    max_trials: int
    task_best_cost_s: float | None
    task_best_gflops: float | None
    estimated_latency_s: float  # sum(weight x share x best cost) over tasks with a result
    elapsed_s: float


@dataclass(frozen=True)
class TaskSummary:
    """One task after tuning: `trials` are those counted toward the budget (the record
    log's included, unless the budget counts only this run's own records)."""

    name: str
    key: str
    weight: int
    flops: int
    trials: int
    new_trials: int
    best_cost_s: float | None
    best_gflops: float | None
    stopped: str
    share: float = 1.0  # of the model's runs, for a size bucket's task (`Task.share`)
    covers: Mapping[str, int] = field(default_factory=dict)  # `Task.covers`
    measure_at: Mapping[str, int] = field(default_factory=dict)  # `Task.measure_at`


@dataclass(frozen=True)
class TuneResult:
    """Per-task summaries, what this call measured, and the cost model's fit metrics."""

    tasks: tuple[TaskSummary, ...]
    measured: int  # new candidates measured by this call
    remeasured: int
    estimated_latency_s: float | None
    cost_model_metrics: tuple[dict[str, Any], ...] = ()
    in_model: InModelCheck | None = None  # step 5, where it ran


def tune_model(
    fn: Function,
    target: Target | str,
    options: TuneOptions,
    records_path: str | Path | RecordStore,
    *,
    progress: Callable[[TuneProgress], None] | None = None,
    measurer: Measurer | None = None,
    counts_toward_budget: Callable[[Record], bool] | None = None,
) -> TuneResult:
    """Tune every task of a fused model (the output of `optimize`) for `target` under
    `options` (`TuneOptions`: the budget, the search, the measurement), keeping records in
    the `RecordLog` at `records_path` (or any `RecordStore`).

    The budget counts candidates already in the store that `counts_toward_budget` accepts
    (all of them by default), so a second call with a spent budget measures nothing new.
    Records it does not accept still seed the search and the cost model and are never
    measured again. `measurer` measures each batch (by default in child processes as
    `measure_batch` does, one child kept for the whole call); `progress` hears of every
    measured batch. Returns a summary per task.
    """
    store = RecordLog(records_path) if isinstance(records_path, str | Path) else records_path
    target = as_target(target)
    result = tune_tasks(
        extract_tasks(fn, target, options.size_histogram),
        target,
        options,
        store,
        progress=progress,
        measurer=measurer,
        counts_toward_budget=counts_toward_budget,
    )
    if not options.in_model or measurer is not None or not isinstance(target, CpuTarget):
        return result  # (step 5 runs the model here: only where the kernels were measured)
    if not result.measured and not result.remeasured:
        return result  # (nothing new to compare)
    return replace(result, in_model=_check_in_model(fn, target, store, options.seed))


def tune_tasks(
    tasks: Sequence[Task],
    target: Target | str,
    options: TuneOptions,
    store: RecordStore,
    *,
    progress: Callable[[TuneProgress], None] | None = None,
    measurer: Measurer | None = None,
    counts_toward_budget: Callable[[Record], bool] | None = None,
) -> TuneResult:
    """Tune `tasks` (from `extract_tasks`, or a single workload's task) for `target`,
    reading and keeping records in `store`: the module docstring's steps 1 to 4; see
    `tune_model` for the arguments."""
    with contextlib.ExitStack() as stack:
        if measurer is None:
            measurer = stack.enter_context(MeasureSession()).measure_batch
        pool = stack.enter_context(FeaturePool(options.feature_workers))
        started = time.monotonic()
        target = as_target(target)  # (a string: the Python API's entry point)
        key = str(target)
        tasks = [replace(task, target=key) for task in tasks]
        model = _cost_model(options)
        runs = _start_runs(tasks, target, options, model, pool)  # Step 1.
        scheduler = TaskScheduler(
            [task.weight * task.share for task in tasks],
            max_trials=options.trials,
            time_limit_s=options.time_limit_s,
            early_stopping_trials=options.early_stopping_trials,
            seed=options.seed,
        )
        timing = options.measure.timing(target)
        records = _comparable(store.load(), key, timing)
        _resume(runs, records, model, scheduler, counts_toward_budget)  # Step 2.
        loop = _TuneLoop(runs, target, options, store, measurer, model, scheduler, started)
        measured = loop.run(progress)  # Step 3.
        records = _comparable(store.load(), key, timing)  # Step 4.
        remeasured = remeasure(
            runs,
            records,
            target,
            options.measure,
            store,
            options.remeasure_top,
            measurer,
            scheduler.out_of_time,
        )
        records = _comparable(store.load(), key, timing)
        if options.cost_model_path is not None:
            model.save(options.cost_model_path)
        return _summarize(runs, records, key, scheduler, measured, remeasured, model)


def _check_in_model(
    fn: Function, target: CpuTarget, store: RecordStore, seed: int
) -> InModelCheck | None:
    """Step 5 (`tuner.in_model`): the tuned kernels timed inside the model beside their
    defaults, the records kept in `store`; None where the model did not compile or run
    here (it is said why; the records of steps 1 to 4 stand)."""
    try:
        check = check_in_model(fn, target, store.load(), seed=seed)
    except Exception as err:  # (a check that fails must not lose the tuning it follows)
        logger.warning("the tuned kernels were not timed inside the model: %s", err)
        return None
    store.append(check.records)
    return check


def _cost_model(options: TuneOptions) -> CostModel:
    """The options' cost model, loaded from `cost_model_path` when it holds one of this
    tuner's feature width (a warm start), else fresh."""
    model = make_cost_model(options.cost_model, **dict(options.cost_model_options))
    path = options.cost_model_path
    if path is None or not Path(path).exists():
        return model
    try:
        model.load(path)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
        logger.warning(
            "%s is not a cost model this tuner can read (%s): starting afresh", path, err
        )
        return make_cost_model(options.cost_model, **dict(options.cost_model_options))
    width = model.feature_width() if isinstance(model, XGBCostModel) else None
    if width is not None and width != NUM_FEATURES:
        logger.warning(
            "%s holds a model of %d features, this tuner extracts %d: starting afresh",
            path,
            width,
            NUM_FEATURES,
        )
        return make_cost_model(options.cost_model, **dict(options.cost_model_options))
    return model


def _start_runs(
    tasks: Sequence[Task],
    target: Target,
    options: TuneOptions,
    model: CostModel,
    pool: FeaturePool,
) -> list[TaskRun]:
    """Step 1: each task's search space, search strategy, feature function, default
    schedule and the seeds to measure first (the default, then the space's prior points)."""
    runs: list[TaskRun] = []
    by_key: dict[str, TaskRun] = {}
    for index, task in enumerate(tasks):
        program = function_to_te(task.function)
        layouts_of = by_key.get(task.layouts_of or "")
        required = None
        if layouts_of is not None:  # (a size bucket: its run is by_key[task.key] when built)
            required = lambda key=task.key: by_key[key].required_layouts()  # noqa: E731
        space = search_space_for(program, target, task.constant_params, required)
        core = space.hardware.core if isinstance(space, SearchSpace) else TYPICAL_CORE
        featurize = Featurizer(program, task.to_json(), pool, core)
        strategy = make_search(
            options.search,
            space,
            random.Random(options.seed * 7919 + index),
            cost_model=model,
            feature_fn=featurize,
            **dict(options.search_options),
        )
        default = default_schedule_for(program, target, task.constant_params).trace
        run = TaskRun(task, featurize, strategy, task.to_json(), default)
        run.layouts_of = layouts_of
        by_key[task.key] = run
        run.prior_points = prior_points(space)
        run.seeds = [default, *run.prior_points]
        runs.append(run)
    return runs


@dataclass
class _TuneLoop:
    """Step 3: batches of candidates measured until the scheduler says stop."""

    runs: list[TaskRun]
    target: Target
    options: TuneOptions
    store: RecordStore
    measurer: Measurer
    model: CostModel
    scheduler: TaskScheduler
    started: float

    def run(self, progress: Callable[[TuneProgress], None] | None) -> int:
        """Measure batch after batch; the number of candidates measured."""
        # A batch is timed in turns: on a shared machine, a candidate timed alone in a
        # slow spell of a fraction of a second would be recorded up to twice too slow
        # (seen on every repeat of two or three candidates in a row), misleading the
        # search and the cost model it trains.
        batch_options = replace(self.options.measure, in_turn=True)
        pace = _Pace()
        scheduler = self.scheduler
        measured = self._survey(batch_options, pace, progress)
        while (chosen := scheduler.next_task()) is not None:
            batch_start = time.monotonic()
            run = self.runs[chosen]
            count = pace.fitting(
                min(self.options.batch_size, scheduler.remaining_trials), scheduler
            )
            traces = self._batch(run, count)
            if not traces:
                scheduler.finish(chosen, "search space exhausted")
                continue
            results, default_cost = measure_batch(
                run,
                traces,
                self.target,
                batch_options,
                self.store,
                self.measurer,
                self.options.calibrate,
            )
            measured += len(traces)
            pace.note(len(traces), time.monotonic() - batch_start)
            self._learn(run, traces, [median_cost(result) for result in results], default_cost)
            scheduler.update(chosen, len(traces), run.best_cost_s)
            if progress is not None:
                progress(_progress(run, chosen, len(traces), scheduler, self.runs, self.started))
        return measured

    def _survey(
        self,
        options: MeasureOptions,
        pace: _Pace,
        progress: Callable[[TuneProgress], None] | None,
    ) -> int:
        """Step 3a: every task's default schedule measured first, one task at a time, so
        that the scheduler knows each task's share of the model's latency before it gives
        anything a round: the first rounds go to the biggest shares, not to the first tasks
        in the model's order (under a time limit, those were all a model's budget reached).
        A task whose default is already measured (resumed) is not measured again; one
        without a default starts with the warm-up round instead. The number measured."""
        measured = 0
        scheduler = self.scheduler
        for index, run in enumerate(self.runs):
            default = run.default_trace
            if default is None or run.default_id() in run.measured_ids:
                continue
            if scheduler.tasks[index].rounds:
                continue  # (resumed)
            if scheduler.remaining_trials <= 0 or scheduler.out_of_time():
                break
            started = time.monotonic()
            results, _ = measure_batch(
                run, [default], self.target, options, self.store, self.measurer
            )
            measured += 1
            pace.note(1, time.monotonic() - started)
            cost = median_cost(results[0])
            if run.default_cost_s is None:
                run.default_cost_s = cost  # (the scale of the batches' costs)
            self._learn(run, [default], [cost], None)
            scheduler.update(index, 1, run.best_cost_s)
            if progress is not None:
                progress(_progress(run, index, 1, scheduler, self.runs, self.started))
        return measured

    @staticmethod
    def _batch(run: TaskRun, count: int) -> list[Trace]:
        """Up to `count` candidates: the run's unmeasured seeds, then the search's picks."""
        layouts_seed = run.layouts_seed()
        if layouts_seed is not None:
            run.seeds.append(layouts_seed)  # (measured once: seeds measured are dropped)
        seeds = take_seeds(run, count)
        # The search proposes only what the seeds leave, so none of its picks is dropped
        # (it would stay in flight there, never measured nor proposed again).
        taken = run.measured_ids | {candidate_id(run, trace) for trace in seeds}
        proposed = run.search.generate(count - len(seeds)) if count > len(seeds) else []
        return [*seeds, *(t for t in proposed if candidate_id(run, t) not in taken)]

    def _learn(
        self,
        run: TaskRun,
        traces: list[Trace],
        costs: list[float | None],
        default_cost: float | None,
    ) -> None:
        """Tell the run, the cost model and the search a batch's costs (the search and
        the model compare costs across batches: on the default's scale)."""
        for trace, cost in zip(traces, costs, strict=True):
            run.note_cost(cost, trace)
        scaled = run.calibrated(costs, default_cost)
        _learn(self.model, run, traces, scaled)
        run.search.notify(traces, scaled)


class _Pace:
    """Seconds per candidate of the batches so far, to fit batches in a time limit."""

    FIRST_BATCH_UNDER_LIMIT = 2  # candidates measured before the pace is known

    def __init__(self) -> None:
        self.candidates = 0
        self.seconds = 0.0

    def note(self, candidates: int, seconds: float) -> None:
        self.candidates += candidates
        self.seconds += seconds

    def fitting(self, count: int, scheduler: TaskScheduler) -> int:
        """`count`, cut (to at least one) to what the time left holds at this pace."""
        left_s = scheduler.remaining_time_s()
        if left_s is None or count <= 1:
            return count
        if not self.candidates:
            return min(count, self.FIRST_BATCH_UNDER_LIMIT)
        return max(1, min(count, int(left_s * self.candidates / max(self.seconds, 1e-9))))


# -- steps ----------------------------------------------------------------------------------


def _resume(
    runs: list[TaskRun],
    records: list[Record],
    model: CostModel,
    scheduler: TaskScheduler,
    counts_toward_budget: Callable[[Record], bool] | None,
) -> None:
    """Step 2: count, seed and learn from the candidates already in the store."""
    by_key: dict[str, list[Record]] = {}
    for record in records:
        by_key.setdefault(record.workload_key, []).append(record)
    rows: list[tuple[np.ndarray, float, str]] = []
    for index, run in enumerate(runs):
        first = first_records(by_key.get(run.task.key, []))
        run.measured_ids = set(first)
        default = first.get(run.default_id() or "")
        if default is not None and default.status == "ok" and default.costs_s:
            run.default_cost_s = default.median_cost_s
        traces: list[Trace] = []
        costs: list[float | None] = []
        for record in first.values():
            cost = record.median_cost_s if record.status == "ok" and record.costs_s else None
            try:
                trace = Trace.from_json(dict(record.trace))
            except AutotuneError:
                run.note_cost(cost)
                continue
            run.note_cost(cost, trace)
            traces.append(trace)
            costs.append(cost)
        if traces:
            run.search.notify(traces, costs)
            rows.extend(_training_rows(run, traces, costs))
        counted = [
            r for r in first.values() if counts_toward_budget is None or counts_toward_budget(r)
        ]
        scheduler.restore(index, len(counted), run.best_cost_s)
        if first:
            logger.info("%s: resumed %d measured candidates", run.task.name, len(first))
    if rows:
        # One update, so the model is fitted once on everything the log holds.
        model.update([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])


def _comparable(records: Iterable[Record], target: str, timing: str) -> list[Record]:
    """The records of `target` timed as `timing`: the only costs a run compares with its
    own (a log may also hold the other timing's)."""
    return [r for r in records if r.target == target and r.timing == timing]


def _training_rows(
    run: TaskRun, traces: Sequence[Trace], costs: Sequence[float | None]
) -> list[tuple[np.ndarray, float, str]]:
    """(features, throughput, task key) of the traces that lower."""
    features = run.featurize(traces)
    return [
        (row, _throughput(run.task, cost), run.task.key)
        for row, cost in zip(features, costs, strict=True)
        if row is not None
    ]


def _throughput(task: Task, cost_s: float | None) -> float:
    """Higher is faster (flops per second; 1 / cost for a task without flops); 0 = failed."""
    if cost_s is None or cost_s <= 0:
        return 0.0
    return (task.flops or 1) / cost_s


def _learn(
    model: CostModel, run: TaskRun, traces: Sequence[Trace], costs: Sequence[float | None]
) -> None:
    rows = _training_rows(run, traces, costs)
    if rows:
        model.update([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])


def _summarize(
    runs: list[TaskRun],
    records: list[Record],
    target: str,
    scheduler: TaskScheduler,
    measured: int,
    remeasured: int,
    model: CostModel,
) -> TuneResult:
    summaries = []
    latency = 0.0
    complete = True
    for index, run in enumerate(runs):
        best = tuned_record(records, run.task.key, target)
        cost = best.median_cost_s if best is not None else None
        if cost is None:
            complete = False
        else:
            latency += run.task.weight * run.task.share * cost
        summaries.append(
            TaskSummary(
                name=run.task.name,
                key=run.task.key,
                weight=run.task.weight,
                flops=run.task.flops,
                trials=scheduler.tasks[index].trials,
                new_trials=run.new_trials,
                best_cost_s=cost,
                best_gflops=_gflops(run.task.flops, cost),
                stopped=scheduler.tasks[index].done,
                share=run.task.share,
                covers=run.task.covers,
                measure_at=run.task.measure_at,
            )
        )
    metrics: tuple[dict[str, Any], ...] = ()
    if isinstance(model, XGBCostModel):
        metrics = tuple(asdict(fit) for fit in model.history)
    return TuneResult(
        tasks=tuple(summaries),
        measured=measured,
        remeasured=remeasured,
        estimated_latency_s=latency if complete and runs else None,
        cost_model_metrics=metrics,
    )


def _gflops(flops: int, cost_s: float | None) -> float | None:
    if cost_s is None or cost_s <= 0 or not math.isfinite(cost_s):
        return None
    return flops / cost_s / 1e9


def _progress(
    run: TaskRun,
    index: int,
    batch: int,
    scheduler: TaskScheduler,
    runs: list[TaskRun],
    started: float,
) -> TuneProgress:
    latency = sum(
        r.task.weight * r.task.share * r.best_cost_s for r in runs if r.best_cost_s is not None
    )
    return TuneProgress(
        task_index=index,
        task_name=run.task.name,
        batch_trials=batch,
        task_trials=scheduler.tasks[index].trials,
        total_trials=scheduler.total_trials,
        max_trials=scheduler.max_trials,
        task_best_cost_s=run.best_cost_s,
        task_best_gflops=_gflops(run.task.flops, run.best_cost_s),
        estimated_latency_s=latency,
        elapsed_s=time.monotonic() - started,
    )
