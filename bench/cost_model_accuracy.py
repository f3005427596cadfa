"""Held-out accuracy of the XGBoost cost model, on record logs kept by a tuning run.

    .venv/bin/python bench/tuning_curves.py --seed N --keep-records RECORDS   # N = 0, 1, ...
    .venv/bin/python bench/cost_model_accuracy.py RECORDS [--objective reg rank auto]
        [--set max_depth=4 ...]

The tuner's own figure (the last fit's out-of-fold score, over the 200-odd candidates of a
256-trial run) swings by several points from run to run. Here every measured candidate of a
workload's logs (`<workload>_<search>_seed<N>.jsonl`, both searches) is featurized once
and the model is scored two ways, per workload and objective:

- "k-fold": the candidates of all logs shuffled into `--folds` parts; each part predicted
  by a model trained on the others; pairwise accuracy and top-k recall averaged over the
  parts and over `--repeats` shuffles;
- "cross-seed": a model trained on one seed's logs predicts every candidate of each other
  seed's (candidates it never saw, measured in another run); averaged over the ordered
  pairs of seeds.

Failed candidates (throughput 0) are left out of the scores, as they are of no ranking
question the search asks; they stay in the training rows.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from codegen.llvm import host_target

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import json_settings, load_workloads, workload_arrays, workload_function
from ir.lower import lower
from ir.schedule import Trace
from ir.te.program import function_to_te
from tuner.cost_model import XGBCostModel, pairwise_accuracy, top_k_recall
from tuner.features import extract_features
from tuner.records import load_records
from tuner.tasks import extract_tasks

LOG_NAME = re.compile(
    r"^(?P<workload>.+)_(?P<search>evolutionary|random)_seed(?P<seed>\d+)\.jsonl$"
)
TOP_K = 16


def featurized_logs(
    folder: Path, workload: dict[str, Any]
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Per seed: (features, throughputs) of every first measurement in its logs."""
    target = host_target()
    task = extract_tasks(workload_function(workload, workload_arrays(workload)), target)[0]
    program = function_to_te(task.function)
    rows: dict[int, list[tuple[np.ndarray, float]]] = defaultdict(list)
    for path in sorted(folder.glob(f"{workload['name']}_*_seed*.jsonl")):
        match = LOG_NAME.match(path.name)
        if match is None or match["workload"] != workload["name"]:
            continue
        seen: set[str] = set()
        for record in load_records(path):
            if record.candidate_id in seen:
                continue
            seen.add(record.candidate_id)
            try:
                trace = Trace.from_json(record.trace)
                features = extract_features(lower(trace.replay(program)), target.hardware.core)
            except Exception:  # a candidate that no longer replays is no data
                continue
            ok = record.status == "ok" and record.costs_s
            rows[int(match["seed"])].append((features, 1.0 / record.median_cost_s if ok else 0.0))
    return {
        seed: (np.stack([f for f, _ in items]), np.asarray([t for _, t in items]))
        for seed, items in rows.items()
    }


def _scores(
    model: XGBCostModel, features: np.ndarray, throughputs: np.ndarray
) -> tuple[float, float]:
    """Pairwise accuracy and top-k recall of `model` on the candidates that ran."""
    ran = throughputs > 0
    pred = model.predict(list(features[ran]))
    actual = throughputs[ran]
    k = min(TOP_K, max(1, len(actual) // 4))
    return pairwise_accuracy(pred, actual), top_k_recall(pred, actual, k)


def _trained(
    config: dict[str, Any], features: np.ndarray, throughputs: np.ndarray, seed: int
) -> XGBCostModel:
    model = XGBCostModel(**{**config, "seed": seed})
    model.data.features = list(features)
    model.data.throughputs = list(throughputs)
    model.data.keys = ["task"] * len(throughputs)
    model.fit()
    return model


def k_fold(
    config: dict[str, Any], features: np.ndarray, throughputs: np.ndarray, folds: int, repeats: int
) -> tuple[float, float]:
    """Mean pairwise accuracy and top-k recall over folds and shuffles."""
    results = []
    for repeat in range(repeats):
        order = np.random.default_rng(repeat).permutation(len(throughputs))
        for part in np.array_split(order, folds):
            train = np.setdiff1d(order, part)
            model = _trained(config, features[train], throughputs[train], repeat)
            results.append(_scores(model, features[part], throughputs[part]))
    return tuple(float(v) for v in np.mean(results, axis=0))  # type: ignore[return-value]


def cross_seed(
    config: dict[str, Any], logs: dict[int, tuple[np.ndarray, np.ndarray]]
) -> tuple[float, float] | None:
    """Mean pairwise accuracy and top-k recall of one seed's model on another seed's logs."""
    results = []
    for train_seed, (features, throughputs) in logs.items():
        model = _trained(config, features, throughputs, train_seed)
        for test_seed, (test_features, test_throughputs) in logs.items():
            if test_seed != train_seed:
                results.append(_scores(model, test_features, test_throughputs))
    if not results:
        return None
    return tuple(float(v) for v in np.mean(results, axis=0))  # type: ignore[return-value]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("records", help="a folder of logs kept by tuning_curves.py")
    parser.add_argument("--objective", nargs="*", default=["reg", "rank", "auto"])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument(
        "--set", nargs="*", default=[], metavar="FIELD=VALUE", help="XGBConfig fields to change"
    )
    args = parser.parse_args()
    overrides = json_settings(args.set)
    folder = Path(args.records)
    for workload in load_workloads():
        logs = featurized_logs(folder, workload)
        if not logs:
            continue
        features = np.concatenate([f for f, _ in logs.values()])
        throughputs = np.concatenate([t for _, t in logs.values()])
        for objective in args.objective:
            config = {**overrides, "objective": objective}
            pairwise, recall = k_fold(config, features, throughputs, args.folds, args.repeats)
            crossed = cross_seed(config, logs)
            row = {
                "name": workload["name"],
                "objective": objective,
                **overrides,
                "candidates": len(throughputs),
                "seeds": sorted(logs),
                "k_fold_pairwise_accuracy": round(pairwise, 3),
                f"k_fold_top{TOP_K}_recall": round(recall, 3),
                "cross_seed_pairwise_accuracy": None if crossed is None else round(crossed[0], 3),
                f"cross_seed_top{TOP_K}_recall": None if crossed is None else round(crossed[1], 3),
            }
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
