"""The job system: a job runs once, logs in order, reports progress, stops on request from anywhere, fails
visibly, and a job whose worker died is marked interrupted (or queued again where its kind allows)."""

from __future__ import annotations

import asyncio
import secrets
from datetime import timedelta

import pytest
from sqlmodel import select

from secdash.core import unit
from secdash.core.db import session_scope
from secdash.jobs import JobContext, JobEnding, register, runner, store
from secdash.jobs.runner import JobFailed
from secdash.models import Job, JobLog, utcnow


def _kind() -> str:
    return f"t{secrets.token_hex(4)}"


async def _submit(kind: str, **params) -> int:
    async with session_scope() as session:
        job = await runner.enqueue(session, kind=kind, params=params, owner_email="root@example.com")
        await unit.commit(session)
        assert job.id is not None
    return job.id


async def _job(job_id: int) -> Job:
    async with session_scope() as session:
        job = await store.get(session, job_id)
        assert job is not None
        return job


async def _logs(job_id: int, after: int = 0) -> list[tuple[int, str, str]]:
    async with session_scope() as session:
        return [(line.seq, line.level, line.message) for line in await store.logs_since(session, job_id, after)]


@pytest.fixture(autouse=True)
def in_process(migrated_db):
    backend = runner.InProcessBackend()
    runner.use_backend(backend)
    yield backend
    runner.use_backend(None)


async def test_a_job_runs_logs_in_order_reports_progress_and_keeps_its_result(session):
    kind = _kind()

    @register(kind)
    async def count(ctx: JobContext) -> dict:
        for n in range(1, ctx.params["upTo"] + 1):
            await ctx.log(f"step {n}")
            await ctx.progress(done=n, every=0)
        return {"total": ctx.params["upTo"]}

    job_id = await _submit(kind, upTo=3)
    assert await runner.wait_for(job_id) == "done"
    job = await _job(job_id)
    assert (job.status, job.progress, job.result, job.attempts, job.log_seq) == ("done", {"done": 3}, {"total": 3}, 1, 3)
    assert job.worker == runner.worker_id() and job.started_at and job.finished_at
    assert await _logs(job_id) == [(1, "info", "step 1"), (2, "info", "step 2"), (3, "info", "step 3")]
    assert await _logs(job_id, after=2) == [(3, "info", "step 3")]  # a page reads only what it has not seen


async def test_a_stop_from_another_session_ends_the_job_as_stopped_keeping_its_progress(session):
    kind = _kind()
    started = asyncio.Event()

    @register(kind)
    async def endless(ctx: JobContext) -> dict:
        n = 0
        while not await ctx.should_stop(max_age=0):
            n += 1
            await ctx.progress(n=n, every=0)
            started.set()
            await asyncio.sleep(0.01)
        return {"n": n}

    job_id = await _submit(kind)
    await asyncio.wait_for(started.wait(), 10)
    async with session_scope() as other:  # e.g. the page of another worker
        job = await store.get(other, job_id)
        assert store.request_stop(other, job)
        await other.commit()
        assert job.status == "stopping"
    assert await runner.wait_for(job_id) == "stopped"
    job = await _job(job_id)
    assert job.result["n"] >= 1 and job.progress["n"] == job.result["n"]


async def test_a_job_stopped_before_it_started_never_runs(session):
    kind = _kind()
    ran = []

    @register(kind)
    async def body(ctx: JobContext) -> None:
        ran.append(ctx.job_id)

    async with session_scope() as own:
        job = await store.create(own, kind=kind)
        assert store.request_stop(own, job) and job.status == "stopped"
        await own.commit()
    assert await runner.execute(job.id) is None
    assert ran == [] and (await _job(job.id)).status == "stopped"
    async with session_scope() as own:
        assert not store.request_stop(own, await store.get(own, job.id))  # finished: nothing to stop


async def test_a_job_runs_once_however_many_workers_receive_it(session):
    kind = _kind()
    runs = []

    @register(kind)
    async def body(ctx: JobContext) -> None:
        runs.append(ctx.job_id)
        await asyncio.sleep(0.05)

    async with session_scope() as own:
        job = await store.create(own, kind=kind)
        await own.commit()
    outcomes = await asyncio.gather(*(runner.execute(job.id) for _ in range(4)))
    assert runs == [job.id] and sorted(map(str, outcomes)) == ["None", "None", "None", "done"]


