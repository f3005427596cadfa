"""Choices: where the scheduling rules take every decision they make.

A rule asks for each choice under a stable key such as `"conv2d.tile.x"` (a tile
factorization, the vectorized length, the stages run in parallel, ...), with the valid
values and, where the rule has a heuristic for it, the value it prefers. Who answers
decides what the rules build: `PreferredChoices` takes every preferred value (the default
schedule), the search's chooser (`tuner.space.decisions.Chooser`) replays recorded values
and draws the others (a point of the search space). So the default schedule and the
search space are built by the same rules, and the default is a point of the space.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from ir.errors import AutotuneError

Decision = int | str | tuple[int, ...]
Decisions = dict[str, Decision]


class SpaceError(AutotuneError):
    """Decisions do not describe a schedule of this search space (missing or invalid)."""


def nearest_candidate(preferred: Decision, candidates: Sequence[Decision]) -> Decision:
    """`preferred` when it is a candidate; else, for an integer, the largest candidate
    below it (the smallest when none is); else the first candidate."""
    if preferred in candidates:
        return preferred
    if isinstance(preferred, int):
        numbers = [c for c in candidates if isinstance(c, int)]
        below = [c for c in numbers if c <= preferred]
        if below or numbers:
            return max(below) if below else min(numbers)
    return candidates[0]


class Choices(ABC):
    """What a rule asks its choices of (see the module docstring): every kind of choice
    comes down to `choose_by`, which the default's and the search's choices implement."""

    def choose(
        self, key: str, candidates: Sequence[Decision], preferred: Decision | None = None
    ) -> Decision:
        """One of `candidates` (a non-empty list of valid values)."""
        options = list(candidates)
        if not options:
            raise SpaceError(f"decision {key}: no valid choice")
        return self.choose_by(
            key,
            valid=lambda value: value in options,
            draw=lambda rng: rng.choice(options),
            mutable=len(options) > 1,
            preferred=None if preferred is None else nearest_candidate(preferred, options),
        )

    def choose_int(
        self,
        key: str,
        candidates: Sequence[int],
        nearest: bool = False,
        preferred: int | None = None,
    ) -> int:
        """One of the integer `candidates`. With `nearest`, a given value that is no
        longer a candidate becomes the largest candidate below it (a count of loops to
        fuse stays as close as it can when other decisions change the loops)."""
        options = list(candidates)
        if not options:
            raise SpaceError(f"decision {key}: no valid choice")

        def repair(old: Decision) -> Decision | None:
            if not nearest or not isinstance(old, int):
                return None
            below = [option for option in options if option <= old]
            return max(below) if below else min(options)

        value = self.choose_by(
            key,
            valid=lambda value: value in options,
            draw=lambda rng: rng.choice(options),
            repair=repair,
            mutable=len(options) > 1,
            preferred=None if preferred is None else nearest_candidate(preferred, options),
        )
        assert isinstance(value, int)
        return value

    def choose_str(self, key: str, candidates: Sequence[str], preferred: str | None = None) -> str:
        """One of the string `candidates`."""
        value = self.choose(key, candidates, preferred)
        assert isinstance(value, str)
        return value

    @abstractmethod
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
        """A value that satisfies `valid`: given, preferred or drawn from `draw`.
        `neighbour(rng, old)` proposes a small change for a mutation, `repair(old)` a valid
        value close to a given one that became invalid; `mutable` says whether other
        valid values exist."""


class PreferredChoices(Choices):
    """The default schedule's choices: every decision the value its rule prefers (where
    a preference is no longer valid, the nearest valid value, see `nearest_candidate`).
    A rule that asks without a preference is an error: the default must not draw."""

    def __init__(self) -> None:
        self.decisions: Decisions = {}

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
        """The preferred value, which must be valid."""
        if preferred is None or not valid(preferred):
            raise SpaceError(f"decision {key}: the rule states no valid preferred value")
        if key in self.decisions:
            raise SpaceError(f"decision {key} is made twice in one build")
        self.decisions[key] = preferred
        return preferred
