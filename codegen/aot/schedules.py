"""Which schedule each fused function is compiled with, and a record of that choice.

A `ScheduleChooser` is asked once per distinct workload (a primitive function and which of
its parameters are constants). It answers with a `ScheduleChoice`: the tuned schedule and
the id of the record it came from, or no schedule (the default one is used: a miss). The
layer that knows the records (the tuner) builds the chooser; codegen only reports. Asked
for a kernel's small-size body, it is also told the constant layouts the kernel's whole
body has settled (both bodies read one copy of the weights), and answers only with a
schedule that lays them out alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ir.graph.nodes import Function
from ir.schedule.schedule import LayoutRewrite, Schedule
from ir.te.program import TEProgram


@dataclass(frozen=True)
class ScheduleChoice:
    """A chooser's answer for one workload.

    `schedule` is None for the default schedule. `record_id` names the record whose trace
    gave `schedule`; `note` says why a record was not used (e.g. it no longer replays).
    """

    workload_key: str | None
    schedule: Schedule | None = None
    record_id: str | None = None
    note: str = ""


class ScheduleChooser(Protocol):
    """Chooses the schedule of a workload: `function` (its TE `program`) with the
    parameters named in `constants` bound to constants, whose schedule must lay them out
    as `layouts` says where it is given."""

    def __call__(
        self,
        function: Function,
        program: TEProgram,
        constants: frozenset[str],
        layouts: Mapping[str, LayoutRewrite] | None = None,
    ) -> ScheduleChoice:
        """The choice for this workload."""
        ...


def default_chooser(
    function: Function,
    program: TEProgram,
    constants: frozenset[str],
    layouts: Mapping[str, LayoutRewrite] | None = None,
) -> ScheduleChoice:
    """A chooser that knows no records: every workload gets the default schedule."""
    del function, program, constants, layouts
    return ScheduleChoice(workload_key=None)


@dataclass(frozen=True)
class TaskCoverage:
    """One distinct workload of the model: its name, key, uses, and the record used."""

    task: str
    workload_key: str | None
    record_id: str | None
    calls: int
    note: str = ""

    @property
    def hit(self) -> bool:
        """Whether a tuned record's schedule was compiled (False: the default schedule)."""
        return self.record_id is not None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data: the manifest's and the CLI's view of one task."""
        data: dict[str, Any] = {
            "task": self.task,
            "workload_key": self.workload_key,
            "record_id": self.record_id,
            "hit": self.hit,
            "schedule": self.record_id if self.record_id is not None else "default",
            "calls": self.calls,
        }
        if self.note:
            data["note"] = self.note
        return data
