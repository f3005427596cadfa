"""The agent's loop in-process against the in-memory protocol fake (tests/workers/fake_service.py)
over real HTTP, with a stand-in measurement so each case takes milliseconds.

The same behaviour with real measurement and the real service: tests/service/test_worker*.py.
"""

from __future__ import annotations

import threading
import time

import pytest

from codegen.measure import MeasureError, MeasureOptions, MeasureResult, default_trace
from tests.codegen.test_measure import TARGET, _matmul_task
from workers.agent import Agent, AgentConfig, MeasureFn
from workers.client import Backoff, ServiceClient, WorkerError
from workers.device import detect_device
from workers.protocol import Batch, Candidate

from .fake_service import SECRET, FakeService

FAST = Backoff(initial_s=0.02, factor=2.0, max_s=0.1, jitter=0.0)


def _batch(batch_id: str, count: int) -> Batch:
    candidates = tuple(
        Candidate(f"{batch_id}-c{index}", "llvm", {"function": index}, {"steps": []})
        for index in range(count)
    )
    return Batch(batch_id, 30.0, MeasureOptions(repeat=2), candidates)


def _quick_ok(candidate: Candidate, options: MeasureOptions) -> MeasureResult:
    return MeasureResult("ok", (1e-3,) * options.repeat, build_s=0.01, measure_s=0.01)


def _agent(url: str, measure: MeasureFn | None = _quick_ok, token: str = SECRET) -> Agent:
    """An agent against `url`; with `measure` None it really measures, in its session."""
    client = ServiceClient(url, token, backoff=FAST)
    config = AgentConfig(name="test", burst=True, lease_wait_s=0.3, stop_grace_s=2.0)
    return Agent(client, detect_device(), config, measure)


def test_burst_measures_every_queued_candidate_posts_each_and_exits() -> None:
    fake = FakeService()
    fake.enqueue(_batch("b1", 3))
    fake.enqueue(_batch("b2", 2))
    with fake.serve() as server:
        agent = _agent(server.url)
        assert agent.run() == 0
    assert sorted(fake.results) == ["b1-c0", "b1-c1", "b1-c2", "b2-c0", "b2-c1"]
    assert all(r.status == "ok" and r.costs_s == (1e-3, 1e-3) for r in fake.results.values())
    assert len(server.requests_to("/results")) == 5  # one post per candidate, as measured
    assert agent.measured == 5 and fake.duplicates == 0
    registered = fake.workers["w1"]
    assert registered["target"] == detect_device().target
    assert registered["device"]["cores"] >= 1 and registered["device"]["memory_bytes"] > 0


def test_results_are_kept_while_the_service_fails_and_none_is_lost() -> None:
    fake = FakeService()
    fake.enqueue(_batch("b1", 4))
    fake.fail_results = 3  # the first three posts get 503
    with fake.serve() as server:
        assert _agent(server.url).run() == 0
    assert sorted(fake.results) == ["b1-c0", "b1-c1", "b1-c2", "b1-c3"]
    posts = server.requests_to("/results")
    # A failed post's results ride along with the next one.
    assert [len(p.body["results"]) for p in posts] == [1, 2, 3, 4]


def test_an_expired_lease_drops_the_batch_and_the_agent_leases_again() -> None:
    fake = FakeService()
    fake.enqueue(_batch("b1", 3))
    fake.enqueue(_batch("b2", 1))
    fake.expire_next_post = True
    with fake.serve() as server:
        assert _agent(server.url).run() == 0
    assert sorted(fake.results) == ["b2-c0"]  # b1 went back to the (fake's) queue's owner
    assert len(server.requests_to("/b1/results")) == 1


def test_stop_finishes_the_current_candidate_posts_it_and_releases_the_rest() -> None:
    fake = FakeService()
    fake.enqueue(_batch("b1", 5))
    with fake.serve() as server:
        agent = _agent(server.url)

        def measure(candidate: Candidate, options: MeasureOptions) -> MeasureResult:
            if candidate.candidate_id == "b1-c1":
                agent.request_stop()  # arrives while this candidate is measured
            return MeasureResult("ok", (2e-3,))

        agent.measure = measure
        assert agent.run() == 0
    assert sorted(fake.results) == ["b1-c0", "b1-c1"]
    assert fake.released == ["b1-c2", "b1-c3", "b1-c4"]


