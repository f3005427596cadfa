"""The worker wire protocol (docs/worker-protocol.md) as typed messages.

Both sides may share these without importing each other: the service imports
`workers.protocol`, the worker never imports the service. Every message is plain JSON on
the wire (`to_json` / `from_json`); a malformed message raises ProtocolError naming the
field, never a KeyError or TypeError.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from codegen.measure import STATUSES, MeasureOptions, MeasureResult, outcome_error
from ir.errors import AutotuneError

MAX_LEASE_WAIT_S = 60.0  # the longest long poll the service accepts
WORKER_STATES = ("idle", "busy")

# Paths of the calls, relative to the server's base URL.
REGISTER_PATH = "/v1/workers/register"


def heartbeat_path(worker_id: str) -> str:
    """The heartbeat call's path for one worker."""
    return f"/v1/workers/{worker_id}/heartbeat"


def lease_path(worker_id: str) -> str:
    """The lease (long poll) call's path for one worker, without its query string."""
    return f"/v1/workers/{worker_id}/lease"


def results_path(batch_id: str) -> str:
    """The results call's path for one batch."""
    return f"/v1/batches/{batch_id}/results"


def release_path(batch_id: str) -> str:
    """The release call's path for one batch."""
    return f"/v1/batches/{batch_id}/release"


class ProtocolError(AutotuneError):
    """A message does not follow the worker protocol (missing or mistyped field)."""


def _field(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...], what: str) -> Any:
    """`data[name]`, checked to be of `kind`; raises ProtocolError naming the field."""
    if not isinstance(data, Mapping):
        raise ProtocolError(f"{what}: expected a JSON object, got {type(data).__name__}")
    if name not in data:
        raise ProtocolError(f"{what}: missing field {name!r}")
    value = data[name]
    # bool is an int in Python; a number field never accepts true/false.
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise ProtocolError(f"{what}: field {name!r} must not be a boolean")
    if not isinstance(value, kind):
        raise ProtocolError(f"{what}: field {name!r} has type {type(value).__name__}")
    return value


def _number(data: Mapping[str, Any], name: str, what: str) -> float:
    return float(_field(data, name, (int, float), what))


@dataclass(frozen=True)
class RegisterRequest:
    """POST /v1/workers/register: who the worker is and the exact target it measures."""

    name: str
    target: str
    device: Mapping[str, Any]
    version: str

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "name": self.name,
            "target": self.target,
            "device": dict(self.device),
            "version": self.version,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> RegisterRequest:
        """Parse and check a register request."""
        what = "register request"
        return RegisterRequest(
            name=_field(data, "name", str, what),
            target=_field(data, "target", str, what),
            device=dict(_field(data, "device", Mapping, what)),
            version=_field(data, "version", str, what),
        )


@dataclass(frozen=True)
class Registration:
    """The register call's answer: the worker's id, its own token and its timings."""

    worker_id: str
    token: str
    heartbeat_interval_s: float
    lease_timeout_s: float

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "worker_id": self.worker_id,
            "token": self.token,
            "heartbeat_interval_s": self.heartbeat_interval_s,
            "lease_timeout_s": self.lease_timeout_s,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Registration:
        """Parse and check a registration answer."""
        what = "registration"
        registration = Registration(
            worker_id=_field(data, "worker_id", str, what),
            token=_field(data, "token", str, what),
            heartbeat_interval_s=_number(data, "heartbeat_interval_s", what),
            lease_timeout_s=_number(data, "lease_timeout_s", what),
        )
        if registration.heartbeat_interval_s <= 0 or registration.lease_timeout_s <= 0:
            raise ProtocolError(f"{what}: heartbeat_interval_s and lease_timeout_s must be > 0")
        return registration


@dataclass(frozen=True)
class Heartbeat:
    """POST /v1/workers/{id}/heartbeat: what the worker is doing now."""

    state: str
    batch_id: str | None = None

    def __post_init__(self) -> None:
        if self.state not in WORKER_STATES:
            raise ProtocolError(f"heartbeat: state {self.state!r} is not one of {WORKER_STATES}")

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {"state": self.state, "batch_id": self.batch_id}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Heartbeat:
        """Parse and check a heartbeat."""
        batch_id = data.get("batch_id") if isinstance(data, Mapping) else None
        if batch_id is not None and not isinstance(batch_id, str):
            raise ProtocolError("heartbeat: field 'batch_id' must be a string or null")
        return Heartbeat(state=_field(data, "state", str, "heartbeat"), batch_id=batch_id)


