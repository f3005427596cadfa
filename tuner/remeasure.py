"""Step 4 of tuning: the top candidates of each task, its default schedule and the
space's prior points re-measured with more repeats, in one batch timed in turns, so that
the best is declared among candidates measured at the same time."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from codegen.measure import MeasureInput, MeasureOptions
from codegen.target import Target
from tuner.records import Record
from tuner.task_run import Measurer, RecordStore, TaskRun, first_records, median_cost

logger = logging.getLogger(__name__)

REMEASURE_REPEAT_FACTOR = 3  # ... with this many times the repeats
DISAGREEMENT_FACTOR = 4.0  # a re-measurement this many times slower than the first ...
REMEASURE_RETRIES = 2  # ... is measured again, at most this many times


def remeasure(
    runs: list[TaskRun],
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
            (r for r in first_records(mine).values() if r.status == "ok" and r.costs_s),
            key=lambda r: r.median_cost_s,
        )
        contenders = ranked[:top]
        if top > 0:
            prior = run.prior_ids()
            contenders += [r for r in ranked[top:] if r.candidate_id in prior]
        chosen = [r for r in contenders if counts[r.candidate_id] < 2]
        if not chosen:
            continue
        total += measure_again(run, chosen, target, repeated, log, measurer)
    return total


def measure_again(
    run: TaskRun,
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
            if (cost := median_cost(result)) is not None
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
