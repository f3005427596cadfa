"""GFLOPS of the standard workloads under our default schedules, the expert schedules for
matmul_1024 and conv_64x56, numpy's matmul and ONNX Runtime (2 threads), in one run.

    .venv/bin/python bench/kernels.py [--only NAME ...] [--json]
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    load_workloads,
    onnxruntime_session,
    time_baseline,
    workload_arrays,
    workload_flops,
    workload_function,
    workload_onnx,
)
from bench.expert import expert_conv2d, expert_matmul
from codegen.llvm import CpuTarget, compile_kernel, host_target
from codegen.placement import PLACEMENTS, placed_arguments
from codegen.runtime.aligned import aligned_copy, aligned_empty
from ir.graph.nodes import Call, Constant, Function
from ir.graph.traversal import post_order
from ir.lower import lower
from ir.reference import check_close, evaluate
from ir.schedule.default import default_schedule
from ir.schedule.schedule import Schedule
from ir.te.program import function_to_te

EXPERT = {"matmul_1024": expert_matmul, "conv_64x56": expert_conv2d}


def _kernel_runner(
    fn: Function,
    arrays: dict[str, np.ndarray],
    schedule: Schedule,
    call: Call,
    target: CpuTarget | None = None,
) -> tuple[Any, list[np.ndarray]]:
    kernel, args = kernel_and_arguments(arrays, schedule, call, target)
    return (lambda: kernel(*args)), [args[-1]]


def placed_kernel_runners(
    arrays: dict[str, np.ndarray],
    schedule: Schedule,
    call: Call,
    target: CpuTarget | None = None,
) -> list[Callable[[], object]]:
    """The kernel on each placement of its arguments that the tuner times candidates at
    (`codegen.placement`), one runner per placement (for `bench.common.time_placed_in_turn`)."""
    kernel, args = kernel_and_arguments(arrays, schedule, call, target)
    runners: list[Callable[[], object]] = []
    for placement in range(PLACEMENTS):
        placed = placed_arguments(args, placement)
        runners.append(functools.partial(kernel, *placed))
    return runners


def kernel_and_arguments(
    arrays: dict[str, np.ndarray], schedule: Schedule, call: Call, target: CpuTarget | None
) -> tuple[Any, list[np.ndarray]]:
    """The compiled kernel and its arguments: inputs (constants laid out as the schedule
    asks), then the output."""
    kernel = compile_kernel(lower(schedule), target or host_target())
    args: list[np.ndarray] = []
    for index, arg in enumerate(call.args):
        value = np.array(arg.data) if isinstance(arg, Constant) else arrays[arg.name]  # type: ignore[attr-defined]
        layout = schedule.input_layouts.get(f"p{index}")
        args.append(aligned_copy(layout.apply(value) if layout is not None else value))
    args.append(aligned_empty(call.checked_type.shape, np.float32))  # type: ignore[union-attr]
    return kernel, args


def measure(workload: dict[str, Any]) -> dict[str, Any]:
    arrays = workload_arrays(workload)
    fn = workload_function(workload, arrays)
    (prim_call,) = [n for n in post_order(fn.body) if isinstance(n, Call)]
    assert isinstance(prim_call.op, Function)
    program = function_to_te(prim_call.op)
    constants = frozenset(f"p{i}" for i, a in enumerate(prim_call.args) if isinstance(a, Constant))
    hardware = host_target().hardware
    flops = workload_flops(workload)
    expected = evaluate(fn, {p.name: arrays[p.name] for p in fn.params})
    row: dict[str, Any] = {"name": workload["name"], "gflop": flops / 1e9}

    def gflops(schedule: Schedule) -> float:
        run, (out,) = _kernel_runner(fn, arrays, schedule, prim_call)
        run()
        check_close(out, expected, rtol=1e-3, atol=1e-3, what=workload["name"])
        # (at the best of several spells, as the baselines: on a host whose speed swings,
        # one timing against the baselines' best spell favoured them)
        return flops / time_baseline(run) / 1e9

    row["default"] = gflops(default_schedule(program, hardware, constants))
    if workload["name"] in EXPERT:
        row["expert"] = gflops(EXPERT[workload["name"]](function_to_te(prim_call.op), hardware))
    if workload["op"] in ("matmul", "batch_matmul", "dense"):
        a, b = arrays["a"], arrays["b"]
        if workload["op"] == "dense":
            row["numpy"] = flops / time_baseline(lambda: a @ b.T) / 1e9
        else:
            row["numpy"] = flops / time_baseline(lambda: np.matmul(a, b)) / 1e9
    model, feeds = workload_onnx(workload, arrays)
    session = onnxruntime_session(model)
    if session is not None:
        row["onnxruntime"] = flops / time_baseline(lambda: session.run(None, feeds)) / 1e9
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", help="workload names to run")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--workloads", metavar="FILE", help="another workloads file of the same format"
    )
    args = parser.parse_args()
    rows = []
    print(f"target: {host_target()}", file=sys.stderr)
    columns = ("default", "expert", "numpy", "ORT", "def/ORT")
    header = f"{'workload':<22}{'GFLOP':>7}" + "".join(f"{c:>9}" for c in columns)
    if not args.json:
        print(header)
    for workload in load_workloads(args.workloads):
        if args.only and workload["name"] not in args.only:
            continue
        row = measure(workload)
        rows.append(row)
        if not args.json:
            ratio = row["default"] / row["onnxruntime"] if "onnxruntime" in row else float("nan")

            cells = "".join(
                f"{row[key]:9.1f}" if key in row else f"{'-':>9}"
                for key in ("default", "expert", "numpy", "onnxruntime")
            )
            print(f"{row['name']:<22}{row['gflop']:7.3f}{cells}{ratio:9.2f}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
