"""`autotune tune`: offline tuning of a model with a live progress display."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from codegen.backends import backend_of
from codegen.cuda.device import GpuRuntimeError, check_target_device
from codegen.cuda.target import CudaTarget
from codegen.errors import TargetError
from codegen.llvm import CpuTarget, host_target
from codegen.measure import MeasureOptions
from codegen.prepare import prepare_for_target
from codegen.target import Target, parse_target
from ir.errors import AutotuneError
from ir.frontend.onnx.symbolic_dims import DimBinding
from service.cli.progress import TrialProgress, render_table, text_table
from tuner.in_model import InModelCheck
from tuner.options import TuneOptions, TuneOptionsError
from tuner.records import load_records
from tuner.size_histogram import SizeHistogram
from tuner.tune import TaskSummary, TuneProgress, TuneResult, tune_model


class TuneError(AutotuneError):
    """A tuning argument is wrong."""


def parse_tune_target(text: str) -> Target:
    """The target `autotune tune --target` names (plain `cuda`: the local GPU's
    architecture); TuneError saying what is wrong."""
    try:
        return parse_target(text)
    except TargetError as err:
        raise TuneError(
            f"unsupported target {text!r}: {err} (offline tuning runs on this CPU, llvm, or a "
            "local GPU, cuda -arch=sm_XX)"
        ) from None


def tune_options_from_flags(
    target: Target,
    trials: int,
    time_limit_s: float | None,
    search: str,
    batch_size: int,
    flush_cache: bool | None,
    feature_workers: int | None,
    in_model: bool = True,
    cost_model_path: str | None = None,
    size_histogram: SizeHistogram | None = None,
) -> TuneOptions:
    """The TuneOptions of `autotune tune`'s flags; TuneError naming the flag when one is
    out of range. Without `flush_cache` every run is timed on cold caches on a CPU: inside
    a network a kernel's weights and inputs arrive from memory, and schedules picked on
    warm caches made light_resnet50 slower than untuned."""
    cold = backend_of(target).flushes_caches if flush_cache is None else flush_cache
    try:
        return TuneOptions(
            trials=trials,
            time_limit_s=time_limit_s,
            search=search,
            batch_size=batch_size,
            measure=MeasureOptions(flush_cache=cold),
            feature_workers=feature_workers,
            in_model=in_model,
            cost_model_path=cost_model_path,
            size_histogram=size_histogram or {},
        )
    except TuneOptionsError as err:  # "batch_size must be ..." -> "--batch-size must be ..."
        name, _, rest = str(err).partition(" ")
        flag = "--" + name.removesuffix("_s").replace("_", "-")
        raise TuneError(f"{flag} {rest}") from None


def _best(gflops: float | None, cost_s: float | None) -> str:
    """A task's best as GFLOPS, or as its time where the task does no arithmetic (a
    concatenation, a layout change), 14 characters wide."""
    if gflops is not None and gflops > 0:
        return f"{gflops:7.1f} GFLOPS"
    if cost_s is not None:
        return f"{cost_s * 1e6:7.1f} us    "
    return "      -       "


def _progress_line(progress: TuneProgress) -> str:
    best = _best(progress.task_best_gflops, progress.task_best_cost_s)
    return (
        f"[{progress.total_trials:>5}/{progress.max_trials}] task {progress.task_index:>3} "
        f"{progress.task_name[:40]:<40} trials {progress.task_trials:>4}  best {best}  "
        f"est. latency {progress.estimated_latency_s * 1e3:9.3f} ms  "
        f"({progress.elapsed_s:6.1f} s)"
    )


def _summary_json(result: TuneResult) -> dict[str, Any]:
    return {
        "measured": result.measured,
        "remeasured": result.remeasured,
        "estimated_latency_ms": (
            None if result.estimated_latency_s is None else result.estimated_latency_s * 1e3
        ),
        "tasks": [
            {
                "name": task.name,
                "key": task.key,
                "weight": task.weight,
                "flops": task.flops,
                "trials": task.trials,
                "best_gflops": task.best_gflops,
                "stopped": task.stopped,
                "share": task.share,
                "covers": dict(task.covers),
                "measure_at": dict(task.measure_at),
            }
            for task in result.tasks
        ],
        "in_model": None if result.in_model is None else _in_model_json(result.in_model),
    }


def _in_model_json(check: InModelCheck) -> dict[str, Any]:
    def ms(seconds: float | None) -> float | None:
        return None if seconds is None else seconds * 1e3

    return {
        "tuned_latency_ms": ms(check.tuned_latency_s),
        "untuned_latency_ms": ms(check.default_latency_s),
        "kernels": [
            {
                "name": timing.name,
                "key": timing.workload_key,
                "calls": timing.calls,
                "tuned_us": timing.tuned_s * 1e6,
                "default_us": timing.default_s * 1e6,
                "kept": timing.kept,
            }
            for timing in check.timings
        ],
    }


def _in_model_lines(check: InModelCheck) -> list[str]:
    """What step 5 found, for people."""
    if check.tuned_latency_s is None or check.default_latency_s is None:
        return ["inside the model: no tuned kernel to time (every task keeps its default)"]
    lines = [
        f"inside the model: {check.tuned_latency_s * 1e3:.3f} ms with the tuned kernels "
        f"(before this check), {check.default_latency_s * 1e3:.3f} ms untuned; "
        f"{len(check.timings)} kernels differ from their default"
    ]
    reverted = check.reverted
    if reverted:
        names = ", ".join(
            f"{t.name} ({t.tuned_s * 1e6:.0f} us tuned, {t.default_s * 1e6:.0f} us default)"
            for t in reverted
        )
        lines.append(f"slower inside the model than their default, which they keep: {names}")
    return lines


def run_tune(
    model: Path,
    shapes: Mapping[str, Sequence[DimBinding]],
    target: Target,
    options: TuneOptions,
    records: Path,
    as_json: bool,
) -> int:
    """Tune `model` for `target` under `options` (built by the command line from its flags:
    `tune_options_from_args`) and print a progress line per measured batch, then a
    summary."""
    if records.is_dir():
        raise TuneError(f"--records {records}: is a directory, not a record log")
    if isinstance(target, CudaTarget):
        # Before the model is imported: a missing GPU is one clear error, not a traceback.
        try:
            check_target_device(target)
        except GpuRuntimeError as err:
            raise TuneError(f"cannot tune on {str(target)!r}: {err}") from None
    else:
        _check_runs_here(target)
    fn = prepare_for_target(model, target, shapes).function
    display = TrialProgress(sys.stderr, "tune")

    def show(progress: TuneProgress) -> None:
        status = f"est. latency {progress.estimated_latency_s * 1e3:.3f} ms"
        display.update(progress.total_trials, progress.max_trials, status, _progress_line(progress))

    try:
        result = tune_model(fn, target, options, records, progress=show)
    finally:
        display.close()
    # (A task the time limit left unmeasured is not a failure: it keeps its default.)
    failed = [task for task in result.tasks if task.best_gflops is None and task.trials]
    for line in _failure_lines(failed, records, str(target)):
        print(line, file=sys.stderr)
    status = 1 if failed else 0
    resumed_trials = sum(task.trials for task in result.tasks)
    if result.measured == 0 and resumed_trials >= options.trials:
        print(
            f"{records} already holds {resumed_trials} trials of this model's tasks, the whole "
            f"budget of --trials {options.trials}: raise --trials to tune further",
            file=sys.stderr,
        )
    if as_json:
        print(json.dumps(_summary_json(result), indent=2))
        return status
    print(f"measured {result.measured} new candidates ({result.remeasured} re-measured)")
    table = text_table(
        ("task", "left"), ("weight", "right"), ("trials", "right"), ("best us", "right"),
        ("GFLOPS", "right"), ("stopped", "left"),
    )  # fmt: skip
    for task in result.tasks:
        cost = f"{task.best_cost_s * 1e6:.1f}" if task.best_cost_s is not None else "-"
        gflops = f"{task.best_gflops:.1f}" if task.best_gflops else "-"
        table.add_row(
            task.name, str(task.weight), str(task.trials), cost, gflops, str(task.stopped)
        )
    print(render_table(table))
    if result.estimated_latency_s is not None:
        print(f"estimated model latency: {result.estimated_latency_s * 1e3:.3f} ms")
    if result.in_model is not None:
        print("\n".join(_in_model_lines(result.in_model)))
    print(f"records: {records}")
    return status


def _check_runs_here(wanted: CpuTarget) -> None:
    """Raise TuneError when kernels for the CPU target `wanted` cannot run on this host
    (wider vectors than it has), since tuning measures them here."""
    host = host_target()
    if wanted.vector_bits > host.vector_bits:
        raise TuneError(
            f"cannot tune for {str(wanted)!r} on this host: its kernels use "
            f"{wanted.vector_bits}-bit vectors and this CPU ({host.mcpu}) has "
            f"{host.vector_bits}-bit ones, so they could not run here to be measured; tune "
            "on a worker with that CPU (autotune serve and autotune worker)"
        )


def _failure_lines(failed: Sequence[TaskSummary], records: Path, target: str) -> list[str]:
    """One line per task that ended without a single correct candidate: how its
    candidates failed, with the first error."""
    if not failed:
        return []
    logged = load_records(records) if records.exists() else []
    lines = []
    for task in failed:
        mine = [r for r in logged if r.workload_key == task.key and r.target == target]
        statuses = Counter(r.status for r in mine)
        counts = ", ".join(f"{count} {status}" for status, count in statuses.most_common())
        error = next((r.error for r in mine if r.error), None)
        how = f" ({counts}; first error: {error})" if mine else ""
        lines.append(
            f"error: task {task.name}: none of its {task.trials} candidates ran correctly"
            f"{how}; its records stay in {records}"
        )
    return lines
