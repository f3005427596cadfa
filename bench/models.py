"""Latency of the light models through `autotune run` (JIT, default schedules) next to
ONNX Runtime (2 threads), measured in one run, outputs checked against each other.

    .venv/bin/python bench/models.py [--only light_resnet50 ...] [--runs 10] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import onnxruntime_session
from codegen.executor import compile_model
from ir.frontend.onnx import from_onnx
from ir.graph.passes.pipeline import optimize
from ir.reference import check_close
from tests.support.onnx_models import (
    LIGHT_MODELS,
    load_light_model,
    randomize_weights,
    runtime_inputs,
)


def _median_ms(fn: Any, runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def measure(name: str, runs: int) -> dict[str, Any]:
    model = randomize_weights(load_light_model(name), seed=3)
    inputs = runtime_inputs(model)
    start = time.perf_counter()
    compiled = compile_model(optimize(from_onnx(model)))
    compile_s = time.perf_counter() - start
    row: dict[str, Any] = {"model": name, "compile_s": compile_s, "kernels": compiled.num_kernels}
    ours = compiled.run(inputs)
    row["autotune_ms"] = _median_ms(lambda: compiled.run(inputs), runs)
    session = onnxruntime_session(model.SerializeToString())
    if session is not None:
        expected = session.run(None, inputs)[0]
        check_close(ours, expected, rtol=1e-3, atol=1e-4, what=name)
        row["onnxruntime_ms"] = _median_ms(lambda: session.run(None, inputs), runs)
        row["ratio"] = row["autotune_ms"] / row["onnxruntime_ms"]
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", help="model names")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    if not args.json:
        print(
            f"{'model':<22}{'kernels':>8}{'compile s':>10}{'ours ms':>10}{'ORT ms':>10}{'ratio':>8}"
        )
    for name in LIGHT_MODELS:
        if args.only and name not in args.only:
            continue
        row = measure(name, args.runs)
        rows.append(row)
        if not args.json:
            ort_ms = row.get("onnxruntime_ms", float("nan"))
            ratio = row.get("ratio", float("nan"))
            print(
                f"{name:<22}{row['kernels']:>8}{row['compile_s']:>10.1f}"
                f"{row['autotune_ms']:>10.2f}{ort_ms:>10.2f}{ratio:>8.2f}",
                flush=True,
            )
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
