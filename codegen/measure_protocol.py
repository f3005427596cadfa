"""The measurement protocol's values: what a caller asks (`MeasureInput`, `MeasureOptions`),
what it gets back (`MeasureResult`, one of `STATUSES`), and its errors. Shared by the
parent (`codegen.measure`), its child process (`codegen.measure_child`) and the workers,
which carry them as JSON."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from codegen.backends import BACKENDS, backend_of
from codegen.target import Target, target_kind
from ir.errors import AutotuneError

STATUSES = ("ok", "build_error", "runtime_error", "timeout", "wrong_result")


def outcome_error(status: str, costs_s: Sequence[float]) -> str | None:
    """What is wrong with a measured outcome, or None: an `ok` one holds at least one
    cost, and every cost is a finite positive number of seconds."""
    if status == "ok" and not costs_s:
        return "an ok result must hold its measured costs (costs_s is empty)"
    bad = [cost for cost in costs_s if not (math.isfinite(cost) and cost > 0)]
    if bad:
        return f"costs must be finite positive seconds, got {bad[:3]}"
    return None


class MeasureError(AutotuneError):
    """The measurement machinery itself failed (e.g. a child process cannot start)."""


class MeasureStopped(AutotuneError):
    """A measurement was abandoned (its child killed) because its caller is stopping.
    `settled` holds the outcomes already known then, by the candidate's position in the
    batch: those whose build or check failed (nothing else of the batch was measured)."""

    def __init__(self, message: str, settled: Mapping[int, MeasureResult] | None = None):
        super().__init__(message)
        self.settled: dict[int, MeasureResult] = dict(settled or {})


@dataclass(frozen=True)
class MeasureOptions:
    """How to time a candidate; `number=0` picks the runs per repeat from `min_repeat_ms`."""

    number: int = 0
    repeat: int = 3
    min_repeat_ms: float = 50.0
    build_timeout_s: float = 30.0
    run_timeout_s: float = 20.0
    flush_cache: bool = False
    seed: int = 0
    # Time a batch's candidates in turns, in one child (CPU targets, more than one
    # candidate): see `MeasureSession.measure_batch`. The tuner's batches and its
    # re-measurement ask for it; a crash, hang or timing failure measures them one by one.
    in_turn: bool = False

    def __post_init__(self) -> None:
        if self.number < 0 or self.repeat < 1 or self.min_repeat_ms < 0:
            raise ValueError(
                f"need number >= 0, repeat >= 1 and min_repeat_ms >= 0; got {self.number}, "
                f"{self.repeat}, {self.min_repeat_ms}"
            )
        if self.build_timeout_s <= 0 or self.run_timeout_s <= 0:
            raise ValueError("timeouts must be positive")

    def timing(self, target: Target) -> str:
        """How these options time a kernel for `target`: "cold" when every run follows a
        cache flush (CPU targets; GPU timing never flushes), else "warm"."""
        return "cold" if self.flush_cache and backend_of(target).flushes_caches else "warm"

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return asdict(self)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> MeasureOptions:
        """Parse `to_json` output (missing fields take their defaults)."""
        return MeasureOptions(**dict(data))


@dataclass(frozen=True)
class MeasureInput:
    """One candidate: the task (`Task.to_json()`: the workload function's canonical JSON and
    its constant parameters), the schedule trace's JSON object, and the exact target."""

    task_json: Mapping[str, Any]
    trace_json: Mapping[str, Any]
    target: str

    @property
    def on_gpu(self) -> bool:
        """Whether the candidate's target kind runs on a GPU (the backend table's answer)."""
        return BACKENDS[target_kind(self.target)].on_gpu


@dataclass(frozen=True)
class MeasureResult:
    """The outcome of one candidate; `costs_s` holds every repeat's mean cost when ok."""

    status: str
    costs_s: tuple[float, ...] = ()
    error: str = ""
    build_s: float = 0.0  # replay + lower + compile, in the child
    measure_s: float = 0.0  # the run phase: check and timing (or until it was stopped)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {**asdict(self), "costs_s": list(self.costs_s)}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> MeasureResult:
        """Parse `to_json` output."""
        return MeasureResult(
            status=str(data["status"]),
            costs_s=tuple(float(cost) for cost in data.get("costs_s", ())),
            error=str(data.get("error", "")),
            build_s=float(data.get("build_s", 0.0)),
            measure_s=float(data.get("measure_s", 0.0)),
        )
