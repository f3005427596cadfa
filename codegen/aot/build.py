"""The AOT pipeline: fused graph + schedule choices -> a packed, content-addressed artifact.

build_model_artifact(fn, target, out_dir, chooser):
  Step 1. plan_model          kernels, weights (layouts applied), memory plan, coverage
  Step 2. build_model_module  every kernel and the entry function in one LLVM module
  Step 3. model_object_code   the module as a position-independent object
  Step 4. link_library        + the C ABI -> model.so (cc -shared)
  Step 5. write_artifact      manifest.json, model.so, model.h, weights.bin -> <sha256>.tar.gz
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm

from codegen.aot.abi import ABI_VERSION, MODEL_HEADER, abi_source
from codegen.aot.link import c_compiler, c_compiler_version, link_library
from codegen.aot.module import build_model_module, model_object_code, uses_openmp
from codegen.aot.package import manifest_bytes, write_artifact
from codegen.aot.plan import ModelPlan, has_control_steps, kernel_steps, plan_model
from codegen.aot.schedules import ScheduleChooser, TaskCoverage, default_chooser
from codegen.llvm.target import CpuTarget
from ir.graph.nodes import Function
from ir.graph.ops.quantized import computes_on_integers

ARTIFACT_FORMAT = "autotune-artifact"
ARTIFACT_FORMAT_VERSION = 2
LIBRARY_FILE = "model.so"
MANIFEST_FILE = "manifest.json"
HEADER_FILE = "model.h"
WEIGHTS_FILE = "weights.bin"


@dataclass(frozen=True)
class ArtifactResult:
    """A built artifact: where it is, its hash and size, its manifest and coverage."""

    path: Path
    sha256: str
    size_bytes: int
    manifest: dict[str, Any]
    coverage: list[TaskCoverage]


def software_versions(compiler: str) -> dict[str, str]:
    """Versions of what shaped the library: autotune, llvmlite, LLVM, numpy, the C compiler."""
    versions: dict[str, str] = {}
    for package in ("autotune", "llvmlite", "numpy"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = "unknown"
    versions["llvm"] = ".".join(str(part) for part in llvm.llvm_version_info)
    versions["cc"] = c_compiler_version(compiler)
    return versions


def integer_kernels(plan: ModelPlan[str]) -> list[dict[str, Any]]:
    """The kernels that compute on 8-bit integers (a quantized model's convolutions):
    each one's symbol, fused function and whether its code uses 8-bit dot-product
    instructions (vpdpbusd)."""
    return [
        {
            "symbol": kernel.symbol,
            "function": kernel.coverage.task,
            "dot_product_instructions": "vpdpbusd" in kernel.code,
        }
        for kernel in plan.kernels
        if computes_on_integers(kernel.function)
    ]


def build_manifest(
    plan: ModelPlan[str],
    target: CpuTarget,
    library: bytes,
    weights: bytes,
    openmp: bool,
    versions: dict[str, str],
    model_sha256: str | None,
) -> dict[str, Any]:
    """The manifest of an artifact: its interface, target, library, weights, plan and
    coverage."""
    coverage = plan.coverage
    hits = sum(1 for task in coverage if task.hit)
    return {
        "format": ARTIFACT_FORMAT,
        "format_version": ARTIFACT_FORMAT_VERSION,
        "abi_version": ABI_VERSION,
        "model": {"sha256": model_sha256},
        "target": str(target),
        "inputs": [spec.to_json() for spec in plan.inputs],
        "outputs": [spec.to_json() for spec in plan.outputs],
        "sizes": [size.to_json() for size in plan.sizes],
        "library": {
            "file": LIBRARY_FILE,
            "sha256": hashlib.sha256(library).hexdigest(),
            "size_bytes": len(library),
            "openmp": openmp,
            "num_cores": target.num_cores,
        },
        "weights": {
            "file": WEIGHTS_FILE,
            "sha256": hashlib.sha256(weights).hexdigest(),
            "size_bytes": len(weights),
        },
        "memory": {
            "workspace_bytes": plan.memory.workspace_bytes,
            "intermediate_bytes": plan.memory.total_bytes,
            "weights_bytes": plan.weights.nbytes,
        },
        "kernels": len(plan.kernels),
        "integer_kernels": integer_kernels(plan),
        "calls": len(kernel_steps(plan.steps)),  # in the code (a loop body's once)
        "control_flow": has_control_steps(plan.steps),
        "coverage": {"tasks": len(coverage), "hits": hits, "misses": len(coverage) - hits},
        "tasks": [task.to_json() for task in coverage],
        "versions": versions,
    }


def build_model_artifact(
    fn: Function,
    target: CpuTarget,
    out_dir: Path,
    chooser: ScheduleChooser | None = None,
    output_names: Sequence[str] | None = None,
    model_sha256: str | None = None,
) -> ArtifactResult:
    """Compile a fused, typed main function (the output of the pass pipeline) for `target`
    into `out_dir/<sha256>.tar.gz`. `chooser` picks each workload's schedule (default: the
    default schedule everywhere, reported as misses)."""
    compiler = c_compiler()
    plan = plan_model(fn, target, chooser or default_chooser, output_names)
    llvm_text = build_model_module(plan, target)
    openmp = uses_openmp(llvm_text)
    library = link_library(model_object_code(llvm_text, target), abi_source(plan), openmp, compiler)
    weights = plan.weights.to_bytes()
    manifest = build_manifest(
        plan, target, library, weights, openmp, software_versions(compiler), model_sha256
    )
    files = {
        MANIFEST_FILE: manifest_bytes(manifest),
        LIBRARY_FILE: library,
        HEADER_FILE: MODEL_HEADER.encode(),
        WEIGHTS_FILE: weights,
    }
    path, digest, size_bytes = write_artifact(out_dir, files, page_aligned=(WEIGHTS_FILE,))
    return ArtifactResult(path, digest, size_bytes, manifest, plan.coverage)
