"""The backend table: what differs between target kinds, in one place, keyed by kind.

    kind   device  graph layout          timing   default schedule        artifact
    llvm   cpu     blocked conv channels cold     ir.schedule.default     shared library
    cuda   gpu     NCHW                  warm     ir.schedule.default_gpu PTX + launch plan

Code below the entry points asks `backend_of(target)` rather than looking at the target's
string. The tuner keeps its own table of search spaces (`tuner.space.select`), since
codegen may not import the tuner; the measurement child compiles a candidate by kind
(`codegen.measure_child`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codegen.aot.schedules import ScheduleChooser
from codegen.cuda.target import CudaTarget
from codegen.llvm.target import CpuTarget
from codegen.target import Target
from ir.graph.nodes import Function
from ir.schedule.default import default_schedule
from ir.schedule.default_gpu import default_gpu_schedule
from ir.schedule.schedule import Schedule
from ir.te.program import TEProgram

if TYPE_CHECKING:
    from codegen.aot.build import ArtifactResult

DefaultSchedule = Callable[[TEProgram, Target, frozenset[str]], Schedule]
ArtifactBuilder = Callable[
    [Function, Target, Path, ScheduleChooser | None, Sequence[str] | None, str | None],
    "ArtifactResult",
]


@dataclass(frozen=True)
class Backend:
    """One target kind's answers: whether it runs on a GPU, whether the graph keeps conv
    activations in blocked channels (NCHW[b]c), whether kernels are timed on cold caches
    by default, its untuned schedule of a TE program, and how a model becomes an
    artifact for it."""

    kind: str
    on_gpu: bool
    blocked_layout: bool
    flushes_caches: bool
    default_schedule: DefaultSchedule
    build_artifact: ArtifactBuilder


def _cpu_default(program: TEProgram, target: Target, constants: frozenset[str]) -> Schedule:
    assert isinstance(target, CpuTarget)
    return default_schedule(program, target.hardware, constants)


def _gpu_default(program: TEProgram, target: Target, constants: frozenset[str]) -> Schedule:
    assert isinstance(target, CudaTarget)
    del constants  # GPU schedules repack no weights
    return default_gpu_schedule(program, target.limits)


def _builder(module: str, name: str) -> ArtifactBuilder:
    """The artifact builder `module.name` (given the target of its own kind by the table),
    imported when first used: a measurement child never builds artifacts."""

    def build(*arguments: Any) -> ArtifactResult:
        built: ArtifactResult = getattr(importlib.import_module(module), name)(*arguments)
        return built

    return build


_CPU_ARTIFACT = _builder("codegen.aot.build", "build_model_artifact")
_GPU_ARTIFACT = _builder("codegen.aot.cuda_build", "build_cuda_artifact")
BACKENDS: dict[str, Backend] = {
    "llvm": Backend("llvm", False, True, True, _cpu_default, _CPU_ARTIFACT),
    "cuda": Backend("cuda", True, False, False, _gpu_default, _GPU_ARTIFACT),
}


def backend_of(target: Target) -> Backend:
    """The backend of `target`'s kind."""
    return BACKENDS[target.kind]


def default_schedule_for(
    program: TEProgram, target: Target, constant_inputs: Collection[str] = frozenset()
) -> Schedule:
    """The untuned schedule of `program` on `target` (the CPU or the GPU default)."""
    return backend_of(target).default_schedule(program, target, frozenset(constant_inputs))
