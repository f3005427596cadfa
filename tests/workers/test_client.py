"""The worker's HTTP client against a real HTTP server on loopback that fails, then recovers."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

import pytest

from codegen.measure import MeasureOptions
from workers.client import (
    Backoff,
    Forbidden,
    LeaseLost,
    RetryUntil,
    ServiceClient,
    ServiceRejected,
    ServiceUnreachable,
    Stopped,
    Unauthorized,
    WorkerError,
)
from workers.protocol import CandidateResult, Heartbeat, RegisterRequest

from .loopback import LoopbackServer, free_port

FAST = Backoff(initial_s=0.02, factor=2.0, max_s=0.1, jitter=0.0)
REGISTRATION = {
    "worker_id": "w1",
    "token": "worker-token",
    "heartbeat_interval_s": 5.0,
    "lease_timeout_s": 60.0,
}


def _register_request() -> RegisterRequest:
    return RegisterRequest(name="t", target="llvm -mcpu=x -num-cores=1", device={}, version="0")


def test_backoff_grows_exponentially_and_is_capped() -> None:
    backoff = Backoff(initial_s=0.5, factor=2.0, max_s=4.0, jitter=0.0)
    assert [backoff.delay_s(n) for n in range(6)] == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    jittered = Backoff(initial_s=1.0, factor=2.0, max_s=8.0, jitter=0.5)
    assert all(4.0 <= jittered.delay_s(3) <= 8.0 for _ in range(50))
    assert jittered.delay_s(10_000) <= 8.0  # no overflow for a long outage


def test_retries_5xx_then_succeeds_and_sends_the_bearer_token() -> None:
    answers = [(503, {"detail": "starting"}), (502, None), (201, REGISTRATION)]

    def handle(method: str, path: str, headers: Mapping[str, str], body: Any) -> tuple[int, Any]:
        return answers.pop(0)

    with LoopbackServer(handle) as server:
        client = ServiceClient(server.url, "secret", backoff=FAST)
        registration = client.register(_register_request())
    assert registration.worker_id == "w1" and registration.token == "worker-token"
    assert len(server.seen) == 3
    assert all(seen.headers["authorization"] == "Bearer secret" for seen in server.seen)
    assert server.seen[0].body["target"] == "llvm -mcpu=x -num-cores=1"


def test_retries_while_nothing_listens_until_the_service_comes_up() -> None:
    port = free_port()
    client = ServiceClient(f"http://127.0.0.1:{port}", "secret", backoff=FAST)
    outcome: dict[str, Any] = {}

    def call() -> None:
        outcome["registration"] = client.register(_register_request())

    caller = threading.Thread(target=call)
    caller.start()
    time.sleep(0.4)  # several refused connections
    assert caller.is_alive()
    with LoopbackServer(lambda *_: (201, REGISTRATION), port=port) as server:
        caller.join(timeout=10)
        assert not caller.is_alive()
    assert outcome["registration"].worker_id == "w1"
    assert len(server.seen) == 1


def test_a_dead_replica_is_passed_over_for_the_next_at_once() -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    slow = Backoff(initial_s=5.0, factor=2.0, max_s=5.0, jitter=0.0)  # a wait would show
    with LoopbackServer(lambda *_: (201, REGISTRATION)) as live:
        client = ServiceClient(f"{dead}, {live.url}/", "secret", backoff=slow)
        started = time.monotonic()
        registration = client.register(_register_request(), retry=RetryUntil.for_s(2.0))
        assert registration.worker_id == "w1" and time.monotonic() - started < 2.0
        assert client.server_url == live.url and len(live.seen) == 1
        worker = client.with_token("worker-token")  # stays with the replica that answers
        assert worker.server_urls == (dead, live.url) and worker.server_url == live.url
    with pytest.raises(ServiceUnreachable):  # every replica down: the usual backoff, then
        ServiceClient(f"{dead},{dead}", "s", backoff=FAST).register(
            _register_request(), retry=RetryUntil.once()
        )
    with pytest.raises(WorkerError, match="'notaurl': expected an http"):
        ServiceClient(f"{dead},notaurl", "s")


def test_gives_up_at_the_deadline_and_stops_when_told() -> None:
    client = ServiceClient(f"http://127.0.0.1:{free_port()}", "secret", backoff=FAST)
    with pytest.raises(ServiceUnreachable, match="unreachable"):
        client.heartbeat("w1", Heartbeat("idle"), retry=RetryUntil.once())
    started = time.monotonic()
    with pytest.raises(ServiceUnreachable):
        client.heartbeat("w1", Heartbeat("idle"), retry=RetryUntil.for_s(0.3))
    assert 0.2 < time.monotonic() - started < 2.0
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    with pytest.raises(Stopped):
        client.heartbeat("w1", Heartbeat("idle"), retry=RetryUntil(stop=stop))


@pytest.mark.parametrize(
    ("status", "error"),
    [(401, Unauthorized), (403, Forbidden), (409, LeaseLost), (422, ServiceRejected)],
)
def test_4xx_is_never_retried_and_names_the_problem(
    status: int, error: type[ServiceRejected]
) -> None:
    with LoopbackServer(lambda *_: (status, {"detail": "batch b1 is not yours"})) as server:
        client = ServiceClient(server.url, "worker-token", backoff=FAST)
        result = CandidateResult("c1", "ok", (1e-3,))
        with pytest.raises(error, match="batch b1 is not yours") as caught:
            client.post_results("b1", [result])
    assert caught.value.status == status
    assert len(server.seen) == 1


def test_lease_long_polls_and_parses_a_batch_or_no_work() -> None:
    batch = {
        "batch_id": "b1",
        "lease_timeout_s": 60,
        "measure_options": MeasureOptions(repeat=2).to_json(),
        "candidates": [{"candidate_id": "c1", "target": "llvm", "task": {}, "trace": {}}],
    }
    answers = [(204, None), (200, batch)]
    with LoopbackServer(lambda *_: answers.pop(0)) as server:
        client = ServiceClient(server.url, "worker-token", backoff=FAST)
        assert client.lease("w1", wait_s=5) is None
        leased = client.lease("w1", wait_s=500)  # clamped to the protocol's limit
    assert leased is not None and leased.batch_id == "b1"
    assert leased.measure_options.repeat == 2
    assert [c.candidate_id for c in leased.candidates] == ["c1"]
    assert server.seen[0].path == "/v1/workers/w1/lease?wait_s=5"
    assert server.seen[1].path == "/v1/workers/w1/lease?wait_s=60"


def test_a_bad_server_url_is_a_clear_error() -> None:
    with pytest.raises(WorkerError, match="http:// or https://"):
        ServiceClient("127.0.0.1:8000", "secret")
