"""Evolutionary search guided by a cost model (Ansor's and MetaSchedule's strategy).

Step 1. The initial population: the best measured candidates (up to
        `init_measured_ratio` of it) plus fresh samples of the space.
Step 2. For `generations` rounds: score the population with the cost model, pick
        parents with probability growing with their score, and mutate each child with
        probability `mutation_prob` (otherwise it is a copy of its parent). Every scored
        candidate enters one pool, deduplicated by trace text.
Step 3. The batch: the best-scored pool members that are neither measured nor in flight,
        and a fraction `eps_greedy` of fresh random samples (exploration; the count is
        rounded stochastically, so it is right on average even for small batches).

A trace whose features cannot be computed (it does not lower) is dropped as invalid.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ir.errors import AutotuneError
from ir.schedule import Trace
from tuner.cost_model.base import CostModel
from tuner.gc_pause import collector_paused
from tuner.search.base import FeatureFn, Space, trace_key

FEATURE_CACHE_LIMIT = 50_000
SAMPLE_ATTEMPTS_PER_CANDIDATE = 4


class EvolutionarySearch:
    """See the module docstring."""

    def __init__(
        self,
        space: Space,
        cost_model: CostModel,
        feature_fn: FeatureFn,
        rng: Any,
        population: int = 256,
        generations: int = 3,
        mutation_prob: float = 0.85,
        eps_greedy: float = 0.05,
        init_measured_ratio: float = 0.2,
    ) -> None:
        self.space = space
        self.cost_model = cost_model
        self.feature_fn = feature_fn
        self.rng = rng
        self.population = population
        self.generations = generations
        self.mutation_prob = mutation_prob
        self.eps_greedy = eps_greedy
        self.init_measured_ratio = init_measured_ratio
        self.measured: dict[str, tuple[Trace, float]] = {}  # key -> (trace, cost or inf)
        self.in_flight: set[str] = set()
        self.features: dict[str, np.ndarray | None] = {}
        self.origins: dict[str, str] = {}  # key -> "model" | "random", for the last batch
        self._choice = np.random.default_rng(_seed_of(rng))

    # -- the SearchStrategy protocol ---------------------------------------------------------

    def generate(self, n: int) -> list[Trace]:
        """Up to `n` unmeasured candidates: model-picked, plus eps-greedy random ones."""
        if n <= 0:
            return []
        with collector_paused():  # (building, lowering and scoring ~1000 candidates)
            return self._generate(n)

    def _generate(self, n: int) -> list[Trace]:
        expected_random = n * self.eps_greedy
        n_random = math.floor(expected_random + self._choice.random())
        n_random = min(n, n_random)
        self.origins = {}
        pool = self.evolve()
        batch: list[Trace] = []
        for trace in pool:
            if len(batch) >= n - n_random:
                break
            key = trace_key(trace)
            if self._fresh(key):
                self._take(key, batch, trace, "model")
        # Random samples: the eps-greedy share, and whatever the pool could not fill.
        batch.extend(self.random_candidates(n - len(batch)))
        return batch

    def notify(self, traces: Sequence[Trace], results: Sequence[float | None]) -> None:
        """Record measured costs (None = failed); the traces are no longer in flight."""
        for trace, cost in zip(traces, results, strict=True):
            key = trace_key(trace)
            self.in_flight.discard(key)
            value = math.inf if cost is None or not math.isfinite(cost) else float(cost)
            previous = self.measured.get(key)
            if previous is None or value < previous[1]:
                self.measured[key] = (trace, value)

    # -- steps -----------------------------------------------------------------------------

    def evolve(self) -> list[Trace]:
        """Steps 1 and 2: the scored pool, best first."""
        population = self.initial_population()
        pool: dict[str, tuple[float, Trace]] = {}
        for generation in range(self.generations + 1):
            valid, scores = self.score(population)
            for trace, score in zip(valid, scores, strict=True):
                pool[trace_key(trace)] = (float(score), trace)
            if generation == self.generations or not valid:
                break
            population = self.next_generation(valid, scores)
        ranked = sorted(pool.items(), key=lambda item: (-item[1][0], item[0]))
        return [trace for _, (_, trace) in ranked]

    def initial_population(self) -> list[Trace]:
        best = sorted(
            (item for item in self.measured.values() if math.isfinite(item[1])),
            key=lambda item: item[1],
        )
        seeds = [trace for trace, _ in best[: int(self.population * self.init_measured_ratio)]]
        samples = self.samples(self.population - len(seeds))
        return seeds + samples

    def next_generation(self, parents: list[Trace], scores: np.ndarray) -> list[Trace]:
        weights = np.asarray(scores, dtype=np.float64)
        weights = weights - weights.min() + 1e-6 * (np.ptp(weights) + 1e-12)
        probabilities = weights / weights.sum()
        picks = self._choice.choice(len(parents), size=self.population, p=probabilities)
        children = []
        for index in picks:
            parent = parents[int(index)]
            child = parent
            if self._choice.random() < self.mutation_prob:
                try:
                    child = self.space.mutate(parent, self.rng)
                except (AutotuneError, ValueError):
                    child = parent
            children.append(child)
        return children

    def score(self, traces: list[Trace]) -> tuple[list[Trace], np.ndarray]:
        """The valid traces (duplicates removed) and their predicted scores."""
        unique: dict[str, Trace] = {}
        for trace in traces:
            unique.setdefault(trace_key(trace), trace)
        self._featurize(list(unique.items()))
        valid = [(key, t) for key, t in unique.items() if self.features.get(key) is not None]
        if not valid:
            return [], np.zeros(0)
        rows = [self.features[key] for key, _ in valid]
        scores = self.cost_model.predict([row for row in rows if row is not None])
        return [trace for _, trace in valid], np.asarray(scores, dtype=np.float64)

    def random_candidates(self, count: int) -> list[Trace]:
        """Up to `count` fresh, valid samples (marked in flight)."""
        batch: list[Trace] = []
        attempts = 0
        while len(batch) < count and attempts < SAMPLE_ATTEMPTS_PER_CANDIDATE:
            attempts += 1
            candidates = [t for t in self.samples(2 * (count - len(batch))) if self._fresh_t(t)]
            self._featurize([(trace_key(t), t) for t in candidates])
            for trace in candidates:
                key = trace_key(trace)
                if len(batch) < count and self._fresh(key) and self.features.get(key) is not None:
                    self._take(key, batch, trace, "random")
        return batch

    def samples(self, count: int) -> list[Trace]:
        traces = []
        for _ in range(max(0, count)):
            try:
                traces.append(self.space.sample(self.rng))
            except (AutotuneError, ValueError):
                continue
        return traces

    # -- helpers ---------------------------------------------------------------------------

    def _featurize(self, items: list[tuple[str, Trace]]) -> None:
        missing = [(key, trace) for key, trace in items if key not in self.features]
        if not missing:
            return
        if len(self.features) + len(missing) > FEATURE_CACHE_LIMIT:
            self.features.clear()
        values = self.feature_fn([trace for _, trace in missing])
        for (key, _), value in zip(missing, values, strict=True):
            self.features[key] = value

    def _fresh(self, key: str) -> bool:
        return key not in self.measured and key not in self.in_flight

    def _fresh_t(self, trace: Trace) -> bool:
        return self._fresh(trace_key(trace))

    def _take(self, key: str, batch: list[Trace], trace: Trace, origin: str) -> None:
        self.in_flight.add(key)
        self.origins[key] = origin
        batch.append(trace)


def _seed_of(rng: Any) -> int:
    """A seed for the strategy's own choices, derived from the space's rng."""
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, 2**31))
    if hasattr(rng, "getrandbits"):
        return int(rng.getrandbits(31))
    return 0
