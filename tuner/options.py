"""How a tuning run spends its budget and measures: one frozen value, `TuneOptions`.

`autotune tune`, a job's options (the REST API stores `to_json()`), the job driver and the
tuner all read the same value, so each default lives here and nowhere else. `from_json`
takes the JSON form (missing fields take their defaults) and refuses anything else with a
TuneOptionsError that names the field.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from codegen.measure import MeasureOptions
from ir.errors import AutotuneError
from tuner.cost_model import COST_MODEL_KINDS
from tuner.search import SEARCH_KINDS, search_option_names

MAX_TRIALS = 10_000_000
MAX_BATCH_SIZE = 256
REMEASURE_TOP = 3  # candidates per task re-measured before the best is declared
MAX_REMEASURE_TOP = 32
MAX_FEATURE_WORKERS = 64
MAX_SEED = 2**31


class TuneOptionsError(AutotuneError, ValueError):
    """A tuning option is missing, of the wrong type or out of range; says which."""


@dataclass(frozen=True)
class TuneOptions:
    """Everything a tuning run is told, besides what it tunes and for which target.

    `trials` is the total budget over all tasks, counting candidates already in the record
    store unless `count_shared_records` is off (then only this run's own count); the run
    also stops at `time_limit_s`. Each task is measured in batches of `batch_size`
    candidates proposed by `search` ("evolutionary": guided by the `cost_model`; "random")
    and timed under `measure`. `remeasure_top` candidates per task are measured again
    before a best is declared. A task stops after `early_stopping_trials` trials without
    improvement. `cost_model_path` is loaded first when it exists (a warm start) and saved
    at the end. `feature_workers` processes featurize candidates beside the tuner (None:
    one per other core). With `calibrate`, each batch is timed beside the task's default
    schedule and the search sees costs on the default's scale (`tuner.tune`). With
    `in_model`, a whole model tuned on this machine ends with its tuned kernels timed
    inside the compiled model beside their defaults, and those timings decide
    (`tuner.in_model`). `size_histogram` says how often each size of a symbolic model's
    size variables occurs (`tuner.size_histogram`): it shares the budget between a
    kernel's size buckets.
    """

    trials: int
    time_limit_s: float | None = None
    batch_size: int = 16
    search: str = "evolutionary"
    cost_model: str = "xgb"
    measure: MeasureOptions = field(default_factory=MeasureOptions)
    remeasure_top: int = REMEASURE_TOP
    early_stopping_trials: int | None = None
    search_options: Mapping[str, Any] = field(default_factory=dict)
    cost_model_options: Mapping[str, Any] = field(default_factory=dict)
    cost_model_path: str | None = None  # (a Path is taken too, and kept as its str)
    seed: int = 0
    feature_workers: int | None = None
    calibrate: bool = True
    count_shared_records: bool = True
    in_model: bool = True
    size_histogram: Mapping[str, Mapping[int, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_int("trials", self.trials, 1, MAX_TRIALS)
        if self.time_limit_s is not None:
            _check_number("time_limit_s", self.time_limit_s)
        _check_int("batch_size", self.batch_size, 1, MAX_BATCH_SIZE)
        _check_choice("search", self.search, SEARCH_KINDS)
        _check_choice("cost_model", self.cost_model, COST_MODEL_KINDS)
        if not isinstance(self.measure, MeasureOptions):
            raise TuneOptionsError(f"measure must be MeasureOptions, got {self.measure!r}")
        _check_int("remeasure_top", self.remeasure_top, 0, MAX_REMEASURE_TOP)
        if self.early_stopping_trials is not None:
            _check_int("early_stopping_trials", self.early_stopping_trials, 1, MAX_TRIALS)
        for name in ("search_options", "cost_model_options"):
            value = getattr(self, name)
            if not isinstance(value, Mapping) or not all(
                isinstance(k, str) and isinstance(v, bool | int | float | str)
                for k, v in value.items()
            ):
                raise TuneOptionsError(f"{name} must be an object of numbers, flags and names")
        known = search_option_names(self.search)
        unknown = sorted(set(self.search_options) - set(known))
        if unknown:
            raise TuneOptionsError(
                f"search_options has no {', '.join(unknown)} for {self.search} search; "
                f"known: {', '.join(known) or 'none'}"
            )
        if isinstance(self.cost_model_path, os.PathLike):
            object.__setattr__(self, "cost_model_path", os.fspath(self.cost_model_path))
        if self.cost_model_path is not None and not isinstance(self.cost_model_path, str):
            raise TuneOptionsError(f"cost_model_path must be a path, got {self.cost_model_path!r}")
        _check_int("seed", self.seed, 0, MAX_SEED)
        if self.feature_workers is not None:
            _check_int("feature_workers", self.feature_workers, 0, MAX_FEATURE_WORKERS)
        for name in ("calibrate", "count_shared_records", "in_model"):
            if not isinstance(getattr(self, name), bool):
                raise TuneOptionsError(f"{name} must be true or false, got {getattr(self, name)!r}")
        object.__setattr__(self, "size_histogram", _size_histogram(self.size_histogram))

    def replace(self, **changes: Any) -> TuneOptions:
        """A copy with `changes` (checked as a new value is)."""
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (every field, defaults included)."""
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["measure"] = self.measure.to_json()
        data["search_options"] = dict(self.search_options)
        data["cost_model_options"] = dict(self.cost_model_options)
        data["size_histogram"] = {
            name: {str(size): count for size, count in counts.items()}
            for name, counts in self.size_histogram.items()
        }
        return data

    @staticmethod
    def from_json(data: Any) -> TuneOptions:
        """Parse `to_json` output; missing fields take their defaults, unknown ones are
        refused (TuneOptionsError names them)."""
        if not isinstance(data, Mapping):
            raise TuneOptionsError(f"tuning options must be an object, got {type(data).__name__}")
        known = {f.name for f in dataclasses.fields(TuneOptions)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise TuneOptionsError(
                f"unknown tuning option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                f"known: {', '.join(sorted(known))}"
            )
        if "trials" not in data:
            raise TuneOptionsError("trials (the trial budget) is required")
        fields = dict(data)
        if "measure" in fields:
            fields["measure"] = measure_options_from_json(fields["measure"])
        try:
            return TuneOptions(**fields)
        except TypeError as err:  # (a field of a type __post_init__ cannot even compare)
            raise TuneOptionsError(str(err)) from None

    @staticmethod
    def json_schema() -> dict[str, Any]:
        """A JSON schema of the JSON form: each field, its type and its default."""
        properties: dict[str, Any] = {}
        for item in dataclasses.fields(TuneOptions):
            kind = _JSON_TYPES.get(item.name, {"type": "integer"})
            default = _default_of(item)
            entry = dict(kind)
            if default is not dataclasses.MISSING:
                entry["default"] = default
            properties[item.name] = entry
        return {"type": "object", "properties": properties, "additionalProperties": False}


def measure_options_from_json(data: Any) -> MeasureOptions:
    """MeasureOptions from its JSON form, refusing unknown fields and bad values by name."""
    if not isinstance(data, Mapping):
        raise TuneOptionsError(f"measure must be an object, got {type(data).__name__}")
    known = {f.name for f in dataclasses.fields(MeasureOptions)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise TuneOptionsError(f"measure has no field {', '.join(unknown)}")
    for name, value in data.items():
        if name in _MEASURE_LIMITS and not isinstance(value, bool):
            low, high = _MEASURE_LIMITS[name]
            if isinstance(value, int | float) and not low <= value <= high:
                raise TuneOptionsError(
                    f"measure.{name} must be from {low} to {high}, got {value!r}"
                )
        if name in ("flush_cache", "in_turn"):
            if not isinstance(value, bool):
                raise TuneOptionsError(f"measure.{name} must be true or false, got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, int | float):
            raise TuneOptionsError(f"measure.{name} must be a number, got {value!r}")
        elif not math.isfinite(value):
            raise TuneOptionsError(f"measure.{name} must be finite, got {value!r}")
    try:
        return MeasureOptions(**dict(data))
    except (TypeError, ValueError) as err:
        raise TuneOptionsError(f"measure options: {err}") from None


# Bounds of the measurement options a run may be given (a worker honours what it is told).
_MEASURE_LIMITS: dict[str, tuple[float, float]] = {
    "number": (0, 1_000_000),
    "repeat": (1, 100),
    "min_repeat_ms": (0, 10_000),
    "build_timeout_s": (0.001, 3600),
    "run_timeout_s": (0.001, 3600),
    "seed": (0, MAX_SEED),
}


def _size_histogram(value: Any) -> dict[str, dict[int, float]]:
    """`value` as a size histogram (sizes given as whole numbers or their text, as JSON
    keys are); TuneOptionsError naming what is wrong."""
    if not isinstance(value, Mapping):
        raise TuneOptionsError(f"size_histogram must be an object, got {value!r}")
    histogram: dict[str, dict[int, float]] = {}
    for name, counts in value.items():
        if not isinstance(name, str) or not isinstance(counts, Mapping) or not counts:
            raise TuneOptionsError(
                f"size_histogram[{name!r}] must map sizes to counts, got {counts!r}"
            )
        histogram[name] = {}
        for size, count in counts.items():
            try:
                whole = int(size) if not isinstance(size, bool | float) else None
            except ValueError:
                whole = None
            if whole is None or whole < 1:
                raise TuneOptionsError(
                    f"size_histogram[{name!r}]: size {size!r} is not a whole number >= 1"
                )
            if isinstance(count, bool) or not isinstance(count, int | float) or not count >= 0:
                raise TuneOptionsError(
                    f"size_histogram[{name!r}][{size!r}]: count {count!r} is not a number >= 0"
                )
            if not math.isfinite(count):
                raise TuneOptionsError(f"size_histogram[{name!r}][{size!r}] must be finite")
            histogram[name][whole] = float(count)
    return histogram


def _check_int(name: str, value: Any, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise TuneOptionsError(f"{name} must be a whole number from {low} to {high}, got {value!r}")


def _check_number(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise TuneOptionsError(f"{name} must be a positive number, got {value!r}")
    if not math.isfinite(value):
        raise TuneOptionsError(f"{name} must be finite, got {value!r}")


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise TuneOptionsError(f"{name} must be one of {', '.join(choices)}, got {value!r}")


def _default_of(item: dataclasses.Field[Any]) -> Any:
    if item.default is not dataclasses.MISSING:
        return item.default
    if item.default_factory is not dataclasses.MISSING:
        value = item.default_factory()
        return value.to_json() if isinstance(value, MeasureOptions) else value
    return dataclasses.MISSING


_NULLABLE_INT = {"type": ["integer", "null"]}
_JSON_TYPES: dict[str, dict[str, Any]] = {
    "time_limit_s": {"type": ["number", "null"], "exclusiveMinimum": 0},
    "search": {"enum": list(SEARCH_KINDS)},
    "cost_model": {"enum": list(COST_MODEL_KINDS)},
    "measure": {"type": "object"},
    "early_stopping_trials": _NULLABLE_INT,
    "search_options": {"type": "object"},
    "cost_model_options": {"type": "object"},
    "cost_model_path": {"type": ["string", "null"]},
    "feature_workers": _NULLABLE_INT,
    "calibrate": {"type": "boolean"},
    "count_shared_records": {"type": "boolean"},
    "in_model": {"type": "boolean"},
    "size_histogram": {
        "type": "object",
        "additionalProperties": {
            "type": "object",
            "additionalProperties": {"type": "number", "minimum": 0},
        },
    },
}
