"""Schedules: loop transformations on TE programs, recorded as replayable traces."""

from typing import Any

from ir.errors import ScheduleError
from ir.schedule.schedule import STEP_KINDS, Schedule, Stage
from ir.schedule.trace import Step, Trace


def parse_trace(data: Any) -> Trace:
    """The trace in `data` (its JSON form) when it is one a replay could apply: well formed,
    and every step a known primitive; ScheduleError naming the first step that is not.
    (Whether the steps fit a workload only a replay on its program can tell.)"""
    trace = Trace.from_json(data)
    for position, step in enumerate(trace.steps):
        if step.kind not in STEP_KINDS:
            raise ScheduleError(
                f"step {position} {step}: unknown primitive {step.kind!r}; "
                f"known: {', '.join(STEP_KINDS)}"
            )
    return trace


__all__ = ["STEP_KINDS", "Schedule", "Stage", "Step", "Trace", "parse_trace"]
