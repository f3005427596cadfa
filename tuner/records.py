"""Tuning records: one measured candidate per record, stored as JSON lines.

A record names the workload (its key), the exact target, the schedule trace, every
repeat's cost, how the runs were timed (warm or cold caches) and the outcome. Logs are
append-only: `RecordLog.append` adds lines and syncs them to disk, and nothing here
rewrites a log. Only records with status "ok" are ever chosen as best. A line from a
newer record version is refused with a clear error rather than misread. A line that a
writer left torn (it died mid-line: an unclosed JSON object) is skipped with a warning, so
a tuning run killed while writing resumes from everything it finished.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import math
import os
import statistics
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from time import time as unix_time
from typing import Any

from codegen.aot.schedules import ScheduleChoice, ScheduleChooser
from codegen.measure import outcome_error
from ir.errors import AutotuneError, ScheduleError
from ir.graph.nodes import Function
from ir.schedule import Trace
from ir.schedule.schedule import LayoutRewrite
from ir.te.program import TEProgram
from tuner.tasks import workload_key

logger = logging.getLogger(__name__)

RECORD_VERSION = 1
STATUSES = ("ok", "build_error", "runtime_error", "timeout", "wrong_result", "worker_lost")
# How the runs were timed: call after call on warm caches, each run alone after the
# caches were flushed (as a kernel runs inside a network), or inside the compiled model
# itself, call by call between its neighbours (`tuner.in_model`). Costs of one kind are
# never compared with another's; records from before the field were timed warm.
TIMINGS = ("warm", "cold", "in_model")
DECIDING_ORDER = ("in_model", "cold", "warm")  # the first kind a workload has decides


class RecordError(AutotuneError):
    """A record or a record log line is malformed, or from an unknown version."""


def canonical_trace_text(trace: Mapping[str, Any]) -> str:
    """The canonical text of a trace's JSON object (normalised through `Trace` when valid)."""
    try:
        data: Mapping[str, Any] = Trace.from_json(dict(trace)).to_json()
    except ScheduleError:
        data = trace  # an unparseable trace is still recorded (e.g. as a build_error)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def compute_candidate_id(workload_key: str, target: str, trace: Mapping[str, Any]) -> str:
    """sha256 hex of a candidate: its workload key, target and canonical trace text."""
    text = f"{workload_key}\n{target}\n{canonical_trace_text(trace)}"
    return hashlib.sha256(text.encode()).hexdigest()


@cache
def software_versions() -> dict[str, str]:
    """Versions of the software that shapes a measurement: autotune, llvmlite, numpy."""
    versions = {}
    for package in ("autotune", "llvmlite", "numpy"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = "unknown"
    return versions


@dataclass(frozen=True)
class Record:
    """One measurement of one candidate schedule of a workload on a target."""

    workload_key: str
    target: str
    trace: Mapping[str, Any]  # a Trace's JSON object
    costs_s: Sequence[float]  # every repeat's mean cost, seconds (empty unless measured)
    status: str
    error: str = ""
    time: float = field(default_factory=unix_time)  # unix seconds
    versions: Mapping[str, str] = field(default_factory=lambda: dict(software_versions()))
    candidate_id: str = ""  # filled in from key, target and trace when left empty
    worker: str | None = None
    job: str | None = None
    timing: str = "warm"  # one of TIMINGS
    version: int = RECORD_VERSION

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise RecordError(f"unknown record status {self.status!r}; known: {STATUSES}")
        if self.timing not in TIMINGS:
            raise RecordError(f"unknown record timing {self.timing!r}; known: {TIMINGS}")
        costs = tuple(float(cost) for cost in self.costs_s)
        problem = outcome_error(self.status, costs)
        if problem is not None:
            raise RecordError(problem)
        object.__setattr__(self, "costs_s", costs)
        object.__setattr__(self, "trace", dict(self.trace))
        object.__setattr__(self, "versions", dict(self.versions))
        if not self.candidate_id:
            object.__setattr__(
                self,
                "candidate_id",
                compute_candidate_id(self.workload_key, self.target, self.trace),
            )

    @property
    def median_cost_s(self) -> float:
        """The median of the repeats' costs; infinity when nothing was measured."""
        return statistics.median(self.costs_s) if self.costs_s else math.inf

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (one log line)."""
        data: dict[str, Any] = {
            "version": self.version,
            "workload_key": self.workload_key,
            "target": self.target,
            "trace": dict(self.trace),
            "costs_s": list(self.costs_s),
            "status": self.status,
            "error": self.error,
            "time": self.time,
            "versions": dict(self.versions),
            "candidate_id": self.candidate_id,
            "timing": self.timing,
        }
        if self.worker is not None:
            data["worker"] = self.worker
        if self.job is not None:
            data["job"] = self.job
        return data

    def dumps(self) -> str:
        """The record as one line of JSON (no newline)."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"), allow_nan=False)

    @staticmethod
    def from_json(data: Any) -> Record:
        """Parse `to_json` output; raises RecordError naming what is wrong."""
        if not isinstance(data, Mapping):
            raise RecordError(f"a record must be a JSON object, got {type(data).__name__}")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise RecordError(f"record version must be an integer, got {version!r}")
        if version > RECORD_VERSION:
            raise RecordError(
                f"record version {version} is newer than this autotune reads "
                f"(version {RECORD_VERSION}); upgrade autotune to load it"
            )
        if version < 1:
            raise RecordError(f"unknown record version {version}")
        try:
            return Record(
                workload_key=_string(data, "workload_key"),
                target=_string(data, "target"),
                trace=_mapping(data, "trace"),
                costs_s=[_number(cost, "costs_s") for cost in _list(data, "costs_s")],
                status=_string(data, "status"),
                error=_string(data, "error"),
                time=_number(data.get("time"), "time"),
                versions={str(k): str(v) for k, v in _mapping(data, "versions").items()},
                candidate_id=_string(data, "candidate_id"),
                worker=_optional_string(data, "worker"),
                job=_optional_string(data, "job"),
                timing=_optional_string(data, "timing") or "warm",
                version=version,
            )
        except KeyError as err:
            raise RecordError(f"record has no field {err}") from None


