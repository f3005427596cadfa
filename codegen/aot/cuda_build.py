"""The AOT pipeline for a GPU: fused graph + schedule choices -> PTX and a launch plan.

build_cuda_artifact(fn, target, out_dir, chooser):
  Step 1. plan_model_with     kernels (CUDA C, checked against the target's device limits;
                              a tuned schedule over a limit falls back to the default),
                              weights, the memory plan of intermediate tensors, coverage
  Step 2. compile_source      every kernel in one translation unit -> model.ptx (nvcc -ptx,
                              for the target's -arch; no GPU needed)
  Step 3. launch_plan         per launch in order: the kernel, its grid, block, static shared
                              bytes and argument buffers (input/output index, or a byte
                              offset into the weights or the workspace), then the copies
  Step 4. write_artifact      manifest.json, model.ptx, weights.bin -> <sha256>.tar.gz

The workspace holds the model's intermediate tensors (the memory plan) followed by a
scratch region for buffers internal to one fused function (e.g. a reduction's partial
results between two of its kernels): those live only during their own call, so every call
reuses the same scratch bytes. The artifact runs with `codegen/runtime/cuda_loader.py`
(numpy + pycuda only).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from codegen.aot.build import ArtifactResult
from codegen.aot.memory import align_up
from codegen.aot.package import manifest_bytes, write_artifact
from codegen.aot.plan import (
    KernelBackend,
    KernelStep,
    Location,
    ModelPlan,
    model_sizes,
    plan_model_with,
)
from codegen.aot.schedules import ScheduleChooser, default_chooser
from codegen.cuda.build import CudaModule, build_cuda
from codegen.cuda.nvcc import compile_source, nvcc_version
from codegen.cuda.target import CudaTarget
from codegen.errors import CodegenError
from ir.graph.nodes import Function
from ir.graph.traversal import has_control_flow
from ir.schedule.default_gpu import default_gpu_schedule
from ir.tir.stmt import PrimFunc

ARTIFACT_FORMAT = "autotune-artifact"
ARTIFACT_FORMAT_VERSION = 1
LAUNCH_PLAN_VERSION = 1
DEVICE = "cuda"  # the manifest's `device`; CPU artifacts have none
PTX_FILE = "model.ptx"
WEIGHTS_FILE = "weights.bin"
MANIFEST_FILE = "manifest.json"


def _spec_bytes(spec: dict[str, Any]) -> int:
    """Bytes of a buffer in CUDA launch metadata (`{name, shape, dtype}`)."""
    return math.prod(int(extent) for extent in spec["shape"]) * int(
        np.dtype(spec["dtype"]).itemsize
    )


def _location_json(location: Location, nbytes: int) -> dict[str, Any]:
    """Where an argument lives: a model input/output by index, or a byte offset."""
    if location.kind in ("input", "output"):
        return {"kind": location.kind, "index": location.position, "nbytes": nbytes}
    return {"kind": location.kind, "offset": location.position, "nbytes": nbytes}


def launch_plan(
    plan: ModelPlan[str], modules: Sequence[CudaModule]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """The kernels (name, grid, block, shared bytes, params), the launches in order with
    their argument buffers, and the scratch bytes (module docstring)."""
    kernels: list[dict[str, Any]] = []
    scratch: list[dict[str, dict[str, Any]]] = []  # per planned kernel: name -> argument
    scratch_bytes = 0
    for module in modules:
        kernels += [
            {key: kernel[key] for key in ("name", "grid", "block", "shared_bytes", "params")}
            for kernel in module.metadata["kernels"]
        ]
        offset, internal = 0, {}
        for spec in module.metadata["workspace"]:
            nbytes = _spec_bytes(spec)
            start = plan.memory.workspace_bytes + offset
            internal[spec["name"]] = {"kind": "workspace", "offset": start, "nbytes": nbytes}
            offset += align_up(max(nbytes, 1))
        scratch.append(internal)
        scratch_bytes = max(scratch_bytes, offset)
    launches: list[dict[str, Any]] = []
    for step in plan.steps:
        assert isinstance(step, KernelStep)  # control flow is refused before planning
        planned = plan.kernels[step.kernel]
        values = (*step.args, *step.outputs)
        arguments = dict(scratch[step.kernel])
        for buffer, value in zip(planned.func.params, values, strict=True):
            arguments[buffer.name] = _location_json(plan.locations[value], plan.value_bytes[value])
        for kernel in modules[step.kernel].metadata["kernels"]:
            launches.append(
                {"kernel": kernel["name"], "args": [arguments[name] for name in kernel["params"]]}
            )
    return kernels, launches, scratch_bytes


def _gpu_backend(target: CudaTarget, modules: dict[str, CudaModule]) -> KernelBackend[str]:
    def compile_kernel(func: PrimFunc) -> str:
        module = build_cuda(func, target)  # GpuLimitError over the device's limits
        modules[func.name] = module
        return module.source

    return KernelBackend(
        compile=compile_kernel,
        default=lambda program, constants: default_gpu_schedule(program, target.limits),
    )


def software_versions() -> dict[str, str]:
    """Versions of what shaped the PTX: autotune, numpy and nvcc."""
    versions: dict[str, str] = {}
    for package in ("autotune", "numpy"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = "unknown"
    versions["nvcc"] = nvcc_version()
    return versions


def build_cuda_artifact(
    fn: Function,
    target: CudaTarget,
    out_dir: Path,
    chooser: ScheduleChooser | None = None,
    output_names: Sequence[str] | None = None,
    model_sha256: str | None = None,
) -> ArtifactResult:
    """Compile a fused, typed main function (the output of the pass pipeline) for a GPU
    into `out_dir/<sha256>.tar.gz` (module docstring). `chooser` picks each workload's
    schedule (default: the default GPU schedule everywhere, reported as misses). Raises
    CodegenError when nvcc fails or is missing."""
    if has_control_flow(fn):
        raise CodegenError(
            "control flow (an If or a Loop decided at run time) is not supported on GPU "
            "targets yet; compile this model for a CPU"
        )
    sizes = model_sizes(fn)
    if sizes:
        raise CodegenError(
            f"symbolic dims ({', '.join(size.name for size in sizes)}) are not supported on "
            "GPU targets yet; bind them to sizes (--shape NAME=DxD...) or compile for a CPU"
        )
    # Step 1.
    compiled: dict[str, CudaModule] = {}
    backend = _gpu_backend(target, compiled)
    plan = plan_model_with(fn, backend, chooser or default_chooser, output_names)
    modules = [compiled[kernel.symbol] for kernel in plan.kernels]
    # Step 2.
    if not modules:
        raise CodegenError("the model has no kernels to compile for the GPU")
    ptx = compile_source("\n".join(kernel.code for kernel in plan.kernels), target.arch, "ptx")
    # Step 3.
    kernels, launches, scratch_bytes = launch_plan(plan, modules)
    weights = plan.weights.to_bytes()
    coverage = plan.coverage
    hits = sum(1 for task in coverage if task.hit)
    manifest: dict[str, Any] = {
        "format": ARTIFACT_FORMAT,
        "format_version": ARTIFACT_FORMAT_VERSION,
        "device": DEVICE,
        "launch_plan_version": LAUNCH_PLAN_VERSION,
        "model": {"sha256": model_sha256},
        "target": str(target),
        "inputs": [spec.to_json() for spec in plan.inputs],
        "outputs": [spec.to_json() for spec in plan.outputs],
        "ptx": {
            "file": PTX_FILE,
            "arch": target.arch,
            "sha256": hashlib.sha256(ptx).hexdigest(),
            "size_bytes": len(ptx),
        },
        "weights": {
            "file": WEIGHTS_FILE,
            "sha256": hashlib.sha256(weights).hexdigest(),
            "size_bytes": len(weights),
        },
        "memory": {
            "workspace_bytes": plan.memory.workspace_bytes + scratch_bytes,
            "scratch_bytes": scratch_bytes,
            "intermediate_bytes": plan.memory.total_bytes,
            "weights_bytes": plan.weights.nbytes,
        },
        "launch": {
            "kernels": kernels,
            "launches": launches,
            "copies": [
                {
                    "source": _location_json(plan.locations[value], plan.value_bytes[value]),
                    "output": position,
                    "nbytes": plan.value_bytes[value],
                }
                for value, position in plan.copies
            ],
        },
        "kernels": len(plan.kernels),
        "calls": len(plan.steps),
        "coverage": {"tasks": len(coverage), "hits": hits, "misses": len(coverage) - hits},
        "tasks": [task.to_json() for task in coverage],
        "versions": software_versions(),
    }
    # Step 4.
    files = {MANIFEST_FILE: manifest_bytes(manifest), PTX_FILE: ptx, WEIGHTS_FILE: weights}
    path, digest, size_bytes = write_artifact(Path(out_dir), files)
    return ArtifactResult(path, digest, size_bytes, manifest, plan.coverage)
