"""Pick the search space of a target kind: `llvm ...` targets get the CPU space, `cuda ...`
targets the GPU space with the target's device limits."""

from __future__ import annotations

from collections.abc import Collection

from codegen.cuda.target import CudaTarget, parse_any_target
from ir.te.program import TEProgram
from tuner.space.gpu_space import GpuSearchSpace
from tuner.space.space import SearchSpace


def search_space_for(
    program: TEProgram, target: str, constant_inputs: Collection[str] = frozenset()
) -> SearchSpace | GpuSearchSpace:
    """The search space of `program` for the target string `target` (by its kind)."""
    parsed = parse_any_target(target)
    if isinstance(parsed, CudaTarget):
        return GpuSearchSpace(program, parsed, constant_inputs)
    return SearchSpace(program, parsed.hardware, constant_inputs)
