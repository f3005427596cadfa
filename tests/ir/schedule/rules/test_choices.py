"""PreferredChoices: the default schedule's side of the rules' choices."""

from __future__ import annotations

import pytest

from ir.schedule.rules.choices import PreferredChoices, SpaceError, nearest_candidate


def test_every_choice_takes_the_rules_preferred_value() -> None:
    choices = PreferredChoices()
    assert choices.choose_int("a.vector", [1, 4, 8, 16], preferred=8) == 8
    assert choices.choose_str("a.by_rows", ["stages", "rows"], preferred="rows") == "rows"
    assert choices.choose_by("a.tile", lambda v: v == (2, 4), lambda rng: (1, 8), preferred=(2, 4))
    assert choices.decisions == {"a.vector": 8, "a.by_rows": "rows", "a.tile": (2, 4)}


def test_a_preference_that_is_no_candidate_becomes_the_nearest_below() -> None:
    # (a count of 1 << 30 parallel loops: every loop there is)
    assert PreferredChoices().choose_int("a.parallel", [0, 1, 3], preferred=1 << 30) == 3
    assert nearest_candidate(2, [4, 8]) == 4  # none below: the smallest
    assert nearest_candidate("x", ["a", "b"]) == "a"


def test_a_choice_without_preference_or_made_twice_is_an_error() -> None:
    choices = PreferredChoices()
    with pytest.raises(SpaceError, match=r"a\.vector: the rule states no valid preferred value"):
        choices.choose_int("a.vector", [1, 4])
    with pytest.raises(SpaceError, match=r"a\.tile: the rule states no valid preferred value"):
        choices.choose_by("a.tile", lambda v: False, lambda rng: (1,), preferred=(1,))
    choices.choose_int("a.parallel", [0, 1], preferred=1)
    with pytest.raises(SpaceError, match="made twice"):
        choices.choose_int("a.parallel", [0, 1], preferred=1)
