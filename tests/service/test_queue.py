"""The measurement queue without HTTP: leases, results, duplicates, the sweeper and
worker_lost, release, cancel; and the workload leases of concurrent jobs."""

from __future__ import annotations

import time
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from service.db.models import BatchRow, CandidateRow, JobRow, LeaseRow, RecordRow, WorkerRow
from service.errors import Conflict, Forbidden, InvalidInput
from service.fleet import register_worker
from service.jobs import cancel_job
from service.orchestration.leases import (
    acquire_workload_leases,
    claim_next_job,
    release_workload_leases,
)
from service.queue import (
    ResultIn,
    batch_outcome,
    lease_batch,
    post_results,
    queue_batch,
    release_batch,
    sweep_expired_leases,
)

TARGET = "llvm -mcpu=znver4 -num-cores=2"
TASK = {"key": "k" * 64, "name": "task"}


def make_job(session: Session, job_id: str = "j" * 32) -> JobRow:
    job = JobRow(
        id=job_id, model_id=None, workload=None, target=TARGET, trials=8, time_limit_s=None,
        options={}, state="running", error="", trials_done=0, created_at=time.time(),
    )  # fmt: skip
    session.add(job)
    session.flush()
    return job


def traces(count: int) -> list[dict[str, Any]]:
    return [{"steps": [], "index": index} for index in range(count)]


def worker(session: Session, name: str = "w") -> WorkerRow:
    row, _ = register_worker(session, name, TARGET, {}, "test")
    return row


def ok(candidate_id: str, cost_s: float = 1e-3) -> ResultIn:
    return ResultIn(candidate_id, "ok", [cost_s, cost_s])


def test_lease_post_and_duplicates(session: Session) -> None:
    job = make_job(session)
    batch = queue_batch(session, job.id, TASK, TARGET, {"repeat": 1}, traces(3))
    first, second = worker(session, "a"), worker(session, "b")
    leased = lease_batch(session, first, 10.0)
    assert leased is not None and leased.batch.id == batch.id
    assert [c.position for c in leased.candidates] == [0, 1, 2]
    assert lease_batch(session, second, 10.0) is None  # nothing else queued
    ids = [c.id for c in leased.candidates]
    assert post_results(session, first.id, batch.id, [ok(ids[0])], 10.0) == (1, 0)
    assert post_results(session, first.id, batch.id, [ok(ids[0])], 10.0) == (0, 1)
    assert batch_outcome(session, batch.id) is None
    with pytest.raises(Forbidden):
        post_results(session, second.id, batch.id, [ok(ids[1])], 10.0)
    with pytest.raises(InvalidInput, match="not in batch"):
        post_results(session, first.id, batch.id, [ok("nope")], 10.0)
    with pytest.raises(InvalidInput, match="status"):
        post_results(session, first.id, batch.id, [ResultIn(ids[1], "great", [])], 10.0)
    post_results(session, first.id, batch.id, [ok(ids[1]), ResultIn(ids[2], "timeout", [])], 10.0)
    outcome = batch_outcome(session, batch.id)
    assert outcome is not None and [c.status for c in outcome] == ["ok", "ok", "timeout"]
    assert session.get(BatchRow, batch.id).state == "done"  # type: ignore[union-attr]
    records = list(session.scalars(select(RecordRow)))
    assert len(records) == 3 and {r.worker for r in records} == {"a"}
    assert session.get(WorkerRow, first.id).measured == 3  # type: ignore[union-attr]


