"""Search overhead on conv2d: the feature rate and the cost of one search round.

    .venv/bin/python bench/search_overhead.py [--workload conv_64x56] [--samples 300]
        [--rounds 5] [--train 32] [--feature-workers N] [--json]

1. Feature rate: sampled candidates per second through replay + lowering + feature
   extraction, on one core (Python, no threads), as the tuner runs them (its `Featurizer`,
   which also keys its cache by trace text). Target: >= 1000 per second. Then the same
   samples through the tuner's `FeaturePool` (this process and `--feature-workers`
   worker processes; default: one per other core, as the tuner runs).
2. Round overhead: an XGBoost model is trained on `--train` really measured candidates
   (repeat=1, so this part is quick), then the evolutionary search's `generate(64)` is timed
   over `--rounds` rounds: generation + features + prediction, measurement excluded
   (each round's batch is then reported to the search as measured, so the next round
   cannot pick it again), with features on the pool as the tuner computes them, and
   again on one core. Target: <= 2 s per round.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import load_workloads, workload_arrays, workload_function
from codegen.llvm import host_target
from codegen.measure import MeasureInput, MeasureOptions, measure_batch
from ir.lower import lower
from ir.schedule import Trace
from ir.te.program import function_to_te
from tuner.cost_model import CostModel, make_cost_model
from tuner.feature_pool import FeaturePool
from tuner.features import extract_features
from tuner.search import make_search
from tuner.space import SearchSpace
from tuner.task_run import Featurizer
from tuner.tasks import extract_tasks

ROUND_SIZE = 64


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workload", default="conv_64x56")
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--train", type=int, default=32)
    parser.add_argument("--feature-workers", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    (workload,) = [w for w in load_workloads() if w["name"] == args.workload]
    fn = workload_function(workload, workload_arrays(workload))
    target = host_target()
    (task,) = extract_tasks(fn, target)
    program = function_to_te(task.function)
    space = SearchSpace(program, target.hardware, task.constant_params)
    core = target.hardware.core
    rng = random.Random(0)

    traces = [space.sample(rng) for _ in range(args.samples)]
    start = time.perf_counter()
    rows = Featurizer(program, core=core)(traces)  # what the tuner runs per candidate
    feature_s = (time.perf_counter() - start) / len(traces)
    if any(row is None for row in rows):  # (the featurizer turns errors into None)
        for trace in traces:
            extract_features(lower(trace.replay(program)), core)  # raises the error
    with FeaturePool(args.feature_workers) as pool:
        pool.start(timeout_s=60)  # (once per tuning run)
        start = time.perf_counter()
        Featurizer(program, task.to_json(), pool, core)(traces)
        pooled_s = (time.perf_counter() - start) / len(traces)

        train = [space.sample(rng) for _ in range(args.train)]
        options = MeasureOptions(repeat=1, min_repeat_ms=5)
        results = measure_batch(
            [MeasureInput(task.to_json(), t.to_json(), str(target)) for t in train], options
        )
        model = make_cost_model("xgb")
        rows = Featurizer(program, core=core)(train)
        usable = [
            (row, r.costs_s[0]) for row, r in zip(rows, results, strict=True) if row is not None
        ]
        model.update(
            [row for row, _ in usable],
            [1.0 / cost if cost else 0.0 for _, cost in usable],
            [task.key] * len(usable),
        )
        costs = [r.costs_s[0] if r.costs_s else None for r in results]
        round_s = _rounds(
            space, model, Featurizer(program, task.to_json(), pool, core), train, costs, args.rounds
        )
        serial_round_s = _rounds(
            space, model, Featurizer(program, core=core), train, costs, args.rounds
        )
    row = {
        "workload": args.workload,
        "features_per_s": round(1.0 / feature_s, 1),
        "feature_ms": round(feature_s * 1e3, 3),
        "feature_workers": pool.workers,
        "pooled_features_per_s": round(1.0 / pooled_s, 1),
        "round_s_median": round(statistics.median(round_s), 3),
        "round_s": [round(s, 3) for s in round_s],
        "one_core_round_s_median": round(statistics.median(serial_round_s), 3),
        "round_size": ROUND_SIZE,
    }
    if args.json:
        print(json.dumps(row))
    else:
        print(
            f"{args.workload}: {row['features_per_s']} candidates/s through replay + lower + "
            f"features on one core (target >= 1000), {row['pooled_features_per_s']}/s with "
            f"{pool.workers} worker process(es) beside it; search round of {ROUND_SIZE}: "
            f"median {row['round_s_median']} s over {args.rounds} as the tuner runs it "
            f"(target <= 2 s), {row['one_core_round_s_median']} s on one core"
        )
    return 0


def _rounds(
    space: SearchSpace,
    model: CostModel,
    featurize: Featurizer,
    train: list[Trace],
    costs: list[float | None],
    rounds: int,
) -> list[float]:
    """Seconds of each of `rounds` rounds of `generate(64)` of a fresh search."""
    search = make_search(
        "evolutionary", space, random.Random(1), cost_model=model, feature_fn=featurize
    )
    search.notify(train, costs)
    seconds = []
    for _ in range(rounds):
        start = time.perf_counter()
        batch = search.generate(ROUND_SIZE)
        seconds.append(time.perf_counter() - start)
        search.notify(batch, [None] * len(batch))
    return seconds


if __name__ == "__main__":
    sys.exit(main())
