"""The site monitor: probe every site, store each check, turn status changes into events.

A status change is a problem, not a headline: a site that turns ALERT (or CHECKING) opens one event
for that kind of problem; when it is SECURE again the monitor closes it ("Recovered at ...") and the
recovery itself is activity only (status_problems.py). A site that fails again within REOPEN_WINDOW of its recovery
reopens the same event (occurrences, first and last seen in its details): a flapping site is one
ongoing problem, not a stream of alerts. Each security-header finding of a probe that got an answer is a
problem of its own, closed when a probe no longer sees it (site_findings.py).

A site added or changed is probed at once, not at the next round: the save publishes sites.PROBE_TOPIC after its
commit and the monitor's follower (probe_on_request, next to the rounds in the leader) probes every site saved since
its last check. The request neither waits for the probe nor holds a transaction across it.

What a round costs the database (issue 26): the round's sites, their alert states, their open findings and the time
of each site's newest stored check are read in a few queries whatever the number of sites (RoundReads); a site whose
probe changed nothing then costs no query at all, only its row's new figures, written in one batched UPDATE at the
round's commit. The round publishes one change of sites.TOPIC (the read models of the sites and their charts
follow it), not one per site.

History (site_checks): a probe is stored as a check row when it differs from the site's previous probe in status,
HTTP status code, header grade, whole days of TLS validity left or error, when it is the site's first, or when the
site's newest stored check is UNCHANGED_CHECK_INTERVAL old or more; an unchanged probe within that interval only
updates the site's row (its response time, first byte and last check). Each stored row keeps its own probe's
figures: the response-time chart (the newest HISTORY_POINTS rows) shows one point per stored check, a change
always among them; an unchanged site is drawn from one point per UNCHANGED_CHECK_INTERVAL. The four bundled demo
sites keep every check (AI Systems' uptime and the drills' reports count their checks). Rows older than
SECDASH_HISTORY_DAYS are deleted in batches of PRUNE_BATCH (docs/configuration.md).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from math import floor

from sqlalchemy import delete, func, or_
from sqlalchemy.orm.attributes import flag_modified
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core import notify
from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.leader import run_as_leader
from secdash.core.site_status import STATUS_LABELS
from secdash.core.unit import commit, mark_changed
from secdash.models import SecurityEvent, Site, SiteCheck, SiteStatus, as_utc, utcnow
from secdash.services.agents import activities, agents
from secdash.services.alerting import signals
from secdash.services.battle import request_log
from secdash.services.monitoring import site_findings, sites, status_problems
from secdash.services.probe import POOL_KEY, ProbeClients, ProbeResult, probe_site, site_status
from secdash.services.problems import triage

log = logging.getLogger(__name__)

MAX_CONCURRENT_PROBES = 50
# An unchanged probe is stored as a check row when the site's newest row is this old (see the module docstring).
UNCHANGED_CHECK_INTERVAL = timedelta(minutes=5)
PRUNE_BATCH = 5000  # check rows deleted per statement (and per transaction) when pruning old history
KEEPALIVE_SLACK_SECONDS = 15.0
STARTUP_DELAY_SECONDS = 3.0


def status_reason(result: ProbeResult, status: str) -> str:
    """Why a probe led to its status, in a few words."""
    if result.error:
        return result.error
    reasons = []
    if result.status_code and result.status_code >= 400:
        reasons.append(f"HTTP {result.status_code}")
    if result.tls_days_left is not None and result.tls_days_left < 14:
        reasons.append(f"TLS certificate expires in {result.tls_days_left:.1f} days")
    if result.grade in ("D", "E", "F"):
        reasons.append(f"security headers grade {result.grade}")
    if result.response_ms is not None and status != "secure" and not reasons:
        reasons.append(f"slow response ({result.response_ms:.0f} ms)")
    return ", ".join(reasons) or f"HTTP {result.status_code}, grade {result.grade}"


@dataclass
class RoundReads:
    """What applying a round's probes reads, loaded for all of its sites at once (load_round): their alert states,
    their open findings, the triage decisions of findings reported but not open, and each site's newest stored check.
    apply_probe given these queries nothing for a site whose probe changed nothing."""

    states: signals.SiteStates
    open_findings: dict[int, list[SecurityEvent]] = field(default_factory=dict)
    decided: dict[str, SecurityEvent] = field(default_factory=dict)
    newest_check: dict[int, datetime] = field(default_factory=dict)


SITES_PER_QUERY = 500


def _answered(result: ProbeResult) -> bool:
    """Only an answer tells the site's findings."""
    return result.error is None and result.status_code is not None


