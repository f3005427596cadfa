"""Decisions: the random choices that pick one schedule out of the space, as a small dict.

A build of the space walks the program's stages in a fixed order and asks a `Chooser`
for every choice it makes (a tile factorization, the vectorized axis, the unroll
budget, ...), each under a stable key such as `"conv2d.tile.x"`. The chooser replays
the value recorded under that key when it is still one of the valid choices, and
otherwise draws one from the random generator. So the same decisions always rebuild the
same trace, a missing or stale decision is re-drawn, and a mutation is a rebuild in
which exactly one key is re-drawn.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from ir.schedule.rules.choices import Choices, Decision, Decisions, SpaceError

__all__ = [
    "Chooser",
    "Decision",
    "Decisions",
    "SpaceError",
    "decisions_from_json",
    "decisions_to_json",
]

RESAMPLE_ATTEMPTS = 16  # draws tried when a mutation looks for a value other than the old one
NEIGHBOUR_PROBABILITY = 0.5  # how often a mutated tile moves one factor instead of re-drawing


def decisions_to_json(decisions: Mapping[str, Decision]) -> dict[str, Any]:
    """Plain JSON data (tuples become lists)."""
    return {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in sorted(decisions.items())
    }


def decisions_from_json(data: Mapping[str, Any]) -> Decisions:
    """Parse decisions from JSON data (lists become tuples)."""
    result: Decisions = {}
    for key, value in data.items():
        if isinstance(value, list) and all(
            isinstance(item, int) and not isinstance(item, bool) for item in value
        ):
            result[str(key)] = tuple(value)
        elif isinstance(value, int | str) and not isinstance(value, bool):
            result[str(key)] = value
        else:
            raise SpaceError(f"decision {key!r} has a value of unknown kind: {value!r}")
    return result


class Chooser(Choices):
    """Makes the decisions of one build of the space: replays `given`, draws what is
    missing (the search's side of `ir.schedule.rules.choices.Choices`).

    With `rng` None every decision must be given and valid (a strict replay). The key
    named `resample` is re-drawn even when given, preferring a value other than the old.
    With `prefer`, a decision that is not given takes the value its rule prefers (the
    default schedule's), where the rule states one, instead of a drawn one.
    """

    def __init__(
        self,
        given: Mapping[str, Decision],
        rng: random.Random | None,
        resample: str | None = None,
        prefer: bool = False,
    ) -> None:
        self.given = given
        self.rng = rng
        self.resample = resample
        self.prefer = prefer
        self.decisions: Decisions = {}
        self.mutable: list[str] = []  # keys with more than one valid value, in build order
        self.preferred: list[str] = []  # keys that took their rule's preferred value

    def choose_by(
        self,
        key: str,
        valid: Callable[[Decision], bool],
        draw: Callable[[random.Random], Decision],
        neighbour: Callable[[random.Random, Decision], Decision | None] | None = None,
        repair: Callable[[Decision], Decision | None] | None = None,
        mutable: bool = True,
        preferred: Decision | None = None,
    ) -> Decision:
        """A value that satisfies `valid`: the given one, the preferred one (with
        `prefer`), or one from `draw`.

        `neighbour(rng, old)` proposes a small change of the old value for a mutation
        (None when there is none); `repair(old)` a valid value close to a given one that
        became invalid, before drawing a new one (not in a strict replay); `mutable`
        says whether other valid values exist.
        """
        if key in self.decisions:
            raise SpaceError(f"decision {key} is made twice in one build")
        old = self.given.get(key)
        if old is not None and valid(old) and key != self.resample:
            value = old
        elif self.prefer and old is None and preferred is not None and valid(preferred):
            value = preferred
            self.preferred.append(key)
        elif self.rng is None:
            reason = "missing" if old is None else f"{old!r} is not a valid choice"
            raise SpaceError(f"decision {key}: {reason}")
        elif key == self.resample and old is not None and valid(old):
            value = self._redraw(old, draw, neighbour)
        else:
            repaired = None if old is None or repair is None else repair(old)
            value = repaired if repaired is not None and valid(repaired) else draw(self.rng)
        self.decisions[key] = value
        if mutable:
            self.mutable.append(key)
        return value

    def _redraw(
        self,
        old: Decision,
        draw: Callable[[random.Random], Decision],
        neighbour: Callable[[random.Random, Decision], Decision | None] | None,
    ) -> Decision:
        assert self.rng is not None
        if neighbour is not None and self.rng.random() < NEIGHBOUR_PROBABILITY:
            moved = neighbour(self.rng, old)
            if moved is not None and moved != old:
                return moved
        value = draw(self.rng)
        for _ in range(RESAMPLE_ATTEMPTS):
            if value != old:
                break
            value = draw(self.rng)
        return value
