"""Random search: fresh samples of the space, never one measured or proposed before."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ir.errors import AutotuneError
from ir.schedule import Trace
from tuner.search.base import Space, trace_key

SAMPLE_ATTEMPTS_PER_CANDIDATE = 8


class RandomSearch:
    """Uniform samples from the space (the baseline strategy)."""

    def __init__(self, space: Space, rng: Any) -> None:
        self.space = space
        self.rng = rng
        self.seen: set[str] = set()  # measured or in flight
        self.best_cost_s = float("inf")

    def generate(self, n: int) -> list[Trace]:
        """Up to `n` unseen samples (fewer when samples keep repeating).

        The draws allowed grow with what is seen: a run resumed with its seed draws again,
        first, every sample it measured before."""
        batch: list[Trace] = []
        attempts = 0
        while len(batch) < n and attempts < n * SAMPLE_ATTEMPTS_PER_CANDIDATE + len(self.seen):
            attempts += 1
            try:
                trace = self.space.sample(self.rng)
            except (AutotuneError, ValueError):
                continue
            key = trace_key(trace)
            if key in self.seen:
                continue
            self.seen.add(key)
            batch.append(trace)
        return batch

    def notify(self, traces: Sequence[Trace], results: Sequence[float | None]) -> None:
        """Remember the traces as measured."""
        for trace, cost in zip(traces, results, strict=True):
            self.seen.add(trace_key(trace))
            if cost is not None:
                self.best_cost_s = min(self.best_cost_s, cost)