async def newest_checks(session: AsyncSession, site_ids: list[int]) -> dict[int, datetime]:
    """The time of each site's newest stored check (one index lookup per site, in one query per 500 sites)."""
    newest = select(func.max(SiteCheck.checked_at)).where(SiteCheck.site_id == Site.id).correlate(Site).scalar_subquery()
    found: dict[int, datetime] = {}
    for start in range(0, len(site_ids), SITES_PER_QUERY):
        query = select(Site.id, newest).where(col(Site.id).in_(site_ids[start : start + SITES_PER_QUERY]))
        for site_id, checked_at in await session.exec(query):  # type: ignore[call-overload]
            if site_id is not None and checked_at is not None:
                found[site_id] = as_utc(checked_at)
    return found


async def load_round(session: AsyncSession, probed: list[tuple[Site, ProbeResult]]) -> RoundReads:
    """RoundReads for these sites and their probes: a handful of queries, whatever their number."""
    ids = [site.id for site, _result in probed if site.id is not None]
    real = [site.id for site, _result in probed if site.id is not None and not site.is_demo]
    open_findings = await site_findings.open_findings_of_sites(session, ids)
    wanted: list[str] = []
    for site, result in probed:
        if _answered(result):
            open_prints = {event.fingerprint for event in open_findings.get(site.id or 0, [])}
            wanted += sorted(site_findings.reported_fingerprints(site.id, list(result.findings)) - open_prints)
    decided: dict[str, SecurityEvent] = {}
    for start in range(0, len(wanted), SITES_PER_QUERY):
        decided |= await triage.decided(session, wanted[start : start + SITES_PER_QUERY])
    return RoundReads(await signals.load_site_states(session, real), open_findings, decided, await newest_checks(session, ids))


def _tls_days(days: float | None) -> int | None:
    return floor(days) if days is not None else None


def _keeps_check(site: Site, status: str, result: ProbeResult, error: str | None, newest: datetime | None) -> bool:
    """Whether this probe is stored as a check row (the rule in the module docstring). Called before the site's row
    takes the probe's figures: the row still holds the previous probe's."""
    if site.is_demo or site.last_checked_at is None or newest is None:
        return True
    if as_utc(result.checked_at) - newest >= UNCHANGED_CHECK_INTERVAL:
        return True
    before = (site.status, site.status_code, site.grade, _tls_days(site.tls_days_left), site.last_error)
    return before != (status, result.status_code, result.grade, _tls_days(result.tls_days_left), error)


# The site columns every probe writes: flagged as written even when equal, so every site of a round is updated by
# the same statement (one batched UPDATE at the commit instead of one per site).
_PROBE_COLUMNS = (
    "status",
    "status_code",
    "response_time_ms",
    "ttfb_ms",
    "redirects",
    "tls_days_left",
    "tls_expires_at",
    "grade",
    "score",
    "last_error",
    "last_checked_at",
)


