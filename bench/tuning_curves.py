"""Tuning curves: model-guided (evolutionary + XGBoost) against random search.

    .venv/bin/python bench/tuning_curves.py [--trials 256] [--only conv_64x56 ...]
        [--out bench/results] [--cores N] [--seed N] [--keep-records DIR]
        [--searches evolutionary random] [--set objective=reg ...]
        [--batches in-turn|one-by-one]

For each workload (by default conv_64x56, matmul_1024 and dwconv_32x112) both searches tune
from an empty record log with the same budget. The curve is the best GFLOPS measured so far
against the number of candidates measured, read from each record log in measurement order
(first measurement of each candidate; the final re-measurements are left out, so both
curves count the same thing). Prints one JSON line per workload with the trial at which
model-guided search first reaches random search's final best, and saves one PNG per
workload.

The two runs' logs come from different minutes of a machine whose speed drifts by a few
per cent, while the best candidates of both searches are often within a per cent of each
other. So the line also says whether model-guided search reaches random search's best
within 96 trials when the two kernels are compared in the same run: the best candidate of
model-guided search's first 96 trials and random search's best candidate, rebuilt and timed
in turn on the placements of their arguments the tuner measures at (`retimed_*`). Where
model-guided search measured random search's best candidate itself within 96 trials (most
often the default schedule or a point near it, which both searches measure first), it
found that kernel: it is timed once and reaches itself (`retimed_same_kernel`).

A single first measurement also decides which candidate is a search's "best": where the
top candidates are within a per cent or two, a slower one measured in a fast moment wins.
The tuner does not declare a best that way: it re-measures each task's top candidates with
the default schedule and the space's points nearest it, in turn. So the line also holds
`declared_*`: each search's top REMEASURE_TOP candidates by first measurement
(model-guided: within its first 96 trials) and the candidates both searches measure first
(the default schedule and the space's points nearest it), all rebuilt and timed in turn
together; a search's figure is the fastest of its own.

`--keep-records DIR` keeps each run's record log there as
`<workload>_<search>_seed<N>.jsonl` (for `bench/cost_model_accuracy.py`), and
`--from-records DIR` reads such logs instead of tuning (the curves and both comparisons
again, re-timed now; no tuning times or model fits).

`--batches one-by-one` measures the tuning batches' candidates one after the other, each
timed alone, as the tuner did before its batches were timed in turns (for comparing the
two protocols on one machine; the default `in-turn` is what the tuner does).

`--no-calibrate` turns off the tuner's timing of the default beside each batch (for
comparing the two on one machine).

`--set KEY=VALUE` sets an XGBoost option (an `XGBConfig` field, the value as JSON) of the
model-guided search, and `--searches` runs only some of the searches (a comparison of two
model settings runs `--searches evolutionary` once per setting); the line counts the
objectives the model's fits kept (`objectives_kept`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    json_settings,
    load_workloads,
    time_placed_in_turn,
    workload_arrays,
    workload_flops,
    workload_function,
)
from bench.kernels import placed_kernel_runners
from codegen.llvm import CpuTarget, host_target, parse_cpu_target
from codegen.measure import MeasureInput, MeasureOptions, MeasureResult, MeasureSession
from ir.graph.nodes import Call, Function
from ir.graph.traversal import post_order
from ir.schedule import Trace
from ir.te.program import function_to_te
from tuner.options import REMEASURE_TOP, TuneOptions
from tuner.records import Record, load_records
from tuner.tune import tune_model

WITHIN_TRIALS = 96

DEFAULT_WORKLOADS = ("conv_64x56", "matmul_1024", "dwconv_32x112")
SEARCHES = ("evolutionary", "random")


def best_so_far(records: list[Record], flops: int) -> list[float]:
    """Best GFLOPS after each measured candidate, first measurement of each only."""
    seen: set[str] = set()
    curve: list[float] = []
    best = 0.0
    for record in records:
        if record.candidate_id in seen:
            continue
        seen.add(record.candidate_id)
        if record.status == "ok" and record.costs_s:
            best = max(best, flops / record.median_cost_s / 1e9)
        curve.append(best)
    return curve


def first_measurements(records: list[Record], within: int | None = None) -> list[Record]:
    """The first record of each of the first `within` candidates (all: None), in order."""
    seen: set[str] = set()
    firsts: list[Record] = []
    for record in records:
        if record.candidate_id in seen:
            continue
        seen.add(record.candidate_id)
        if within is not None and len(seen) > within:
            break
        firsts.append(record)
    return firsts


def top_candidates(
    records: list[Record], within: int | None = None, count: int = 1
) -> list[Record]:
    """The `count` fastest `ok` first measurements among the first `within` candidates."""
    ok = [r for r in first_measurements(records, within) if r.status == "ok" and r.costs_s]
    return sorted(ok, key=lambda r: r.median_cost_s)[:count]


def best_candidate(records: list[Record], within: int | None = None) -> Record | None:
    """The fastest `ok` first measurement among the first `within` candidates (all: None)."""
    top = top_candidates(records, within)
    return top[0] if top else None


def retimed_gflops(
    workload: dict[str, Any], candidates: dict[str, Record], target: str
) -> dict[str, float]:
    """GFLOPS of each candidate's kernel, rebuilt for `target` and timed in turn on the
    placements of its arguments that the tuner measured it at (their mean)."""
    arrays = workload_arrays(workload)
    fn = workload_function(workload, arrays)
    (call,) = [n for n in post_order(fn.body) if isinstance(n, Call)]
    assert isinstance(call.op, Function)
    program = function_to_te(call.op)
    runners = {
        label: placed_kernel_runners(
            arrays,
            Trace.from_json(record.trace).replay(program),
            call,
            parse_cpu_target(target),
        )
        for label, record in candidates.items()
    }
    costs = time_placed_in_turn(runners, rounds=7)
    return {label: workload_flops(workload) / cost / 1e9 for label, cost in costs.items()}


def first_reaching(curve: list[float], level: float) -> int | None:
    """The 1-based trial at which `curve` first reaches `level`, or None."""
    for index, value in enumerate(curve):
        if value >= level:
            return index + 1
    return None


def tune_curve(
    workload: dict[str, Any],
    trials: int,
    search: str,
    target: str,
    seed: int = 0,
    keep_records: Path | None = None,
    cost_model_options: dict[str, Any] | None = None,
    batches_in_turn: bool = True,
    calibrate: bool = True,
) -> dict[str, Any]:
    """Tune one workload with one search strategy (and `seed`); its curve, wall time and
    cost-model fits. The record log is kept in `keep_records` when given; with
    `batches_in_turn` False each batch's candidates are timed one after the other; with
    `calibrate` False the tuner does not time the default beside each batch."""
    arrays = workload_arrays(workload)
    fn = workload_function(workload, arrays)
    with tempfile.TemporaryDirectory() as scratch, MeasureSession() as session:

        def measurer(
            inputs: Sequence[MeasureInput], options: MeasureOptions
        ) -> list[MeasureResult]:
            if not batches_in_turn:
                options = replace(options, in_turn=False)
            return session.measure_batch(inputs, options)

        path = Path(scratch) / "run.jsonl"
        start = time.perf_counter()
        result = tune_model(
            fn,
            target,
            TuneOptions(
                trials,
                search=search,
                remeasure_top=0,
                seed=seed,
                cost_model_options=cost_model_options,
                calibrate=calibrate,
            ),
            path,
            measurer=measurer,
        )
        wall = time.perf_counter() - start
        records = load_records(path)
        curve = best_so_far(records, workload_flops(workload))
        if keep_records is not None:
            keep_records.mkdir(parents=True, exist_ok=True)
            name = f"{workload['name']}_{search}_seed{seed}.jsonl"
            shutil.copyfile(path, keep_records / name)
    held_out = [fit for fit in result.cost_model_metrics if fit.get("held_out")]
    last = held_out[-1] if held_out else None
    return {
        "curve": curve,
        "records": records,
        "tune_s": wall,
        "pairwise_accuracy": None if last is None else round(last["pairwise_accuracy"], 3),
        "objectives_kept": dict(Counter(str(fit.get("objective")) for fit in held_out)),
    }


def kept_curve(workload: dict[str, Any], search: str, seed: int, folder: Path) -> dict[str, Any]:
    """A run kept by `--keep-records` in `folder`: its records and curve (no tuning time
    or model fits: they are not in the log)."""
    path = folder / f"{workload['name']}_{search}_seed{seed}.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"no kept record log {path}")
    records = load_records(path)
    return {
        "curve": best_so_far(records, workload_flops(workload)),
        "records": records,
        "tune_s": None,
        "pairwise_accuracy": None,
        "objectives_kept": {},
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def plot(name: str, curves: dict[str, list[float]], out: Path) -> Path:
    """Save the curves of one workload as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    labels = {"evolutionary": "model-guided (XGBoost + evolution)", "random": "random search"}
    for search, curve in curves.items():
        axes.plot(range(1, len(curve) + 1), curve, label=labels.get(search, search))
    axes.set_title(f"{name}: best GFLOPS found")
    axes.set_xlabel("trials (candidates measured)")
    axes.set_ylabel("GFLOPS")
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    path = out / f"tuning_curve_{name}.png"
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=256)
    parser.add_argument("--only", nargs="*", default=list(DEFAULT_WORKLOADS))
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    parser.add_argument("--cores", type=int, help="threads per kernel (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="the tuner's seed (both searches)")
    parser.add_argument("--keep-records", help="a folder to keep each run's record log in")
    parser.add_argument(
        "--from-records", help="a --keep-records folder to read the runs from instead of tuning"
    )
    parser.add_argument("--searches", nargs="+", choices=SEARCHES, default=list(SEARCHES))
    parser.add_argument(
        "--set", nargs="*", default=[], help="KEY=VALUE: XGBoost options of model-guided search"
    )
    parser.add_argument(
        "--batches",
        choices=("in-turn", "one-by-one"),
        default="in-turn",
        help="how a tuning batch's candidates are timed (default: in turns, as the tuner)",
    )
    parser.add_argument(
        "--no-calibrate",
        action="store_true",
        help="do not time the default beside each batch (the tuner's `calibrate`)",
    )
    args = parser.parse_args()
    options = json_settings(args.set)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    host = host_target()
    target = (
        host
        if args.cores is None
        else CpuTarget(host.kind, host.mcpu, args.cores, host.features, host.triple)
    )
    print(f"target: {target}", file=sys.stderr)
    for workload in load_workloads():
        if workload["name"] not in args.only:
            continue
        runs = {
            search: (
                kept_curve(workload, search, args.seed, Path(args.from_records))
                if args.from_records
                else tune_curve(
                    workload,
                    args.trials,
                    search,
                    str(target),
                    args.seed,
                    Path(args.keep_records) if args.keep_records else None,
                    options if search == "evolutionary" else None,
                    args.batches == "in-turn",
                    not args.no_calibrate,
                )
            )
            for search in args.searches
        }
        curves = {search: run["curve"] for search, run in runs.items()}
        row: dict[str, Any] = {
            "name": workload["name"],
            "seed": args.seed,
            "trials": args.trials,
            **({"cost_model_options": options} if options else {}),
            **({"batches": args.batches} if args.batches != "in-turn" else {}),
            **({"calibrate": False} if args.no_calibrate else {}),
            **{f"best_{s}": curves[s][-1] if curves[s] else None for s in curves},
            **{f"best_{s}_at_96": curves[s][min(95, len(curves[s]) - 1)] for s in curves},
            **{f"tune_s_{s}": _rounded(runs[s]["tune_s"]) for s in curves},
        }
        if "evolutionary" in runs:
            model_run = runs["evolutionary"]
            row["cost_model_pairwise_accuracy_held_out"] = model_run["pairwise_accuracy"]
            row["objectives_kept"] = model_run["objectives_kept"]
        if len(runs) == len(SEARCHES):
            row.update(_against_random(workload, runs, str(target)))
        row["png"] = str(plot(workload["name"], curves, out))
        print(json.dumps(row), flush=True)
    return 0


def _against_random(
    workload: dict[str, Any], runs: dict[str, dict[str, Any]], target: str
) -> dict[str, Any]:
    """When model-guided search reaches random search's best, by the logs and re-timed."""
    curves = {search: run["curve"] for search, run in runs.items()}
    random_best = curves["random"][-1] if curves["random"] else 0.0
    early = best_candidate(runs["evolutionary"]["records"], WITHIN_TRIALS)
    late = best_candidate(runs["random"]["records"])
    early_ids = {
        r.candidate_id for r in first_measurements(runs["evolutionary"]["records"], WITHIN_TRIALS)
    }
    retimed: dict[str, float] = {}
    if early is not None and late is not None:
        if late.candidate_id in early_ids:
            # Model-guided search measured that very kernel (most often a seed both searches
            # measure first): timing it against another would compare the first
            # measurements' noise, not what the searches found.
            (gflops,) = retimed_gflops(workload, {"both": late}, target).values()
            retimed = {"evolutionary": gflops, "random": gflops}
        else:
            retimed = retimed_gflops(workload, {"evolutionary": early, "random": late}, target)
    declared = declared_gflops(
        workload,
        {
            "evolutionary": top_candidates(
                runs["evolutionary"]["records"], WITHIN_TRIALS, REMEASURE_TOP
            ),
            "random": top_candidates(runs["random"]["records"], None, REMEASURE_TOP),
        },
        shared_seeds([run["records"] for run in runs.values()]),
        target,
    )
    return {
        "model_reaches_random_best_at": first_reaching(curves["evolutionary"], random_best),
        "retimed_evolutionary_at_96": retimed.get("evolutionary"),
        "retimed_random_best": retimed.get("random"),
        "retimed_model_reaches_random_best_within_96": (
            retimed["evolutionary"] >= retimed["random"] if retimed else None
        ),
        "retimed_same_kernel": late is not None and late.candidate_id in early_ids,
        "declared_evolutionary_at_96": declared.get("evolutionary"),
        "declared_random_best": declared.get("random"),
        "declared_model_reaches_random_best_within_96": (
            declared["evolutionary"] >= declared["random"] if declared else None
        ),
    }


def shared_seeds(logs: list[list[Record]]) -> list[Record]:
    """The first measurements the logs start with alike (the same candidates in the same
    order: the tuner's seeds, the default schedule and the space's points nearest it), as
    in the first log."""
    firsts = [first_measurements(records) for records in logs]
    shared: list[Record] = []
    for records in zip(*firsts, strict=False):
        if len({r.candidate_id for r in records}) != 1:
            break
        shared.append(records[0])
    return shared


def declared_gflops(
    workload: dict[str, Any],
    tops: dict[str, list[Record]],
    seeds: list[Record],
    target: str,
) -> dict[str, float]:
    """Each search's best as the tuner would declare it: its top candidates (`tops`) and
    the seeds both searches measured first (the default schedule and the space's points
    nearest it, `shared_seeds`; there must be one), rebuilt and timed in turn together;
    per search, the fastest of its own candidates and the seeds. Empty where a search has
    no candidate."""
    if not all(tops.values()):
        return {}
    if not seeds:
        raise ValueError("the logs do not start from the same candidate")
    unique = {r.candidate_id: r for records in tops.values() for r in records}
    for seed in seeds:
        unique.setdefault(seed.candidate_id, seed)
    gflops = retimed_gflops(workload, unique, target)
    return {
        search: max(gflops[r.candidate_id] for r in [*records, *seeds])
        for search, records in tops.items()
    }


if __name__ == "__main__":
    sys.exit(main())
