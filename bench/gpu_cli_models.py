"""Real models through the command line on a GPU, against ONNX Runtime on the CPU.

For each model — the light models of the onnx package (weights randomised, cut at their
pre-softmax logits) and, with `--export`, torchvision networks exported to ONNX here with
seeded random weights and non-trivial batch-norm statistics — it runs

    autotune run MODEL.onnx --target cuda --input NAME=FILE.npy --output OUT.npz --bench N --json

checks the outputs against ONNX Runtime's on the CPU (the tolerances of
`bench/gpu_models.py`), and keeps the median latency next to ONNX Runtime's. With
`--tune-time-limit-s S` it also tunes the model (`autotune tune --target cuda
--time-limit S`) and runs it again with the records; with `--torch-eager` it also runs the
same graph in PyTorch eager on the GPU (`bench/torch_eager.py`), checked and timed the same
way (inputs in, outputs out, median of N).

    python bench/gpu_cli_models.py [--only light_resnet50 ...] [--export resnet18 mobilenet_v2]
        [--runs 20] [--tune-time-limit-s 90] [--torch-eager] [--json OUT]

Needs pycuda, nvcc and a GPU; torchvision for `--export`, PyTorch for `--torch-eager`.
The JSON is rewritten after every model, so a run cut short keeps what it measured.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.gpu_models import RTOL, _median_s, _onnxruntime, logits_atol
from ir.reference import check_close
from service.example_models import runtime_inputs
from tests.support.onnx_models import (
    LIGHT_MODELS,
    cut_at_logits,
    load_light_model,
    randomize_weights,
)

EXPORTS = ("resnet18", "mobilenet_v2")
COMMAND_TIMEOUT_S = 600.0


def autotune_command() -> list[str]:
    """The `autotune` console script, or this Python running its entry point."""
    script = shutil.which("autotune")
    if script is not None:
        return [script]
    return [sys.executable, "-c", "import sys; from service.cli import main; sys.exit(main())"]


def export_torchvision(name: str, path: Path, seed: int = 0) -> None:
    """Export torchvision's `name` (random weights, batch-norm statistics and affine
    parameters drawn from a seeded generator, eval mode) to ONNX at `path`."""
    import torch
    import torchvision

    torch.manual_seed(seed)
    model = getattr(torchvision.models, name)(weights=None).eval()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                channels = module.num_features
                module.running_mean.copy_(torch.randn(channels, generator=generator) * 0.1)
                module.running_var.copy_(torch.rand(channels, generator=generator) + 0.5)
                module.weight.copy_(torch.rand(channels, generator=generator) + 0.5)
                module.bias.copy_(torch.randn(channels, generator=generator) * 0.1)
    example = torch.randn(1, 3, 224, 224, generator=generator)
    arguments: dict[str, Any] = {
        "input_names": ["input"],
        "output_names": ["logits"],
        "opset_version": 17,
    }
    try:  # the TorchScript exporter: no onnxscript needed
        torch.onnx.export(model, (example,), str(path), dynamo=False, **arguments)
    except TypeError:  # a PyTorch without the `dynamo` switch: its only exporter
        torch.onnx.export(model, (example,), str(path), **arguments)


def prepare(name: str, folder: Path) -> tuple[Path, dict[str, np.ndarray]]:
    """The model `name` saved under `folder`, and its inputs."""
    path = folder / f"{name}.onnx"
    if name in EXPORTS:
        done = subprocess.run(
            [sys.executable, __file__, "--export-one", name, str(path)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"export of {name} failed: {done.stderr.strip()[-600:]}")
        model = onnx.load(str(path))
        rng = np.random.default_rng(1)
        (value,) = [
            v for v in model.graph.input if v.name not in {i.name for i in model.graph.initializer}
        ]
        shape = [dim.dim_value for dim in value.type.tensor_type.shape.dim]
        return path, {value.name: rng.standard_normal(shape).astype(np.float32)}
    shipped = load_light_model(name)
    model = cut_at_logits(randomize_weights(shipped, seed=3), shapes_from=shipped)
    onnx.save(model, str(path))
    return path, runtime_inputs(model)


def run_cli(
    path: Path,
    inputs: dict[str, np.ndarray],
    folder: Path,
    runs: int,
    records: Path | None,
    target: str = "cuda",
) -> dict[str, Any]:
    """`autotune run --target TARGET` on the model: its JSON report and outputs."""
    arguments: list[str] = []
    for name, array in inputs.items():
        file = folder / f"input_{len(arguments)}.npy"
        np.save(file, array)
        arguments += ["--input", f"{name}={file}"]
    output = folder / ("tuned.npz" if records else "untuned.npz")
    command = [
        *autotune_command(),
        "run",
        str(path),
        "--target",
        target,
        *arguments,
        "--output",
        str(output),
        "--bench",
        str(runs),
        "--json",
    ]
    if records is not None:
        command += ["--records", str(records)]
    started = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"autotune run exited {done.returncode}: {done.stderr.strip()[-800:]}")
    report: dict[str, Any] = json.loads(done.stdout)
    with np.load(output) as saved:
        report["outputs_arrays"] = [saved[f"output_{i}"] for i in range(len(saved.files))]
    report["wall_s"] = time.perf_counter() - started
    return report


def judged(report: dict[str, Any], expected: np.ndarray, name: str) -> dict[str, Any]:
    """A run's figures, its output checked against ONNX Runtime's."""
    (got, *_) = report.pop("outputs_arrays")
    row = {
        "latency_ms": report["latency_ms"]["median"],
        "compile_s": report.get("compile_s"),
        "kernels": report.get("kernels"),
        "tuned_kernels": report.get("tuned_kernels"),
        "wall_s": report["wall_s"],
        "max_abs_err": float(np.max(np.abs(got - expected))),
    }
    try:
        check_close(got, expected, RTOL, logits_atol(expected), what=name)
        row["correct"] = True
    except AssertionError as err:
        row["correct"], row["error"] = False, str(err)[:400]
    return row


def tune(
    path: Path, folder: Path, time_limit_s: float, target: str = "cuda"
) -> tuple[Path, dict[str, Any]]:
    """`autotune tune --target TARGET --time-limit` on the model: its records and summary."""
    records = folder / "records.jsonl"
    command = [
        *autotune_command(),
        "tune",
        str(path),
        "--target",
        target,
        "--trials",
        "100000",
        "--time-limit",
        str(time_limit_s),
        "--records",
        str(records),
        "--json",
    ]
    started = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=time_limit_s + 300, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"autotune tune exited {done.returncode}: {done.stderr.strip()[-800:]}")
    summary = json.loads(done.stdout)
    summary.pop("tasks", None)
    summary["wall_s"] = time.perf_counter() - started
    return records, summary


def torch_eager(
    path: Path, inputs: dict[str, np.ndarray], runs: int, expected: np.ndarray, name: str
) -> dict[str, Any]:
    """The same graph in PyTorch eager on the GPU: checked, then its median latency."""
    import torch

    from bench.torch_eager import TorchEagerModel

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    model = TorchEagerModel(onnx.load(str(path)), "cuda")

    def run() -> list[np.ndarray]:
        outputs = model.run(inputs)
        torch.cuda.synchronize()
        return outputs

    (got, *_) = run()
    row: dict[str, Any] = {"max_abs_err": float(np.max(np.abs(got - expected)))}
    try:
        check_close(got, expected, RTOL, logits_atol(expected), what=f"{name} in PyTorch eager")
        row["correct"] = True
    except AssertionError as err:
        row["correct"], row["error"] = False, str(err)[:400]
    row["latency_ms"] = _median_s(run, runs) * 1e3
    return row


def measure(name: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """One model: ONNX Runtime, then untuned, tuned and PyTorch eager as asked."""
    row: dict[str, Any] = {"model": name}
    path, inputs = prepare(name, folder)
    expected, row["onnxruntime_cpu_ms"] = _onnxruntime(path, inputs, args.runs)
    untuned = run_cli(path, inputs, folder, args.runs, None, args.target)
    row["untuned"] = judged(untuned, expected, name)
    if args.tune_time_limit_s:
        records, row["tuning"] = tune(path, folder, args.tune_time_limit_s, args.target)
        tuned = run_cli(path, inputs, folder, args.runs, records, args.target)
        row["tuned"] = judged(tuned, expected, name)
        if args.records_out:
            with args.records_out.open("a") as out:
                out.write(records.read_text())
    if args.torch_eager:
        row["torch_eager"] = torch_eager(path, inputs, args.runs, expected, name)
    return row


def _fmt(value: Any, spec: str = ".2f") -> str:
    return "-" if value is None else format(value, spec)


def main() -> int:
    """Command line (module docstring); exit 1 when a model failed or did not match."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", help="light models (default: all nine)")
    parser.add_argument("--export", nargs="*", default=[], choices=EXPORTS, help="torchvision")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--target", default="cuda", help="cuda (the local GPU) or llvm")
    parser.add_argument("--tune-time-limit-s", type=float, help="also tune each model")
    parser.add_argument("--torch-eager", action="store_true", help="also PyTorch eager")
    parser.add_argument("--records-out", type=Path, help="append the tuning records here")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--export-one", nargs=2, metavar=("NAME", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.export_one:
        export_torchvision(args.export_one[0], Path(args.export_one[1]))
        return 0
    if args.json and args.records_out is None:
        args.records_out = args.json.with_name("records.jsonl")
    # The exports first: each is slow to make, and a stage that runs out of time should lose
    # a light model that other stages also cover, not the only export of its kind.
    names = [*args.export, *(args.only if args.only is not None else LIGHT_MODELS)]
    rows: list[dict[str, Any]] = []
    failures = 0
    for name in names:
        with tempfile.TemporaryDirectory(prefix=f"gpu-cli-{name}-") as scratch:
            started = time.perf_counter()
            try:
                row = measure(name, args, Path(scratch))
            except (RuntimeError, ValueError, OSError, subprocess.TimeoutExpired) as err:
                row = {"model": name, "error": str(err)[-1000:]}
            row["seconds"] = time.perf_counter() - started
        failures += "error" in row or not all(
            row[kind].get("correct", False)
            for kind in ("untuned", "tuned", "torch_eager")
            if kind in row
        )
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
        if args.json:
            args.json.write_text(json.dumps({"rows": rows}, indent=1) + "\n")
    print(
        f"{'model':<20} {'ok':<4} {'untuned ms':>10} {'tuned ms':>9} {'eager ms':>9} "
        f"{'ORT cpu ms':>10}"
    )
    for row in rows:
        kinds = [row.get(kind, {}) for kind in ("untuned", "tuned", "torch_eager")]
        ok = "error" not in row and all(kind.get("correct", True) for kind in kinds)
        print(
            f"{row['model']:<20} {('yes' if ok else 'NO'):<4} "
            + " ".join(
                _fmt(kind.get("latency_ms")).rjust(width)
                for kind, width in zip(kinds, (10, 9, 9), strict=True)
            )
            + f" {_fmt(row.get('onnxruntime_cpu_ms')):>10}"
        )
        if "error" in row:
            print(f"  {row['error'][:400]}")
    return 1 if failures else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