async def test_a_failing_handler_fails_its_job_visibly(session):
    kind, message_kind = _kind(), _kind()

    @register(kind)
    async def crash(ctx: JobContext) -> None:
        raise RuntimeError("secret detail /etc/passwd")

    @register(message_kind)
    async def refuse(ctx: JobContext) -> None:
        raise JobFailed("The model returned no defense")

    crashed, refused = await _submit(kind), await _submit(message_kind)
    assert await runner.wait_for(crashed) == "failed" and await runner.wait_for(refused) == "failed"
    assert (await _job(crashed)).error == "Failed: RuntimeError"  # internals stay in the server log
    assert (await _job(refused)).error == "The model returned no defense"
    assert (await _logs(refused))[-1][1:] == ("error", "The model returned no defense")


async def test_one_active_job_per_singleton_key(session):
    kind = _kind()
    release = asyncio.Event()

    @register(kind)
    async def body(ctx: JobContext) -> None:
        await release.wait()

    async with session_scope() as own:
        first = await store.create(own, kind=kind, singleton_key=kind)
        await own.commit()
    await runner.dispatch(first.id)

    async def second() -> Job:
        async with session_scope() as own:
            return await store.create(own, kind=kind, singleton_key=kind)

    results = await asyncio.gather(second(), second(), return_exceptions=True)
    assert all(isinstance(result, store.ActiveJobExists) for result in results)
    release.set()
    assert await runner.wait_for(first.id) == "done"
    async with session_scope() as own:  # once finished, the key is free again
        assert (await store.create(own, kind=kind, singleton_key=kind)).id


async def _stale_job(kind: str, *, attempts: int = 1, params: dict | None = None) -> int:
    async with session_scope() as session:
        job = Job(
            kind=kind,
            params=params or {},
            status="running",
            worker="gone:1",
            attempts=attempts,
            heartbeat_at=utcnow() - runner.STALE_AFTER - timedelta(seconds=5),
        )
        session.add(job)
        await session.commit()
        assert job.id is not None
        return job.id


async def test_a_job_whose_worker_died_is_interrupted_and_a_requeueable_kind_runs_again(session):
    plain, retried = _kind(), _kind()
    runs = []

    @register(plain)
    async def once(ctx: JobContext) -> None:
        runs.append(("plain", ctx.job_id))

    @register(retried, requeue_on_interrupt=True, max_attempts=2)
    async def again(ctx: JobContext) -> None:
        runs.append(("retried", ctx.attempt))

    dead, requeued, exhausted = await _stale_job(plain), await _stale_job(retried), await _stale_job(retried, attempts=2)
    async with session_scope() as own:
        fresh = Job(kind=plain, status="running", worker="alive:2")
        own.add(fresh)
        await own.commit()
    reaped = dict(await runner.reap_once())
    assert reaped == {dead: False, requeued: True, exhausted: False}
    assert await runner.wait_for(requeued) == "done" and runs == [("retried", 2)]
    job = await _job(dead)
    assert job.status == "interrupted" and "gone:1" in job.error and job.finished_at
    assert (await _job(exhausted)).status == "interrupted"
    assert (await _job(fresh.id)).status == "running"  # a live worker's job is left alone


async def test_a_reaped_job_stays_interrupted_when_its_late_worker_finishes(session):
    kind = _kind()
    job_id = await _stale_job(kind)
    await runner.reap_once()
    assert await store.beat(job_id) is True  # the late handler is told to stop
    await store.finish(job_id, store.JobStatus.done)
    assert (await _job(job_id)).status == "interrupted"


async def test_logs_of_concurrent_writers_get_distinct_increasing_sequence_numbers(session):
    kind = _kind()

    @register(kind)
    async def noop(ctx: JobContext) -> None:
        pass

    async with session_scope() as own:
        job = await store.create(own, kind=kind)
        await own.commit()
    seqs = await asyncio.gather(*(store.append_log(job.id, f"line {n}") for n in range(20)))
    assert sorted(seqs) == list(range(1, 21))
    async with session_scope() as own:
        lines = (await own.exec(select(JobLog).where(JobLog.job_id == job.id))).all()
    assert len(lines) == 20 and (await _job(job.id)).log_seq == 20


