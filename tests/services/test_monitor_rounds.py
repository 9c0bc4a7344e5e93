"""Monitor rounds (rounds.py): spread over their interval in slices, each site once per round; with Redis, the slices
are shard jobs that every worker runs, each once, and a late shard is skipped rather than run behind the next round."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import Counter
from datetime import timedelta

import pytest
from sqlmodel import col, select

from secdash.core.db import session_scope
from secdash.jobs import runner, store
from secdash.models import Site, SiteCheck, as_utc, utcnow
from secdash.models.jobs import Job, JobStatus
from secdash.services.monitoring import rounds
from secdash.services.probe import ProbeClients
from tests.support.redis_server import REDIS_URL, redis_or_skip
from tests.support.web_servers import STRONG_HEADERS as STRONG
from tests.support.web_servers import LocalSite


def _targets(ids: list[int]) -> list[tuple[int, str, bool, bool]]:
    return [(site_id, f"http://site-{site_id}.test/", False, False) for site_id in ids]


def test_a_round_is_sliced_evenly_and_each_site_keeps_its_slice():
    ids = list(range(1, 101))
    planned = rounds.plan(_targets(ids), interval=30, slice_seconds=1)
    assert [part.index for part in planned] == list(range(30))
    assert [part.offset for part in planned] == [pytest.approx(k * 1.0) for k in range(30)]
    assert sorted(target[0] for part in planned for target in part.targets) == ids  # every site once
    assert max(len(part.targets) for part in planned) - min(len(part.targets) for part in planned) <= 1
    again = rounds.plan(_targets([*ids, 101]), interval=30, slice_seconds=1)  # a site added: the others stay put
    assert [[t[0] for t in part.targets] for part in again][:1] == [[t[0] for t in planned[0].targets]]

    few = rounds.plan(_targets([7, 8, 9]), interval=30, slice_seconds=1)  # never more slices than sites
    assert [(part.of, part.offset) for part in few] == [(3, 0.0), (3, 10.0), (3, 20.0)]
    assert rounds.plan([], interval=30, slice_seconds=1) == []
    assert rounds.slice_count(10_000, 60, 1) == 60 and rounds.slice_count(5, 0.5, 1) == 1


async def _sites(session, base: str, count: int) -> list[int]:
    rows = [Site(name=f"S{n}", url=f"{base}/{n}", domain="127.0.0.1", allow_private=True) for n in range(count)]
    session.add_all(rows)
    await session.commit()
    return [row.id for row in rows if row.id is not None]


async def _checks(site_ids: list[int]) -> list[SiteCheck]:
    async with session_scope() as session:
        return list(await session.exec(select(SiteCheck).where(col(SiteCheck.site_id).in_(site_ids))))


async def test_one_worker_spreads_a_round_over_its_interval_and_probes_each_site_once(session):
    server = LocalSite({f"/{n}": (200, STRONG, b"ok", 0.0) for n in range(8)})
    try:
        ids = await _sites(session, server.base, 8)
        async with ProbeClients() as clients:
            monitor_rounds = rounds.Rounds(clients, asyncio.Event(), interval=1.6, slice_seconds=0.4, use_jobs=False)
            started = time.monotonic()
            planned = await monitor_rounds.one_round()
            await asyncio.gather(*monitor_rounds.running.values())
            took = time.monotonic() - started
    finally:
        server.close()
    assert [part.offset for part in planned] == [pytest.approx(k * 0.4) for k in range(4)]
    assert took >= 1.2  # the last slice started 3 * 0.4 s after the first: not a burst
    checks = await _checks(ids)
    assert Counter(check.site_id for check in checks) == Counter({site_id: 1 for site_id in ids})
    moments = sorted(as_utc(check.checked_at) for check in checks)
    assert moments[-1] - moments[0] >= timedelta(seconds=1.0)


async def test_a_slice_still_running_is_not_started_twice(session, monkeypatch):
    calls: list[int] = []
    gate = asyncio.Event()

    async def slow(targets, clients, concurrency):
        calls.append(len(targets))
        await gate.wait()
        return {}

    monkeypatch.setattr(rounds.monitor, "_probe_and_apply", slow)
    await _sites(session, "http://127.0.0.1:9", 2)
    async with ProbeClients() as clients:
        monitor_rounds = rounds.Rounds(clients, asyncio.Event(), interval=0.2, slice_seconds=0.1, use_jobs=False)
        await monitor_rounds.one_round()
        await asyncio.sleep(0)
        await monitor_rounds.one_round()  # both slices still running: skipped
        gate.set()
        await asyncio.gather(*monitor_rounds.running.values())
    assert calls == [1, 1]


@pytest.fixture
async def two_workers(session):
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


async def _shard_jobs() -> list[Job]:
    async with session_scope() as session:
        return list(await session.exec(select(Job).where(Job.kind == rounds.SHARD_KIND).order_by(col(Job.id))))


async def test_with_redis_a_round_is_shards_that_both_workers_run_once_each(two_workers, session):
    server = LocalSite({f"/{n}": (200, STRONG, b"ok", 0.05) for n in range(24)})
    try:
        ids = await _sites(session, server.base, 24)
        async with ProbeClients() as clients:
            assert rounds.sharded()
            # 16 shards: saq hands each to the worker slot idle longest (8 a worker), so both workers get some.
            monitor_rounds = rounds.Rounds(clients, asyncio.Event(), interval=1.6, slice_seconds=0.1)
            assert monitor_rounds.use_jobs
            planned = await monitor_rounds.one_round()
        assert len(planned) == 16
        jobs = await _shard_jobs()
        for job in jobs:  # the same shard handed to the other worker too: the claim runs it once
            assert job.id is not None
            await two_workers[1].dispatch(job.id)
        statuses = [await runner.wait_for(job.id or 0, timeout=30) for job in jobs]
    finally:
        server.close()
    assert statuses == [JobStatus.done] * 16
    jobs = await _shard_jobs()
    assert sorted(site_id for job in jobs for site_id in job.params["siteIds"]) == sorted(ids)
    assert {job.worker for job in jobs} == {"worker-1", "worker-2"}  # both workers ran shards
    assert all(job.result["applied"] == len(job.params["siteIds"]) for job in jobs)
    assert all(job.owner_user_id is None and job.log_seq == 0 for job in jobs)  # system work: no owner, no log lines
    checks = await _checks(ids)
    assert Counter(check.site_id for check in checks) == Counter({site_id: 1 for site_id in ids})


async def test_a_late_shard_is_skipped_and_a_paused_site_left_out(session):
    server = LocalSite({f"/{n}": (200, STRONG, b"ok", 0.0) for n in range(3)})
    try:
        ids = await _sites(session, server.base, 3)
        async with session_scope() as own:
            paused = await own.get(Site, ids[2])
            assert paused is not None
            paused.paused = True
            own.add(paused)
            late = await store.create(own, kind=rounds.SHARD_KIND, params={"siteIds": ids, "interval": 2, "at": time.time() - 11})
            fresh = await store.create(own, kind=rounds.SHARD_KIND, params={"siteIds": ids, "interval": 2, "at": time.time()})
            await own.commit()
        assert await runner.execute(late.id or 0, "w") == JobStatus.done
        assert await runner.execute(fresh.id or 0, "w") == JobStatus.done
    finally:
        server.close()
    jobs = {job.id: job for job in await _shard_jobs()}
    assert jobs[late.id].result["skipped"] == "late" and jobs[late.id].result["sites"] == 0
    assert jobs[fresh.id].result["sites"] == 2 and jobs[fresh.id].result["applied"] == 2
    assert Counter(check.site_id for check in await _checks(ids)) == Counter({ids[0]: 1, ids[1]: 1})


async def test_finished_shards_are_pruned_after_their_retention(session):
    async with session_scope() as own:
        old = await store.create(own, kind=rounds.SHARD_KIND, params={})
        recent = await store.create(own, kind=rounds.SHARD_KIND, params={})
        running = await store.create(own, kind=rounds.SHARD_KIND, params={})
        old.status, old.created_at = JobStatus.done, utcnow() - timedelta(hours=2)
        recent.status = JobStatus.done
        running.status, running.created_at = JobStatus.running, utcnow() - timedelta(hours=2)
        own.add_all([old, recent, running])
        await own.commit()
    assert await rounds.prune_shards() == 1
    assert sorted(job.id for job in await _shard_jobs()) == sorted([recent.id, running.id])


async def test_a_site_removed_while_its_shard_ran_costs_that_shard_not_a_crash(session, monkeypatch):
    from sqlalchemy.orm.exc import StaleDataError

    async def removed_meanwhile(targets, clients, concurrency):
        raise StaleDataError("UPDATE statement on table 'sites' expected to update 1 row(s); 0 were matched.")

    monkeypatch.setattr(rounds.monitor, "_probe_and_apply", removed_meanwhile)
    ids = await _sites(session, "http://127.0.0.1:9", 2)
    async with session_scope() as own:
        job = await store.create(own, kind=rounds.SHARD_KIND, params={"siteIds": ids, "interval": 30, "at": time.time()})
        await own.commit()
    assert await runner.execute(job.id or 0, "w") == JobStatus.done
    assert (await _shard_jobs())[0].result["lost"] == "a site was removed while the shard ran"


async def test_the_leader_does_not_queue_a_slice_whose_last_shard_is_still_waiting(session, monkeypatch):
    handed: list[int] = []

    async def hold(job_id: int) -> None:  # no worker takes them: they stay queued
        handed.append(job_id)

    monkeypatch.setattr(runner, "dispatch", hold)
    await _sites(session, "http://127.0.0.1:9", 3)
    async with ProbeClients() as clients:
        monitor_rounds = rounds.Rounds(clients, asyncio.Event(), interval=0.3, slice_seconds=0.1, use_jobs=True)
        await monitor_rounds.one_round()
        await monitor_rounds.one_round()
    jobs = await _shard_jobs()
    assert len(handed) == 3 and len(jobs) == 3, [(j.params, j.status) for j in jobs]
