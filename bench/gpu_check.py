"""The GPU check: run the standard workloads on a CUDA GPU and say what is right and how fast.

For every workload in `workloads.json` it

1. builds the default GPU schedule, runs it on the GPU and checks the result against the
   reference interpreter (numpy), then times it with CUDA events;
2. measures `--samples` schedules drawn from the GPU search space through the measurement
   protocol the tuner uses (child processes, correctness check, timing) and counts their
   statuses: anything but `ok` is a bug of the CUDA code generator or of the space;
3. times the same operator in PyTorch (cuBLAS / cuDNN, float32, TF32 off) in a separate
   process of the same run, as the baseline;

then tunes `--tune` workloads for `--trials` trials with the model-guided search. With
`--compare-wide` the default schedule is also built with 64-bit index arithmetic (as the
CUDA printer does when 32 bits cannot be proven enough) and timed in the same run. With
`--default-blocks N ...` the default is also built with each N as its `min_blocks` (1:
the fixed tiles however few blocks they launch), checked and timed in the same run.

    python bench/gpu_check.py [--only NAME ...] [--samples 6] [--trials 32] [--compare-wide]
        [--default-blocks N ...] [--json OUT]

Needs pycuda and a GPU (`pip install '.[gpu]'`); PyTorch only for the baseline column.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import load_workloads, workload_arrays, workload_flops, workload_function
from codegen.cuda import build_cuda, emit, parse_cuda_target
from codegen.cuda.device import gpu_device
from codegen.cuda.runtime import LoadedModule, TimingConfig
from codegen.measure import MeasureInput, MeasureOptions, MeasureSession
from ir.graph.nodes import Call, Constant, Function
from ir.graph.traversal import post_order
from ir.lower import lower
from ir.reference import check_close, evaluate
from ir.schedule import Trace
from ir.schedule.default_gpu import MIN_BLOCKS, default_gpu_schedule
from ir.te.program import function_to_te
from tuner.options import TuneOptions
from tuner.space.gpu_space import GpuSearchSpace
from tuner.tasks import extract_tasks
from tuner.tune import tune_model

TUNE_DEFAULT = ("matmul_1024", "conv_64x56")


def _prim_call(fn: Function) -> Call:
    (prim_call,) = [n for n in post_order(fn.body) if isinstance(n, Call)]
    assert isinstance(prim_call.op, Function)
    return prim_call


def _kernel_args(prim_call: Call, arrays: dict[str, np.ndarray]) -> list[np.ndarray]:
    return [
        np.asarray(arg.data) if isinstance(arg, Constant) else arrays[arg.name]  # type: ignore[attr-defined]
        for arg in prim_call.args
    ]


@contextlib.contextmanager
def wide_indices() -> Iterator[None]:
    """Inside, the CUDA printer proves no index fits in 32 bits: every index is 64-bit."""
    saved = emit.INT32_MIN, emit.INT32_MAX
    emit.INT32_MIN, emit.INT32_MAX = 0, -1
    try:
        yield
    finally:
        emit.INT32_MIN, emit.INT32_MAX = saved


def default_gflops(workload: dict[str, Any], target: str, min_blocks: int | None = None) -> float:
    """GFLOPS of the default GPU schedule of one workload (checked, then timed)."""
    row = check_default(workload, target, min_blocks)
    if not row["correct"]:
        raise AssertionError(row["error"])
    return float(row["default_gflops"])


def check_default(
    workload: dict[str, Any], target: str, min_blocks: int | None = None
) -> dict[str, Any]:
    """Build, run, check and time the default GPU schedule of one workload."""
    checked = check_schedule(workload, target, None, min_blocks)
    row: dict[str, Any] = {"name": workload["name"], "default_gflops": checked.pop("gflops")}
    row.update(checked)
    return row


def check_schedule(
    workload: dict[str, Any],
    target: str,
    trace: Trace | None,
    min_blocks: int | None = None,
) -> dict[str, Any]:
    """Build one workload with the schedule `trace` replays (None: the default GPU
    schedule), run it on the GPU, check it against the reference and time it: its
    `correct`, `error`, `gflops`, `build_s` and `kernels`."""
    arrays = workload_arrays(workload)
    fn = workload_function(workload, arrays)
    prim_call = _prim_call(fn)
    assert isinstance(prim_call.op, Function)
    program = function_to_te(prim_call.op)
    cuda_target = parse_cuda_target(target)
    row: dict[str, Any] = {}
    started = time.perf_counter()
    if trace is None:
        schedule = default_gpu_schedule(program, cuda_target.limits, min_blocks)
    else:
        schedule = trace.replay(program)
    module = build_cuda(lower(schedule), cuda_target)
    loaded = LoadedModule(module, 0, cuda_target.arch)
    row["build_s"] = time.perf_counter() - started
    try:
        args = _kernel_args(prim_call, arrays)
        (got,) = loaded.run(args)
        expected = evaluate(fn, {p.name: arrays[p.name] for p in fn.params})
        try:
            check_close(got, expected, rtol=1e-3, atol=1e-3, what=workload["name"])
            row["correct"] = True
        except AssertionError as err:
            row["correct"], row["error"] = False, str(err)
        costs = loaded.time(args, TimingConfig(number=1, repeat=7, min_repeat_ms=20.0))
        row["gflops"] = workload_flops(workload) / statistics.median(costs) / 1e9
        row["kernels"] = len(module.metadata["kernels"])
    finally:
        loaded.close()
    return row


def check_samples(
    workload: dict[str, Any],
    target: str,
    samples: int,
    session: MeasureSession,
    options: MeasureOptions,
    seed: int,
) -> dict[str, Any]:
    """Measure `samples` schedules drawn from the GPU space; their statuses and the best."""
    arrays = workload_arrays(workload)
    fn = workload_function(workload, arrays)
    gpu = parse_cuda_target(target)
    (task,) = extract_tasks(fn, gpu)
    program = function_to_te(task.function)
    space = GpuSearchSpace(program, gpu, task.constant_params)
    rng = random.Random(seed)
    traces = []
    for _ in range(samples * 4):
        trace = space.sample(rng)
        if trace not in traces:
            traces.append(trace)
        if len(traces) == samples:
            break
    inputs = [MeasureInput(task.to_json(), trace.to_json(), target) for trace in traces]
    results = session.measure_batch(inputs, options)
    statuses = Counter(result.status for result in results)
    errors = [
        f"{result.status}: {result.error[:400]}" for result in results if result.status != "ok"
    ]
    costs = [min(result.costs_s) for result in results if result.status == "ok"]
    best = workload_flops(workload) / min(costs) / 1e9 if costs else None
    return {"statuses": dict(statuses), "errors": errors, "sample_best_gflops": best}


def tune_one(workload: dict[str, Any], target: str, trials: int, directory: Path) -> dict[str, Any]:
    """Tune one workload with the model-guided search; its best GFLOPS and wall time."""
    arrays = workload_arrays(workload)
    fn = workload_function(workload, arrays)
    records = directory / f"{workload['name']}.jsonl"
    started = time.perf_counter()
    result = tune_model(fn, target, TuneOptions(trials, feature_workers=0), records)
    (summary,) = result.tasks
    statuses = Counter(
        json.loads(line)["status"] for line in records.read_text().splitlines() if line.strip()
    )
    return {
        "tuned_gflops": summary.best_gflops,
        "tune_s": time.perf_counter() - started,
        "tune_statuses": dict(statuses),
    }


def _torch_op(workload: dict[str, Any], arrays: dict[str, Any]) -> Callable[[], Any]:
    """The workload's operator in PyTorch on `arrays` (tensors on the GPU)."""
    import torch.nn.functional as F

    op = workload["op"]
    if op in ("matmul", "batch_matmul"):
        return lambda: arrays["a"] @ arrays["b"]
    if op == "dense":
        return lambda: F.linear(arrays["a"], arrays["b"])
    groups = workload["C"] if op == "depthwise_conv2d" else 1
    stride, pad = workload["stride"], workload["pad"]
    if "bias" not in arrays:
        return lambda: F.conv2d(arrays["data"], arrays["weight"], None, stride, pad, 1, groups)
    bias = arrays["bias"].reshape(-1)
    return lambda: F.relu(F.conv2d(arrays["data"], arrays["weight"], bias, stride, pad, 1, groups))


