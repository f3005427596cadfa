"""The tuner's column of the backend table (`codegen.backends`): the search space of each
target kind. `llvm` targets get the CPU space, `cuda` targets the GPU space within the
target's device limits."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from codegen.cuda.target import CudaTarget
from codegen.target import Target
from ir.schedule.schedule import LayoutRewrite
from ir.te.program import TEProgram
from tuner.space.gpu_space import GpuSearchSpace
from tuner.space.space import SearchSpace


def search_space_for(
    program: TEProgram,
    target: Target,
    constant_inputs: Collection[str] = frozenset(),
    required_layouts: Callable[[], Mapping[str, LayoutRewrite]] | None = None,
) -> SearchSpace | GpuSearchSpace:
    """The search space of `program` on `target` (by its kind); on a CPU, with
    `required_layouts`, only the schedules laying the constants out so (GPU schedules
    never repack constants)."""
    if isinstance(target, CudaTarget):
        return GpuSearchSpace(program, target, constant_inputs)
    return SearchSpace(program, target.hardware, constant_inputs, required_layouts)
