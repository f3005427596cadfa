"""The untuned schedule of a TE program on a target, chosen by the target's kind: the CPU
default (`ir.schedule.default`) for `llvm ...`, the GPU default (`ir.schedule.default_gpu`,
within the target's device limits) for `cuda ...`."""

from __future__ import annotations

from collections.abc import Collection

from codegen.cuda.target import CudaTarget, parse_any_target
from ir.schedule.default import default_schedule
from ir.schedule.default_gpu import default_gpu_schedule
from ir.schedule.schedule import Schedule
from ir.te.program import TEProgram


def default_schedule_for(
    program: TEProgram, target: str, constant_inputs: Collection[str] = frozenset()
) -> Schedule:
    """The default schedule of `program` for the target string `target`."""
    parsed = parse_any_target(target)
    if isinstance(parsed, CudaTarget):
        return default_gpu_schedule(program, parsed.limits)  # GPU schedules repack no weights
    return default_schedule(program, parsed.hardware, frozenset(constant_inputs))
