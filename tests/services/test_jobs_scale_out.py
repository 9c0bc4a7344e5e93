"""Scale-out: jobs handed through saq on the real Redis to several workers run once each, and any worker
(not only the one running it) can stop a job. On PostgreSQL in CI (SECDASH_TEST_DATABASE_URL), SQLite here."""

from __future__ import annotations

import asyncio
import secrets
import signal
from collections import Counter

import pytest

from secdash.core.db import session_scope
from secdash.jobs import JobContext, register, runner, store
from tests.support.redis_server import REDIS_URL, redis_or_skip


@pytest.fixture
async def workers(session):
    """Two saq-consuming workers (as two server processes would be) on a queue of this test's own."""
    redis_or_skip().close()
    name = f"secdash-test-{secrets.token_hex(4)}"
    pair = [runner.SaqBackend(REDIS_URL, queue_name=name, worker_id=f"worker-{n}") for n in (1, 2)]
    for backend in pair:
        await backend.start()
    runner.use_backend(pair[0])
    yield pair
    runner.use_backend(None)
    for backend in pair:
        await backend.close()
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(f"saq:{name}*"):
        client.delete(key)


async def _create(kind: str) -> int:
    async with session_scope() as own:
        job = await store.create(own, kind=kind)
        await own.commit()
        assert job.id is not None
        return job.id


async def test_jobs_through_redis_run_once_each_spread_over_the_workers(workers):
    kind = f"t{secrets.token_hex(4)}"
    runs: Counter[int] = Counter()

    @register(kind)
    async def body(ctx: JobContext) -> None:
        runs[ctx.job_id] += 1
        await asyncio.sleep(0.2)

    ids = [await _create(kind) for _ in range(6)]
    for job_id in ids:
        await runner.dispatch(job_id)
        await workers[1].dispatch(job_id)  # the same job handed out twice: the claim keeps it to one run
    statuses = [await runner.wait_for(job_id, timeout=30) for job_id in ids]
    assert statuses == ["done"] * 6 and runs == Counter({job_id: 1 for job_id in ids})
    async with session_scope() as own:
        ran_on = {(await store.get(own, job_id)).worker for job_id in ids}
    assert ran_on <= {"worker-1", "worker-2"} and ran_on


async def test_a_job_running_on_one_worker_is_stopped_from_the_other(workers):
    kind = f"t{secrets.token_hex(4)}"

    @register(kind)
    async def endless(ctx: JobContext) -> dict:
        ticks = 0
        while not await ctx.should_stop():
            ticks += 1
            await asyncio.sleep(0.05)
        return {"ticks": ticks}

    job_id = await _create(kind)
    await runner.dispatch(job_id)
    async with asyncio.timeout(20):
        while True:
            async with session_scope() as own:
                job = await store.get(own, job_id)
                if job.status == "running":
                    break
            await asyncio.sleep(0.05)
    async with session_scope() as other:  # a request served by any worker: the stop is data, not a signal
        assert store.request_stop(other, await store.get(other, job_id))
        await other.commit()
    assert await runner.wait_for(job_id, timeout=20) == "stopped"


async def test_a_worker_leaves_the_servers_signals_to_the_server(workers):
    """saq's Worker.start takes SIGINT and SIGTERM on the running loop by default (to stop itself): in a server worker
    that swallowed the SIGTERM granian's master sends at shutdown, so a server with Redis never stopped (killed
    after the caller's timeout, its leader leases left to expire). Stopping is the lifespan's business."""
    await asyncio.sleep(0.2)  # the saq workers' start() has run
    loop = asyncio.get_running_loop()
    handlers = getattr(loop, "_signal_handlers", {})
    assert signal.SIGTERM not in handlers and signal.SIGINT not in handlers
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
