"""Traces: a schedule as plain data (a list of steps), JSON round trip, deterministic replay."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ir.errors import ScheduleError

if TYPE_CHECKING:
    from ir.schedule.schedule import Schedule
    from ir.te.program import TEProgram

TRACE_VERSION = 1


def _freeze(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_freeze(item) for item in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(item) for item in value]
    return value


@dataclass(frozen=True, slots=True)
class Step:
    """One schedule primitive with its arguments (names and numbers only)."""

    kind: str
    args: tuple[tuple[str, Any], ...]

    @staticmethod
    def make(kind: str, **args: Any) -> Step:
        """Build a step from keyword arguments (lists become tuples)."""
        return Step(kind, tuple(sorted((key, _freeze(val)) for key, val in args.items())))

    @property
    def arguments(self) -> dict[str, Any]:
        """The arguments as a dict."""
        return dict(self.args)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data: {"kind": ..., **args}."""
        data: dict[str, Any] = {"kind": self.kind}
        for key, val in self.args:  # (`_thaw` called only where it changes something)
            data[key] = _thaw(val) if isinstance(val, tuple) else val
        return data

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Step:
        """Parse a step from JSON data."""
        if not isinstance(data, Mapping) or "kind" not in data:
            raise ScheduleError(f"malformed trace step {data!r}: needs a 'kind'")
        args = {key: val for key, val in data.items() if key != "kind"}
        return Step.make(str(data["kind"]), **args)

    def __str__(self) -> str:
        args = ", ".join(f"{key}={_thaw(val)!r}" for key, val in self.args)
        return f"{self.kind}({args})"


_VERSION_TEXT = json.dumps(TRACE_VERSION)
_STEP_TEXTS: dict[tuple[str, tuple[tuple[str, Any], ...]], str] = {}
_STEP_TEXTS_LIMIT = 1 << 14


def _plain(value: Any) -> bool:
    """Whether `value` is a str, an int, None, or a tuple of those (exact types): values
    of these types are equal only when their JSON texts are (1, 1.0 and True are equal
    in Python, and "1", "1.0" and "true" in JSON)."""
    kind = type(value)
    if kind is str or kind is int or value is None:
        return True
    return kind is tuple and all(_plain(item) for item in value)


def _step_text(step: Step) -> str | None:
    """The canonical JSON text of `step` (as `Trace.dumps` writes it), remembered for
    steps of plain values only; None for any other step (then the caller dumps it all).

    Sampled candidates repeat the same steps over and over, and JSON encoding of each
    trace was a large part of keying a candidate.
    """
    kind, args = step.kind, step.args
    if type(kind) is not str or type(args) is not tuple:
        return None
    for pair in args:
        if type(pair) is not tuple or len(pair) != 2 or type(pair[0]) is not str:
            return None
        name, value = pair
        value_kind = type(value)  # (`_plain` inlined for the common leaves)
        if name == "kind" or not (
            value_kind is str or value_kind is int or value is None or _plain(value)
        ):
            return None
    key = (kind, args)
    text = _STEP_TEXTS.get(key)
    if text is None:
        text = json.dumps(step.to_json(), sort_keys=True, separators=(",", ":"))
        if len(_STEP_TEXTS) >= _STEP_TEXTS_LIMIT:
            _STEP_TEXTS.clear()
        _STEP_TEXTS[key] = text
    return text


@dataclass(frozen=True, slots=True)
class Trace:
    """An ordered list of schedule steps; replaying it on a fresh program rebuilds the schedule."""

    steps: tuple[Step, ...] = ()
    # `dumps()` once computed: the search keys every candidate by its text, many times.
    _text: str | None = field(default=None, init=False, repr=False, compare=False)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def append(self, step: Step) -> Trace:
        """A new trace with `step` added."""
        return Trace((*self.steps, step))

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {"version": TRACE_VERSION, "steps": [step.to_json() for step in self.steps]}

    def dumps(self) -> str:
        """Canonical JSON text."""
        text = self._text
        if text is None:
            texts = []
            for step in self.steps:
                step_text = _step_text(step)
                if step_text is None:
                    text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
                    break
                texts.append(step_text)
            else:  # (what json.dumps writes for the whole trace, one step's text at a time)
                text = '{"steps":[' + ",".join(texts) + '],"version":' + _VERSION_TEXT + "}"
            object.__setattr__(self, "_text", text)  # a cache: the trace stays immutable
        return text

    @staticmethod
    def from_json(data: Any) -> Trace:
        """Parse a trace from JSON data (or its text)."""
        if isinstance(data, str | bytes):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as err:
                raise ScheduleError(f"trace is not valid JSON: {err}") from None
        if not isinstance(data, Mapping) or not isinstance(data.get("steps"), list):
            raise ScheduleError("a trace must be an object with a 'steps' list")
        if data.get("version", TRACE_VERSION) != TRACE_VERSION:
            raise ScheduleError(f"unsupported trace version {data.get('version')!r}")
        return Trace(tuple(Step.from_json(step) for step in data["steps"]))

    def replay(self, program: TEProgram) -> Schedule:
        """Apply every step to a fresh schedule of `program`."""
        from ir.schedule.schedule import Schedule

        schedule = Schedule(program)
        for index, step in enumerate(self.steps):
            # A failing step fails the replay: the half-built schedule is never seen.
            schedule.apply_unrecorded(step, index, undo_on_error=False)
        schedule.trace = self  # (what appending each step would build, one step at a time)
        return schedule
