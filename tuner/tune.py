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
        best is then declared among the re-measured candidates.
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from codegen.backends import default_schedule_for
from codegen.llvm import CpuTarget
from codegen.measure import MeasureInput, MeasureOptions, MeasureResult, MeasureSession
from codegen.target import Target, as_target
from ir.errors import AutotuneError
from ir.graph.nodes import Function
from ir.schedule import Trace
from ir.te.program import TEProgram, function_to_te
from tuner.cost_model import CostModel, XGBCostModel, make_cost_model
from tuner.feature_pool import FeaturePool, features_here
from tuner.features import NUM_FEATURES
from tuner.in_model import InModelCheck, check_in_model
from tuner.options import TuneOptions
from tuner.records import Record, RecordLog, compute_candidate_id, tuned_record
from tuner.scheduler import TaskScheduler
from tuner.search import SearchStrategy, make_search, trace_key
from tuner.space import SearchSpace
from tuner.space.select import search_space_for
from tuner.tasks import Task, extract_tasks

logger = logging.getLogger(__name__)

REMEASURE_REPEAT_FACTOR = 3  # ... with this many times the repeats
DISAGREEMENT_FACTOR = 4.0  # a re-measurement this many times slower than the first ...
REMEASURE_RETRIES = 2  # ... is measured again, at most this many times
CALIBRATE_MIN_BATCH = 4  # smaller batches are not timed with the default beside them
FEATURE_CACHE_LIMIT = 100_000

Measurer = Callable[[Sequence[MeasureInput], MeasureOptions], list[MeasureResult]]
"""Measures a batch of candidates with the given options, one result per input, in order."""


class RecordStore(Protocol):
    """Where tuning records are read from and appended to (`RecordLog` is one)."""

    def load(self) -> list[Record]:
        """Every record the store holds (a store may hold only some targets)."""
        ...

    def append(self, records: Iterable[Record]) -> int:
        """Keep `records`; returns how many were kept."""
        ...


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
    estimated_latency_s: float  # sum(weight x best cost) over tasks with a result
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


@dataclass(frozen=True)
class TuneResult:
    """Per-task summaries, what this call measured, and the cost model's fit metrics."""

    tasks: tuple[TaskSummary, ...]
    measured: int  # new candidates measured by this call
    remeasured: int
    estimated_latency_s: float | None
    cost_model_metrics: tuple[dict[str, Any], ...] = ()
    in_model: InModelCheck | None = None  # step 5, where it ran


@dataclass
class _Featurizer:
    """Replay, lower and extract features of a task's traces, cached by trace text; the
    uncached ones of a batch on `pool`'s workers when there is one."""

    program: TEProgram
    task_json: Mapping[str, Any] | None = None
    pool: FeaturePool | None = None
    cache: dict[str, np.ndarray | None] = field(default_factory=dict)

    def __call__(self, traces: Sequence[Trace]) -> list[np.ndarray | None]:
        """Features of each trace; None for one that does not replay or lower."""
        if len(self.cache) > FEATURE_CACHE_LIMIT:
            self.cache.clear()
        keys = [trace_key(trace) for trace in traces]
        missing = {
            key: trace for key, trace in zip(keys, traces, strict=True) if key not in self.cache
        }
        if self.pool is not None and self.task_json is not None:
            rows = self.pool.features(self.task_json, self.program, list(missing.values()))
        else:
            rows = features_here(self.program, list(missing.values()))
        self.cache.update(zip(missing, rows, strict=True))
        return [self.cache[key] for key in keys]


