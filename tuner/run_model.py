"""`autotune run`: run a model on inputs from .npy files, either an ONNX model (compiled here
with its schedules, JIT) or a compiled artifact (`.tar.gz`, through the runtime loader).

On a GPU (`--target cuda...`) an ONNX model is compiled into a CUDA artifact in a temporary
directory and run like one; a CUDA artifact runs through `codegen/runtime/cuda_loader.py`.
Without pycuda or a GPU both stop with one clear error before anything is compiled."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from codegen.aot.schedules import ScheduleChooser, TaskCoverage
from codegen.cuda.device import GpuRuntimeError, check_target_device
from codegen.cuda.target import CudaTarget
from codegen.executor import CompiledModel, InputError, check_model_inputs, compile_model
from codegen.llvm.target import CpuTarget, host_target
from codegen.prepare import prepare_for_inputs, prepare_for_target
from codegen.runtime.cuda_loader import (
    CudaArtifactError,
    CudaArtifactInputError,
    is_cuda_artifact,
    load_cuda_artifact,
)
from codegen.runtime.loader import ArtifactError, ArtifactInputError, load_artifact
from ir.errors import AutotuneError
from ir.frontend.onnx.symbolic_dims import DimBinding

if TYPE_CHECKING:
    from tuner.records import Record


class RunError(AutotuneError):
    """A run argument (an input file, an output path) is wrong."""


@dataclass(frozen=True)
class RunResult:
    """Outputs of one run and, when benchmarked, the latency of each run."""

    outputs: list[np.ndarray]
    latencies_s: list[float]
    compile_s: float
    kernels: int
    load_s: float | None = None  # artifacts: the loader's time to check and open it
    tuned_kernels: int | None = None  # with a record log: kernels compiled from its records

    @property
    def median_latency_s(self) -> float | None:
        """Median latency over the benchmark runs."""
        return statistics.median(self.latencies_s) if self.latencies_s else None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        data: dict[str, Any] = {
            "outputs": [{"shape": list(o.shape), "dtype": o.dtype.name} for o in self.outputs],
            "compile_s": self.compile_s,
            "kernels": self.kernels,
            "latency_ms": {
                "median": (None if self.median_latency_s is None else self.median_latency_s * 1e3),
                "runs": len(self.latencies_s),
                "min": min(self.latencies_s) * 1e3 if self.latencies_s else None,
            },
        }
        if self.load_s is not None:
            data["load_ms"] = self.load_s * 1e3
        if self.tuned_kernels is not None:
            data["tuned_kernels"] = self.tuned_kernels
        return data


def records_report(
    path: Path, records: Sequence[Record], target: str, coverage: Sequence[TaskCoverage]
) -> list[str]:
    """What a record log gave a compile for `target` (exact string), and why nothing when
    it only holds other targets' records."""
    tuned = sum(1 for task in coverage if task.hit)
    lines = [
        f"{path}: tuned schedules for {tuned} of {len(coverage)} kernels "
        "(the others: default schedules)"
    ]
    targets = {record.target for record in records}
    if targets and target not in targets:
        others = ", ".join(repr(other) for other in sorted(targets))
        lines.append(
            f"{path} holds records for {others} only, and this run compiles for "
            f"{target!r} (records are kept per exact target, core count included)"
        )
    return lines


NPY_MAGIC = b"\x93NUMPY"  # the first bytes of every .npy file


def parse_input_files(values: Sequence[str]) -> dict[str, np.ndarray]:
    """Load `NAME=FILE.npy` arguments."""
    arrays: dict[str, np.ndarray] = {}
    for text in values:
        name, sep, path = text.partition("=")
        if not sep or not name or not path:
            raise RunError(f"--input {text!r}: expected NAME=FILE.npy")
        if name in arrays:
            raise RunError(f"--input {name} is given twice")
        try:
            with open(path, "rb") as file:
                is_npy = file.read(len(NPY_MAGIC)) == NPY_MAGIC
            if not is_npy:  # (numpy would take it for a pickle and say so)
                raise RunError(f"--input {name}: {path} is not a .npy file (numpy.save's format)")
            arrays[name] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as err:
            raise RunError(f"--input {name}: cannot read {path}: {err}") from None
    return arrays


def _flatten(value: Any) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [item for part in value for item in _flatten(part)]
    return [np.asarray(value)]


def prepare_model(
    path: Path,
    shapes: Mapping[str, Sequence[DimBinding]] | None = None,
    inputs: Mapping[str, np.ndarray] | None = None,
    chooser: ScheduleChooser | None = None,
    target: CpuTarget | None = None,
) -> CompiledModel:
    """Import, optimise and compile the ONNX model at `path` for `target` (default: this
    host's CPU); `inputs`, when given, bind the input dims the model leaves unknown (and
    the values of inputs that decide a shape or another compile-time operand: the model
    is specialised to them) and are checked against the model before anything is
    compiled. `chooser` picks each workload's schedule (e.g. `records_chooser`; default:
    the default schedules)."""
    target = target or host_target()
    if inputs is None:
        return compile_model(prepare_for_target(path, target, shapes).function, target, chooser)
    prepared = prepare_for_inputs(path, target, inputs, shapes)
    unbound = {name: value for name, value in inputs.items() if name not in prepared.values}
    check_model_inputs(prepared.function, unbound)
    return compile_model(prepared.function, target, chooser, prepared.values)