def test_failures_are_posted_as_results() -> None:
    fake = FakeService()
    fake.enqueue(_batch("b1", 2))
    with fake.serve() as server:
        agent = _agent(
            server.url,
            measure=lambda c, o: MeasureResult("runtime_error", error="child killed by SIGSEGV"),
        )
        assert agent.run() == 0
    assert {r.status for r in fake.results.values()} == {"runtime_error"}
    assert fake.results["b1-c0"].error == "child killed by SIGSEGV"


def test_a_wrong_registration_secret_is_a_clear_error() -> None:
    with FakeService().serve() as server, pytest.raises(WorkerError, match="registration secret"):
        _agent(server.url, token="wrong").run()


def test_heartbeats_report_busy_with_the_batch() -> None:
    fake = FakeService()
    fake.enqueue(_batch("b1", 2))
    with fake.serve() as server:
        agent = _agent(server.url)

        def slow(candidate: Candidate, options: MeasureOptions) -> MeasureResult:
            time.sleep(0.5)  # the fake asks for a heartbeat every 0.2 s
            return MeasureResult("ok", (1e-3,))

        agent.measure = slow
        assert agent.run() == 0
    assert {"state": "busy", "batch_id": "b1"} in fake.heartbeats


def test_only_the_cpu_device_is_accepted_for_now() -> None:
    with pytest.raises(WorkerError, match="cuda:0"):
        detect_device("cuda:0")


def test_a_machine_that_cannot_measure_posts_what_it_has_releases_and_stops() -> None:
    fake = FakeService()
    fake.enqueue(_batch("b1", 3))

    def measure(candidate: Candidate, options: MeasureOptions) -> MeasureResult:
        if candidate.candidate_id == "b1-c1":
            raise MeasureError("measurement child failed to start: out of memory")
        return MeasureResult("ok", (1e-3,))

    with fake.serve() as server, pytest.raises(WorkerError, match="cannot measure"):
        _agent(server.url, measure).run()
    assert sorted(fake.results) == ["b1-c0"]
    assert fake.released == ["b1-c1", "b1-c2"]


def test_a_batch_for_timing_in_turns_is_measured_together_in_one_child() -> None:
    """A batch timed in turns (`in_turn`) is built, checked and timed together by the
    agent's session (really measured here): each candidate gets an equal share of the
    joint timing, and is posted as usual."""
    task = _matmul_task()
    trace = default_trace(task, TARGET)
    candidates = tuple(
        Candidate(f"b1-c{index}", TARGET, task, steps)
        for index, steps in enumerate([trace, {"version": trace["version"], "steps": []}])
    )
    options = MeasureOptions(repeat=3, min_repeat_ms=5, in_turn=True)
    fake = FakeService()
    fake.enqueue(Batch("b1", 60.0, options, candidates))
    with fake.serve() as server:
        assert _agent(server.url, None).run() == 0
    results = [fake.results[c.candidate_id] for c in candidates]
    assert [r.status for r in results] == ["ok", "ok"], [r.error for r in results]
    assert all(len(r.costs_s) == 3 for r in results)
    assert len({r.measure_s for r in results}) == 1  # an equal share of the timing


def test_a_stop_while_a_batch_is_timed_in_turns_posts_its_failures_and_releases_the_rest() -> None:
    """None of a batch timed in turns is timed until its timing ends: a stop kills its
    child at once, posts only the candidates whose build already failed and gives the
    rest back."""
    task = _matmul_task()
    trace = default_trace(task, TARGET)
    invalid = {"version": trace["version"], "steps": [{"kind": "fuse", "stage": "nope"}]}
    traces = [invalid, trace, trace, trace]
    candidates = tuple(Candidate(f"b1-c{index}", TARGET, task, t) for index, t in enumerate(traces))
    # (long enough repeats that the stop arrives while they are timed)
    options = MeasureOptions(repeat=50, min_repeat_ms=200, in_turn=True)
    fake = FakeService()
    fake.enqueue(Batch("b1", 120.0, options, candidates))
    with fake.serve() as server:
        agent = _agent(server.url, None)
        stopper = threading.Timer(3.0, agent.request_stop)
        stopper.start()
        started = time.monotonic()
        try:
            assert agent.run() == 0
        finally:
            stopper.cancel()
        took_s = time.monotonic() - started
    assert {cid: r.status for cid, r in fake.results.items()} == {"b1-c0": "build_error"}
    assert "fuse(stage='nope')" in fake.results["b1-c0"].error
    assert fake.released == ["b1-c1", "b1-c2", "b1-c3"]
    assert took_s < 15, f"the agent took {took_s:.1f} s to stop"  # the timing takes 30 s
