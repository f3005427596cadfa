"""Search strategies on a real search space: dedupe, in-flight tracking, eps-greedy, guidance."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from functools import cache

import numpy as np
import pytest

from ir.lower import lower
from ir.schedule import Trace
from ir.schedule.hardware import HardwareParams
from ir.te.program import TEProgram, function_to_te
from tests.tuner.test_features import primitive
from tuner.cost_model import RandomCostModel
from tuner.feature_schema import FEATURE_NAMES
from tuner.features import extract_features
from tuner.search import (
    EvolutionarySearch,
    RandomSearch,
    SearchStrategy,
    make_search,
    trace_key,
)
from tuner.space import SearchSpace

HARDWARE = HardwareParams(vector_bytes=64, num_cores=2)
VECTOR_LEN = FEATURE_NAMES.index("main.vector_len")


@cache
def program() -> TEProgram:
    weight = np.random.default_rng(0).standard_normal((64, 96)).astype(np.float32)
    return function_to_te(primitive("nn.dense", (32, 96), weight))


def space() -> SearchSpace:
    return SearchSpace(program(), HARDWARE, {"p1"})


def featurize(traces: Sequence[Trace]) -> list[np.ndarray | None]:
    return [extract_features(lower(trace.replay(program()))) for trace in traces]


class PreferWideVectors:
    """A fixed 'cost model' that likes long vector loops (to check guidance)."""

    def update(self, features_list: object, throughputs: object, task_keys: object) -> None:
        pass

    def predict(self, features_list: Sequence[np.ndarray]) -> np.ndarray:
        return np.array([row[VECTOR_LEN] for row in features_list], dtype=np.float64)

    def save(self, path: object) -> None:
        pass

    def load(self, path: object) -> None:
        pass


def evolutionary(
    eps_greedy: float = 0.05, model: object = None, seed: int = 0
) -> EvolutionarySearch:
    return EvolutionarySearch(
        space(),
        model or RandomCostModel(seed),  # type: ignore[arg-type]
        featurize,
        random.Random(seed),
        population=32,
        generations=2,
        eps_greedy=eps_greedy,
    )


def test_generate_never_repeats_measured_or_in_flight_candidates() -> None:
    search = evolutionary()
    first = search.generate(8)
    assert len(first) == 8
    assert len({trace_key(t) for t in first}) == 8
    # Still in flight: a second batch is disjoint from the first.
    second = search.generate(8)
    assert not {trace_key(t) for t in first} & {trace_key(t) for t in second}
    search.notify(first, [1e-3] * 4 + [None] * 4)
    search.notify(second, [2e-3] * 8)
    assert not search.in_flight
    third = search.generate(8)
    seen = {trace_key(t) for t in [*first, *second]}
    assert not seen & {trace_key(t) for t in third}


def test_measured_seeds_are_never_proposed_again() -> None:
    sampler = space()
    rng = random.Random(5)
    seeds = [sampler.sample(rng) for _ in range(20)]
    search = evolutionary(seed=5)
    search.notify(seeds, [1e-3 * (i + 1) for i in range(20)])
    batch = search.generate(16)
    assert not {trace_key(t) for t in seeds} & {trace_key(t) for t in batch}


@pytest.mark.parametrize(("eps", "expected_random"), [(0.0, 0), (0.25, 4), (0.5, 8), (1.0, 16)])
def test_eps_greedy_share_of_random_samples(eps: float, expected_random: int) -> None:
    search = evolutionary(eps_greedy=eps)
    batch = search.generate(16)
    origins = [search.origins[trace_key(t)] for t in batch]
    assert len(batch) == 16
    assert origins.count("random") == expected_random
    assert origins.count("model") == 16 - expected_random


def cheap_features(traces: Sequence[Trace]) -> list[np.ndarray | None]:
    """Pseudo-features from the trace text (no lowering), for tests of bookkeeping only."""
    return [
        np.frombuffer(hashlib.sha256(trace_key(t).encode()).digest(), dtype=np.uint8).astype(
            np.float32
        )
        for t in traces
    ]


def test_fractional_eps_greedy_is_right_on_average() -> None:
    # 0.25 x 2 = 0.5 random samples per batch: each batch has 0 or 1, about half have 1.
    search = EvolutionarySearch(
        space(), RandomCostModel(0), cheap_features, random.Random(0), population=16,
        generations=1, eps_greedy=0.25,
    )  # fmt: skip
    counts = []
    for _ in range(20):
        batch = search.generate(2)
        counts.append(sum(search.origins[trace_key(t)] == "random" for t in batch))
        search.notify(batch, [1e-3] * len(batch))
    assert set(counts) <= {0, 1}
    assert 4 <= sum(counts) <= 16


def test_cost_model_guides_the_pick() -> None:
    guided = evolutionary(eps_greedy=0.0, model=PreferWideVectors(), seed=3)
    picked = featurize(guided.generate(8))
    rng = random.Random(3)
    sampler = space()
    sampled = featurize([sampler.sample(rng) for _ in range(64)])
    picked_mean = np.mean([row[VECTOR_LEN] for row in picked if row is not None])
    sampled_mean = np.mean([row[VECTOR_LEN] for row in sampled if row is not None])
    assert picked_mean > sampled_mean


def test_invalid_candidates_are_dropped() -> None:
    def half_invalid(traces: Sequence[Trace]) -> list[np.ndarray | None]:
        return [
            f if len(trace_key(t)) % 2 else None
            for t, f in zip(traces, featurize(traces), strict=True)
        ]

    search = EvolutionarySearch(
        space(), RandomCostModel(0), half_invalid, random.Random(0), population=32, generations=1
    )
    batch = search.generate(8)
    assert batch and all(len(trace_key(t)) % 2 for t in batch)


def test_random_search_dedupes() -> None:
    search = RandomSearch(space(), random.Random(0))
    first = search.generate(10)
    second = search.generate(10)
    keys = [trace_key(t) for t in [*first, *second]]
    assert len(keys) == len(set(keys)) == 20


def test_a_resumed_random_search_goes_past_what_it_replays() -> None:
    """A run resumed with the same seed draws the samples it measured before first: those
    are seen, and it must go past them instead of declaring the space exhausted (a job
    once ended after a driver handover with 19 of its 40 trials)."""
    first_run = RandomSearch(space(), random.Random(5))
    measured = [trace for _ in range(20) for trace in first_run.generate(2)]
    assert len(measured) == 40
    resumed = RandomSearch(space(), random.Random(5))
    resumed.notify(measured, [1e-3] * len(measured))
    batch = resumed.generate(2)
    assert len(batch) == 2
    assert not {trace_key(t) for t in batch} & {trace_key(t) for t in measured}


def test_factory() -> None:
    strategy = make_search(
        "evolutionary",
        space(),
        random.Random(0),
        cost_model=RandomCostModel(),
        feature_fn=featurize,
    )
    assert isinstance(strategy, EvolutionarySearch) and isinstance(strategy, SearchStrategy)
    assert isinstance(make_search("random", space(), random.Random(0)), RandomSearch)
    with pytest.raises(ValueError, match="needs a cost_model"):
        make_search("evolutionary", space(), random.Random(0))
    with pytest.raises(ValueError, match="unknown search strategy"):
        make_search("annealing", space(), random.Random(0))
