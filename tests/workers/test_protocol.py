"""Wire messages: JSON round trips, and malformed messages name the field at fault."""

from __future__ import annotations

from typing import Any

import pytest

from codegen.measure import MeasureOptions, MeasureResult
from workers.protocol import (
    Batch,
    Candidate,
    CandidateResult,
    Heartbeat,
    ProtocolError,
    RegisterRequest,
    Registration,
    ResultsAck,
    ResultsPost,
)


def _batch_json() -> dict[str, Any]:
    return {
        "batch_id": "b1",
        "lease_timeout_s": 60,
        "measure_options": MeasureOptions(repeat=5, min_repeat_ms=2).to_json(),
        "candidates": [
            {"candidate_id": "c1", "target": "llvm", "task": {"k": 1}, "trace": {"steps": []}}
        ],
    }


def test_messages_round_trip_through_json() -> None:
    batch = Batch.from_json(_batch_json())
    assert Batch.from_json(batch.to_json()) == batch
    assert batch.measure_options == MeasureOptions(repeat=5, min_repeat_ms=2)
    request = RegisterRequest("n", "llvm -mcpu=x -num-cores=2", {"cores": 2}, "0.1.0")
    assert RegisterRequest.from_json(request.to_json()) == request
    registration = Registration("w1", "t", 5.0, 60.0)
    assert Registration.from_json(registration.to_json()) == registration
    assert Heartbeat.from_json(Heartbeat("busy", "b1").to_json()) == Heartbeat("busy", "b1")
    result = CandidateResult.of("c1", MeasureResult("ok", (1e-3, 2e-3), "", 0.5, 0.25))
    post = ResultsPost((result,))
    assert ResultsPost.from_json(post.to_json()) == post
    assert post.to_json()["results"][0]["costs_s"] == [1e-3, 2e-3]
    assert ResultsAck.from_json({"accepted": 1, "duplicates": 0}) == ResultsAck(1, 0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda b: b.pop("batch_id"), "missing field 'batch_id'"),
        (lambda b: b.update(lease_timeout_s="60"), "'lease_timeout_s' has type str"),
        (lambda b: b.update(lease_timeout_s=True), "'lease_timeout_s' must not be a boolean"),
        (lambda b: b["measure_options"].update(repeat=0), "bad measure_options"),
        (lambda b: b["measure_options"].update(colour=1), "bad measure_options"),
        (lambda b: b["candidates"][0].pop("trace"), "candidate: missing field 'trace'"),
        (lambda b: b.update(candidates={}), "'candidates' has type dict"),
    ],
)
def test_a_malformed_batch_names_the_field(change: Any, message: str) -> None:
    data = _batch_json()
    change(data)
    with pytest.raises(ProtocolError, match=message):
        Batch.from_json(data)


def test_unknown_statuses_and_states_are_refused() -> None:
    with pytest.raises(ProtocolError, match="status 'fine'"):
        CandidateResult("c1", "fine")
    with pytest.raises(ProtocolError, match="state 'asleep'"):
        Heartbeat("asleep")
    with pytest.raises(ProtocolError, match="costs_s must be a list of numbers"):
        CandidateResult.from_json({"candidate_id": "c", "status": "ok", "costs_s": ["1"]})
    with pytest.raises(ProtocolError, match="must be > 0"):
        Registration.from_json(
            {"worker_id": "w", "token": "t", "heartbeat_interval_s": 0, "lease_timeout_s": 1}
        )
    with pytest.raises(ProtocolError, match="expected a JSON object"):
        Candidate.from_json([])  # type: ignore[arg-type]