@dataclass
class _TaskRun:
    """A task being tuned: its search, features and what is measured."""

    task: Task
    featurize: _Featurizer
    search: SearchStrategy
    task_json: dict[str, Any]
    default_trace: Trace | None = None  # measured first, so tuning never ends below it
    prior_points: list[Trace] = field(default_factory=list)  # the space's points near it
    seeds: list[Trace] = field(default_factory=list)  # to measure first, still unqueued
    measured_ids: set[str] = field(default_factory=set)
    best_cost_s: float | None = None
    new_trials: int = 0
    default_cost_s: float | None = None  # the default's first cost: the costs' common scale

    def note_cost(self, cost_s: float | None) -> None:
        if cost_s is not None and (self.best_cost_s is None or cost_s < self.best_cost_s):
            self.best_cost_s = cost_s

    def default_id(self) -> str | None:
        """The default schedule's candidate id (None: the task has no default)."""
        return None if self.default_trace is None else _candidate_id(self, self.default_trace)

    def prior_ids(self) -> set[str]:
        """The candidate ids of the default and the space's prior points."""
        traces = [] if self.default_trace is None else [self.default_trace]
        return {_candidate_id(self, trace) for trace in [*traces, *self.prior_points]}

    def calibrated(
        self, costs: Sequence[float | None], default_cost_s: float | None
    ) -> list[float | None]:
        """A batch's `costs` on the scale of the default's first measurement, given the
        default's cost timed in the same turns (`default_cost_s`; None: as they are). The
        first default cost seen sets the scale."""
        if default_cost_s is None:
            return list(costs)
        if self.default_cost_s is None:
            self.default_cost_s = default_cost_s
        scale = self.default_cost_s / default_cost_s
        logger.debug("%s: batch costs scaled by %.3f", self.task.name, scale)
        return [None if cost is None else cost * scale for cost in costs]


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
        extract_tasks(fn, target),
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
            [task.weight for task in tasks],
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
        remeasured = _remeasure(
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
    model.load(path)
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
) -> list[_TaskRun]:
    """Step 1: each task's search space, search strategy, feature function, default
    schedule and the seeds to measure first (the default, then the space's prior points)."""
    runs: list[_TaskRun] = []
    for index, task in enumerate(tasks):
        program = function_to_te(task.function)
        featurize = _Featurizer(program, task.to_json(), pool)
        space = search_space_for(program, target, task.constant_params)
        strategy = make_search(
            options.search,
            space,
            random.Random(options.seed * 7919 + index),
            cost_model=model,
            feature_fn=featurize,
            **dict(options.search_options),
        )
        default = default_schedule_for(program, target, task.constant_params).trace
        run = _TaskRun(task, featurize, strategy, task.to_json(), default)
        run.prior_points = _prior_points(space)
        run.seeds = [default, *run.prior_points]
        runs.append(run)
    return runs