def test_expired_lease_requeues_and_counts_attempts_until_worker_lost(session: Session) -> None:
    job = make_job(session)
    batch = queue_batch(session, job.id, TASK, TARGET, {}, traces(2))
    workers = [worker(session, f"w{i}") for i in range(3)]
    for attempt, holder in enumerate(workers, start=1):
        leased = lease_batch(session, holder, 0.0)
        assert leased is not None and leased.batch.id == batch.id
        if attempt == 1:  # the first holder measures one candidate before dying
            post_results(session, holder.id, batch.id, [ok(leased.candidates[0].id)], 0.0)
        session.execute(select(LeaseRow))  # flush
        time.sleep(0.01)
        assert sweep_expired_leases(session, max_attempts=3) == 1
        # A late result from an expired lease is refused: the batch went back to the queue.
        if attempt == 1:
            pending = leased.candidates[1].id
            with pytest.raises(Conflict):
                post_results(session, holder.id, batch.id, [ok(pending)], 10.0)
    outcome = batch_outcome(session, batch.id)
    assert outcome is not None
    assert [c.status for c in outcome] == ["ok", "worker_lost"]
    assert outcome[1].attempts == 3
    lost = session.scalars(select(RecordRow).where(RecordRow.status == "worker_lost")).all()
    assert len(lost) == 1
    assert lease_batch(session, workers[0], 10.0) is None  # never retried forever


def test_release_requeues_without_an_attempt(session: Session) -> None:
    job = make_job(session)
    batch = queue_batch(session, job.id, TASK, TARGET, {}, traces(2))
    first, second = worker(session, "a"), worker(session, "b")
    leased = lease_batch(session, first, 10.0)
    assert leased is not None
    post_results(session, first.id, batch.id, [ok(leased.candidates[0].id)], 10.0)
    assert release_batch(session, first.id, batch.id) == 1
    again = lease_batch(session, second, 10.0)
    assert again is not None and [c.position for c in again.candidates] == [1]
    assert again.candidates[0].attempts == 0


def test_lease_matches_the_exact_target_and_oldest_first(session: Session) -> None:
    job = make_job(session)
    other = queue_batch(session, job.id, TASK, "llvm -mcpu=skylake -num-cores=4", {}, traces(1))
    old = queue_batch(session, job.id, TASK, TARGET, {}, traces(1))
    time.sleep(0.01)
    queue_batch(session, job.id, TASK, TARGET, {}, traces(1))
    leased = lease_batch(session, worker(session), 10.0)
    assert leased is not None and leased.batch.id == old.id
    assert session.get(BatchRow, other.id).state == "queued"  # type: ignore[union-attr]


def test_cancel_releases_leases_and_ends_candidates(session: Session) -> None:
    job = make_job(session)
    batch = queue_batch(session, job.id, TASK, TARGET, {}, traces(2))
    holder = worker(session)
    leased = lease_batch(session, holder, 10.0)
    assert leased is not None
    cancel_job(session, job.id)
    assert {c.status for c in session.scalars(select(CandidateRow))} == {"cancelled"}
    assert session.scalars(select(LeaseRow)).one().state == "released"
    with pytest.raises(Conflict):
        post_results(session, holder.id, batch.id, [ok(leased.candidates[0].id)], 10.0)
    with pytest.raises(Conflict):
        cancel_job(session, job.id)


def test_workload_leases_are_all_or_nothing(session: Session) -> None:
    first, second = make_job(session, "a" * 32), make_job(session, "b" * 32)
    assert acquire_workload_leases(session, first.id, TARGET, ["k1", "k2"], 10.0)
    assert not acquire_workload_leases(session, second.id, TARGET, ["k2", "k3"], 10.0)
    assert acquire_workload_leases(session, second.id, TARGET, ["k3"], 10.0)
    assert acquire_workload_leases(session, second.id, "llvm -mcpu=x", ["k1"], 10.0)
    release_workload_leases(session, first.id)
    assert acquire_workload_leases(session, second.id, TARGET, ["k1", "k2", "k3"], 10.0)


def test_claim_resumes_a_job_whose_driver_lease_expired(session: Session) -> None:
    job = make_job(session)
    job.state = "queued"
    claimed = claim_next_job(session, "d1", 0.0)
    assert claimed is not None and claimed.state == "running"
    time.sleep(0.01)
    again = claim_next_job(session, "d2", 10.0)
    assert again is not None and again.driver_id == "d2"
    assert claim_next_job(session, "d3", 10.0) is None


