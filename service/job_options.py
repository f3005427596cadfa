"""A job's tuning options: the part of `TuneOptions` a REST client may set, and the
TuneOptions a job runs with (the budget from the job, the cache default from its subject)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tuner.options import TuneOptions, TuneOptionsError

# What a job may set. Left out on purpose: the budget (the job's own `trials` and
# `time_limit_s`), `calibrate` (the service stores every posted result as a record, so a
# default timed beside each batch would become records of its own), and the cost model's
# kind, options and path (the service's own concern; a path would be a file on its disk).
JOB_OPTION_FIELDS = (
    "batch_size",
    "search",
    "remeasure_top",
    "early_stopping_trials",
    "seed",
    "search_options",
    "measure",
    "count_shared_records",
    "feature_workers",
    "size_histogram",
)


def job_tune_options(
    options: Mapping[str, Any], trials: int, time_limit_s: float | None, cold_caches: bool
) -> TuneOptions:
    """The TuneOptions of a job with these `options` (its JSON), budget and subject:
    `measure.flush_cache` left out or null becomes `cold_caches`. TuneOptionsError (a
    ValueError) names a field that is unknown, not a job's to set, or out of range."""
    if not isinstance(options, Mapping):
        raise TuneOptionsError(f"options must be an object, got {type(options).__name__}")
    refused = sorted(set(options) - set(JOB_OPTION_FIELDS))
    if refused:
        raise TuneOptionsError(
            f"not a job option: {', '.join(refused)}; a job sets {', '.join(JOB_OPTION_FIELDS)}"
        )
    data = dict(options)
    measure = data.get("measure") or {}
    if not isinstance(measure, Mapping):
        raise TuneOptionsError(f"measure must be an object, got {type(measure).__name__}")
    if measure.get("flush_cache") is None:
        measure = {**measure, "flush_cache": cold_caches}
    data.update(measure=measure, trials=trials, time_limit_s=time_limit_s, calibrate=False)
    return TuneOptions.from_json(data)


def job_options_json(options: TuneOptions) -> dict[str, Any]:
    """What a job stores of its TuneOptions: every job field, defaults filled in."""
    data = options.to_json()
    return {name: data[name] for name in JOB_OPTION_FIELDS}


def job_options_schema() -> dict[str, Any]:
    """The JSON schema of each job field (for the API's documentation)."""
    properties: dict[str, Any] = TuneOptions.json_schema()["properties"]
    return {name: properties[name] for name in JOB_OPTION_FIELDS}
