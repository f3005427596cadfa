"""How well a tuning run's measurements rank its candidates: record logs re-timed in turn.

    .venv/bin/python bench/record_fidelity.py DIR [DIR ...] [--sample 40] [--workload conv_64x56]

A tuning run measures each candidate once (its first measurement: the median of a few
repeats) and ranks, declares and trains its cost model on that figure. On a shared
machine a slow spell can fall on a candidate's measurement. Here a random `--sample` of
the `ok` first measurements of each folder's logs (`<workload>_<search>_seed<N>.jsonl`,
kept by `bench/tuning_curves.py --keep-records`) is rebuilt and timed again, all folders'
candidates together in one shuffled turn of `--rounds` rounds, and each folder gets:

- `pairwise_agreement`: the fraction of candidate pairs the logged figures order as the
  re-timing does (the cost model's pairwise accuracy against these labels cannot
  meaningfully exceed what the labels themselves reach);
- `abs_log_ratio_p50` / `_p90`: quantiles of |log(logged GFLOPS / re-timed GFLOPS)|.

The folders' candidates meet the same minutes of the machine, so two folders measured
under two measurement protocols are compared on equal terms.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import load_workloads, workload_flops
from bench.tuning_curves import first_measurements, retimed_gflops
from tuner.cost_model import pairwise_accuracy
from tuner.records import Record, load_records


def sampled_first_measurements(folder: Path, workload: str, sample: int, seed: int) -> list[Record]:
    """A random `sample` of the `ok` first measurements of `workload`'s logs in `folder`."""
    records: list[Record] = []
    for path in sorted(folder.glob(f"{workload}_*_seed*.jsonl")):
        records.extend(
            r for r in first_measurements(load_records(path)) if r.status == "ok" and r.costs_s
        )
    if not records:
        raise SystemExit(f"{folder}: no ok measurement of {workload} in its logs")
    rng = np.random.default_rng(seed)
    picked = rng.choice(len(records), min(sample, len(records)), replace=False)
    return [records[int(index)] for index in picked]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folders", nargs="+", help="folders of logs kept by tuning_curves.py")
    parser.add_argument("--workload", default="conv_64x56")
    parser.add_argument("--sample", type=int, default=40, help="candidates per folder")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    (workload,) = [w for w in load_workloads() if w["name"] == args.workload]
    flops = workload_flops(workload)
    picked: dict[str, Record] = {}
    for folder in args.folders:
        for index, record in enumerate(
            sampled_first_measurements(Path(folder), args.workload, args.sample, args.seed)
        ):
            picked[f"{folder}#{index}"] = record
    labels = list(picked)
    order = np.random.default_rng(args.seed).permutation(len(labels))
    shuffled = {labels[int(i)]: picked[labels[int(i)]] for i in order}
    targets = {record.target for record in picked.values()}
    if len(targets) != 1:
        raise SystemExit(f"the logs were measured for different targets: {sorted(targets)}")
    retimed = retimed_gflops(workload, shuffled, targets.pop())
    for folder in args.folders:
        mine = [label for label in labels if label.startswith(f"{folder}#")]
        logged = np.array([flops / picked[label].median_cost_s / 1e9 for label in mine])
        again = np.array([retimed[label] for label in mine])
        ratio = np.abs(np.log(logged / again))
        row = {
            "folder": folder,
            "workload": args.workload,
            "candidates": len(mine),
            "pairwise_agreement": round(pairwise_accuracy(logged, again), 3),
            "abs_log_ratio_p50": round(float(np.percentile(ratio, 50)), 3),
            "abs_log_ratio_p90": round(float(np.percentile(ratio, 90)), 3),
        }
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
