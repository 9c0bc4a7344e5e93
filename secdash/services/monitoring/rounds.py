"""Monitor rounds spread over their interval, and split into shards that every worker runs (issue 26).

A round no longer probes every site at once: its sites are split into slices (a site's slice is its id modulo the
number of slices, so a site stays in the same slice from round to round and keeps its own ~interval cadence) and
slice k starts k/n of the way through the interval. n is one slice per SLICE_SECONDS of the interval
(SECDASH_MONITOR_SLICE_SECONDS, default 1 s), never more than there are sites: 1,000 sites on 30-s rounds are 30
slices of about 33 sites, one a second, instead of 1,000 probes in the first second.

Who probes a slice:
- one worker (no Redis: in-process jobs, SQLite or PostgreSQL): the leader itself, calling
  `monitor._probe_and_apply` (one commit per slice), one slice at a time. A slice still running or waiting when its
  turn comes again is skipped, so a slow round never runs the same sites twice at once.
- several workers (Redis): the leader enqueues each slice as a `probe-shard` job (the site ids only) and saq hands it
  to whichever worker is free, the leader included. The store's claim lets one worker run a shard however many
  receive it, and the leader does not queue a slice again while its last shard is still queued or running (two runs
  of the same sites at once would race each other's row locks). The handler reads the sites again (a paused or
  removed site is skipped) and probes and applies them with `monitor._probe_and_apply`; a result older than the
  site's last check is dropped by `apply_probe`, so results land once. Overloaded, a slice's cadence stretches (its
  next shard waits for the last one) rather than shards piling up; a shard queued more than LATE_AFTER_INTERVALS ago
  (by a leader that has since gone: its successor does not know what it queued) is skipped. One whose worker died is
  marked interrupted by the reaper and not run again (the next round is sooner than the reaper).

Shard jobs are system work: they have no owner, are not shared (only admins can read one through the jobs API,
by id), write no audit entry and no job log lines, and there is no job list in the UI to flood. Finished shards are
deleted after SHARD_RETENTION, so the jobs table holds about an hour of them (3,600 rows at one a second).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import col, select

from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.unit import commit
from secdash.jobs import JobContext, register, runner
from secdash.models import Site, utcnow
from secdash.models.jobs import ACTIVE_STATUSES, FINISHED_STATUSES, Job
from secdash.services.monitoring import monitor
from secdash.services.probe import ProbeClients

log = logging.getLogger(__name__)

SHARD_KIND = "probe-shard"
SHARD_TOPIC = "jobs:probe-shard"
SHARD_RETENTION = timedelta(hours=1)
LATE_AFTER_INTERVALS = 5  # a shard queued longer ago than this many intervals is skipped, not run
PRUNE_EVERY_ROUNDS = 120  # the week of checks per site (monitor.prune_history), as before


@dataclass(frozen=True)
class Slice:
    index: int
    of: int
    offset: float  # seconds after the round's start
    targets: list[monitor.Target]


def slice_count(sites: int, interval: float, slice_seconds: float) -> int:
    """One slice per `slice_seconds` of the interval, at least one, at most one per site."""
    if sites <= 0:
        return 0
    return max(1, min(sites, math.floor(interval / max(slice_seconds, 0.001) + 1e-9)))  # 0.3 / 0.1 is 2.999...


def plan(targets: list[monitor.Target], interval: float, slice_seconds: float) -> list[Slice]:
    """The round's slices in start order: site id modulo n picks a site's slice (stable across rounds), slice k
    starts at k * interval / n. Empty slices (ids that happen to share no residue) are left out."""
    count = slice_count(len(targets), interval, slice_seconds)
    groups: list[list[monitor.Target]] = [[] for _ in range(count)]
    for target in targets:
        groups[target[0] % count].append(target)
    step = interval / count if count else 0.0
    return [Slice(index, count, index * step, group) for index, group in enumerate(groups) if group]


async def round_targets() -> list[monitor.Target]:
    """Every site not paused, as the probe needs it (one narrow read, ordered by id)."""
    query = select(Site.id, Site.url, Site.allow_private, Site.is_demo).where(col(Site.paused).is_(False)).order_by(col(Site.id))
    async with session_scope() as session:
        rows = list(await session.exec(query))
    return [(site_id, url, bool(demo or allow), bool(demo)) for site_id, url, allow, demo in rows if site_id is not None]


async def shard_targets(site_ids: list[int]) -> list[monitor.Target]:
    """The shard's sites as they are now (a site removed or paused since the round was planned is left out)."""
    if not site_ids:
        return []
    query = (
        select(Site.id, Site.url, Site.allow_private, Site.is_demo)
        .where(col(Site.id).in_(site_ids), col(Site.paused).is_(False))
        .order_by(col(Site.id))
    )
    async with session_scope() as session:
        rows = list(await session.exec(query))
    return [(site_id, url, bool(demo or allow), bool(demo)) for site_id, url, allow, demo in rows if site_id is not None]


