"""The search-strategy interface and what a strategy needs from a search space.

A strategy proposes batches of candidate schedules (traces) for one task and is told
how they measured. `notify` takes each trace's measured cost in seconds, or None when
the candidate failed (build error, wrong result, timeout): errors are data here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ir.schedule import Trace

FeatureFn = Callable[[Sequence[Trace]], list[np.ndarray | None]]
"""Features of candidate traces; None for a trace that does not lower (invalid)."""


class Space(Protocol):
    """A task's design space: random candidates and random edits of a candidate."""

    def sample(self, rng: Any) -> Trace:
        """A random valid-looking candidate."""
        ...

    def mutate(self, trace: Trace, rng: Any) -> Trace:
        """A random neighbour of `trace`."""
        ...


@runtime_checkable
class SearchStrategy(Protocol):
    """Proposes unmeasured candidates in batches; learns from their measurements."""

    def generate(self, n: int) -> list[Trace]:
        """Up to `n` new candidates, none measured or proposed before (fewer when the
        space seems exhausted; an empty list means there is nothing left to try)."""
        ...

    def notify(self, traces: Sequence[Trace], results: Sequence[float | None]) -> None:
        """Measured costs in seconds (None = failed) of traces, proposed or seeded."""
        ...


def trace_key(trace: Trace) -> str:
    """The identity of a candidate within a task: its canonical trace text."""
    return trace.dumps()
