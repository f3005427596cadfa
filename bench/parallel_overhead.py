"""Cost of an empty parallel region: a kernel whose parallel loop does nothing, run
through GOMP_parallel on 2 threads, called many times from Python.

    .venv/bin/python bench/parallel_overhead.py [--calls 20000] [--threads 2] [--json]

Reports microseconds per call for the parallel kernel, for the same kernel with a
serial loop (the cost of the Python -> ctypes call alone), and their difference:
what a parallel region itself costs. Target: under 10 µs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from codegen.llvm import CompiledKernel, compile_kernel, host_target
from codegen.llvm.target import CpuTarget
from ir.tir.expr import Buffer, IntImm, Var
from ir.tir.stmt import For, PrimFunc, Seq


def empty_loop_kernel(kind: str, threads: int) -> PrimFunc:
    """`for i in range(threads): pass`, with the loop of `kind` (parallel or serial)."""
    buffer = Buffer("out", (1,))
    loop = For(Var("i"), IntImm(threads), kind, Seq(()))
    return PrimFunc(f"empty_{kind}", (buffer,), loop)


def microseconds_per_call(
    kernel: CompiledKernel, array: np.ndarray, calls: int, repeats: int
) -> tuple[float, float]:
    """The best and the median over `repeats` of the mean time of `calls` calls, in µs.

    The best repeat is the figure for a quiet machine; the median shows the noise of
    other work competing for the cores.
    """
    for _ in range(min(calls, 1000)):  # warm up: start the thread pool, fill caches
        kernel(array)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            kernel(array)
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return min(samples), statistics.median(samples)


def main() -> None:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=25)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    host = host_target()
    target = CpuTarget(host.kind, host.mcpu, args.threads, host.features, host.triple)
    array = np.zeros(1, np.float32)
    parallel = compile_kernel(empty_loop_kernel("parallel", args.threads), target)
    serial = compile_kernel(empty_loop_kernel("serial", args.threads), target)
    parallel_best, parallel_median = microseconds_per_call(
        parallel, array, args.calls, args.repeats
    )
    serial_best, serial_median = microseconds_per_call(serial, array, args.calls, args.repeats)
    result = {
        "target": str(target),
        "threads": args.threads,
        "parallel_call_us": {"best": round(parallel_best, 2), "median": round(parallel_median, 2)},
        "serial_call_us": {"best": round(serial_best, 2), "median": round(serial_median, 2)},
        "parallel_region_us": {
            "best": round(parallel_best - serial_best, 2),
            "median": round(parallel_median - serial_median, 2),
        },
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"target {result['target']}           best    median")
    print(f"empty parallel kernel call : {parallel_best:8.2f} {parallel_median:8.2f} µs")
    print(f"empty serial kernel call   : {serial_best:8.2f} {serial_median:8.2f} µs  (Python call)")
    region_best, region_median = parallel_best - serial_best, parallel_median - serial_median
    print(f"parallel region overhead   : {region_best:8.2f} {region_median:8.2f} µs  (target < 10)")


if __name__ == "__main__":
    main()
