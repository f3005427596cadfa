"""Model latency and memory: our artifact (untuned, and tuned with a record log) next to
ONNX Runtime (2 threads), measured in the same run, outputs checked against each other.

    .venv/bin/python bench/models.py [--only light_resnet50 ...] [--records RUN.jsonl]
                                     [--runs 20] [--rounds 3] [--jit] [--json]

Models: light_resnet50, light_squeezenet, light_vgg19, light_inception_v1,
light_densenet121 (seeded random weights) and the bundled model (light_squeezenet as
shipped). Each runner is a fresh child process that imports only what it needs (the
artifact runner: the standalone loader and numpy; ONNX Runtime: onnxruntime and numpy),
loads the model, runs it once, then `--runs` timed runs, and reports their median. The
runners take turns, `--rounds` times over (a fresh child each time), and a runner's
latency is its fastest round: this machine's speed drops by up to half for seconds at a
time, which only ever slows a round down, so a slow spell would otherwise decide which
runner wins. Each runner also reports its peak RSS (VmHWM) and its RSS right after its
imports; `model MiB` is the difference, the memory the model itself took at its peak
(the largest over the rounds). For artifacts it also reports the load time (the fastest
round's): cold (read the library, map or read the weights, check every gzip member's CRC
and the library's sha256, dlopen, allocate the workspace) and warm (a fresh process
whose loader cache already keeps the checked library and weights: read the manifest,
dlopen, map, allocate). `model MiB` counts mapped weights, which the page cache shares. The
memory plan's workspace is compared with the sum of all intermediate tensors (target on
light_resnet50: <= 50%). `--jit` adds the in-process JIT executor.

Run it on an otherwise idle machine: a parallel loop waits for a timeslice when another
process holds a core, and ratios measured next to other work mean nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH_MODELS = (
    "light_resnet50",
    "light_squeezenet",
    "light_vgg19",
    "light_inception_v1",
    "light_densenet121",
    "bundled",
)
ORT_THREADS = 2
LOADER_CACHE = "loader-cache"  # beside the inputs: the artifacts' warm-load cache

# -- child processes: one runner each, nothing of the compiler imported ---------------------


def _rss_mib() -> tuple[float, float]:
    """(current RSS, peak RSS) of this process in MiB, from /proc/self/status (VmRSS,
    VmHWM). Not getrusage's ru_maxrss: after fork + exec it still counts the parent's
    pages the child was forked with."""
    fields = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024  # kB
    return fields["VmRSS"], fields["VmHWM"]


def _child(kind: str, model: str, inputs_path: str, outputs_path: str, runs: int) -> None:
    import numpy as np

    if kind == "artifact":
        sys.path.insert(0, str(ROOT / "bench"))  # (only its own folder: a user's view)
        from standalone_runtime import runtime_module

        # the runtime folder alone, as a user would copy it
        load_artifact = runtime_module("loader").load_artifact

        base_rss, _ = _rss_mib()
        inputs = dict(np.load(inputs_path))
        start = time.perf_counter()
        load_artifact(model).close()  # cold: read or map, check the CRCs and the library
        load_s = time.perf_counter() - start
        # Warm: the parent filled the cache (the checked library and weights are kept there);
        # a library not yet mapped in this process, so dlopen does its full work.
        cache = os.environ["BENCH_ARTIFACT_CACHE"]
        start = time.perf_counter()
        artifact = load_artifact(model, cache_dir=cache)
        cached_load_s = time.perf_counter() - start

        def run() -> list[Any]:
            return list(artifact.run(inputs).values())

    else:
        import onnxruntime

        base_rss, _ = _rss_mib()
        inputs = dict(np.load(inputs_path))
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = ORT_THREADS
        options.log_severity_level = 3
        start = time.perf_counter()
        session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        load_s = time.perf_counter() - start
        cached_load_s = load_s

        def run() -> list[Any]:
            return list(session.run(None, inputs))

    outputs = run()
    latencies = []
    for _ in range(runs):
        begin = time.perf_counter()
        run()
        latencies.append(time.perf_counter() - begin)
    _, peak_rss = _rss_mib()
    np.savez(outputs_path, *outputs)
    report = {
        "latency_ms": statistics.median(latencies) * 1e3,
        "load_ms": load_s * 1e3,
        "cached_load_ms": cached_load_s * 1e3,
        "peak_rss_mib": peak_rss,
        "model_mib": peak_rss - base_rss,
    }
    print(json.dumps(report))


def _fill_loader_cache(artifact: Path, cache: Path) -> None:
    """Keep the artifact's checked files in the loader cache `cache` (for the warm load)."""
    from codegen.runtime.loader import load_artifact

    load_artifact(artifact, cache_dir=str(cache)).close()
    # The artifact and the cache were just written: their writeback to disk would
    # compete with the children's loads for the cores.
    os.sync()


