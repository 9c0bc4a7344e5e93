"""Reading Battle Station never writes: a drill whose job died (the worker stopped before the job's end hook
closed its operation) reads as stopped and not running, and the stored row, the agent and History stay as
they were until the job system's end hook closes it."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import event
from sqlmodel import func, select

from secdash.core.unit import commit
from secdash.jobs import store
from secdash.models import AgentRecord, AttackType, BattleOperation, HistoryLog, OperationStatus, utcnow
from secdash.models.jobs import JobStatus
from secdash.services.battle import operations, station
from tests.factories import make_user


async def _orphan(session, *, job_status: JobStatus | None) -> int:
    """A running operation as a dead worker leaves it: its job ended (or is gone) and nobody closed it."""
    job_id = None
    if job_status is not None:
        job = await store.create(session, kind=operations.KIND, singleton_key="drill:tour", params={"site": "tour"})
        job.status = job_status
        session.add(job)
        job_id = job.id
    op = BattleOperation(attack_type=AttackType.xss, site="tour", agent_id="tour", job_id=job_id, mitre_technique="T1189")
    session.add(op)
    await commit(session)
    assert op.id is not None
    return op.id


async def _stored(session, op_id: int) -> BattleOperation:
    session.expire_all()
    op = await session.get(BattleOperation, op_id)
    assert op is not None
    return op


async def test_reading_drills_after_their_job_died_writes_nothing(session):
    admin = await make_user(session, "root@example.com", role="admin")
    interrupted = await _orphan(session, job_status=JobStatus.interrupted)
    history_before = (await session.exec(select(func.count()).select_from(HistoryLog))).one()
    agent_before = await session.get(AgentRecord, "tour")
    writes: list[str] = []

    def flushed(sess, _context, _instances) -> None:
        writes.extend(type(obj).__name__ for obj in [*sess.new, *sess.dirty, *sess.deleted])

    event.listen(session.sync_session, "before_flush", flushed)
    try:
        listed = await operations.list_operations(session=session)
        active = await operations.active_drills(session=session)
        one = await operations.get_operation(session=session, operation_id=interrupted)
    finally:
        event.remove(session.sync_session, "before_flush", flushed)
    read = await station.read_station(viewer=admin)

    # What the users see: the drill stopped, with the reason, and nothing running (the page is SECURE).
    assert [(o.id, o.status, o.error) for o in listed] == [(interrupted, OperationStatus.stopped, operations.INTERRUPTED)]
    assert (one.status, one.error) == (OperationStatus.stopped, operations.INTERRUPTED)
    assert active == [] and read.active == []
    assert [(o.status, o.error) for o in read.operations] == [(OperationStatus.stopped, operations.INTERRUPTED)]
    # What is stored: untouched by the reads.
    assert writes == []
    stored = await _stored(session, interrupted)
    assert stored.status == OperationStatus.running and stored.error is None and stored.finished_at is None
    assert (await session.exec(select(func.count()).select_from(HistoryLog))).one() == history_before
    assert await session.get(AgentRecord, "tour") == agent_before


async def test_a_drill_without_its_job_reads_as_stopped_without_a_write(session):
    gone = await _orphan(session, job_status=None)
    listed = await operations.list_operations(session=session)
    assert [(o.id, o.status, o.error) for o in listed] == [(gone, OperationStatus.stopped, operations.INTERRUPTED)]
    assert await operations.active_drills(session=session) == []
    assert (await _stored(session, gone)).status == OperationStatus.running


async def test_a_drill_runs_while_its_job_does_and_its_duration_lasts(session):
    """The one "still running" rule (operations.still_running, 300 s from its start) for the active list and the page."""
    job = await store.create(session, kind=operations.KIND, singleton_key="drill:gem", params={"site": "gem"})
    op = BattleOperation(attack_type=AttackType.ddos, site="gem", agent_id="gem", job_id=job.id, mitre_technique="T1499.002")
    session.add(op)
    await commit(session)
    assert [a.operation_id for a in await operations.active_drills(session=session)] == [op.id]
    assert operations.still_running(op.started_at) and not operations.still_running(
        op.started_at, now=op.started_at + timedelta(seconds=operations.DURATION_SECONDS)
    )
    op.started_at = utcnow() - timedelta(seconds=operations.DURATION_SECONDS + 1)  # its job still runs: out of time
    session.add(op)
    await commit(session)
    assert await operations.active_drills(session=session) == []