@register(SHARD_KIND, topic=SHARD_TOPIC)
async def run_shard(ctx: JobContext) -> dict[str, Any]:
    """Probe and apply one shard of a round, on whichever worker took it (see the module's docstring)."""
    params = ctx.params
    interval = float(params.get("interval") or get_settings().MONITOR_INTERVAL_SECONDS)
    waited = time.time() - float(params.get("at") or time.time())
    base = {"round": params.get("round"), "slice": params.get("slice"), "of": params.get("of"), "worker": runner.worker_id()}
    if waited > LATE_AFTER_INTERVALS * interval:  # queued by a leader long gone (a restart): later rounds have its sites
        return base | {"skipped": "late", "waitedSeconds": round(waited, 1), "sites": 0, "applied": 0}
    targets = await shard_targets([int(site_id) for site_id in params.get("siteIds", [])])
    started = time.monotonic()
    try:
        async with ProbeClients() as clients:
            statuses = await monitor._probe_and_apply(targets, clients, monitor.MAX_CONCURRENT_PROBES)
    except StaleDataError:  # a site removed between the read and the commit: the shard's one commit rolled back
        log.warning("monitor shard %s/%s: a site was removed while it ran; its results wait for the next round", *_of(params))
        return base | {"lost": "a site was removed while the shard ran", "sites": len(targets), "applied": 0}
    except DBAPIError as exc:
        if not _deadlock(exc):
            raise
        log.warning("monitor shard %s/%s: its commit met another's (deadlock); its results wait for the next round", *_of(params))
        return base | {"lost": "deadlock", "sites": len(targets), "applied": 0}
    return base | {
        "sites": len(targets),
        "applied": len(statuses),
        "appliedIds": sorted(statuses),  # the sites this run recorded (tests and the bench read them)
        "seconds": round(time.monotonic() - started, 3),
        "waitedSeconds": round(waited, 1),
    }


def _deadlock(exc: DBAPIError) -> bool:
    """PostgreSQL gave up one of two transactions waiting on each other's rows (its work is rolled back)."""
    return "deadlock detected" in str(exc)


def _of(params: dict[str, Any]) -> tuple[int, Any]:
    return int(params.get("slice") or 0) + 1, params.get("of")


async def prune_shards(*, older_than: timedelta = SHARD_RETENTION) -> int:
    """Delete finished shard jobs older than `older_than`; how many went."""
    async with session_scope() as session:
        result = await session.exec(
            delete(Job).where(  # type: ignore[arg-type]
                col(Job.kind) == SHARD_KIND,
                col(Job.status).in_([status.value for status in FINISHED_STATUSES]),
                col(Job.created_at) < utcnow() - older_than,
            )
        )
        await session.commit()
        return int(result.rowcount or 0)


def sharded() -> bool:
    """Shards go through the job queue (to every worker) when the jobs do: with Redis."""
    return isinstance(runner.backend(), runner.SaqBackend)


