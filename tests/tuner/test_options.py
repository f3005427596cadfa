"""TuneOptions: one value of every tuning option, its JSON form, and its errors by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.measure import MeasureOptions
from service.job_options import JOB_OPTION_FIELDS, job_options_json, job_tune_options
from tuner.options import (
    COST_MODEL_KINDS,
    SEARCH_KINDS,
    TuneOptions,
    TuneOptionsError,
)


def test_defaults_live_in_one_place() -> None:
    options = TuneOptions(trials=8)
    assert options.batch_size == 16 and options.search == "evolutionary"
    assert options.measure == MeasureOptions() and options.remeasure_top == 3
    assert TuneOptions.from_json({"trials": 8}) == options
    schema = TuneOptions.json_schema()["properties"]
    assert schema["batch_size"]["default"] == 16
    assert schema["measure"]["default"] == MeasureOptions().to_json()
    assert "default" not in schema["trials"]  # required


_OTHER_FIELDS: dict[str, Any] = dict(
    trials=st.integers(1, 10_000),
    time_limit_s=st.none() | st.floats(0.001, 1e6),
    batch_size=st.integers(1, 256),
    cost_model=st.sampled_from(COST_MODEL_KINDS),
    measure=st.builds(
        MeasureOptions,
        number=st.integers(0, 100),
        repeat=st.integers(1, 10),
        min_repeat_ms=st.floats(0, 1000),
        flush_cache=st.booleans(),
    ),
    remeasure_top=st.integers(0, 32),
    early_stopping_trials=st.none() | st.integers(1, 1000),
    seed=st.integers(0, 2**31),
    feature_workers=st.none() | st.integers(0, 64),
    calibrate=st.booleans(),
    count_shared_records=st.booleans(),
)


@st.composite
def _search(draw: st.DrawFn) -> dict[str, Any]:
    """A search kind and options it takes."""
    kind = draw(st.sampled_from(SEARCH_KINDS))
    names = ["population", "generations"] if kind == "evolutionary" else []
    options = draw(st.dictionaries(st.sampled_from(names), st.integers(1, 9))) if names else {}
    return {"search": kind, "search_options": options}


options_strategy = _search().flatmap(
    lambda search: st.builds(
        TuneOptions,
        search=st.just(search["search"]),
        search_options=st.just(search["search_options"]),
        **_OTHER_FIELDS,
    )
)


@given(options_strategy)
def test_the_json_form_round_trips(options: TuneOptions) -> None:
    data = options.to_json()
    assert TuneOptions.from_json(json.loads(json.dumps(data))) == options


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ([], "tuning options must be an object"),
        ({}, "trials (the trial budget) is required"),
        ({"trials": 0}, "trials must be a whole number from 1"),
        ({"trials": True}, "trials must be a whole number"),
        ({"trials": 4, "batch_sise": 3}, "unknown tuning option batch_sise"),
        ({"trials": 4, "search": "annealing"}, "search must be one of evolutionary, random"),
        ({"trials": 4, "time_limit_s": 0}, "time_limit_s must be a positive number"),
        ({"trials": 4, "time_limit_s": float("inf")}, "time_limit_s must be finite"),
        ({"trials": 4, "measure": {"repeat": 0}}, "measure.repeat must be from 1 to 100"),
        ({"trials": 4, "measure": {"repeats": 3}}, "measure has no field repeats"),
        ({"trials": 4, "measure": {"flush_cache": "yes"}}, "measure.flush_cache must be true"),
        ({"trials": 4, "measure": [1]}, "measure must be an object"),
        ({"trials": 4, "search_options": {"a": [1]}}, "search_options must be an object of"),
        ({"trials": 4, "search_options": {"rounds": 2}}, "search_options has no rounds for"),
        ({"trials": 4, "feature_workers": -1}, "feature_workers must be a whole number from 0"),
        ({"trials": 4, "calibrate": 1}, "calibrate must be true or false"),
    ],
)
def test_a_bad_option_is_refused_by_name(data: Any, fragment: str) -> None:
    with pytest.raises(TuneOptionsError) as raised:
        TuneOptions.from_json(data)
    assert fragment in str(raised.value)
    assert isinstance(raised.value, ValueError)  # (a 422 where the API validates it)


def test_a_path_is_kept_as_its_text(tmp_path: Path) -> None:
    options = TuneOptions(trials=2, cost_model_path=tmp_path / "model.json")  # type: ignore[arg-type]
    assert options.cost_model_path == str(tmp_path / "model.json")
    assert options.replace(trials=3).cost_model_path == options.cost_model_path


def test_a_job_sets_only_its_fields_and_takes_its_budget_and_cache_default() -> None:
    options = job_tune_options({"batch_size": 4}, trials=9, time_limit_s=30.0, cold_caches=True)
    assert (options.trials, options.time_limit_s, options.batch_size) == (9, 30.0, 4)
    assert options.measure.flush_cache is True and options.calibrate is False
    warm = job_tune_options({"measure": {"flush_cache": None}}, 9, None, cold_caches=False)
    assert warm.measure.flush_cache is False
    told = job_tune_options({"measure": {"flush_cache": False}}, 9, None, cold_caches=True)
    assert told.measure.flush_cache is False
    stored = job_options_json(options)
    assert set(stored) == set(JOB_OPTION_FIELDS)
    assert job_tune_options(stored, 9, 30.0, cold_caches=False) == options
    for name in ("trials", "cost_model_path", "calibrate", "cost_model"):
        with pytest.raises(TuneOptionsError, match=f"not a job option: {name}"):
            job_tune_options({name: 1}, 9, None, cold_caches=False)
