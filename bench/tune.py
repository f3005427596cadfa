"""Tuning the standard workloads: best GFLOPS and tuning wall time after N trials, next
to our default schedule, numpy (matmuls) and ONNX Runtime measured in the same run.

    .venv/bin/python bench/tune.py [--trials 64 256] [--only NAME ...] [--search evolutionary]
        [--workloads FILE]

Each workload is tuned from an empty record log per budget; the reported best is the
tuner's declared best (re-measured) record, rebuilt and re-timed in turn with the default
schedule, each on the placements of its arguments the tuner measures at, averaged
(`default_N`: the default timed beside the N-trial best; `default`: the median over the
budgets). numpy and ONNX Runtime come after (their thread pools keep spinning for a while
after a call), each at the best of five spells a second apart
(`bench.common.time_baseline`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    load_workloads,
    onnxruntime_session,
    time_baseline,
    time_placed_in_turn,
    workload_arrays,
    workload_flops,
    workload_function,
    workload_onnx,
)
from bench.kernels import placed_kernel_runners
from codegen.llvm import host_target
from ir.graph.nodes import Call, Constant, Function
from ir.graph.traversal import post_order
from ir.schedule.default import default_schedule
from ir.te.program import function_to_te
from tuner.options import TuneOptions
from tuner.records import load_records, records_chooser
from tuner.tune import tune_model


def measure(workload: dict[str, Any], budgets: list[int], search: str) -> dict[str, Any]:
    arrays = workload_arrays(workload)
    fn = workload_function(workload, arrays)
    (prim_call,) = [n for n in post_order(fn.body) if isinstance(n, Call)]
    assert isinstance(prim_call.op, Function)
    flops = workload_flops(workload)
    target = host_target()
    constants = frozenset(f"p{i}" for i, a in enumerate(prim_call.args) if isinstance(a, Constant))
    row: dict[str, Any] = {"name": workload["name"]}
    default = default_schedule(function_to_te(prim_call.op), target.hardware, constants)
    default_runs = placed_kernel_runners(arrays, default, prim_call)
    default_costs = []
    for trials in budgets:
        with tempfile.TemporaryDirectory() as scratch:
            records_path = Path(scratch) / "run.jsonl"
            start = time.perf_counter()
            tune_model(fn, str(target), TuneOptions(trials, search=search), records_path)
            row[f"tune_s_{trials}"] = time.perf_counter() - start
            records = load_records(records_path)
            chooser = records_chooser(records, str(target))
            program = function_to_te(prim_call.op)
            schedule = chooser(prim_call.op, program, constants).schedule
            if schedule is None:
                row[f"tuned_{trials}"] = None
                continue
            runs = placed_kernel_runners(arrays, schedule, prim_call)
            costs = time_placed_in_turn({"default": default_runs, "tuned": runs})
            default_costs.append(costs["default"])
            row[f"tuned_{trials}"] = flops / costs["tuned"] / 1e9
            row[f"default_{trials}"] = flops / costs["default"] / 1e9
            row[f"trials_{trials}"] = len(records)
    if not default_costs:
        default_costs = list(time_placed_in_turn({"default": default_runs}).values())
    row["default"] = flops / statistics.median(default_costs) / 1e9
    if workload["op"] in ("matmul", "batch_matmul", "dense"):
        a, b = arrays["a"], arrays["b"]
        row["numpy"] = (
            flops / time_baseline(lambda: a @ (b.T if workload["op"] == "dense" else b)) / 1e9
        )
    model, feeds = workload_onnx(workload, arrays)
    session = onnxruntime_session(model)
    if session is not None:
        row["onnxruntime"] = flops / time_baseline(lambda: session.run(None, feeds)) / 1e9
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--search", default="evolutionary", choices=("evolutionary", "random"))
    parser.add_argument(
        "--workloads",
        metavar="FILE",
        help="another workloads file of the same format (e.g. bench/workloads_offbeat.json)",
    )
    args = parser.parse_args()
    print(f"target: {host_target()}  search: {args.search}", file=sys.stderr)
    for workload in load_workloads(args.workloads):
        if args.only and workload["name"] not in args.only:
            continue
        row = measure(workload, args.trials, args.search)
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
