"""Stored jobs and their ordered logs: created, claimed by one worker, advanced, stopped, finished, reaped.

Every change commits and publishes the job's keyed topic (`job:<id>`) and its kind's area topic, so every
open page of every worker can follow it. Log lines carry a per-job sequence number (`Job.log_seq` is the
newest), so a page reads only the lines after the last one it has seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.db import session_scope
from secdash.core.unit import commit, mark_changed
from secdash.jobs import registry
from secdash.models import utcnow
from secdash.models.jobs import ACTIVE_STATUSES, Job, JobLevel, JobLog, JobStatus

MESSAGE_MAX = 1000
ERROR_MAX = 500


class ActiveJobExists(Exception):
    """Another job with the same singleton key is queued or running."""


def topics(kind: str, job_id: int | None, owner_user_id: int | None = None) -> tuple[str, ...]:
    """The kind's area topic, the job's keyed topic and, where the kind has one, its owner's topic."""
    try:
        found: registry.JobKind | None = registry.kind(kind)
    except LookupError:
        found = None
    out = [found.topic if found else f"jobs:{kind}"]
    if job_id is not None:
        out.append(f"job:{job_id}")
    if found is not None and found.owner_topic is not None and owner_user_id is not None:
        out.append(found.owner_topic(owner_user_id))
    return tuple(out)


def _mark(session: AsyncSession, kind: str, job_id: int | None, owner_user_id: int | None = None) -> None:
    for topic in topics(kind, job_id, owner_user_id):
        mark_changed(session, topic)


async def create(
    session: AsyncSession,
    *,
    kind: str,
    params: dict[str, Any] | None = None,
    progress: dict[str, Any] | None = None,
    owner_user_id: int | None = None,
    owner_email: str = "",
    singleton_key: str | None = None,
) -> Job:
    """Add a queued job to the caller's unit of work (flushed, so it has an id; the caller commits, then dispatches).

    Raises ActiveJobExists when `singleton_key` is held by an active job: the database decides, not a prior read.
    """
    registry.kind(kind)  # an unknown kind is a programming error, found before anything is stored
    job = Job(
        kind=kind,
        params=params or {},
        progress=progress or {},
        owner_user_id=owner_user_id,
        owner_email=owner_email,
        singleton_key=singleton_key,
    )
    session.add(job)
    try:
        await session.flush()
    except IntegrityError:
        await session.rollback()
        raise ActiveJobExists(singleton_key) from None
    _mark(session, kind, job.id, owner_user_id)
    return job


async def get(session: AsyncSession, job_id: int) -> Job | None:
    return await session.get(Job, job_id)


async def latest(session: AsyncSession, kind: str) -> Job | None:
    return (await session.exec(select(Job).where(Job.kind == kind).order_by(col(Job.id).desc()).limit(1))).first()


async def logs_since(session: AsyncSession, job_id: int, after_seq: int = 0, limit: int = 500) -> list[JobLog]:
    """The job's log lines after `after_seq`, oldest first (at most `limit`)."""
    query = select(JobLog).where(JobLog.job_id == job_id, JobLog.seq > after_seq).order_by(col(JobLog.seq)).limit(limit)
    return list(await session.exec(query))


async def claim(job_id: int, worker: str) -> Job | None:
    """Move a queued job to running for `worker`; None if it is not queued (another worker has it, or it was
    stopped before it started). One UPDATE decides, so a job runs once however many workers receive it."""
    now = utcnow()
    async with session_scope() as session:
        result = await session.exec(
            update(Job)
            .execution_options(synchronize_session=False)
            .where(col(Job.id) == job_id, col(Job.status) == JobStatus.queued.value)
            .values(
                status=JobStatus.running.value, worker=worker[:64], attempts=Job.attempts + 1, started_at=now, heartbeat_at=now
            )
        )
        if result.rowcount != 1:
            await session.rollback()
            return None
        job = await session.get(Job, job_id)
        assert job is not None
        _mark(session, job.kind, job_id, job.owner_user_id)
        await commit(session)
        return job


async def beat(job_id: int, progress: dict[str, Any] | None = None) -> bool:
    """Heartbeat (and, if given, the new progress) of a running job; returns whether a stop was requested."""
    values: dict[str, Any] = {"heartbeat_at": utcnow()}
    if progress is not None:
        values["progress"] = progress
    async with session_scope() as session:
        result = await session.exec(
            update(Job)
            .execution_options(synchronize_session=False)
            .where(col(Job.id) == job_id, col(Job.status).in_([JobStatus.running.value, JobStatus.stopping.value]))
            .values(**values)
            .returning(col(Job.stop_requested), col(Job.kind), col(Job.owner_user_id))
        )
        row = result.first()
        if row is None:  # no longer running (reaped as interrupted, or deleted): the handler should end
            await session.rollback()
            return True
        if progress is not None:
            _mark(session, row.kind, job_id, row.owner_user_id)
        await commit(session)
        return bool(row.stop_requested)


async def add_log(
    session: AsyncSession,
    job_id: int,
    message: str,
    level: JobLevel | str = JobLevel.info,
    *,
    max_chars: int = MESSAGE_MAX,
) -> int:
    """Add a line (its first `max_chars` characters) to the job's log in the caller's unit of work; returns its
    sequence number (0: no such job)."""
    result = await session.exec(
        update(Job)
        .execution_options(synchronize_session=False)
        .where(col(Job.id) == job_id)
        .values(log_seq=Job.log_seq + 1)
        .returning(col(Job.log_seq), col(Job.kind), col(Job.owner_user_id))
    )
    row = result.first()
    if row is None:
        return 0
    session.add(JobLog(job_id=job_id, seq=row.log_seq, level=JobLevel(level), message=message[:max_chars]))
    _mark(session, row.kind, job_id, row.owner_user_id)
    return int(row.log_seq)


