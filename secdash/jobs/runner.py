"""Running jobs: claim, run the kind's handler with a context, heartbeat, finish; reap jobs of dead workers.

Two ways to hand a job to a worker, chosen by the settings:
- embedded (no Redis): the job runs as a task in this process; nothing to install.
- scale-out (REFLEX_REDIS_URL): the job id goes onto a saq queue in Redis and any worker's saq consumer takes it.
Either way the stored job decides: `store.claim` lets exactly one worker run it, a stop is a flag in the
database that the handler reads, and the reaper (one per deployment) marks jobs whose heartbeat stopped.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Protocol

from secdash.core import unit
from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.leader import run_as_leader
from secdash.jobs import registry, store
from secdash.jobs.context import JobContext
from secdash.models.jobs import FINISHED_STATUSES, Job, JobLevel, JobStatus

if TYPE_CHECKING:
    from saq import Worker
    from saq.types import Context
    from sqlmodel.ext.asyncio.session import AsyncSession

log = logging.getLogger(__name__)


def worker_id() -> str:
    """This process, as host:pid (read when asked: server workers are forked after this module is imported)."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}"


HEARTBEAT_EVERY_SECONDS = 10.0
STALE_AFTER = timedelta(seconds=60)  # six missed heartbeats: the worker is gone
REAP_EVERY_SECONDS = 15.0
FORGOTTEN_AFTER = timedelta(seconds=120)  # a queued job nobody took this long was lost on its way to a worker
SAQ_QUEUE = "secdash-jobs"
SAQ_CONCURRENCY = 8


class JobFailed(Exception):
    """Raised by a handler to fail its job with a message the user may read."""


async def _heartbeat(ctx: JobContext) -> None:
    while True:
        await asyncio.sleep(HEARTBEAT_EVERY_SECONDS)
        try:
            await ctx.heartbeat()
        except Exception:  # a missed beat is retried; six in a row and the reaper steps in
            log.warning("heartbeat of job %s failed", ctx.job_id, exc_info=True)


async def execute(job_id: int, worker: str | None = None) -> JobStatus | None:
    """Run a queued job here, if this worker wins it; returns how it ended (None: another worker had it)."""
    job = await store.claim(job_id, worker or worker_id())
    if job is None:
        return None
    ctx = JobContext(job)
    status, result, error = JobStatus.done, None, None
    beating = asyncio.create_task(_heartbeat(ctx))
    try:
        result = await registry.kind(job.kind).handler(ctx)
        if ctx.honoured_stop:
            status = JobStatus.stopped
    except asyncio.CancelledError:
        status, error = JobStatus.interrupted, "Interrupted: the server stopped during the job"
        await asyncio.shield(_end(job.kind, job_id, job.params, status, error))
        await _finish(ctx, status, result, error)
        raise
    except JobFailed as exc:
        status, error = JobStatus.failed, str(exc)
    except Exception as exc:  # a crash ends the job visibly, never silently
        log.exception("job %s (%s) failed", job_id, job.kind)
        status, error = JobStatus.failed, f"Failed: {type(exc).__name__}"
    finally:
        beating.cancel()
    if status == JobStatus.failed:
        await _end(job.kind, job_id, job.params, status, error or "")
    await _finish(ctx, status, result, error)
    return status


async def _end(kind_name: str, job_id: int, params: dict[str, Any], status: JobStatus, error: str) -> None:
    """Let the kind close its own record (registry.EndHook); a failing hook is logged, never raised."""
    try:
        hook = registry.kind(kind_name).on_end
    except LookupError:
        return
    if hook is None:
        return
    try:
        await hook(registry.JobEnding(job_id=job_id, params=dict(params or {}), status=status.value, error=error))
    except Exception:
        log.exception("job %s (%s): closing its record failed", job_id, kind_name)


async def _finish(ctx: JobContext, status: JobStatus, result: dict[str, Any] | None, error: str | None) -> None:
    try:
        if error:
            await ctx.log(error, JobLevel.error)
        await store.finish(ctx.job_id, status, result=result, error=error, progress=ctx.current_progress)
    except Exception:
        log.exception("could not record the end of job %s", ctx.job_id)


class Backend(Protocol):
    async def dispatch(self, job_id: int) -> None: ...
    async def start(self) -> None: ...
    async def close(self) -> None: ...


class InProcessBackend:
    """Jobs run as tasks of this process (the embedded default: one worker, SQLite)."""

    def __init__(self) -> None:
        self.tasks: dict[int, asyncio.Task] = {}

    async def dispatch(self, job_id: int) -> None:
        task = asyncio.get_running_loop().create_task(execute(job_id), name=f"job-{job_id}")
        self.tasks[job_id] = task
        task.add_done_callback(lambda _t: self.tasks.pop(job_id, None))

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        for task in list(self.tasks.values()):
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)

    async def resume_queued(self) -> None:
        """Jobs queued when the server last stopped run now (the claim keeps each to one run)."""
        for job_id in await store.queued_ids():
            await self.dispatch(job_id)