def _run_child(kind: str, model: Path, inputs: Path, outputs: Path, runs: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", kind, str(model), str(inputs), str(outputs)]
    env = dict(os.environ)
    if kind == "artifact":
        env["BENCH_ARTIFACT_CACHE"] = str(inputs.parent / LOADER_CACHE)
    completed = subprocess.run(
        [*command, "--runs", str(runs)],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        env=env,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{kind} runner failed: {completed.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(completed.stdout.splitlines()[-1])
    return result


# -- the parent: compile, run each runner, compare ----------------------------------------


def _model(name: str) -> Any:
    """A light model by name (weights randomised), the bundled model, or an ONNX file."""
    import onnx

    from service.example_models import bundled_model_path
    from tests.support.onnx_models import load_light_model, randomize_weights

    if name == "bundled":
        return onnx.load(str(bundled_model_path()))
    if name.endswith(".onnx"):
        return onnx.load(name)
    return randomize_weights(load_light_model(name), seed=3)


def measure(
    name: str, runs: int, records: list[Any] | None, jit: bool, rounds: int = 3
) -> dict[str, Any]:
    """One model: every runner's latency and memory, the artifacts' sizes and load times
    (the runners in turn, `rounds` times; see the module docstring)."""
    import numpy as np
    import onnx

    from ir.reference import check_close
    from tests.support.onnx_models import runtime_inputs
    from tuner.artifact_build import build_artifact

    model = _model(name)
    inputs = runtime_inputs(model)
    row: dict[str, Any] = {"model": name}
    with tempfile.TemporaryDirectory(prefix="bench-models-") as directory:
        work = Path(directory)
        onnx_path = work / "model.onnx"
        onnx.save(model, str(onnx_path))
        np.savez(work / "inputs.npz", **inputs)
        variants: list[tuple[str, list[Any]]] = [("untuned", [])]
        if records is not None:
            variants.append(("tuned", records))
        runners: dict[str, tuple[str, Path, Path]] = {}
        for label, chosen in variants:
            start = time.perf_counter()
            build = build_artifact(onnx_path, "llvm", chosen, work / label)
            row[f"{label}_compile_s"] = time.perf_counter() - start
            row[f"{label}_hits"] = f"{build.hits}/{len(build.coverage)}"
            row[f"{label}_size_mib"] = build.size_bytes / 2**20
            row["workspace_mib"] = build.manifest["memory"]["workspace_bytes"] / 2**20
            row["intermediate_mib"] = build.manifest["memory"]["intermediate_bytes"] / 2**20
            _fill_loader_cache(build.path, work / LOADER_CACHE)
            runners[label] = ("artifact", build.path, work / f"{label}.npz")
        runners["onnxruntime"] = ("onnxruntime", onnx_path, work / "ort.npz")
        reports: dict[str, list[dict[str, Any]]] = {label: [] for label in runners}
        for _ in range(rounds):
            for label, (kind, path, outputs) in runners.items():
                reports[label].append(_run_child(kind, path, work / "inputs.npz", outputs, runs))
        for label, taken in reports.items():
            row[label] = _fastest_round(taken)
        with np.load(work / "ort.npz") as expected_file:
            expected = expected_file["arr_0"]
        for label, _ in variants:
            with np.load(work / f"{label}.npz") as actual_file:
                check_close(actual_file["arr_0"], expected, 1e-3, 1e-4, what=f"{name} {label}")
        if jit:
            row["jit"] = _jit_latency(onnx_path, inputs, runs)
    ort_ms = row["onnxruntime"]["latency_ms"]
    for label, _ in variants:
        row[f"{label}_ratio"] = row[label]["latency_ms"] / ort_ms
    return row


def _fastest_round(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One runner's rounds as one report: the fastest round's latency and load times,
    the largest memory figures, and every round's latency (`latency_ms_rounds`)."""
    merged = dict(reports[0])
    for key in ("latency_ms", "load_ms", "cached_load_ms"):
        merged[key] = min(report[key] for report in reports)
    for key in ("peak_rss_mib", "model_mib"):
        merged[key] = max(report[key] for report in reports)
    merged["latency_ms_rounds"] = [report["latency_ms"] for report in reports]
    return merged


def _jit_latency(path: Path, inputs: dict[str, Any], runs: int) -> dict[str, Any]:
    from tuner.run_model import prepare_model, run_model

    compiled = prepare_model(path)
    result = run_model(compiled, inputs, runs)
    return {"latency_ms": (result.median_latency_s or 0.0) * 1e3}


def _print_row(row: dict[str, Any], tuned: bool) -> None:
    ort = row["onnxruntime"]
    cells = [f"{row['model']:<20}"]
    for label in ("untuned", "tuned") if tuned else ("untuned",):
        runner = row[label]
        cells.append(
            f"{runner['latency_ms']:>12.2f}{row[f'{label}_ratio']:>7.2f}x"
            f"{runner['load_ms']:>8.1f}/{runner['cached_load_ms']:<6.1f}"
            f"{runner['model_mib']:>10.1f}{row[f'{label}_hits']:>8}"
        )
    cells.append(f"{ort['latency_ms']:>9.2f}{ort['model_mib']:>10.1f}")
    share = row["workspace_mib"] / max(row["intermediate_mib"], 1e-9)
    cells.append(f"  {row['workspace_mib']:>8.1f} / {row['intermediate_mib']:<8.1f}{share:>5.0%}")
    if "jit" in row:
        cells.append(f"{row['jit']['latency_ms']:>9.2f}")
    print("".join(cells), flush=True)


def _print_header(tuned: bool, jit: bool) -> None:
    heads = [f"{'model':<20}"]
    for label in ("untuned", "tuned") if tuned else ("untuned",):
        heads.append(
            f"{label + ' ms':>12}{'vs ORT':>8}{'load ms cold/warm':>18}{'model MiB':>10}{'hits':>8}"
        )
    heads.append(f"{'ORT ms':>9}{'ORT MiB':>10}")
    heads.append(f"  {'workspace/intermediates MiB'}")
    if jit:
        heads.append(f"{'JIT ms':>9}")
    print("".join(heads))


def main() -> int:
    """Benchmark the models; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--only",
        nargs="*",
        help="model names: any light model, bundled (the shipped model), or an .onnx file",
    )
    parser.add_argument("--records", metavar="RUN.jsonl", help="records for the tuned artifacts")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per round")
    parser.add_argument(
        "--rounds", type=int, default=3, help="turns of every runner (the fastest counts)"
    )
    parser.add_argument("--jit", action="store_true", help="also time the JIT executor")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=4, metavar=("KIND", "MODEL", "INPUTS", "OUTPUTS"))
    args = parser.parse_args()
    if args.runs < 1 or args.rounds < 1:
        parser.error(f"--runs and --rounds must be at least 1; got {args.runs} and {args.rounds}")
    if args.child:
        kind, model, inputs, outputs = args.child
        _child(kind, model, inputs, outputs, runs=args.runs)
        return 0
    sys.path.insert(0, str(ROOT))
    records = None
    if args.records:
        from tuner.records import load_records

        records = load_records(Path(args.records))
        if not args.json:
            ok = [record for record in records if record.status == "ok"]
            times = [record.time for record in records] or [0.0]
            span_min = (max(times) - min(times)) / 60
            print(
                f"records: {len(records)} measurements ({len(ok)} ok) from {args.records}, "
                f"taken over {span_min:.1f} min"
            )
    rows = []
    if not args.json:
        _print_header(records is not None, args.jit)
    for name in args.only or BENCH_MODELS:
        row = measure(name, args.runs, records, args.jit, args.rounds)
        rows.append(row)
        if not args.json:
            _print_row(row, records is not None)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