def test_a_failed_job_withdraws_its_batches(engine: Any) -> None:
    from service.db.engine import make_session_factory, unit_of_work
    from service.orchestration.driver import Driver
    from service.settings import Settings

    factory = make_session_factory(engine)
    with unit_of_work(factory) as session:
        job = make_job(session)
        job.driver_id = "d1"
        queued = queue_batch(session, job.id, TASK, TARGET, {"repeat": 1}, traces(2))
        other = queue_batch(session, job.id, {"key": "q" * 64, "name": "t"}, TARGET, {}, traces(1))
        leased = lease_batch(session, worker(session, "a"), 10.0)
        assert leased is not None and leased.batch.id == queued.id
    Driver(Settings(), factory, job.id, "d1").fail("the tuner raised")
    with unit_of_work(factory) as session:
        assert session.get(JobRow, job.id).state == "failed"  # type: ignore[union-attr]
        states = {b.id: b.state for b in session.scalars(select(BatchRow))}
        assert states == {queued.id: "cancelled", other.id: "cancelled"}
        # Neither the leased batch nor the queued one is measured now.
        assert lease_batch(session, worker(session, "b"), 10.0) is None
        statuses = set(session.scalars(select(CandidateRow.status)))
        assert statuses == {"cancelled"}
        assert {lease.state for lease in session.scalars(select(LeaseRow))} == {"released"}


def test_an_ok_result_without_costs_is_refused_and_the_candidate_stays_queued(
    session: Session,
) -> None:
    job = make_job(session)
    batch = queue_batch(session, job.id, TASK, TARGET, {"repeat": 1}, traces(1))
    holder = worker(session)
    leased = lease_batch(session, holder, 10.0)
    assert leased is not None
    (candidate,) = leased.candidates
    for costs, message in (([], "ok result must hold"), ([0.0], "finite positive seconds")):
        with pytest.raises(InvalidInput, match=message):
            post_results(session, holder.id, batch.id, [ResultIn(candidate.id, "ok", costs)], 10.0)
    assert session.scalars(select(RecordRow)).all() == []
    assert post_results(session, holder.id, batch.id, [ok(candidate.id)], 10.0) == (1, 0)


def _queued(session: Session, job_id: str, owner: str | None, queued_at: float) -> JobRow:
    job = JobRow(
        id=job_id, model_id=None, workload=None, target=TARGET, trials=8, time_limit_s=None,
        options={}, state="queued", error="", trials_done=0, created_at=queued_at,
        queued_at=queued_at, owner=owner,
    )  # fmt: skip
    session.add(job)
    session.flush()
    return job


def test_driver_slots_go_to_the_owner_driving_fewest_then_to_the_longest_queued(
    session: Session,
) -> None:
    _queued(session, "a1" * 16, "alice", 1.0)
    _queued(session, "a2" * 16, "alice", 2.0)
    _queued(session, "b1" * 16, "bob", 3.0)
    claimed = [claim_next_job(session, f"d{n}", 60.0) for n in range(4)]
    # Alice's first (the oldest), then Bob's though Alice's second was queued before it.
    assert [job.id[:2] if job else None for job in claimed] == ["a1", "b1", "a2", None]


def test_a_job_that_gives_its_slot_up_queues_again_at_the_back(session: Session) -> None:
    from service.orchestration.leases import others_queued, requeue_job

    first = _queued(session, "x" * 32, "alice", 1.0)
    _queued(session, "y" * 32, "bob", 2.0)
    assert claim_next_job(session, "d1", 60.0) is first
    assert others_queued(session, first.id)
    requeue_job(session, first.id, "d1")
    assert first.state == "queued" and first.queued_at is not None and first.queued_at > 2.0
    second = claim_next_job(session, "d2", 60.0)
    assert second is not None and second.id == "y" * 32
    assert others_queued(session, second.id)  # the first waits again
    assert claim_next_job(session, "d3", 60.0) is first