def run_model(
    model: CompiledModel,
    inputs: Mapping[str, np.ndarray],
    bench_runs: int = 0,
    compile_s: float = 0.0,
) -> RunResult:
    """Run once (checking the inputs), then `bench_runs` timed runs."""
    if bench_runs < 0:
        raise RunError("--bench must be a positive number of runs")
    model.check_inputs(inputs)
    outputs = _flatten(model.run(inputs))
    latencies: list[float] = []
    for _ in range(bench_runs):
        start = time.perf_counter()
        model.run(inputs)
        latencies.append(time.perf_counter() - start)
    return RunResult(outputs, latencies, compile_s, model.num_kernels)


def is_artifact(path: Path) -> bool:
    """Whether `path` is a compiled artifact (a gzip file: `.tar.gz`) rather than ONNX."""
    if path.name.endswith((".tar.gz", ".tgz")):
        return True
    try:
        with path.open("rb") as handle:
            return handle.read(2) == b"\x1f\x8b"
    except OSError:
        return False


def run_artifact(path: Path, inputs: Mapping[str, np.ndarray], bench_runs: int = 0) -> RunResult:
    """Load the artifact at `path` (checked), run it once on `inputs` (checked against its
    manifest), then `bench_runs` timed runs. Outputs are in the manifest's order."""
    if bench_runs < 0:
        raise RunError("--bench must be a positive number of runs")
    if is_cuda_artifact(path):
        return _run_loaded(
            lambda: load_cuda_artifact(path),
            inputs,
            bench_runs,
            (CudaArtifactInputError, ArtifactInputError),
            (CudaArtifactError, ArtifactError),
        )
    return _run_loaded(
        lambda: load_artifact(path), inputs, bench_runs, ArtifactInputError, ArtifactError
    )


def _run_loaded(
    open_artifact: Callable[[], Any],
    inputs: Mapping[str, np.ndarray],
    bench_runs: int,
    input_errors: type[Exception] | tuple[type[Exception], ...],
    artifact_errors: type[Exception] | tuple[type[Exception], ...],
) -> RunResult:
    """Open an artifact with `open_artifact` (the CPU or the CUDA loader), run it once, then
    `bench_runs` timed runs; the loader's errors become InputError / RunError."""
    try:
        with open_artifact() as artifact:
            results = artifact.run(inputs)
            latencies: list[float] = []
            for _ in range(bench_runs):
                start = time.perf_counter()
                artifact.run(inputs)
                latencies.append(time.perf_counter() - start)
            kernels = int(artifact.manifest.get("kernels", 0))
            load_s = artifact.load_s
    except input_errors as err:
        raise InputError(str(err)) from None
    except artifact_errors as err:
        raise RunError(str(err)) from None
    return RunResult(list(results.values()), latencies, 0.0, kernels, load_s)


def run_model_on_gpu(
    path: Path,
    target: CudaTarget,
    shapes: Mapping[str, Sequence[int]],
    inputs: Mapping[str, np.ndarray],
    records_path: Path | None = None,
    bench_runs: int = 0,
) -> RunResult:
    """Compile the ONNX model at `path` for the CUDA `target` (with the best of the records
    at `records_path`) into a temporary artifact and run it; RunError first when pycuda or
    a GPU of the target's architecture is missing."""
    import tempfile

    from tuner.artifact_build import build_artifact
    from tuner.records import load_records

    try:
        check_target_device(target)
    except GpuRuntimeError as err:
        raise RunError(f"cannot run on {str(target)!r}: {err}") from None
    records = load_records(records_path) if records_path is not None else []
    with tempfile.TemporaryDirectory(prefix="autotune-run-") as directory:
        start = time.perf_counter()
        examples = {name: value.shape for name, value in inputs.items()}
        build = build_artifact(path, target, records, Path(directory), shapes, examples)
        compile_s = time.perf_counter() - start
        result = run_artifact(build.path, inputs, bench_runs)
    return RunResult(result.outputs, result.latencies_s, compile_s, result.kernels, None)


def save_outputs(path: Path, outputs: Sequence[np.ndarray]) -> None:
    """Write outputs to an .npz file as output_0, output_1, ..."""
    try:
        arrays: dict[str, Any] = {f"output_{i}": out for i, out in enumerate(outputs)}
        np.savez(path, **arrays)
    except OSError as err:
        raise RunError(f"--output: cannot write {path}: {err}") from None


__all__ = [
    "InputError",
    "RunError",
    "RunResult",
    "is_artifact",
    "parse_input_files",
    "prepare_model",
    "records_report",
    "run_artifact",
    "run_model",
    "run_model_on_gpu",
]
