"""Points of a search space (a trace and the decisions it was built from) and the memory
that lets a space mutate the traces it built: shared by the CPU and the GPU spaces."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from ir.schedule.trace import Trace
from tuner.space.decisions import Decision, SpaceError

REMEMBERED_TRACES = 100_000  # points kept for `decisions_of`, least recently used forgotten


@dataclass(frozen=True)
class SpacePoint:
    """A trace with the decisions it was built from and which of them can change."""

    trace: Trace
    decisions: Mapping[str, Decision]
    mutable: tuple[str, ...]


class PointMemory:
    """The points a space built, by trace, forgetting the least recently used past `limit`."""

    def __init__(self, limit: int = REMEMBERED_TRACES) -> None:
        self.limit = limit
        self._points: OrderedDict[Trace, SpacePoint] = OrderedDict()

    def __len__(self) -> int:
        return len(self._points)

    def remember(self, point: SpacePoint) -> None:
        """Keep `point` (as the most recently used)."""
        self._points[point.trace] = point
        self._points.move_to_end(point.trace)
        while len(self._points) > self.limit:
            self._points.popitem(last=False)

    def point_of(self, trace: Trace) -> SpacePoint:
        """The remembered point of `trace`; SpaceError when this space did not build it."""
        point = self._points.get(trace)
        if point is None:
            raise SpaceError(
                "this trace was not built by this search space; mutate it through its "
                "decisions (mutate_decisions / from_decisions)"
            )
        self._points.move_to_end(trace)
        return point
