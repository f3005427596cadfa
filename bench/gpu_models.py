"""The light models on a CUDA GPU, untuned: right results, and how fast.

For each model, its weights randomised (the shipped light models fill every weight with
one constant, so that their outputs are the same for every class and a wrong kernel can
still match them) and cut at its pre-softmax logits (with random weights, the softmax of
some models saturates to one class: a check of it would check little more than the
argmax), it compiles a CUDA artifact with the default GPU schedules (`autotune
compile --target cuda` does the same), loads it with the CUDA loader, runs it on the
model's runtime inputs and checks the output against ONNX Runtime's on the CPU, then times
`--runs` runs (median, wall clock around each run, which waits for the GPU). ONNX Runtime's
CPU latency is timed in the same run as a point of reference. With `--min-blocks N ...`
the artifact is also built with each N as the default tiling's `min_blocks` (1: the fixed
tiles) and the variants are timed in turn. With `--kernels N`, every launch of each
variant is also timed on its own (CUDA events over back-to-back launches), and the N
launches whose time differs most between the first two variants are listed per model.

    python bench/gpu_models.py [--only light_resnet50 ...] [--runs 20] [--min-blocks 1]
        [--kernels 10] [--json OUT]

Needs pycuda, nvcc and a GPU.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from codegen.cuda.device import gpu_device
from codegen.runtime.cuda_loader import load_cuda_artifact
from ir.reference import check_close
from ir.schedule import default_gpu
from service.example_models import runtime_inputs
from tests.support.onnx_models import (
    LIGHT_MODELS,
    cut_at_logits,
    load_light_model,
    randomize_weights,
)
from tuner.artifact_build import build_artifact

# Against ONNX Runtime's logits: rtol, and an absolute tolerance of at least ATOL that grows
# with the logits' largest magnitude. Random weights make logits of up to a few thousand;
# where one of them cancels to a few units, float32 rounding in another summation order
# (about 1e-6 of the terms' size) is above rtol x |logit| (light_resnet50, seed 3: 3.2578
# on the GPU and 3.2571 on the CPU against ONNX Runtime's 3.2613, with logits up to 2920).
RTOL, ATOL, SCALED_ATOL = 1e-3, 1e-4, 1e-5


def logits_atol(expected: np.ndarray) -> float:
    """The absolute tolerance for `expected` logits: ATOL, or SCALED_ATOL of their largest
    magnitude where that is more."""
    return max(ATOL, SCALED_ATOL * float(np.max(np.abs(expected), initial=0.0)))


@contextlib.contextmanager
def default_min_blocks(min_blocks: int | None) -> Iterator[None]:
    """Inside, default GPU schedules are built with `min_blocks` (None: as shipped)."""
    saved = default_gpu.MIN_BLOCKS
    if min_blocks is not None:
        default_gpu.MIN_BLOCKS = min_blocks
    try:
        yield
    finally:
        default_gpu.MIN_BLOCKS = saved


def _median_s(run: Callable[[], Any], runs: int) -> float:
    run()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _onnxruntime(path: Path, inputs: dict[str, np.ndarray], runs: int) -> tuple[np.ndarray, float]:
    """ONNX Runtime's output of the model at `path` on the CPU, and its median latency (ms)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    (output, *_) = session.run(None, inputs)
    return np.asarray(output), _median_s(lambda: session.run(None, inputs), runs) * 1e3