def _string(data: Mapping[str, Any], name: str) -> str:
    value = data[name]
    if not isinstance(value, str):
        raise RecordError(f"record field {name!r} must be a string, got {value!r}")
    return value


def _optional_string(data: Mapping[str, Any], name: str) -> str | None:
    return _string(data, name) if data.get(name) is not None else None


def _mapping(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data[name]
    if not isinstance(value, Mapping):
        raise RecordError(f"record field {name!r} must be an object, got {value!r}")
    return value


def _list(data: Mapping[str, Any], name: str) -> list[Any]:
    value = data[name]
    if not isinstance(value, list):
        raise RecordError(f"record field {name!r} must be a list, got {value!r}")
    return value


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RecordError(f"record field {name!r} must hold numbers, got {value!r}")
    return float(value)


# -- JSON lines ---------------------------------------------------------------------------


class RecordLog:
    """An append-only JSON lines file of records."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def append(self, records: Iterable[Record]) -> int:
        """Append `records` (one line each), flush and fsync; returns how many were written.

        Existing lines are never touched. If the file ends in a partial line (a writer
        died mid-line), the new records start on a fresh line so they stay readable.
        """
        lines = [record.dumps() + "\n" for record in records]
        if not lines:
            return 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            text = "".join(lines)
            if not _ends_with_newline(self.path):
                text = "\n" + text
            payload = text.encode()
            written = 0
            while written < len(payload):  # one write with O_APPEND, continued if short
                written += os.write(descriptor, payload[written:])
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        return len(lines)

    def load(self) -> list[Record]:
        """Every record in the log (an absent file holds none)."""
        if not self.path.exists():
            return []
        return load_records(self.path)


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as file:
        file.seek(0, os.SEEK_END)
        if file.tell() == 0:
            return True
        file.seek(-1, os.SEEK_END)
        return file.read(1) == b"\n"


def load_records(
    path_or_lines: str | os.PathLike[str] | Iterable[str], allow_torn: bool = True
) -> list[Record]:
    """Read records from a JSON lines file (a path) or from lines of text.

    Blank lines and lines starting with `#` are skipped, and so is a torn line (a record
    cut short by a writer that died mid-line; see `is_torn_line`), with a warning, unless
    `allow_torn` is off (an import, which is all or nothing). A malformed line raises
    RecordError naming the file and the line number.
    """
    if isinstance(path_or_lines, str | os.PathLike):
        source = str(path_or_lines)
        with open(path_or_lines, "rb") as file:
            return _parse_lines(_decoded_lines(file, source), source, allow_torn)
    return _parse_lines(path_or_lines, "<lines>", allow_torn)


def _decoded_lines(lines: Iterable[bytes], source: str) -> Iterator[str]:
    """The lines of a record file as text; RecordError naming the line that is not UTF-8
    (a binary file given as records, such as the model itself)."""
    for number, line in enumerate(lines, start=1):
        try:
            yield line.decode("utf-8")
        except UnicodeDecodeError:
            if not line.endswith(b"\n"):  # the last line, cut mid-character: torn or not,
                yield line.decode("utf-8", "replace")  # `_parse_lines` decides
                continue
            raise RecordError(
                f"{source}:{number}: not UTF-8 text: a record log holds JSON lines"
            ) from None


def _parse_lines(lines: Iterable[str], source: str, allow_torn: bool) -> list[Record]:
    records = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            if is_torn_line(text) and not allow_torn:
                cut = f"{source}:{number}: a record cut short (not valid JSON)"
                raise RecordError(cut) from None
            if is_torn_line(text):
                logger.warning(
                    "%s:%d: skipped a torn record (its writer stopped mid-line)", source, number
                )
                continue
            raise RecordError(f"{source}:{number}: not valid JSON: {err}") from None
        try:
            records.append(Record.from_json(data))
        except RecordError as err:
            raise RecordError(f"{source}:{number}: {err}") from None
    return records


def is_torn_line(text: str) -> bool:
    """Whether `text` is the start of a record line cut short: a JSON object with a first
    key that never closes. (Text that closes early, or that is not an object, is
    malformed, not torn.)"""
    if not text.startswith('{"'):
        return False
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth <= 0:
                return False
    return True


# -- queries ------------------------------------------------------------------------------


def deciding_records(records: Iterable[Record], key: str, target: str) -> list[Record]:
    """The measured ("ok", with costs) records of (key, target) whose costs decide its
    best: those timed inside the model where there are any (the tuned schedule beside the
    default, as the model runs them), else the cold-cache ones (a kernel timed alone as it
    would run inside a network), else the warm ones; kinds are never compared."""
    measured = [
        record
        for record in records
        if record.workload_key == key
        and record.target == target
        and record.status == "ok"
        and record.costs_s
    ]
    timings = {record.timing for record in measured}
    timing = next((kind for kind in DECIDING_ORDER if kind in timings), "warm")
    return [record for record in measured if record.timing == timing]


def tuned_record(records: Iterable[Record], key: str, target: str) -> Record | None:
    """The declared best record of a workload on a target: the one rule every user of
    records (tuning summaries, `autotune run --records`, artifacts, the service) applies.

    Only the deciding records count (`deciding_records`: cold-cache costs where the
    workload has any, else warm ones, never the two compared). Each candidate counts
    with its ok record that has the most repeats (a re-measurement; of several, the
    fastest: noise on a shared machine only ever adds time). When some candidates were
    re-measured (two or more ok records), the best is chosen among them only: a single
    short measurement that got lucky does not beat a confirmed one. Ties go to the
    earliest record. Timed inside the model, each candidate counts with its latest
    record (each check times its tuned schedule and the default side by side).
    """
    per_candidate: dict[str, list[Record]] = {}
    for record in deciding_records(records, key, target):
        per_candidate.setdefault(record.candidate_id, []).append(record)
    if not per_candidate:
        return None
    if next(iter(per_candidate.values()))[0].timing == "in_model":
        latest = [max(rs, key=lambda r: r.time) for rs in per_candidate.values()]
        return min(latest, key=lambda r: (r.median_cost_s, r.time))
    confirmed = {cid: rs for cid, rs in per_candidate.items() if len(rs) >= 2}
    pool = confirmed or per_candidate
    finals = []
    for candidate_records in pool.values():
        most = max(len(r.costs_s) for r in candidate_records)
        longest = [r for r in candidate_records if len(r.costs_s) == most]
        finals.append(min(longest, key=lambda r: (r.median_cost_s, -r.time)))
    return min(finals, key=lambda r: (r.median_cost_s, r.time))


def records_chooser(records: Iterable[Record], target: str) -> ScheduleChooser:
    """The schedule chooser of a compile with these records (`codegen.executor` and
    `codegen.aot` alike): each workload gets its declared best record on the exact
    `target` string (`tuned_record`), replayed; a miss when there is none or it no longer
    replays (the reason goes in the choice's note). Where the constants' `layouts` are
    given, the best among the records whose schedules lay them out so."""
    by_key: dict[str, list[Record]] = {}
    for record in records:
        if record.target == target:
            by_key.setdefault(record.workload_key, []).append(record)

    def choose(
        function: Function,
        program: TEProgram,
        constants: frozenset[str],
        layouts: Mapping[str, LayoutRewrite] | None = None,
    ) -> ScheduleChoice:
        key = workload_key(function, constants)
        candidates = by_key.get(key, [])
        while (record := tuned_record(candidates, key, target)) is not None:
            try:
                schedule = Trace.from_json(dict(record.trace)).replay(program)
            except AutotuneError as err:
                logger.warning("record %s no longer replays: %s", record.candidate_id[:12], err)
                return ScheduleChoice(workload_key=key, note=f"best record does not replay: {err}")
            if layouts is None or schedule.input_layouts == dict(layouts):
                return ScheduleChoice(
                    workload_key=key, schedule=schedule, record_id=record.candidate_id
                )
            candidates = [r for r in candidates if r.candidate_id != record.candidate_id]
        return ScheduleChoice(workload_key=key)

    return choose


def measured_candidates(records: Iterable[Record], key: str, target: str) -> set[str]:
    """Candidate ids already measured for (key, target), whatever their outcome."""
    return {
        record.candidate_id
        for record in records
        if record.workload_key == key and record.target == target
    }