def torch_baseline(workloads: list[dict[str, Any]]) -> dict[str, float]:
    """GFLOPS of each workload in PyTorch on the GPU (float32, TF32 off), by name."""
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    figures: dict[str, float] = {}
    for workload in workloads:
        arrays = {k: torch.from_numpy(v).cuda() for k, v in workload_arrays(workload).items()}
        run = _torch_op(workload, arrays)
        for _ in range(10):
            run()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(7):
            number = 50
            start.record()
            for _ in range(number):
                run()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3 / number)
        figures[workload["name"]] = workload_flops(workload) / statistics.median(times) / 1e9
    return figures


def _torch_in_child(names: list[str]) -> dict[str, float]:
    command = [sys.executable, __file__, "--torch-only", "--only", *names]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        print(f"PyTorch baseline failed: {done.stderr.strip()[-400:]}", file=sys.stderr)
        return {}
    return {k: float(v) for k, v in json.loads(done.stdout.strip().splitlines()[-1]).items()}


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", help="workload names (default: all)")
    parser.add_argument("--samples", type=int, default=6, help="space samples per workload")
    parser.add_argument("--trials", type=int, default=32, help="tuning trials per workload")
    parser.add_argument("--tune", nargs="*", default=list(TUNE_DEFAULT), help="workloads to tune")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--compare-wide", action="store_true", help="also time 64-bit indices")
    parser.add_argument(
        "--default-blocks", nargs="*", type=int, default=[], help="also time these min_blocks"
    )
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    parser.add_argument("--torch-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    workloads = [w for w in load_workloads() if not args.only or w["name"] in args.only]
    if args.torch_only:
        print(json.dumps(torch_baseline(workloads)))
        return 0
    device = gpu_device(0)
    target = device.target
    print(f"device: {device.name} ({target}), {device.multiprocessors} SMs", file=sys.stderr)
    baseline = _torch_in_child([w["name"] for w in workloads])

    rows = []
    options = MeasureOptions(repeat=3, min_repeat_ms=10.0, build_timeout_s=120.0)
    with MeasureSession() as session, tempfile.TemporaryDirectory() as scratch:
        for index, workload in enumerate(workloads):
            row = check_default(workload, target)
            if args.compare_wide:
                with wide_indices():
                    row["wide_index_gflops"] = default_gflops(workload, target)
            row["default_by_blocks"] = [
                [blocks, check_default(workload, target, blocks)] for blocks in args.default_blocks
            ]
            row["torch_gflops"] = baseline.get(workload["name"])
            if args.samples:
                row.update(
                    check_samples(
                        workload, target, args.samples, session, options, args.seed + index
                    )
                )
            if workload["name"] in args.tune and args.trials:
                row.update(tune_one(workload, target, args.trials, Path(scratch)))
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    if args.json:
        args.json.write_text(json.dumps({"device": device.to_json(), "rows": rows}, indent=1))

    print(f"\n{device.name}, {target}; GFLOPS, float32 (PyTorch with TF32 off)")
    header = (
        "workload              correct default  64-bit  torch  samples(ok/n) sample_best "
        "tuned  tune_s"
    )
    print(header)
    failures = 0
    for row in rows:
        statuses = row.get("statuses", {})
        total = sum(statuses.values())
        failures += (not row["correct"]) + (total - statuses.get("ok", 0))
        failures += sum(not v["correct"] for _, v in row.get("default_by_blocks", []))
        print(
            f"{row['name']:<21} {('yes' if row['correct'] else 'NO'):<7} "
            f"{_fmt(row['default_gflops']):>7} {_fmt(row.get('wide_index_gflops')):>7} "
            f"{_fmt(row['torch_gflops']):>6} "
            f"{statuses.get('ok', 0):>6}/{total:<6} {_fmt(row.get('sample_best_gflops')):>11} "
            f"{_fmt(row.get('tuned_gflops')):>6} {_fmt(row.get('tune_s')):>6}"
        )
    if args.default_blocks:
        print(f"\ndefault GFLOPS by min_blocks (the default is {MIN_BLOCKS})")
        print(f"{'workload':<21} " + " ".join(f"{b:>8}" for b in args.default_blocks))
        for row in rows:
            cells = [
                f"{v['default_gflops']:.1f}" + ("" if v["correct"] else " WRONG")
                for _, v in row["default_by_blocks"]
            ]
            print(f"{row['name']:<21} " + " ".join(f"{cell:>8}" for cell in cells))
    for row in rows:
        if not row["correct"]:
            print(f"{row['name']}: default schedule wrong: {row.get('error', '')[:400]}")
        for error in row.get("errors", []):
            print(f"{row['name']}: {error}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