@dataclass(frozen=True)
class Candidate:
    """One schedule to measure: the task (`Task.to_json()`), its trace JSON, the target."""

    candidate_id: str
    target: str
    task: Mapping[str, Any]
    trace: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "candidate_id": self.candidate_id,
            "target": self.target,
            "task": dict(self.task),
            "trace": dict(self.trace),
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Candidate:
        """Parse and check a candidate."""
        what = "candidate"
        return Candidate(
            candidate_id=_field(data, "candidate_id", str, what),
            target=_field(data, "target", str, what),
            task=dict(_field(data, "task", Mapping, what)),
            trace=dict(_field(data, "trace", Mapping, what)),
        )


@dataclass(frozen=True)
class Batch:
    """A leased batch: candidates for the worker's target and how to measure them."""

    batch_id: str
    lease_timeout_s: float
    measure_options: MeasureOptions
    candidates: tuple[Candidate, ...]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "batch_id": self.batch_id,
            "lease_timeout_s": self.lease_timeout_s,
            "measure_options": self.measure_options.to_json(),
            "candidates": [candidate.to_json() for candidate in self.candidates],
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Batch:
        """Parse and check a batch (its measure options validated by MeasureOptions)."""
        what = "batch"
        options_json = _field(data, "measure_options", Mapping, what)
        try:
            options = MeasureOptions.from_json(options_json)
        except (TypeError, ValueError) as err:
            raise ProtocolError(f"{what}: bad measure_options: {err}") from None
        candidates = _field(data, "candidates", list, what)
        return Batch(
            batch_id=_field(data, "batch_id", str, what),
            lease_timeout_s=_number(data, "lease_timeout_s", what),
            measure_options=options,
            candidates=tuple(Candidate.from_json(item) for item in candidates),
        )


@dataclass(frozen=True)
class CandidateResult:
    """The measured outcome of one candidate, as posted to the service."""

    candidate_id: str
    status: str
    costs_s: tuple[float, ...] = ()
    error: str = ""
    build_s: float = 0.0
    measure_s: float = 0.0

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ProtocolError(
                f"result for {self.candidate_id}: status {self.status!r} is not one of "
                f"{', '.join(STATUSES)}"
            )
        problem = outcome_error(self.status, self.costs_s)
        if problem is not None:
            raise ProtocolError(f"result for {self.candidate_id}: {problem}")

    @staticmethod
    def of(candidate_id: str, result: MeasureResult) -> CandidateResult:
        """The wire form of a measurement result."""
        return CandidateResult(
            candidate_id=candidate_id,
            status=result.status,
            costs_s=tuple(result.costs_s),
            error=result.error,
            build_s=result.build_s,
            measure_s=result.measure_s,
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "candidate_id": self.candidate_id,
            "status": self.status,
            "costs_s": list(self.costs_s),
            "error": self.error,
            "build_s": self.build_s,
            "measure_s": self.measure_s,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> CandidateResult:
        """Parse and check a result."""
        what = "result"
        costs = _field(data, "costs_s", list, what)
        if not all(isinstance(cost, int | float) and not isinstance(cost, bool) for cost in costs):
            raise ProtocolError(f"{what}: costs_s must be a list of numbers")
        return CandidateResult(
            candidate_id=_field(data, "candidate_id", str, what),
            status=_field(data, "status", str, what),
            costs_s=tuple(float(cost) for cost in costs),
            error=str(data.get("error", "")),
            build_s=float(data.get("build_s", 0.0)),
            measure_s=float(data.get("measure_s", 0.0)),
        )


@dataclass(frozen=True)
class ResultsPost:
    """POST /v1/batches/{id}/results: one or more results of the batch."""

    results: tuple[CandidateResult, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {"results": [result.to_json() for result in self.results]}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ResultsPost:
        """Parse and check a results post."""
        items: Sequence[Any] = _field(data, "results", list, "results post")
        return ResultsPost(tuple(CandidateResult.from_json(item) for item in items))


@dataclass(frozen=True)
class ResultsAck:
    """The results call's answer: how many were new and how many were repeats."""

    accepted: int
    duplicates: int

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {"accepted": self.accepted, "duplicates": self.duplicates}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ResultsAck:
        """Parse and check a results answer."""
        what = "results answer"
        return ResultsAck(
            accepted=_field(data, "accepted", int, what),
            duplicates=_field(data, "duplicates", int, what),
        )