async def test_the_database_holds_job_status_and_log_level_to_their_values(session):
    from sqlalchemy import text

    kind = _kind()

    @register(kind)
    async def noop(ctx: JobContext) -> None:
        pass

    async with session_scope() as own:
        job = await store.create(own, kind=kind)
        await own.commit()
    for statement in (
        "UPDATE jobs SET status = 'paused' WHERE id = :id",
        "INSERT INTO job_logs (job_id, seq, level, message, created_at) VALUES (:id, 1, 'debug', 'x', '2026-11-22')",
    ):
        async with session_scope() as own:
            with pytest.raises(Exception, match="(?i)ck_jobs_status|ck_job_logs_level|check"):
                await own.execute(text(statement), {"id": job.id})
                await own.commit()
    assert (await _job(job.id)).status == "queued"
    # the one-active-job rule survived the table rebuild that added the CHECK
    async with session_scope() as own:
        own.add(Job(kind=kind, status="running", singleton_key="k"))
        await own.commit()
    async with session_scope() as own:
        own.add(Job(kind=kind, status="queued", singleton_key="k"))
        with pytest.raises(Exception, match="(?i)unique"):
            await own.commit()


async def test_a_queued_job_whose_hand_over_was_lost_is_handed_out_again(session):
    """E.g. the process died between committing the job and dispatching it, or Redis lost saq's queue."""
    kind = _kind()
    runs = []

    @register(kind)
    async def body(ctx: JobContext) -> None:
        runs.append(ctx.job_id)

    async with session_scope() as own:
        lost = Job(kind=kind, heartbeat_at=utcnow() - runner.FORGOTTEN_AFTER - timedelta(seconds=1))
        fresh = Job(kind=kind)  # queued a moment ago: its hand-over may still be on its way
        own.add(lost)
        own.add(fresh)
        await own.commit()
    await runner.reap_once()
    assert await runner.wait_for(lost.id) == "done" and runs == [lost.id]
    assert (await _job(fresh.id)).status == "queued"
    await runner.reap_once()  # handed out once per window, not on every round
    assert runs == [lost.id]


async def test_an_enqueued_job_reaches_a_worker_only_once_its_unit_of_work_is_committed(in_process):
    """runner.enqueue is the one way to start long work: nothing runs while the caller's transaction is open (a
    worker would not see the job, or would see data the caller may still roll back), and the commit hands it over."""
    kind, ran = _kind(), asyncio.Event()

    @register(kind)
    async def handler(ctx: JobContext) -> None:
        ran.set()

    async with session_scope() as session:
        job = await runner.enqueue(session, kind=kind)
        await asyncio.sleep(0.1)
        assert not ran.is_set() and job.id not in in_process.tasks
        await unit.commit(session)
        assert job.id in in_process.tasks or ran.is_set()  # handed over (it may already have run)
    await runner.wait_for(job.id)
    assert ran.is_set() and (await _job(job.id)).status == "done"


async def test_the_kind_closes_its_record_when_its_job_crashes_or_its_worker_vanishes(session):
    """The job owns the end of long work: a crash (runner) and a vanished worker (reaper) both reach the kind's
    on_end hook with the job's parameters, so no record (a drill, a build) is left saying it still runs."""
    kind, endings = _kind(), []

    async def ended(ending: JobEnding) -> None:
        endings.append((ending.params.get("record"), ending.status, ending.error))

    @register(kind, on_end=ended)
    async def crash(ctx: JobContext) -> None:
        raise RuntimeError("boom")

    crashed = await _submit(kind, record="first")
    assert await runner.wait_for(crashed) == "failed"
    await _stale_job(kind, params={"record": "second"})
    await runner.reap_once()
    assert endings == [("first", "failed", "Failed: RuntimeError"), ("second", "interrupted", endings[1][2])]
    assert "gone:1" in endings[1][2]


async def test_the_reaper_reads_the_jobs_of_silent_workers_once(session):
    """One query finds the jobs of silent workers; ending their records (the kind's hook) reads none of them again."""
    from sqlalchemy import event

    from secdash.core.db import get_engine

    kind, endings = _kind(), []

    async def ended(ending: JobEnding) -> None:
        endings.append((ending.job_id, ending.params.get("record"), ending.error))

    @register(kind, on_end=ended)
    async def never(ctx: JobContext) -> None:
        raise AssertionError("not run: its worker is gone")

    first, second = await _stale_job(kind, params={"record": "a"}), await _stale_job(kind, params={"record": "b"})
    statements: list[str] = []

    def seen(_conn, _cursor, statement, *_args) -> None:
        statements.append(" ".join(statement.split()).lower())

    engine = get_engine().sync_engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        assert dict(await runner.reap_once()) == {first: False, second: False}
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert sorted(endings) == [
        (first, "a", "Interrupted: worker gone:1 stopped responding"),
        (second, "b", "Interrupted: worker gone:1 stopped responding"),
    ]
    assert len([s for s in statements if s.startswith("select") and " from jobs" in s]) == 1
