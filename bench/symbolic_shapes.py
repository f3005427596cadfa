"""One artifact for a range of shapes, against artifacts specialised to one shape each and
ONNX Runtime, on real exports with dynamic axes: transformers with a dynamic batch and
sequence, image classifiers with a dynamic batch.

    make bench-symbolic             # in .zoo-venv (torch, transformers, onnxruntime)
    .zoo-venv/bin/python bench/symbolic_shapes.py [--models bert_4x256 gpt2_4x256]
        [--range 1..4x1..384] [--shapes 1x16 1x128 4x384]
        [--image-models resnet50 mobilenet_v3_small] [--batch-range 1..8] [--batches 1 4 8]
        [--threads 2] [--rounds 7] [--time-limit S] [--histogram] [--out bench/results]

Per model (the zoo's seeded, randomised ones: the BERT encoder and GPT-2 decoder exported
with `dynamic_axes` on input_ids and attention_mask, the torchvision classifiers with one
on the image's batch): one artifact compiled with the inputs' dims symbolic over the range
(`--shape input_ids=RANGE ...`, `--shape image=1..8x3x224x224`), and one artifact per shape
with every dim bound; at each shape the symbolic artifact's output is checked against ONNX
Runtime's, then the symbolic artifact, the specialised one and ONNX Runtime are timed in
turn (`bench.common.time_in_turn`, each through its runtime in this process, at
`--threads` threads), all on the default schedules. With `--time-limit S`, the model is
also tuned for the range (`autotune tune --shape ...=RANGE --time-limit S`: each kernel's
size buckets, the whole range and its small sizes, each at its upper bounds, sharing the
budget alike; with `--histogram`, by the measured shapes, each counted once, each bucket
measured at their median size within it), and the symbolic artifact compiled with those
records is timed too. Results: `--out`/symbolic_shapes_<cpu>.txt. Run it on an otherwise idle
machine.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import onnxruntime_session, time_in_turn  # noqa: E402
from bench.onnx_conformance import host_name  # noqa: E402
from bench.zoo import build_model  # noqa: E402
from codegen.runtime.loader import load_artifact  # noqa: E402
from ir.frontend.onnx.bindings import parse_shape_bindings  # noqa: E402
from tuner.artifact_build import build_artifact  # noqa: E402
from tuner.records import load_records  # noqa: E402

TEXT_INPUTS = ("input_ids", "attention_mask")
IMAGE_SHAPE = (3, 224, 224)  # one image of the zoo's classifiers


@dataclass(frozen=True)
class Sweep:
    """How one kind of model varies: its dynamic axes, the range its one artifact covers
    (per input, as `--shape` reads it), the inputs and bindings at one shape, and the
    size variable each entry of a shape is."""

    dynamic_axes: dict[str, dict[int, str]]
    ranges: dict[str, str]
    feeds: Callable[[tuple[int, ...]], dict[str, np.ndarray]]
    static: Callable[[tuple[int, ...]], dict[str, tuple[int, ...]]]
    size_names: tuple[str, ...]


def text_sweep(dim_range: str) -> Sweep:
    """A transformer's token ids and attention mask, dynamic in batch and sequence."""
    return Sweep(
        {name: {0: "batch", 1: "sequence"} for name in TEXT_INPUTS},
        {name: dim_range for name in TEXT_INPUTS},
        lambda shape: feeds(*shape),
        lambda shape: {name: shape for name in TEXT_INPUTS},
        ("batch", "sequence"),
    )


def image_sweep(batch_range: str) -> Sweep:
    """A classifier's image, dynamic in batch."""
    extent = "x".join(str(size) for size in IMAGE_SHAPE)
    return Sweep(
        {"image": {0: "batch"}},
        {"image": f"{batch_range}x{extent}"},
        lambda shape: {"image": images(shape[0])},
        lambda shape: {"image": (shape[0], *IMAGE_SHAPE)},
        ("batch",),
    )


