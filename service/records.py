"""Tuning records in the database: conversion, queries, export and import, and the
record store a job driver tunes with.

Records are shared by every job: a workload tuned on a target by one job seeds the
search and the cost model of every later job that has it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sqlalchemy import Select, select
from sqlalchemy.orm import Session, sessionmaker

from ir.errors import ScheduleError
from ir.schedule import parse_trace
from service.db.engine import unit_of_work
from service.db.models import RecordRow
from service.errors import InvalidInput
from tuner.records import Record, RecordError, load_records, tuned_record

EXPORT_CHUNK = 1000


def row_from_record(record: Record, measurement_id: str | None = None) -> RecordRow:
    """The database row of a record (`measurement_id`: the candidate it measured)."""
    median = record.median_cost_s
    return RecordRow(
        candidate_key=record.candidate_id,
        workload_key=record.workload_key,
        target=record.target,
        trace=dict(record.trace),
        costs_s=list(record.costs_s),
        median_cost_s=median if math.isfinite(median) else None,
        status=record.status,
        error=record.error,
        time=record.time,
        versions=dict(record.versions),
        worker=record.worker,
        job_id=record.job,
        measurement_id=measurement_id,
        timing=record.timing,
    )


def record_from_row(row: RecordRow) -> Record:
    """The `tuner.records.Record` of a row."""
    return Record(
        workload_key=row.workload_key,
        target=row.target,
        trace=row.trace,
        costs_s=row.costs_s,
        status=row.status,
        error=row.error,
        time=row.time,
        versions=row.versions,
        candidate_id=row.candidate_key,
        worker=row.worker,
        job=row.job_id,
        timing=row.timing,
    )


@dataclass(frozen=True)
class RecordFilter:
    """Which records a query returns."""

    job_id: str | None = None
    workload_key: str | None = None
    target: str | None = None
    status: str | None = None


def _filtered(query: Select[RecordRow], where: RecordFilter) -> Select[RecordRow]:
    if where.job_id is not None:
        query = query.where(RecordRow.job_id == where.job_id)
    if where.workload_key is not None:
        query = query.where(RecordRow.workload_key == where.workload_key)
    if where.target is not None:
        query = query.where(RecordRow.target == where.target)
    if where.status is not None:
        query = query.where(RecordRow.status == where.status)
    return query


def query_records(
    session: Session, where: RecordFilter, limit: int, offset: int
) -> list[RecordRow]:
    """A page of matching records in the order they were stored."""
    query = _filtered(select(RecordRow), where).order_by(RecordRow.id).limit(limit).offset(offset)
    return list(session.scalars(query))


def best_records(session: Session, where: RecordFilter) -> list[RecordRow]:
    """The declared best record (`tuner.records.tuned_record`) of each matching (workload,
    target). With a job filter, the best among every job's records of that job's
    workloads (records are shared)."""
    query = _filtered(
        select(RecordRow), RecordFilter(where.job_id, where.workload_key, where.target)
    )
    keys = {(row.workload_key, row.target) for row in session.scalars(query)}
    best: list[RecordRow] = []
    for key, target in sorted(keys):
        rows = list(
            session.scalars(
                select(RecordRow).where(
                    RecordRow.workload_key == key,
                    RecordRow.target == target,
                    RecordRow.status == "ok",
                )
            )
        )
        pairs = [(row, record_from_row(row)) for row in rows]
        chosen = tuned_record((record for _, record in pairs), key, target)
        best.extend(row for row, record in pairs if record is chosen)
    return best


def export_lines(session: Session, where: RecordFilter, best: bool) -> Iterator[str]:
    """JSON lines of the matching records (or only the best ones), one per record."""
    if best:
        for row in best_records(session, where):
            yield record_from_row(row).dumps() + "\n"
        return
    offset = 0
    while rows := query_records(session, where, EXPORT_CHUNK, offset):
        for row in rows:
            yield record_from_row(row).dumps() + "\n"
        offset += len(rows)


def import_records(session: Session, lines: Iterable[str]) -> tuple[int, int]:
    """Import JSON lines of records, all or nothing; returns (imported, already present).

    A malformed line raises InvalidInput naming its line number, and nothing is stored.
    A record already present (same candidate and time) is skipped.
    """
    try:
        records = load_records(lines, allow_torn=False)
    except RecordError as err:
        where = str(err).replace("<lines>:", "line ", 1)
        raise InvalidInput(f"malformed record import: {where}") from None
    except UnicodeDecodeError as err:
        raise InvalidInput(f"malformed record import: not UTF-8 text: {err}") from None
    for number, record in enumerate(records, start=1):
        try:
            parse_trace(record.trace)
        except ScheduleError as err:
            where = f"record {number} (candidate {record.candidate_id[:12]})"
            raise InvalidInput(f"malformed record import: {where}: {err}") from None
    imported = 0
    for record in records:
        exists = session.scalars(
            select(RecordRow.id).where(
                RecordRow.candidate_key == record.candidate_id, RecordRow.time == record.time
            )
        ).first()
        if exists is None:
            session.add(row_from_record(record))
            imported += 1
    session.flush()
    return imported, len(records) - imported


class JobRecordStore:
    """The record store a job driver tunes with: it loads every job's records of the
    job's workloads on the target. Measurements are recorded when their results are
    posted (by `service.queue.post_results`), so `append` stores nothing again."""

    def __init__(
        self, factory: sessionmaker[Session], target: str, workload_keys: Iterable[str]
    ) -> None:
        self.factory = factory
        self.target = target
        self.workload_keys = sorted(set(workload_keys))

    def load(self) -> list[Record]:
        """Every record of the job's workloads on its target, in stored order."""
        with unit_of_work(self.factory) as session:
            rows = session.scalars(
                select(RecordRow)
                .where(
                    RecordRow.target == self.target,
                    RecordRow.workload_key.in_(self.workload_keys),
                )
                .order_by(RecordRow.id)
            )
            return [record_from_row(row) for row in rows]

    def append(self, records: Iterable[Record]) -> int:
        """Count the records (already stored when their results arrived)."""
        return sum(1 for _ in records)
