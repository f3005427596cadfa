"""A task being tuned (`TaskRun`): its search, its feature function, the traces it
measures first and what it has measured; and how a batch of its candidates is measured
and logged (`measure_batch`)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from codegen.measure import MeasureInput, MeasureOptions, MeasureResult
from codegen.target import Target
from ir.errors import AutotuneError
from ir.schedule import Trace
from ir.schedule.hardware import CoreFacts
from ir.schedule.schedule import LayoutRewrite
from ir.te.program import TEProgram
from tuner.feature_pool import FeaturePool, features_here
from tuner.features import TYPICAL_CORE
from tuner.records import Record, compute_candidate_id
from tuner.search import SearchStrategy, trace_key
from tuner.space import SearchSpace
from tuner.tasks import Task

logger = logging.getLogger(__name__)

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


@dataclass
class Featurizer:
    """Replay, lower and extract features of a task's traces (against `core`'s caches),
    cached by trace text; the uncached ones of a batch on `pool`'s workers when there is
    one."""

    program: TEProgram
    task_json: Mapping[str, Any] | None = None
    pool: FeaturePool | None = None
    core: CoreFacts = TYPICAL_CORE
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
            rows = self.pool.features(
                self.task_json, self.program, list(missing.values()), self.core
            )
        else:
            rows = features_here(self.program, list(missing.values()), self.core)
        self.cache.update(zip(missing, rows, strict=True))
        return [self.cache[key] for key in keys]


@dataclass
class TaskRun:
    """A task being tuned: its search, features and what is measured."""

    task: Task
    featurize: Featurizer
    search: SearchStrategy
    task_json: dict[str, Any]
    default_trace: Trace | None = None  # measured first, so tuning never ends below it
    prior_points: list[Trace] = field(default_factory=list)  # the space's points near it
    seeds: list[Trace] = field(default_factory=list)  # to measure first, still unqueued
    measured_ids: set[str] = field(default_factory=set)
    best_cost_s: float | None = None
    best_trace: Trace | None = None  # the candidate of `best_cost_s`
    new_trials: int = 0
    default_cost_s: float | None = None  # the default's first cost: the costs' common scale
    layouts_of: TaskRun | None = None  # the run whose best's constant layouts this one keeps
    _layouts_cache: dict[str, dict[str, LayoutRewrite]] = field(default_factory=dict, repr=False)

    def note_cost(self, cost_s: float | None, trace: Trace | None = None) -> None:
        """Note a candidate's measured cost (None: it failed), and `trace` when it is the
        best so far."""
        if cost_s is not None and (self.best_cost_s is None or cost_s < self.best_cost_s):
            self.best_cost_s = cost_s
            self.best_trace = trace

    def layouts_seed(self) -> Trace | None:
        """For a size bucket's run, the best schedule so far of the run whose layouts it
        keeps (replayed on this task's program it lays the constants out alike, and is
        the search's way into that layout); None for any other run, and for a bucket
        without constants (no layout to keep)."""
        if self.layouts_of is None or not self.task.constant_params:
            return None
        return self.layouts_of.best_trace or self.layouts_of.default_trace

    def required_layouts(self) -> dict[str, LayoutRewrite]:
        """The constant layouts of `layouts_seed` (none where there is no seed)."""
        seed = self.layouts_seed()
        if seed is None or self.layouts_of is None:
            return {}
        key = trace_key(seed)
        if key not in self._layouts_cache:
            program = self.layouts_of.featurize.program
            self._layouts_cache[key] = dict(seed.replay(program).input_layouts)
        return self._layouts_cache[key]

    def default_id(self) -> str | None:
        """The default schedule's candidate id (None: the task has no default)."""
        return None if self.default_trace is None else candidate_id(self, self.default_trace)

    def prior_ids(self) -> set[str]:
        """The candidate ids of the default and the space's prior points."""
        traces = [] if self.default_trace is None else [self.default_trace]
        return {candidate_id(self, trace) for trace in [*traces, *self.prior_points]}

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


def first_records(records: Iterable[Record]) -> dict[str, Record]:
    """The first record of each candidate (re-measurements come later in the log)."""
    first: dict[str, Record] = {}
    for record in records:
        first.setdefault(record.candidate_id, record)
    return first


def take_seeds(run: TaskRun, count: int) -> list[Trace]:
    """Up to `count` of the run's unmeasured seeds, to measure first (the rest stay for
    its next batch). The untuned schedule is a candidate too (the declared best is never
    worse), and so are the space's prior points (the default is one: local moves start there)."""
    unique: dict[str, Trace] = {}
    for trace in run.seeds:
        unique.setdefault(candidate_id(run, trace), trace)
    pending = [trace for key, trace in unique.items() if key not in run.measured_ids]
    seeds, run.seeds = pending[:count], pending[count:]
    return seeds


def prior_points(space: Any) -> list[Trace]:
    """The space's prior points: the default's own, and a conv's tiling over columns
    (`SearchSpace.prior_points`)."""
    if not isinstance(space, SearchSpace):
        return []  # GPU spaces start from their samples
    try:
        return space.prior_points()
    except AutotuneError as err:
        logger.info("no prior points in the search space: %s", err)
        return []


def candidate_id(run: TaskRun, trace: Trace) -> str:
    return compute_candidate_id(run.task.key, run.task.target, trace.to_json())


def measure_batch(
    run: TaskRun,
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
        default_cost = median_cost(results.pop())
    elif default is not None and default in traces:
        default_cost = median_cost(results[list(traces).index(default)])
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


def median_cost(result: MeasureResult) -> float | None:
    if result.status != "ok" or not result.costs_s:
        return None
    ordered = sorted(result.costs_s)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