@dataclass
class _TuneLoop:
    """Step 3: batches of candidates measured until the scheduler says stop."""

    runs: list[_TaskRun]
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
            results, default_cost = _measure(
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
            self._learn(run, traces, [_cost(result) for result in results], default_cost)
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
            results, _ = _measure(run, [default], self.target, options, self.store, self.measurer)
            measured += 1
            pace.note(1, time.monotonic() - started)
            cost = _cost(results[0])
            if run.default_cost_s is None:
                run.default_cost_s = cost  # (the scale of the batches' costs)
            self._learn(run, [default], [cost], None)
            scheduler.update(index, 1, run.best_cost_s)
            if progress is not None:
                progress(_progress(run, index, 1, scheduler, self.runs, self.started))
        return measured

    @staticmethod
    def _batch(run: _TaskRun, count: int) -> list[Trace]:
        """Up to `count` candidates: the run's unmeasured seeds, then the search's picks."""
        seeds = _take_seeds(run, count)
        # The search proposes only what the seeds leave, so none of its picks is dropped
        # (it would stay in flight there, never measured nor proposed again).
        taken = run.measured_ids | {_candidate_id(run, trace) for trace in seeds}
        proposed = run.search.generate(count - len(seeds)) if count > len(seeds) else []
        return [*seeds, *(t for t in proposed if _candidate_id(run, t) not in taken)]

    def _learn(
        self,
        run: _TaskRun,
        traces: list[Trace],
        costs: list[float | None],
        default_cost: float | None,
    ) -> None:
        """Tell the run, the cost model and the search a batch's costs (the search and
        the model compare costs across batches: on the default's scale)."""
        for cost in costs:
            run.note_cost(cost)
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
    runs: list[_TaskRun],
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
        first = _first_records(by_key.get(run.task.key, []))
        run.measured_ids = set(first)
        default = first.get(run.default_id() or "")
        if default is not None and default.status == "ok" and default.costs_s:
            run.default_cost_s = default.median_cost_s
        traces: list[Trace] = []
        costs: list[float | None] = []
        for record in first.values():
            cost = record.median_cost_s if record.status == "ok" and record.costs_s else None
            run.note_cost(cost)
            try:
                trace = Trace.from_json(dict(record.trace))
            except AutotuneError:
                continue
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


def _first_records(records: Iterable[Record]) -> dict[str, Record]:
    """The first record of each candidate (re-measurements come later in the log)."""
    first: dict[str, Record] = {}
    for record in records:
        first.setdefault(record.candidate_id, record)
    return first


def _take_seeds(run: _TaskRun, count: int) -> list[Trace]:
    """Up to `count` of the run's unmeasured seeds, to measure first (the rest stay for
    its next batch). The untuned schedule is a candidate too (the declared best is never
    worse), and so are the space's prior points (the default is one: local moves start there)."""
    unique: dict[str, Trace] = {}
    for trace in run.seeds:
        unique.setdefault(_candidate_id(run, trace), trace)
    pending = [trace for key, trace in unique.items() if key not in run.measured_ids]
    seeds, run.seeds = pending[:count], pending[count:]
    return seeds


def _prior_points(space: Any) -> list[Trace]:
    """The space's prior points: the default's own, and a conv's tiling over columns
    (`SearchSpace.prior_points`)."""
    if not isinstance(space, SearchSpace):
        return []  # GPU spaces start from their samples
    try:
        return space.prior_points()
    except AutotuneError as err:
        logger.info("no prior points in the search space: %s", err)
        return []


def _comparable(records: Iterable[Record], target: str, timing: str) -> list[Record]:
    """The records of `target` timed as `timing`: the only costs a run compares with its
    own (a log may also hold the other timing's)."""
    return [r for r in records if r.target == target and r.timing == timing]


def _candidate_id(run: _TaskRun, trace: Trace) -> str:
    return compute_candidate_id(run.task.key, run.task.target, trace.to_json())


def _measure(
    run: _TaskRun,
    traces: Sequence[Trace],
    target: Target,
    options: MeasureOptions,
    log: RecordStore,
    measurer: Measurer,
    calibrate: bool = False,
) -> tuple[list[MeasureResult], float | None]:
    """Measure a batch of one task and append its records (failures are records too).
    Returns the results and, with `calibrate`, the default schedule's cost timed with
    them (in the batch already, or added to it for that and not recorded; None where it
    failed, the task has none or the batch is too small)."""
    default = run.default_trace if calibrate else None
    beside: list[Trace] = []
    if default is not None and default not in traces and len(traces) >= CALIBRATE_MIN_BATCH:
        beside = [default]
    inputs = [MeasureInput(run.task_json, t.to_json(), str(target)) for t in [*traces, *beside]]
    results = measurer(inputs, options)
    default_cost: float | None = None
    if beside:
        default_cost = _cost(results.pop())
    elif default is not None and default in traces:
        default_cost = _cost(results[list(traces).index(default)])
    records = [
        Record(
            workload_key=run.task.key,
            target=str(target),
            trace=trace.to_json(),
            costs_s=result.costs_s,
            status=result.status,
            error=result.error,
            timing=options.timing(target),
        )
        for trace, result in zip(traces, results, strict=True)
    ]
    log.append(records)
    run.measured_ids.update(record.candidate_id for record in records)
    run.new_trials += len(records)
    return results, default_cost


def _cost(result: MeasureResult) -> float | None:
    if result.status != "ok" or not result.costs_s:
        return None
    ordered = sorted(result.costs_s)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def _training_rows(
    run: _TaskRun, traces: Sequence[Trace], costs: Sequence[float | None]
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
    model: CostModel, run: _TaskRun, traces: Sequence[Trace], costs: Sequence[float | None]
) -> None:
    rows = _training_rows(run, traces, costs)
    if rows:
        model.update([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])


def _remeasure(
    runs: list[_TaskRun],
    records: list[Record],
    target: Target,
    options: MeasureOptions,
    log: RecordStore,
    top: int,
    measurer: Measurer,
    out_of_time: Callable[[], bool] = lambda: False,
) -> int:
    """Step 4: re-measure each task's top candidates (by first measurement) not yet
    re-measured, with REMEASURE_REPEAT_FACTOR times the repeats, in one batch with the
    default schedule and the space's prior points: a best is only declared against
    them measured at the same time, so one disturbed first measurement of theirs cannot
    hide them (on matmul_1024 the point nearest the default often ties with the best
    candidates, and a slow first measurement left it out of the top ones). The
    batch is timed in turns (`MeasureOptions.in_turn`), so a slow spell of the machine
    falls on all of them alike. Once `out_of_time`, the tasks left keep their first
    measurements (their best is then the fastest of those)."""
    repeated = replace(options, repeat=options.repeat * REMEASURE_REPEAT_FACTOR, in_turn=True)
    total = 0
    for run in runs:
        if out_of_time():
            logger.info("time limit reached: %s keeps its first measurements", run.task.name)
            continue
        mine = [r for r in records if r.workload_key == run.task.key]
        counts: dict[str, int] = {}
        for record in mine:
            counts[record.candidate_id] = counts.get(record.candidate_id, 0) + 1
        ranked = sorted(
            (r for r in _first_records(mine).values() if r.status == "ok" and r.costs_s),
            key=lambda r: r.median_cost_s,
        )
        contenders = ranked[:top]
        if top > 0:
            prior = run.prior_ids()
            contenders += [r for r in ranked[top:] if r.candidate_id in prior]
        chosen = [r for r in contenders if counts[r.candidate_id] < 2]
        if not chosen:
            continue
        total += _measure_again(run, chosen, target, repeated, log, measurer)
    return total


def _measure_again(
    run: _TaskRun,
    chosen: list[Record],
    target: Target,
    options: MeasureOptions,
    log: RecordStore,
    measurer: Measurer,
) -> int:
    """Re-measure the `chosen` candidates (given by their first records) and log the
    results; a candidate whose re-measurement is more than DISAGREEMENT_FACTOR times slower
    than its first is measured again, up to REMEASURE_RETRIES times (a busy spell of the
    machine once declared a best 250 times slower than its candidates had measured).
    Returns how many measurements were made."""
    total = 0
    for _ in range(1 + REMEASURE_RETRIES):
        if not chosen:
            break
        inputs = [MeasureInput(run.task_json, dict(r.trace), str(target)) for r in chosen]
        results = measurer(inputs, options)
        log.append(
            Record(
                workload_key=run.task.key,
                target=str(target),
                trace=dict(r.trace),
                costs_s=result.costs_s,
                status=result.status,
                error=result.error,
                timing=options.timing(target),
            )
            for r, result in zip(chosen, results, strict=True)
        )
        total += len(chosen)
        disagreeing = [
            first
            for first, result in zip(chosen, results, strict=True)
            if (cost := _cost(result)) is not None
            and cost > DISAGREEMENT_FACTOR * first.median_cost_s
        ]
        if disagreeing:
            logger.warning(
                "%s: %d re-measured candidates ran over %gx slower than first measured: "
                "measuring them again",
                run.task.name,
                len(disagreeing),
                DISAGREEMENT_FACTOR,
            )
        chosen = disagreeing
    return total


def _summarize(
    runs: list[_TaskRun],
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
            latency += run.task.weight * cost
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
    run: _TaskRun,
    index: int,
    batch: int,
    scheduler: TaskScheduler,
    runs: list[_TaskRun],
    started: float,
) -> TuneProgress:
    latency = sum(r.task.weight * r.best_cost_s for r in runs if r.best_cost_s is not None)
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
