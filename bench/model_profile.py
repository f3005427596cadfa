"""Where a model's time goes: each of our kernels timed alone, next to ONNX Runtime's own
per-operator profile of the same model, with the same thread count, in the same run.

    .venv/bin/python bench/model_profile.py light_resnet50 [--threads 2] [--top 30] [--json]
    .venv/bin/python bench/model_profile.py MODEL.onnx [--inputs MODEL.inputs.npz] ...
        [--in-order]

Our side: the JIT executor with default schedules (or `--records RUN.jsonl`), every kernel
called on its real arguments after one warm-up, median of `--runs` calls. ONNX Runtime:
`enable_profiling`, the median kernel time of each node over the same number of runs,
summed per operator type, and its end-to-end median. The sum of our kernels against ORT's
end-to-end time says whether a gap is in the kernels; running with `--threads 1` and with
`--threads 2` says whether it is in their parallel scaling.

Each kernel is also timed in sequence: whole inferences, every kernel called once in graph
order, so it meets the caches the kernels before it left (its weights last touched one
inference ago, its input just written). Alone, the same call repeats on hot caches, as a
tuner measures it. The difference between the two sums is what the model loses to memory
traffic between kernels, which no per-kernel measurement shows.
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from bench.models import _model
from codegen.executor import CompiledModel, compile_model
from codegen.llvm import host_target
from ir.frontend.onnx import import_model
from ir.graph.passes.pipeline import optimize
from tests.support.onnx_models import runtime_inputs
from tuner.records import load_records, records_chooser


def our_kernels(
    compiled: CompiledModel, inputs: dict[str, Any], runs: int
) -> list[tuple[str, float, float]]:
    """(kernel name, median seconds alone, median seconds in sequence) for every kernel
    call of one inference, in order."""
    calls = compiled.bind(inputs).calls
    in_sequence: list[list[float]] = [[] for _ in calls]
    for _ in range(runs + 1):  # the first inference warms up
        for costs, call in zip(in_sequence, calls, strict=True):
            start = time.perf_counter()
            call()
            costs.append(time.perf_counter() - start)
    timings = []
    for call, sequence_costs in zip(calls, in_sequence, strict=True):
        call()
        costs = []
        for _ in range(runs):
            start = time.perf_counter()
            call()
            costs.append(time.perf_counter() - start)
        timings.append((call.name, statistics.median(costs), statistics.median(sequence_costs[1:])))
    return timings


def onnxruntime_profile(
    model: Any, inputs: dict[str, Any], threads: int, runs: int
) -> tuple[float, dict[str, float], list[tuple[str, str, float]]]:
    """ONNX Runtime's end-to-end median seconds, its median seconds per operator type, and
    (operator type, node name, median seconds) for every node it ran, in the order it first
    ran them."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    options.enable_profiling = True
    with tempfile.TemporaryDirectory(prefix="ort-profile-") as directory:
        options.profile_file_prefix = str(Path(directory) / "ort")
        session = onnxruntime.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        for _ in range(3):
            session.run(None, inputs)
        costs = []
        for _ in range(runs):
            start = time.perf_counter()
            session.run(None, inputs)
            costs.append(time.perf_counter() - start)
        events = json.loads(Path(session.end_profiling()).read_text())
    per_node: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            per_node[(event["args"]["op_name"], event["name"])].append(event["dur"] / 1e6)
    per_op: dict[str, float] = collections.defaultdict(float)
    nodes = []
    for (op, name), durations in per_node.items():  # (in the order the nodes first ran)
        cost = statistics.median(durations[-runs:])
        per_op[op] += cost
        nodes.append((op, name.removesuffix("_kernel_time"), cost))
    return statistics.median(costs), dict(per_op), nodes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "model", help="a light model's name (as in bench/models.py), bundled, or an .onnx file"
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--records", help="records to take schedules from (default: none)")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--in-order",
        action="store_true",
        help="also list every kernel call of ours and every node of ONNX Runtime's, in the"
        " order they ran (to line up fused operators by hand)",
    )
    parser.add_argument(
        "--inputs",
        metavar="NPZ",
        help="the inputs, by name (bench/zoo.py writes MODEL.inputs.npz beside each export);"
        " default: ONNX's backend ramp, float32, which fits no integer input",
    )
    args = parser.parse_args()
    model = _model(args.model)
    inputs = dict(np.load(args.inputs)) if args.inputs else runtime_inputs(model)
    target = replace(host_target(), num_cores=args.threads)
    chooser = None
    if args.records:
        chooser = records_chooser(load_records(Path(args.records)), str(target))
    compiled = compile_model(optimize(import_model(model).function), target, chooser)
    compiled.run(inputs)
    kernels = our_kernels(compiled, inputs, args.runs)
    ort_s, ort_ops, ort_nodes = onnxruntime_profile(model, inputs, args.threads, args.runs)
    ours_s = sum(cost for _, cost, _ in kernels)
    sequence_s = sum(cost for _, _, cost in kernels)
    report = {
        "model": args.model,
        "target": str(target),
        "ours_kernels_ms": ours_s * 1e3,
        "ours_kernels_in_sequence_ms": sequence_s * 1e3,
        "onnxruntime_ms": ort_s * 1e3,
        "ratio": ours_s / ort_s,
        "onnxruntime_ops_ms": {op: cost * 1e3 for op, cost in ort_ops.items()},
        "onnxruntime_nodes": [
            {"op": op, "name": name, "ms": cost * 1e3} for op, name, cost in ort_nodes
        ],
        "kernels": [
            {"name": name, "ms": cost * 1e3, "in_sequence_ms": sequence * 1e3}
            for name, cost, sequence in kernels
        ],
    }
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{args.model} on {target}")
    print(
        f"our kernels, sum: {ours_s * 1e3:.2f} ms alone, {sequence_s * 1e3:.2f} ms in sequence, "
        f"over {len(kernels)} calls; ONNX Runtime end to end: {ort_s * 1e3:.2f} ms "
        f"({ours_s / ort_s:.2f}x alone, {sequence_s / ort_s:.2f}x in sequence)"
    )
    print("ONNX Runtime per operator (ms):")
    for op, cost in sorted(ort_ops.items(), key=lambda item: -item[1]):
        print(f"  {cost * 1e3:9.3f}  {op}")
    print(
        f"our slowest kernel calls in sequence, {min(args.top, len(kernels))} of {len(kernels)}"
        " (ms in sequence, ms alone):"
    )
    order = sorted(range(len(kernels)), key=lambda i: -kernels[i][2])
    for index in order[: args.top]:
        name, cost, sequence = kernels[index]
        print(f"  {sequence * 1e3:9.3f} {cost * 1e3:9.3f}  #{index:<3} {name}")
    if args.in_order:
        print("our kernel calls in the order they ran (ms in sequence, ms alone):")
        for index, (name, cost, sequence) in enumerate(kernels):
            print(f"  {sequence * 1e3:9.3f} {cost * 1e3:9.3f}  #{index:<3} {name}")
        print("ONNX Runtime's nodes in the order they ran (ms, median):")
        for index, (op, name, cost) in enumerate(ort_nodes):
            print(f"  {cost * 1e3:9.3f}  #{index:<3} {op:<20} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