async def apply_probe(session: AsyncSession, site: Site, result: ProbeResult, reads: RoundReads | None = None) -> str | None:
    """Store the check on the site and in its history; return the new status if it changed.

    A probe that started before the last one applied but answered after it (a monitor round overtaken by a fix's
    or a save's immediate probe) is stale: it is dropped, so it cannot undo what the newer probe saw. So is a probe
    of a URL the site no longer has (a round that started before the URL was changed). `reads`: the round's batched
    reads (load_round); without them (one site: a fix's or a test's probe) this reads what it needs itself."""
    if site.last_checked_at is not None and as_utc(result.checked_at) < as_utc(site.last_checked_at):
        return None
    if result.url != site.url:
        return None
    assert site.id is not None  # a stored site
    status = SiteStatus(site_status(result))
    previous = site.status if site.last_checked_at is not None else None
    error = result.error[:300] if result.error else None
    if reads is not None:
        newest = reads.newest_check.get(site.id)
    else:
        newest = (await newest_checks(session, [site.id])).get(site.id)
    keep = _keeps_check(site, status, result, error, newest)
    if reads is not None:
        for column in _PROBE_COLUMNS:
            flag_modified(site, column)
    site.status = status
    site.status_code = result.status_code
    site.response_time_ms = _whole(result.response_ms)
    site.ttfb_ms = _whole(result.ttfb_ms)
    site.redirects = result.redirects if result.hops else None
    site.tls_days_left, site.tls_expires_at = result.tls_days_left, result.tls_expires_at
    site.grade, site.score = result.grade, result.score
    if site.findings != list(result.findings):
        site.findings = list(result.findings)
    header_tests = [
        {"name": test.name, "title": test.title, "result": test.result, "modifier": test.modifier, "pass": test.passed}
        for test in result.header_tests
    ]
    if site.header_tests != header_tests:
        site.header_tests = header_tests
    site.last_error = error
    site.last_checked_at = result.checked_at
    session.add(site)
    if keep:
        session.add(
            SiteCheck(
                site_id=site.id,
                checked_at=result.checked_at,
                status=status,
                status_code=result.status_code,
                response_ms=site.response_time_ms,
                ttfb_ms=site.ttfb_ms,
                redirects=site.redirects,
                tls_days_left=result.tls_days_left,
                grade=result.grade,
                error=site.last_error,
            )
        )
        if reads is not None:
            reads.newest_check[site.id] = as_utc(result.checked_at)
    mark_changed(session, sites.TOPIC)  # a round publishes it once: every site's figures are in the sites' read
    if reads is None:
        mark_changed(session, sites.site_topic(site.id))
    now = as_utc(result.checked_at)
    if _answered(result):
        findings = list(result.findings)
        if reads is None:
            await site_findings.reconcile_site_findings(session, site, findings, now)
        else:
            open_now = reads.open_findings.get(site.id, [])
            if not site_findings.unchanged(site.id, findings, open_now):
                await site_findings.reconcile_site_findings(
                    session, site, findings, now, open_now=open_now, decided=reads.decided
                )
    reason = status_reason(result, status)
    known = reads.states if reads is not None else None
    await signals.observe_site(session, site, status, reason, now, known)  # alerting: outages, flaps, recoveries
    await signals.observe_tls(session, site, result.tls_days_left, now, known)
    changed = status != previous and not (previous is None and status == SiteStatus.secure.value)
    if not changed:
        return None
    label = STATUS_LABELS[status]
    closed = await status_problems.end_problems(session, site, status=status, now=now)
    if status == SiteStatus.secure.value:
        ended = ", ".join(f"#{event.id}" for event in closed)
        description = f"Probe of {site.domain}: SECURE (recovered" + (f"; closed event {ended})" if ended else ")")
    else:
        problem = await status_problems.open_problem(
            session, site, status=status, previous=previous, reason=reason, now=now, status_code=result.status_code
        )
        occurrences = problem.details["occurrences"]
        description = f"Probe of {site.domain}: {label} ({reason})" + (
            f"; same problem as before, {occurrences} times since {status_problems.clock(problem.details['firstSeenAt'])}"
            if occurrences > 1
            else ""
        )
    activities.record(session, activity_type="scan", target=site.name, status=status, description=description)
    await agents.follow_site_status(session=session, site_name=site.name, site_status=status)
    return status


def _whole(ms: float | None) -> int | None:
    return round(ms) if ms is not None else None


Target = tuple[int, str, bool, bool]  # site id, url, allow private, demo


def _target(site: Site) -> Target:
    assert site.id is not None
    return site.id, site.url, site.is_demo or site.allow_private, site.is_demo


async def _probe_and_apply(targets: list[Target], clients: ProbeClients, concurrency: int) -> dict[int, str]:
    """Probe the targets concurrently (no transaction open meanwhile), then record everything in one commit.

    A site whose unchanged probe would be stored now (its newest check UNCHANGED_CHECK_INTERVAL old, or none) is
    probed on a fresh connection (clients.get(fresh=True)); the others may reuse one the clients kept from an earlier
    round, and say so (ProbeResult.connection_reused): the history's periodic rows are full measurements, connect and
    TLS included, as curl takes them."""
    ids = [site_id for site_id, *_ in targets]
    async with session_scope() as session:
        newest = await newest_checks(session, ids)
    due = as_utc(utcnow()) - UNCHANGED_CHECK_INTERVAL
    gate = asyncio.Semaphore(concurrency)

    async def probe(site_id: int, url: str, allow_private: bool, demo: bool) -> ProbeResult:
        fresh = site_id not in newest or newest[site_id] <= due
        POOL_KEY.set(site_id)  # this task's requests keep the site's own connections (network.SitePools)
        async with gate:
            return await probe_site(
                url,
                client=clients.get(allow_private=allow_private, fresh=True)
                if fresh
                else clients.get(allow_private=allow_private),
                allow_private=allow_private,
                own_headers=request_log.monitor_headers() if demo else None,
            )

    results = await asyncio.gather(*(probe(site_id, url, allow, demo) for site_id, url, allow, demo in targets))
    statuses: dict[int, str] = {}
    async with session_scope() as session:
        # One read for every site (not one per site); the agents too, so following a status finds them loaded.
        by_id: dict[int | None, Site] = {}
        for start in range(0, len(ids), SITES_PER_QUERY):
            chunk = ids[start : start + SITES_PER_QUERY]
            by_id |= {site.id: site for site in await session.exec(select(Site).where(col(Site.id).in_(chunk)))}
        await agents.list_agents(session=session)
        probed = []
        for (site_id, _url, _allow, _demo), result in zip(targets, results, strict=True):
            site = by_id.get(site_id)
            if site is not None and not site.paused:  # not removed or paused while it was being probed
                probed.append((site, result))
        reads = await load_round(session, probed)
        for site, result in probed:
            await apply_probe(session, site, result, reads)
            assert site.id is not None
            statuses[site.id] = site.status
        await commit(session)
    return statuses