async def append_log(job_id: int, message: str, level: JobLevel | str = JobLevel.info, *, max_chars: int = MESSAGE_MAX) -> int:
    """Add a line to the job's log (committed now); returns its sequence number."""
    async with session_scope() as session:
        seq = await add_log(session, job_id, message, level, max_chars=max_chars)
        if seq:
            await commit(session)
        else:
            await session.rollback()
        return seq


async def finish(
    job_id: int,
    status: JobStatus,
    *,
    result: dict[str, Any] | None = None,
    error: str | None = None,
    progress: dict[str, Any] | None = None,
) -> Job | None:
    """Record how a job ended (only a job that is still running or stopping: a reaped job stays interrupted)."""
    now = utcnow()
    values: dict[str, Any] = {
        "status": status.value,
        "finished_at": now,
        "heartbeat_at": now,
        "error": error and error[:ERROR_MAX],
    }
    if result is not None:
        values["result"] = result
    if progress is not None:
        values["progress"] = progress
    async with session_scope() as session:
        changed = await session.exec(
            update(Job)
            .execution_options(synchronize_session=False)
            .where(col(Job.id) == job_id, col(Job.status).in_([JobStatus.running.value, JobStatus.stopping.value]))
            .values(**values)
        )
        job = await session.get(Job, job_id)
        if job is None:
            return None
        if changed.rowcount:
            _mark(session, job.kind, job_id, job.owner_user_id)
        await commit(session)
        return job


def request_stop(session: AsyncSession, job: Job) -> bool:
    """Ask `job` to stop, in the caller's unit of work: a queued job is stopped at once (it never ran), a running
    one becomes stopping and its handler ends at its next check. False if it had already finished."""
    if job.status == JobStatus.queued:
        job.status, job.stop_requested, job.finished_at = JobStatus.stopped, True, utcnow()
    elif job.status in (JobStatus.running, JobStatus.stopping):
        job.status, job.stop_requested = JobStatus.stopping, True
    else:
        return False
    session.add(job)
    _mark(session, job.kind, job.id, job.owner_user_id)
    return True


@dataclass(frozen=True)
class Reaped:
    """A job the reaper took from a silent worker, as it read it: queued again, or interrupted with its error."""

    job_id: int
    again: bool  # queued again (the caller dispatches it); else interrupted
    kind: str
    params: dict[str, Any]
    error: str | None


async def reap_stale(timeout: timedelta, *, now: datetime | None = None) -> list[Reaped]:
    """Jobs whose worker went silent for `timeout`: interrupted, or queued again where their kind allows.

    Returns what the caller needs of each (dispatch the requeued ones, end the record of the others) from this
    one read: nothing of them has to be read again.
    """
    cutoff = (now or utcnow()) - timeout
    reaped: list[Reaped] = []
    async with session_scope() as session:
        stale = list(
            await session.exec(
                select(Job).where(
                    col(Job.status).in_([JobStatus.running.value, JobStatus.stopping.value]), col(Job.heartbeat_at) < cutoff
                )
            )
        )
        for job in stale:
            assert job.id is not None
            try:
                kind = registry.kind(job.kind)
            except LookupError:
                kind = None
            again = bool(
                kind and kind.requeue_on_interrupt and job.status == JobStatus.running and job.attempts < kind.max_attempts
            )
            error = None if again else f"Interrupted: worker {job.worker or '?'} stopped responding"
            result = await session.exec(
                update(Job)
                .execution_options(synchronize_session=False)
                .where(col(Job.id) == job.id, col(Job.status) == job.status, col(Job.heartbeat_at) < cutoff)
                .values(
                    status=(JobStatus.queued if again else JobStatus.interrupted).value,
                    finished_at=None if again else utcnow(),
                    heartbeat_at=utcnow(),
                    error=error,
                    worker="" if again else job.worker,
                )
            )
            if result.rowcount:
                _mark(session, job.kind, job.id, job.owner_user_id)
                reaped.append(Reaped(job.id, again, job.kind, dict(job.params or {}), error))
        await commit(session)
    return reaped


async def requeue_forgotten(older_than: timedelta, *, now: datetime | None = None) -> list[int]:
    """Queued jobs nobody has taken for `older_than` (their hand-over was lost: a process died between
    committing and dispatching, or Redis lost the queue): their clock restarts and they are returned to be
    handed out again (the claim still lets only one worker run each)."""
    moment = now or utcnow()
    async with session_scope() as session:
        result = await session.exec(
            update(Job)
            .execution_options(synchronize_session=False)
            .where(col(Job.status) == JobStatus.queued.value, col(Job.heartbeat_at) < moment - older_than)
            .values(heartbeat_at=moment)
            .returning(col(Job.id))
        )
        ids = sorted(row.id for row in result)
        await session.commit()
        return ids


async def queued_ids(kind: str | None = None) -> list[int]:
    async with session_scope() as session:
        query = select(Job.id).where(Job.status == JobStatus.queued.value)
        if kind:
            query = query.where(Job.kind == kind)
        return [job_id for job_id in await session.exec(query.order_by(col(Job.id))) if job_id is not None]


def is_active(job: Job) -> bool:
    return job.status in ACTIVE_STATUSES
