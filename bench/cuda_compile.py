"""nvcc time of a tuning batch of GPU candidates: one after another, as each measurement
child compiles its own, against `prebuild_cubins`, which compiles the batch's cubins side
by side (one nvcc process per core) before the candidates are timed.

    .venv/bin/python bench/cuda_compile.py [--only NAME ...] [--batch 16] [--arch sm_90]

Needs nvcc, not a GPU: it is the compile half of measuring GPU candidates, which a GPU
machine with many cores does in parallel. For each workload, `--batch` distinct schedules
are drawn from the GPU search space; "serial" compiles them with one nvcc at a time,
"prebuild" runs `prebuild_cubins` (lowering and CUDA emission in this process included),
each into an empty cache folder, in the same run.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import load_workloads, workload_arrays, workload_function
from codegen.cuda.build import build_cuda
from codegen.cuda.nvcc import compile_sources
from codegen.cuda.target import parse_cuda_target
from codegen.measure import MeasureInput, prebuild_cubins
from ir.lower import lower
from ir.te.program import function_to_te
from tuner.feature_pool import available_cores
from tuner.space.gpu_space import GpuSearchSpace
from tuner.tasks import extract_tasks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", help="workload names (default: all)")
    parser.add_argument("--batch", type=int, default=16, help="candidates per workload")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    target = parse_cuda_target(f"cuda -arch={args.arch}")
    totals = {"serial": 0.0, "prebuild": 0.0}
    print(f"{available_cores()} cores; {args.batch} candidates per workload; {target}")
    for workload in load_workloads():
        if args.only and workload["name"] not in args.only:
            continue
        fn = workload_function(workload, workload_arrays(workload))
        (task,) = extract_tasks(fn, target)
        program = function_to_te(task.function)
        space = GpuSearchSpace(program, target, task.constant_params)
        rng = random.Random(args.seed)
        traces = list(dict.fromkeys(space.sample(rng) for _ in range(args.batch * 4)))
        traces = traces[: args.batch]
        sources = [
            (build_cuda(lower(t.replay(program)), target).source, target.arch) for t in traces
        ]
        inputs = [MeasureInput(task.to_json(), t.to_json(), str(target)) for t in traces]
        with tempfile.TemporaryDirectory() as serial_dir, tempfile.TemporaryDirectory() as dir2:
            started = time.perf_counter()
            failed = sum(
                err is not None for err in compile_sources(sources, serial_dir, workers=1).values()
            )
            serial = time.perf_counter() - started
            started = time.perf_counter()
            built = prebuild_cubins(inputs, dir2)
            prebuild = time.perf_counter() - started
        totals["serial"] += serial
        totals["prebuild"] += prebuild
        row = {
            "name": workload["name"],
            "candidates": len(traces),
            "serial_s": round(serial, 2),
            "prebuild_s": round(prebuild, 2),
            "speedup": round(serial / prebuild, 2),
            "built": built,
            "nvcc_errors": failed,
        }
        print(json.dumps(row), flush=True)
    if totals["prebuild"]:
        print(
            f"all: serial {totals['serial']:.1f} s, prebuild {totals['prebuild']:.1f} s "
            f"({totals['serial'] / totals['prebuild']:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
