"""Step 5 of tuning a model: each tuned kernel timed inside the compiled model, beside its
default schedule, and those timings decide.

During the search a kernel is timed alone, its arguments evicted from the caches before
every run (`MeasureOptions.flush_cache`). Inside a model it runs between its neighbours:
its input was just written by the kernel before it, and the weights of a model that fits
in the last-level cache stay there. A schedule that wins alone can lose there: tuned,
a BERT encoder ran 1.3x slower than untuned on a 2-core Emerald Rapids host. So the model
is compiled twice, with the tuned schedules and with the defaults, and the two are run
in alternate rounds with every kernel call timed as it runs (`codegen.profile`). Each
workload whose tuned schedule is not its default gets an "in_model" record for both, and
`tuner.records.tuned_record` lets those records decide: a tuned schedule is kept where
it is faster inside the model, else the default is.
"""

from __future__ import annotations

import logging
import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from codegen.executor import CompiledModel, compile_model
from codegen.llvm import CpuTarget
from codegen.profile import TimedCalls, time_kernel_calls
from ir.graph.nodes import Function
from ir.reference import random_inputs
from tuner.records import Record, records_chooser

logger = logging.getLogger(__name__)

IN_MODEL_ROUNDS = 3  # rounds of each model, alternating
IN_MODEL_SECONDS = 6.0  # about how long all rounds of both models take together
MIN_RUNS, MAX_RUNS = 2, 50  # inferences per round


@dataclass(frozen=True)
class InModelTiming:
    """One workload inside the model: seconds per call with its tuned schedule and with
    its default (medians over the rounds), and which of the two the records now keep."""

    name: str
    workload_key: str
    calls: int
    tuned_s: float
    default_s: float

    @property
    def kept(self) -> str:
        """ "tuned" or "default": the faster inside the model."""
        return "tuned" if self.tuned_s <= self.default_s else "default"


@dataclass(frozen=True)
class InModelCheck:
    """What the check timed: the model's latency with the tuned schedules (before the
    check) and with the defaults, the workloads whose schedules differ, and the records
    it made (seconds; latencies None when nothing was tuned)."""

    tuned_latency_s: float | None
    default_latency_s: float | None
    timings: tuple[InModelTiming, ...]
    records: tuple[Record, ...]

    @property
    def reverted(self) -> tuple[InModelTiming, ...]:
        """The workloads whose tuned schedule lost to the default inside the model."""
        return tuple(timing for timing in self.timings if timing.kept == "default")


def check_in_model(
    fn: Function,
    target: CpuTarget,
    records: Sequence[Record],
    *,
    rounds: int = IN_MODEL_ROUNDS,
    seconds: float = IN_MODEL_SECONDS,
    seed: int = 0,
) -> InModelCheck:
    """Time `fn` (a fused, typed model) compiled for `target` with the best of `records`
    timed alone and with the default schedules, in `rounds` alternating rounds lasting
    about `seconds` in all, on random inputs from `seed`; the "in_model" records of every
    workload whose tuned schedule is not its default. Runs here: `target` must be this
    host's."""
    key = str(target)
    alone = [record for record in records if record.timing != "in_model"]
    tuned = compile_model(fn, target, records_chooser(alone, key))
    if not any(kernel.coverage.hit for kernel in tuned.plan.kernels):
        return InModelCheck(None, None, (), ())
    default = compile_model(fn, target)
    # (One function walked the same way: the same kernels, in the same order.)
    pairs = list(zip(tuned.plan.kernels, default.plan.kernels, strict=True))
    workload_of = {t.symbol: t.coverage.workload_key or t.symbol for t, _ in pairs}
    workload_of |= {d.symbol: workload_of[t.symbol] for t, d in pairs}
    differ = {
        workload_of[tuned_kernel.symbol]: (tuned_kernel, default_kernel)
        for tuned_kernel, default_kernel in pairs
        if tuned_kernel.coverage.hit
        and tuned_kernel.schedule.trace != default_kernel.schedule.trace
    }
    inputs = random_inputs(fn, seed)
    runs = _runs_per_round(tuned, inputs, rounds, seconds)
    per_call: dict[str, dict[str, list[float]]] = {"tuned": {}, "default": {}}
    latency: dict[str, list[float]] = {"tuned": [], "default": []}
    calls: dict[str, int] = {}
    for _ in range(rounds):
        for name, model in (("tuned", tuned), ("default", default)):
            timed = time_kernel_calls(model, inputs, runs)
            latency[name].append(timed.inference_s)
            for workload, (count, seconds_per_call) in _per_workload(timed, workload_of).items():
                per_call[name].setdefault(workload, []).append(seconds_per_call)
                calls[workload] = count
    made: list[Record] = []
    timings: list[InModelTiming] = []
    for workload, (tuned_kernel, default_kernel) in differ.items():
        if workload not in per_call["tuned"] or workload not in per_call["default"]:
            # In a branch not taken or a loop that ran no iteration on these inputs.
            logger.info("%s: not run on the check's inputs; kept as tuned", tuned_kernel.symbol)
            continue
        tuned_costs = per_call["tuned"][workload]
        default_costs = per_call["default"][workload]
        for kernel, costs in ((tuned_kernel, tuned_costs), (default_kernel, default_costs)):
            made.append(
                Record(
                    workload_key=workload,
                    target=key,
                    trace=kernel.schedule.trace.to_json(),
                    costs_s=tuple(costs),
                    status="ok",
                    timing="in_model",
                )
            )
        timings.append(
            InModelTiming(
                name=tuned_kernel.coverage.task,
                workload_key=workload,
                calls=calls[workload],
                tuned_s=statistics.median(tuned_costs),
                default_s=statistics.median(default_costs),
            )
        )
    timings.sort(key=lambda t: -t.calls * max(t.tuned_s, t.default_s))
    check = InModelCheck(
        statistics.median(latency["tuned"]),
        statistics.median(latency["default"]),
        tuple(timings),
        tuple(made),
    )
    for timing in check.reverted:
        logger.info(
            "%s: tuned %.1f us, default %.1f us inside the model: the default is kept",
            timing.name,
            timing.tuned_s * 1e6,
            timing.default_s * 1e6,
        )
    return check


def _per_workload(timed: TimedCalls, workload_of: dict[str, str]) -> dict[str, tuple[int, float]]:
    """Each workload's calls in one timed inference and their mean seconds per call."""
    seconds: dict[str, float] = {}
    counts: dict[str, int] = {}
    for symbol, cost in zip(timed.symbols, timed.call_s, strict=True):
        workload = workload_of[symbol]
        seconds[workload] = seconds.get(workload, 0.0) + cost
        counts[workload] = counts.get(workload, 0) + 1
    return {
        workload: (counts[workload], seconds[workload] / counts[workload]) for workload in seconds
    }


def _runs_per_round(
    model: CompiledModel, inputs: dict[str, np.ndarray], rounds: int, seconds: float
) -> int:
    """Inferences per round for `rounds` rounds of two models to last about `seconds`."""
    bound = model.bind(inputs)  # (checks the inputs once; a warm-up inference)
    started = time.perf_counter()
    for call in bound.calls:
        call()
    one_s = max(time.perf_counter() - started, 1e-6)
    return max(MIN_RUNS, min(MAX_RUNS, math.floor(seconds / (2 * rounds * one_s))))