def export_dynamic(name: str, path: Path, dynamic_axes: dict[str, dict[int, str]]) -> None:
    """Export the zoo model `name` with these dynamic axes (and the output's batch)."""
    import torch

    model, inputs, args = build_model(name)
    output_axes = {0: "batch", 1: "sequence"} if len(dynamic_axes) > 1 else {0: "batch"}
    torch.onnx.export(
        model,
        args,
        str(path),
        input_names=list(inputs),
        output_names=["output"],
        dynamic_axes={**dynamic_axes, "output": output_axes},
        opset_version=17,
        dynamo=False,
    )


def feeds(batch: int, sequence: int, vocab: int = 8192) -> dict[str, np.ndarray]:
    """Token ids and an attention mask that pads the last quarter of the sequence."""
    rng = np.random.default_rng(batch * 1000 + sequence)
    mask = np.ones((batch, sequence), np.int64)
    mask[:, max(1, sequence * 3 // 4) :] = 0
    ids = rng.integers(0, vocab, (batch, sequence)).astype(np.int64)
    return {"input_ids": ids, "attention_mask": mask}


def images(batch: int) -> np.ndarray:
    """`batch` seeded standard-normal images."""
    return np.random.default_rng(batch).standard_normal((batch, *IMAGE_SHAPE)).astype(np.float32)


def compile_artifact(model: Path, shapes: dict[str, Any], out_dir: Path) -> Path:
    """Our artifact of `model` for this host with these shape bindings (default schedules)."""
    return build_artifact(model, "llvm", [], out_dir, shapes).path


def tune_for_range(
    model: Path,
    ranges: dict[str, str],
    time_limit_s: float,
    records: Path,
    histogram: dict[str, dict[int, int]],
) -> float:
    """`autotune tune` of `model` for the ranges (its size buckets shared and measured by
    `histogram` where given), as a user runs it; its wall seconds."""
    started = time.perf_counter()
    bindings = [arg for name, text in ranges.items() for arg in ("--shape", f"{name}={text}")]
    for name, counts in histogram.items():
        entries = ",".join(f"{size}:{count}" for size, count in sorted(counts.items()))
        bindings += ["--size-histogram", f"{name}={entries}"]
    command = [
        str(Path(sys.executable).parent / "autotune"), "tune", str(model), "--target", "llvm",
        "--trials", "100000", "--time-limit", str(time_limit_s), "--records", str(records),
        *bindings,
    ]  # fmt: skip
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    if completed.returncode not in (0, 1):  # 1: some task had no correct candidate
        raise RuntimeError(f"autotune tune failed: {completed.stderr[-3000:]}")
    return time.perf_counter() - started


def bench_model(
    name: str,
    sweep: Sweep,
    shapes: list[tuple[int, ...]],
    threads: int,
    rounds: int,
    time_limit_s: float,
    histogram: bool = False,
) -> list[str]:
    """Lines of the report for one model (tuned with the measured shapes as the size
    histogram where `histogram`)."""
    covered = ", ".join(f"{input_name}={text}" for input_name, text in sweep.ranges.items())
    lines = [f"{name} (symbolic artifact: {covered})"]
    with tempfile.TemporaryDirectory(prefix="symbolic-bench-") as directory:
        work = Path(directory)
        model = work / f"{name}.onnx"
        export_dynamic(name, model, sweep.dynamic_axes)
        ranges = parse_shape_bindings([f"{key}={text}" for key, text in sweep.ranges.items()])
        symbolic = load_artifact(compile_artifact(model, ranges, work))
        tuned = None
        if time_limit_s > 0:
            records = work / "records.jsonl"
            counts: dict[str, dict[int, int]] = {}
            for shape in shapes if histogram else []:
                for name, size in zip(sweep.size_names, shape, strict=True):
                    counts.setdefault(name, {})
                    counts[name][size] = counts[name].get(size, 0) + 1
            tune_s = tune_for_range(model, sweep.ranges, time_limit_s, records, counts)
            shown = f", size histogram {counts}" if counts else ""
            lines.append(f"  tuned for the range in {tune_s:.0f} s{shown}")
            tuned_path = build_artifact(model, "llvm", load_records(records), work, ranges).path
            tuned = load_artifact(tuned_path)
        session = onnxruntime_session(model.read_bytes(), threads)
        lines.append(
            f"  {'shape':>8} {'symbolic ms':>12} {'specialised ms':>15} {'ort ms':>8} "
            f"{'sym/spec':>9} {'sym/ort':>8} {'max |diff|':>11}"
            + (f" {'tuned ms':>9} {'tuned/ort':>9}" if tuned is not None else "")
        )
        for shape in shapes:
            inputs = sweep.feeds(shape)
            specialised = load_artifact(compile_artifact(model, sweep.static(shape), work))
            (expected,) = session.run(None, inputs)
            (actual,) = symbolic.run(inputs).values()
            difference = float(np.max(np.abs(actual - expected)))
            runners: dict[str, Callable[[], object]] = {
                "symbolic": lambda inputs=inputs: symbolic.run(inputs),
                "specialised": lambda inputs=inputs, art=specialised: art.run(inputs),
                "ort": lambda inputs=inputs: session.run(None, inputs),
            }
            if tuned is not None:
                (tuned_out,) = tuned.run(inputs).values()
                difference = max(difference, float(np.max(np.abs(tuned_out - expected))))
                runners["tuned"] = lambda inputs=inputs, art=tuned: art.run(inputs)
            costs = time_in_turn(runners, rounds=rounds, settle_s=0.1)
            specialised.close()
            sym, spec, ort = (costs[key] * 1e3 for key in ("symbolic", "specialised", "ort"))
            line = (
                f"  {'x'.join(map(str, shape)):>8} {sym:>12.3f} {spec:>15.3f} {ort:>8.3f} "
                f"{sym / spec:>9.2f} {sym / ort:>8.2f} {difference:>11.2e}"
            )
            if tuned is not None:
                line += f" {costs['tuned'] * 1e3:>9.3f} {costs['tuned'] * 1e3 / ort:>9.2f}"
            lines.append(line)
        symbolic.close()
        if tuned is not None:
            tuned.close()
    return lines


def main(argv: list[str] | None = None) -> int:
    """Command line (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="*", default=["bert_4x256", "gpt2_4x256"])
    parser.add_argument("--range", default="1..4x1..384", help="batch x sequence range")
    parser.add_argument("--shapes", nargs="+", default=["1x16", "1x128", "4x384"])
    parser.add_argument("--image-models", nargs="*", default=["resnet50", "mobilenet_v3_small"])
    parser.add_argument("--batch-range", default="1..8", help="the classifiers' batch range")
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 4, 8])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--time-limit", type=float, default=0.0, help="tuning seconds")
    parser.add_argument(
        "--histogram",
        action="store_true",
        help="tune with the measured shapes as the size histogram (each once)",
    )
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args(argv)
    shapes = [tuple(int(size) for size in text.split("x")) for text in args.shapes]
    command = " ".join(["bench/symbolic_shapes.py", *(argv if argv is not None else sys.argv[1:])])
    lines = [
        f"host {host_name()}, {args.threads} threads, {args.rounds} rounds in turn ({command})"
    ]
    jobs = [(name, text_sweep(args.range), shapes) for name in args.models] + [
        (name, image_sweep(args.batch_range), [(batch,) for batch in args.batches])
        for name in args.image_models
    ]
    for name, sweep, sizes in jobs:
        report = bench_model(
            name, sweep, sizes, args.threads, args.rounds, args.time_limit, args.histogram
        )
        lines.extend(report)
        print("\n".join(report), flush=True)
    out = Path(args.out) / f"symbolic_shapes_{host_name()}.txt"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
