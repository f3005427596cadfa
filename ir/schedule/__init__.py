"""Schedules: loop transformations on TE programs, recorded as replayable traces."""

from ir.schedule.schedule import Schedule, Stage
from ir.schedule.trace import Step, Trace

__all__ = ["Schedule", "Stage", "Step", "Trace"]