class Rounds:
    """The leader's loop: plan each round, start its slices on time (here, or as shard jobs for every worker)."""

    def __init__(
        self,
        clients: ProbeClients,
        lost: asyncio.Event,
        interval: float,
        *,
        slice_seconds: float | None = None,
        use_jobs: bool | None = None,
        concurrency: int = monitor.MAX_CONCURRENT_PROBES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clients = clients
        self.lost = lost
        self.interval = interval
        self.slice_seconds = get_settings().MONITOR_SLICE_SECONDS if slice_seconds is None else slice_seconds
        self.use_jobs = sharded() if use_jobs is None else use_jobs
        self.concurrency = concurrency
        self.clock = clock
        self.running: dict[int, asyncio.Task] = {}  # slice index -> its probe here (no Redis)
        # Here, one slice probes and commits at a time (SQLite has one writer; a slow slice delays the next, as a slow
        # round did before): overloaded, the rounds stretch rather than pile up.
        self.one_at_a_time = asyncio.Semaphore(1)
        self.shards: dict[int, int] = {}  # slice index -> its newest shard job (Redis)
        self.rounds = 0

    async def _sleep_until(self, moment: float) -> bool:
        """Sleep until `moment` (monotonic); False if leadership was lost meanwhile."""
        delay = moment - self.clock()
        if delay > 0:
            try:
                await asyncio.wait_for(self.lost.wait(), delay)
            except TimeoutError:
                pass
        return not self.lost.is_set()

    async def _enqueue(self, round_id: int, part: Slice) -> None:
        """The slice as a shard job for any worker, unless its last one is still queued or running: two runs of the
        same sites at once would only race each other's commits (row locks taken in different orders)."""
        async with session_scope() as session:
            previous = self.shards.get(part.index)
            if previous is not None:
                job = await session.get(Job, previous)
                if job is not None and job.status in ACTIVE_STATUSES:
                    log.info("monitor shard %s/%s still %s from the last round; skipped", part.index + 1, part.of, job.status)
                    return
            job = await runner.enqueue(
                session,
                kind=SHARD_KIND,
                params={
                    "round": round_id,
                    "slice": part.index,
                    "of": part.of,
                    "interval": self.interval,
                    "at": round(time.time(), 3),  # when it was queued: a shard that waited a whole interval is late
                    "siteIds": [target[0] for target in part.targets],
                },
            )
            assert job.id is not None
            self.shards[part.index] = job.id
            await commit(session)

    def _run_here(self, part: Slice) -> None:
        previous = self.running.get(part.index)
        if previous is not None and not previous.done():
            log.warning("monitor slice %s/%s still running from the last round; skipped", part.index + 1, part.of)
            return
        task = asyncio.create_task(self._probe(part), name=f"monitor slice {part.index}")
        self.running[part.index] = task

    async def _probe(self, part: Slice) -> None:
        try:
            async with self.one_at_a_time:
                await monitor._probe_and_apply(part.targets, self.clients, self.concurrency)
        except StaleDataError:
            log.warning("monitor slice %s/%s: a site was removed while it ran; next round", part.index + 1, part.of)
        except Exception as exc:
            if isinstance(exc, DBAPIError) and _deadlock(exc):
                log.warning("monitor slice %s/%s: its commit met another's (deadlock); next round", part.index + 1, part.of)
            else:
                log.exception("monitor slice %s/%s failed", part.index + 1, part.of)

    async def one_round(self) -> list[Slice]:
        """Plan one round and start its slices on their offsets; returns when the last one has started."""
        started = self.clock()
        round_id = int(time.time())
        slices = plan(await round_targets(), self.interval, self.slice_seconds)
        for part in slices:
            if not await self._sleep_until(started + part.offset):
                break
            try:
                if self.use_jobs:
                    await self._enqueue(round_id, part)
                else:
                    self._run_here(part)
            except Exception:
                log.exception("starting monitor slice %s/%s failed", part.index + 1, part.of)
        self.rounds += 1
        return slices

    async def housekeeping(self) -> None:
        if self.rounds % PRUNE_EVERY_ROUNDS == 1:
            async with session_scope() as session:
                await monitor.prune_history(session=session)
        if self.use_jobs:
            await prune_shards()

    async def run(self) -> None:
        try:
            while not self.lost.is_set():
                started = self.clock()
                try:
                    await self.one_round()
                    await self.housekeeping()
                except Exception:
                    log.exception("site monitor round failed")
                await self._sleep_until(started + max(1.0, self.interval))
        finally:
            for task in self.running.values():
                task.cancel()
            await asyncio.gather(*self.running.values(), return_exceptions=True)


def run_rounds(
    clients: ProbeClients, lost: asyncio.Event, interval: float
) -> Coroutine[Any, Any, None]:  # monitor.run_monitor's loop
    return Rounds(clients, lost, interval).run()