class SaqBackend:
    """Jobs go through a saq queue on Redis; every worker process consumes it (saq: asyncio, maintained)."""

    def __init__(self, url: str, *, queue_name: str = SAQ_QUEUE, worker_id: str | None = None) -> None:
        from saq import Queue

        self.queue = Queue.from_url(url, name=queue_name)
        self.worker_id = worker_id
        self.worker: Worker[Context] | None = None
        self._worker_task: asyncio.Task | None = None
        self._connected = False

    async def _connect(self) -> None:
        if not self._connected:
            await self.queue.connect()
            self._connected = True

    async def dispatch(self, job_id: int) -> None:
        await self._connect()
        # No saq timeout or retries: the stored job has its own heartbeat, stop flag and re-queue rule.
        await self.queue.enqueue("run_job", job_id=job_id, timeout=0, retries=1)

    async def start(self) -> None:
        from saq import Worker

        await self._connect()
        pinned = self.worker_id  # tests name their workers; a server's worker is this process

        async def run_job(ctx: Context, *, job_id: int) -> None:
            await execute(job_id, pinned)

        self.worker = Worker(self.queue, functions=[("run_job", run_job)], concurrency=SAQ_CONCURRENCY)
        # saq's worker takes SIGINT/SIGTERM on the loop by default; in a server that swallowed the SIGTERM granian
        # sends at shutdown (the process never stopped). The server's lifespan stops the worker (close()).
        self.worker.SIGNALS = []
        self._worker_task = asyncio.create_task(self.worker.start(), name="saq-worker")

    async def close(self) -> None:
        if self.worker is not None:
            await self.worker.stop()
        if self._worker_task is not None:
            self._worker_task.cancel()
            await asyncio.gather(self._worker_task, return_exceptions=True)
        if self._connected:
            await self.queue.disconnect()
            self._connected = False


_backend: Backend | None = None


def backend() -> Backend:
    global _backend
    if _backend is None:
        url = get_settings().REDIS_URL
        _backend = SaqBackend(url) if url else InProcessBackend()
    return _backend


def use_backend(new: Backend | None) -> None:
    """Replace the process's backend (tests; settings changes)."""
    global _backend
    _backend = new


async def dispatch(job_id: int) -> None:
    """Hand a committed, queued job to a worker."""
    await backend().dispatch(job_id)


async def enqueue(
    session: AsyncSession,
    *,
    kind: str,
    params: dict[str, Any] | None = None,
    progress: dict[str, Any] | None = None,
    owner_user_id: int | None = None,
    owner_email: str = "",
    singleton_key: str | None = None,
) -> Job:
    """The one way to start long work: add a queued job to the caller's unit of work (flushed, so it has an id) and
    hand it to a worker once the caller's `unit.commit` has made it visible. If the process stops in between, the
    reaper hands it out again (FORGOTTEN_AFTER). Raises store.ActiveJobExists when `singleton_key` is held."""
    job = await store.create(
        session,
        kind=kind,
        params=params,
        progress=progress,
        owner_user_id=owner_user_id,
        owner_email=owner_email,
        singleton_key=singleton_key,
    )
    job_id = job.id
    assert job_id is not None

    async def hand_over() -> None:
        await dispatch(job_id)

    unit.after_commit(session, hand_over)
    return job


async def reap_once() -> list[tuple[int, bool]]:
    """Jobs of silent workers: interrupted or queued again; queued jobs nobody took: handed out again."""
    reaped = await store.reap_stale(STALE_AFTER)
    for job in reaped:
        log.warning(
            "job %s: worker silent for %ss, %s", job.job_id, STALE_AFTER.seconds, "queued again" if job.again else "interrupted"
        )
        if job.again:
            await dispatch(job.job_id)
            continue
        await _end(job.kind, job.job_id, job.params, JobStatus.interrupted, job.error or "Interrupted")
    for job_id in await store.requeue_forgotten(FORGOTTEN_AFTER):
        log.warning("job %s: queued for over %ss without a worker, handed out again", job_id, FORGOTTEN_AFTER.seconds)
        await dispatch(job_id)
    return [(job.job_id, job.again) for job in reaped]


async def wait_for(job_id: int, timeout: float = 60.0, poll: float = 0.05) -> JobStatus:
    """Wait until a job has finished (tests, scripts): the task when it runs here, else the stored status."""
    task = getattr(backend(), "tasks", {}).get(job_id)
    if task is not None:
        await asyncio.wait_for(asyncio.shield(task), timeout)
    async with asyncio.timeout(timeout):
        while True:
            async with session_scope() as session:
                job = await store.get(session, job_id)
                if job is None or job.status in FINISHED_STATUSES:
                    return JobStatus(job.status) if job else JobStatus.failed
            await asyncio.sleep(poll)


async def run_job_workers() -> None:
    """Lifespan task: this process takes jobs, and the deployment's one reaper marks jobs of dead workers."""
    current = backend()
    await current.start()

    async def reap(lost: asyncio.Event) -> None:
        if isinstance(current, InProcessBackend):
            await current.resume_queued()
        while not lost.is_set():
            try:
                await reap_once()
            except Exception:
                log.exception("job reaper failed")
            await asyncio.sleep(REAP_EVERY_SECONDS)

    try:
        await run_as_leader("jobs", reap)
    finally:
        await current.close()
