"""Search strategies: which candidate schedules of a task to measure next.

`make_search("evolutionary" | "random", ...)` is the one place a kind string becomes a
strategy.
"""

from __future__ import annotations

import inspect
from typing import Any

from tuner.cost_model.base import CostModel
from tuner.search.base import FeatureFn, SearchStrategy, Space, trace_key
from tuner.search.evolutionary import EvolutionarySearch
from tuner.search.random_search import RandomSearch

SEARCH_KINDS = ("evolutionary", "random")
_STRATEGIES: dict[str, type[SearchStrategy]] = {
    "evolutionary": EvolutionarySearch,
    "random": RandomSearch,
}
_GIVEN = {"self", "space", "cost_model", "feature_fn", "rng"}  # (not options)


def search_option_names(kind: str) -> tuple[str, ...]:
    """The options (keyword arguments) a search strategy of `kind` takes."""
    parameters = inspect.signature(_STRATEGIES[kind].__init__).parameters
    return tuple(name for name in parameters if name not in _GIVEN)


def make_search(
    kind: str,
    space: Space,
    rng: Any,
    cost_model: CostModel | None = None,
    feature_fn: FeatureFn | None = None,
    **options: Any,
) -> SearchStrategy:
    """A search strategy by name; "evolutionary" needs a cost model and a feature function."""
    if kind == "evolutionary":
        if cost_model is None or feature_fn is None:
            raise ValueError("evolutionary search needs a cost_model and a feature_fn")
        return EvolutionarySearch(space, cost_model, feature_fn, rng, **options)
    if kind == "random":
        return RandomSearch(space, rng, **options)
    raise ValueError(f"unknown search strategy {kind!r}; known: {', '.join(SEARCH_KINDS)}")


__all__ = [
    "SEARCH_KINDS",
    "EvolutionarySearch",
    "FeatureFn",
    "RandomSearch",
    "SearchStrategy",
    "Space",
    "make_search",
    "search_option_names",
    "trace_key",
]