async def probe_all(*, clients: ProbeClients | None = None, concurrency: int = MAX_CONCURRENT_PROBES) -> dict[int, str]:
    """One monitoring round: probe every site concurrently, record everything in one commit."""
    if clients is None:  # one client per address policy (one TLS context, one pool) for the whole round
        async with ProbeClients() as shared:
            return await probe_all(clients=shared, concurrency=concurrency)
    async with session_scope() as session:
        targets = [_target(site) for site in await sites.list_sites(session=session) if not site.paused]
    return await _probe_and_apply(targets, clients, concurrency)


async def probe_requested(*, clients: ProbeClients | None = None, concurrency: int = MAX_CONCURRENT_PROBES) -> dict[int, str]:
    """Probe now every site added or changed since its last check (sites.PROBE_TOPIC); their new statuses."""
    if clients is None:
        async with ProbeClients() as shared:
            return await probe_requested(clients=shared, concurrency=concurrency)
    async with session_scope() as session:
        saved = select(Site).where(
            col(Site.paused).is_(False),
            col(Site.probe_requested_at).is_not(None),
            or_(col(Site.last_checked_at).is_(None), col(Site.last_checked_at) < col(Site.probe_requested_at)),
        )
        targets = [_target(site) for site in await session.exec(saved.order_by(col(Site.id)))]
    return await _probe_and_apply(targets, clients, concurrency) if targets else {}


async def probe_on_request(clients: ProbeClients) -> None:
    """Follow saves until cancelled: each publish of sites.PROBE_TOPIC probes the sites saved since their last
    check, at once (saves while a probe runs make one more pass). Sites saved while no monitor ran go first."""
    async with notify.subscribe(sites.PROBE_TOPIC) as changes:
        while not changes.closed:
            try:
                await probe_requested(clients=clients)
            except Exception:
                log.exception("probing the sites just saved failed")
            await changes.wait()


def history_retention() -> timedelta:
    return timedelta(days=get_settings().HISTORY_DAYS)


async def prune_history(*, session: AsyncSession, now: datetime | None = None, batch: int = PRUNE_BATCH) -> int:
    """Delete the check rows older than SECDASH_HISTORY_DAYS, `batch` rows per statement, each batch its own
    transaction (no long delete holding the database's write lock); how many were deleted."""
    cutoff = (now or utcnow()) - history_retention()
    deleted = 0
    while True:
        oldest = select(SiteCheck.id).where(col(SiteCheck.checked_at) < cutoff).order_by(col(SiteCheck.id)).limit(batch)
        done = await session.exec(delete(SiteCheck).where(col(SiteCheck.id).in_(oldest.scalar_subquery())))  # type: ignore[call-overload]
        await session.commit()
        deleted += done.rowcount or 0
        if (done.rowcount or 0) < batch:
            return deleted
        await asyncio.sleep(0)  # let the event loop serve others between batches


async def run_monitor() -> None:
    """Lifespan task: probe on the configured interval; one monitor per deployment."""
    settings = get_settings()
    if not settings.MONITOR_ENABLED:
        return
    await asyncio.sleep(STARTUP_DELAY_SECONDS)  # let this server start serving its own demo sites

    async def lead(lost: asyncio.Event) -> None:
        # Connections are kept from one round to the next (the target willing): a round's interval and a little more.
        keepalive = settings.MONITOR_INTERVAL_SECONDS + KEEPALIVE_SLACK_SECONDS
        async with ProbeClients(keepalive_seconds=keepalive) as clients:
            log.info("site monitor started (every %ss)", settings.MONITOR_INTERVAL_SECONDS)
            try:
                async with session_scope() as session:
                    if closed := await status_problems.reconcile_open_problems(session=session, now=utcnow()):
                        log.info("site monitor closed %s status events left open by an older version", closed)
                    await commit(session)
            except Exception:
                log.exception("site monitor could not reconcile open status events")
            saved = asyncio.create_task(probe_on_request(clients), name="probe saved sites")
            try:
                # Each round spread over its interval, in shards every worker runs when there is Redis (rounds.py).
                from secdash.services.monitoring import rounds

                await rounds.run_rounds(clients, lost, settings.MONITOR_INTERVAL_SECONDS)
            finally:
                saved.cancel()
                await asyncio.gather(saved, return_exceptions=True)

    await run_as_leader("site-monitor", lead)
