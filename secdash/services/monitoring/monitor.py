"""The site monitor: probe every site, store each check, turn status changes into events.

A status change is a problem, not a headline: a site that turns ALERT (or CHECKING) opens one event
for that kind of problem; when it is SECURE again the monitor closes it ("Recovered at ...") and the
recovery itself is activity only. A site that fails again within REOPEN_WINDOW of its recovery
reopens the same event (occurrences, first and last seen in its details): a flapping site is one
ongoing problem, not a stream of alerts. Each security-header finding of a probe that got an answer is a
problem of its own, closed when a probe no longer sees it (site_findings.py).

A site added or changed is probed at once, not at the next round: the save publishes sites.PROBE_TOPIC after its
commit and the monitor's follower (probe_on_request, next to the rounds in the leader) probes every site saved since
its last check. The request neither waits for the probe nor holds a transaction across it.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from sqlalchemy import delete, or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core import notify
from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.leader import run_as_leader
from secdash.core.site_status import STATUS_LABELS
from secdash.core.unit import commit, mark_changed
from secdash.models import EventSeverity, EventType, SecurityEvent, Site, SiteCheck, SiteStatus, as_utc, utcnow
from secdash.services.agents import activities, agents
from secdash.services.alerting import signals
from secdash.services.battle import request_log
from secdash.services.monitoring import site_findings, sites
from secdash.services.probe import ProbeClients, ProbeResult, probe_site, site_status
from secdash.services.problems import events

log = logging.getLogger(__name__)

HISTORY_RETENTION = timedelta(days=7)
MAX_CONCURRENT_PROBES = 50
_SEVERITY_OF_STATUS = {"critical": EventSeverity.high, "warning": EventSeverity.medium, "secure": EventSeverity.low}
STARTUP_DELAY_SECONDS = 3.0
# After a recovery, the same failure within this window reopens the same problem (a flapping site is one problem).
REOPEN_WINDOW = timedelta(minutes=30)


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


async def apply_probe(session: AsyncSession, site: Site, result: ProbeResult) -> str | None:
    """Store the check on the site and in its history; return the new status if it changed.

    A probe that started before the last one applied but answered after it (a monitor round overtaken by a fix's
    or a save's immediate probe) is stale: it is dropped, so it cannot undo what the newer probe saw. So is a probe
    of a URL the site no longer has (a round that started before the URL was changed)."""
    if site.last_checked_at is not None and as_utc(result.checked_at) < as_utc(site.last_checked_at):
        return None
    if result.url != site.url:
        return None
    assert site.id is not None  # a stored site
    status = SiteStatus(site_status(result))
    previous = site.status if site.last_checked_at is not None else None
    site.status = status
    site.status_code = result.status_code
    site.response_time_ms = _whole(result.response_ms)
    site.ttfb_ms = _whole(result.ttfb_ms)
    site.redirects = result.redirects if result.hops else None
    site.tls_days_left, site.tls_expires_at = result.tls_days_left, result.tls_expires_at
    site.grade, site.score, site.findings = result.grade, result.score, list(result.findings)
    site.header_tests = [
        {"name": test.name, "title": test.title, "result": test.result, "modifier": test.modifier, "pass": test.passed}
        for test in result.header_tests
    ]
    site.last_error = result.error[:300] if result.error else None
    site.last_checked_at = result.checked_at
    session.add(site)
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
    mark_changed(session, sites.TOPIC)
    mark_changed(session, sites.site_topic(site.id))
    if result.error is None and result.status_code is not None:  # only an answer tells the site's findings
        await site_findings.reconcile_site_findings(session, site, list(result.findings), as_utc(result.checked_at))
    now = as_utc(result.checked_at)
    reason = status_reason(result, status)
    await signals.observe_site(session, site, status, reason, now)  # alerting: outages, flaps, recoveries
    await signals.observe_tls(session, site, result.tls_days_left, now)
    changed = status != previous and not (previous is None and status == SiteStatus.secure.value)
    if not changed:
        return None
    label = STATUS_LABELS[status]
    closed = await _end_problems(session, site, status=status, now=now)
    if status == SiteStatus.secure.value:
        ended = ", ".join(f"#{event.id}" for event in closed)
        description = f"Probe of {site.domain}: SECURE (recovered" + (f"; closed event {ended})" if ended else ")")
    else:
        problem = await _open_problem(
            session, site, status=status, previous=previous, reason=reason, now=now, status_code=result.status_code
        )
        occurrences = problem.details["occurrences"]
        description = f"Probe of {site.domain}: {label} ({reason})" + (
            f"; same problem as before, {occurrences} times since {_clock(problem.details['firstSeenAt'])}"
            if occurrences > 1
            else ""
        )
    activities.record(session, activity_type="scan", target=site.name, status=status, description=description)
    await agents.follow_site_status(session=session, site_name=site.name, site_status=status)
    return status


def _whole(ms: float | None) -> int | None:
    return round(ms) if ms is not None else None


def problem_fingerprint(site_id: int | None, status: str) -> str:
    """One ongoing problem per site and kind (ALERT outage, CHECKING degradation)."""
    return f"site-status:{site_id}:{status}"


def _iso(value: datetime) -> str:
    return as_utc(value).isoformat().replace("+00:00", "Z")


def _clock(value: datetime | str) -> str:
    moment = datetime.fromisoformat(value.replace("Z", "+00:00")) if isinstance(value, str) else as_utc(value)
    return moment.strftime("%H:%M:%S UTC")


async def _end_problems(session: AsyncSession, site: Site, *, status: str, now: datetime) -> list[SecurityEvent]:
    """Close the site's open status problems the new status ends (all of them when it is SECURE again)."""
    closed = []
    for event in await events.open_of_type(session=session, event_type=EventType.site_status_changed, site_id=site.id):
        if (event.details or {}).get("status") == status:
            continue
        if status == SiteStatus.secure.value:
            note = f"Recovered at {_clock(now)}: {site.name} is SECURE again"
        else:
            note = f"Ended at {_clock(now)}: {site.name} is now {STATUS_LABELS[status]}"
        event.details = (event.details or {}) | {"endedAt": _iso(now)}
        events.close_by_system(session, event, by="monitor", note=note, at=now)
        closed.append(event)
    return closed


async def _open_problem(
    session: AsyncSession,
    site: Site,
    *,
    status: str,
    previous: str | None,
    reason: str,
    now: datetime,
    status_code: int | None,
) -> SecurityEvent:
    """The site's problem of this kind: still open, or back within REOPEN_WINDOW (reopened), or a new one."""
    label = STATUS_LABELS[status]
    fingerprint = problem_fingerprint(site.id, status)
    event = await events.latest_with_fingerprint(session=session, fingerprint=fingerprint)
    ongoing = event is not None and (
        not event.resolved or (event.resolved_at is not None and now - as_utc(event.resolved_at) <= REOPEN_WINDOW)
    )
    facts = {
        "previous": previous,
        "status": status,
        "url": site.url,
        "statusCode": status_code,
        "reason": reason,
        "lastSeenAt": _iso(now),
    }
    if event is None or not ongoing:
        return events.record(
            session,
            event_type=EventType.site_status_changed,
            severity=_SEVERITY_OF_STATUS[status],
            site_id=site.id,
            description=f"{site.name} is now {label}: {reason}",
            source="monitor",
            fingerprint=fingerprint,
            details=facts | {"occurrences": 1, "firstSeenAt": _iso(now)},
        )
    events.reopen(session, event)  # keeps its last resolution in its details
    details = {key: value for key, value in (event.details or {}).items() if key != "endedAt"}
    occurrences = int(details.get("occurrences", 1)) + 1
    first_seen = details.get("firstSeenAt") or _iso(event.created_at)
    event.details = details | facts | {"occurrences": occurrences, "firstSeenAt": first_seen}
    event.description = f"{site.name} is now {label}: {reason} ({occurrences} times since {_clock(first_seen)})"[:2000]
    return event


async def reconcile_open_problems(*, session: AsyncSession, now: datetime) -> int:
    """Close what older versions left open: recoveries recorded as alerts, and outages a recovery or a newer
    event ended. A site still failing keeps its newest problem of its current kind, as the ongoing one."""
    site_by_id = {site.id: site for site in await sites.list_sites(session=session)}
    rows = await events.open_of_type(session=session, event_type=EventType.site_status_changed, any_site=True)
    grouped: dict[int | None, list[SecurityEvent]] = {}
    for event in rows:
        grouped.setdefault(event.site_id, []).append(event)
    closed = 0
    for site_id, open_rows in grouped.items():
        site = site_by_id.get(site_id)
        current = site.status if site is not None and site.last_checked_at is not None else None
        keep = next(
            (e for e in reversed(open_rows) if current != SiteStatus.secure.value and (e.details or {}).get("status") == current),
            None,
        )
        for event in open_rows:
            if event is keep:
                continue
            if site is None:
                note = f"Closed by the monitor at {_clock(now)}: the site was removed"
            elif (event.details or {}).get("status") == SiteStatus.secure.value:
                note = f"Closed by the monitor at {_clock(now)}: a recovery is not an open problem"
            elif current == SiteStatus.secure.value:
                note = f"Recovered before {_clock(now)}: {site.name} is SECURE"
            elif keep is not None and (event.details or {}).get("status") == current:
                note = f"Closed by the monitor at {_clock(now)}: superseded by event #{keep.id}, the same problem"
            else:
                note = f"Ended before {_clock(now)}: {site.name} is now {STATUS_LABELS.get(current or '', 'CHECKING')}"
            events.close_by_system(session, event, by="monitor", note=note, at=now)
            closed += 1
        if keep is not None and keep.fingerprint is None and current is not None:
            keep.fingerprint = problem_fingerprint(site_id, current)
            keep.details = (keep.details or {}) | {"occurrences": 1, "firstSeenAt": _iso(keep.created_at)}
            session.add(keep)
    return closed


Target = tuple[int, str, bool, bool]  # site id, url, allow private, demo


def _target(site: Site) -> Target:
    assert site.id is not None
    return site.id, site.url, site.is_demo or site.allow_private, site.is_demo


async def _probe_and_apply(targets: list[Target], clients: ProbeClients, concurrency: int) -> dict[int, str]:
    """Probe the targets concurrently (no transaction open meanwhile), then record everything in one commit."""
    gate = asyncio.Semaphore(concurrency)

    async def probe(url: str, allow_private: bool, demo: bool) -> ProbeResult:
        async with gate:
            return await probe_site(
                url,
                client=clients.get(allow_private=allow_private),
                allow_private=allow_private,
                own_headers=request_log.monitor_headers() if demo else None,
            )

    results = await asyncio.gather(*(probe(url, allow, demo) for _id, url, allow, demo in targets))
    statuses: dict[int, str] = {}
    async with session_scope() as session:
        # One read for every site (not one per site); the agents too, so following a status finds them loaded.
        ids = [site_id for site_id, *_ in targets]
        by_id = {site.id: site for site in await session.exec(select(Site).where(col(Site.id).in_(ids)))}
        await agents.list_agents(session=session)
        for (site_id, _url, _allow, _demo), result in zip(targets, results, strict=True):
            site = by_id.get(site_id)
            if site is None or site.paused:  # removed or paused while it was being probed
                continue
            await apply_probe(session, site, result)
            statuses[site_id] = site.status
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


async def prune_history(*, session: AsyncSession) -> None:
    """Keep a week of checks per site."""
    await session.exec(delete(SiteCheck).where(SiteCheck.checked_at < utcnow() - HISTORY_RETENTION))  # type: ignore[arg-type]
    await session.commit()


async def run_monitor() -> None:
    """Lifespan task: probe on the configured interval; one monitor per deployment."""
    settings = get_settings()
    if not settings.MONITOR_ENABLED:
        return
    await asyncio.sleep(STARTUP_DELAY_SECONDS)  # let this server start serving its own demo sites

    async def lead(lost: asyncio.Event) -> None:
        async with ProbeClients() as clients:
            log.info("site monitor started (every %ss)", settings.MONITOR_INTERVAL_SECONDS)
            try:
                async with session_scope() as session:
                    if closed := await reconcile_open_problems(session=session, now=utcnow()):
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