def measure(
    name: str, target: str, variants: list[int | None], runs: int, per_kernel: bool = False
) -> dict[str, Any]:
    """One model: per variant its compile time, correctness and median latency (and with
    `per_kernel`, each launch's time)."""
    shipped = load_light_model(name)
    model = cut_at_logits(randomize_weights(shipped, seed=3), shapes_from=shipped)
    inputs = runtime_inputs(model)
    row: dict[str, Any] = {"model": name, "variants": []}
    with tempfile.TemporaryDirectory(prefix="gpu-models-") as directory:
        path = Path(directory) / "model.onnx"
        onnx.save(model, str(path))
        expected, row["onnxruntime_cpu_ms"] = _onnxruntime(path, inputs, runs)
        for index, min_blocks in enumerate(variants):
            start = time.perf_counter()
            with default_min_blocks(min_blocks):
                build = build_artifact(path, target, [], Path(directory) / str(index))
            variant: dict[str, Any] = {
                "min_blocks": min_blocks or default_gpu.MIN_BLOCKS,
                "compile_s": time.perf_counter() - start,
            }
            with load_cuda_artifact(build.path) as loaded:
                (got,) = loaded.run(inputs).values()
                try:
                    check_close(got, expected, RTOL, logits_atol(expected), what=name)
                    variant["correct"] = True
                except AssertionError as err:
                    variant["correct"], variant["error"] = False, str(err)[:400]
                variant["max_abs_err"] = float(np.max(np.abs(got - expected)))
                variant["kernels"] = int(loaded.manifest.get("kernels", 0))
                variant["latency_ms"] = _median_s(lambda: loaded.run(inputs), runs) * 1e3
                if per_kernel:
                    variant["launches"] = loaded.time_launches(inputs, repeats=runs)
            row["variants"].append(variant)
    return row


def print_launch_differences(row: dict[str, Any], count: int) -> None:
    """The `count` launches of a model whose time differs most between its first two
    variants, with each one's grid x block, and the sums of the per-launch times."""
    first, second = row["variants"][:2]
    pairs = list(zip(first["launches"], second["launches"], strict=True))
    total_first = sum(a["ms"] for a, _ in pairs)
    total_second = sum(b["ms"] for _, b in pairs)
    print(
        f"\n{row['model']}: {len(pairs)} launches, per-launch sums {total_first:.3f} ms "
        f"(blocks {first['min_blocks']}) and {total_second:.3f} ms (blocks {second['min_blocks']})"
    )
    ranked = sorted(enumerate(pairs), key=lambda item: -abs(item[1][0]["ms"] - item[1][1]["ms"]))
    for index, (a, b) in ranked[:count]:
        shape_a = "x".join(map(str, a["grid"])) + " / " + "x".join(map(str, a["block"]))
        shape_b = "x".join(map(str, b["grid"])) + " / " + "x".join(map(str, b["block"]))
        print(
            f"  #{index:<3} {a['kernel'][:44]:<44} {a['ms'] * 1e3:8.1f} us {shape_a:<22}"
            f" {b['ms'] * 1e3:8.1f} us {shape_b}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", help="model names (default: the nine light models)")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per model")
    parser.add_argument(
        "--min-blocks", nargs="*", type=int, default=[], help="also build with these min_blocks"
    )
    parser.add_argument(
        "--kernels", type=int, default=0, help="list the N launches that differ most per model"
    )
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    device = gpu_device(0)
    target = device.target
    print(f"device: {device.name} ({target}), {device.multiprocessors} SMs", file=sys.stderr)
    variants: list[int | None] = [None, *args.min_blocks]
    rows = []
    for name in args.only or LIGHT_MODELS:
        row = measure(name, target, variants, args.runs, per_kernel=args.kernels > 0)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    if args.json:
        args.json.write_text(json.dumps({"device": device.to_json(), "rows": rows}, indent=1))

    print(f"\n{device.name}, {target}; latency ms (median of {args.runs}), untuned")
    labels = [f"blocks {v['min_blocks']}" for v in rows[0]["variants"]] if rows else []
    print(f"{'model':<20} " + " ".join(f"{label:>14}" for label in labels) + "   ORT cpu")
    failures = 0
    for row in rows:
        cells = []
        for variant in row["variants"]:
            failures += not variant["correct"]
            mark = "" if variant["correct"] else " WRONG"
            cells.append(f"{variant['latency_ms']:.3f}{mark}")
        print(
            f"{row['model']:<20} "
            + " ".join(f"{cell:>14}" for cell in cells)
            + f" {row['onnxruntime_cpu_ms']:>9.3f}"
        )
    if args.kernels > 0 and len(variants) > 1:
        for row in rows:
            print_launch_differences(row, args.kernels)
    for row in rows:
        for variant in row["variants"]:
            if not variant["correct"]:
                print(f"{row['model']} (min_blocks {variant['min_blocks']}): {variant['error']}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
