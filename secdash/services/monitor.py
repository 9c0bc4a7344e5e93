"""The site monitor: probe every site, store each check, turn status changes into events."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import timedelta

from sqlalchemy import delete
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.leader import leadership
from secdash.models import EventSeverity, EventType, Site, SiteCheck, SiteStatus, utcnow
from secdash.services import activities, agents, events, sites
from secdash.services.probe import ProbeClients, ProbeResult, probe_site, site_status
from secdash.services.unit import commit, mark_changed

log = logging.getLogger(__name__)

HISTORY_RETENTION = timedelta(days=7)
MAX_CONCURRENT_PROBES = 50
STATUS_LABELS = {"secure": "SECURE", "warning": "CHECKING", "critical": "ALERT"}
_SEVERITY_OF_STATUS = {"critical": EventSeverity.high, "warning": EventSeverity.medium, "secure": EventSeverity.low}
STARTUP_DELAY_SECONDS = 3.0


def status_reason(result: ProbeResult, status: str) -> str:
    """Why a probe led to its status, in a few words."""
    if result.error:
        return result.error
    reasons = []
    if result.status_code and result.status_code >= 400:
        reasons.append(f"HTTP {result.status_code}")
    if result.tls_days_left is not None and result.tls_days_left < 14:
        reasons.append(f"TLS certificate expires in {result.tls_days_left} days")
    if result.grade in ("D", "E", "F"):
        reasons.append(f"security headers grade {result.grade}")
    if result.response_ms is not None and status != "secure" and not reasons:
        reasons.append(f"slow response ({result.response_ms:.0f} ms)")
    return ", ".join(reasons) or f"HTTP {result.status_code}, grade {result.grade}"


async def apply_probe(session: AsyncSession, site: Site, result: ProbeResult) -> str | None:
    """Store the check on the site and in its history; return the new status if it changed."""
    status = site_status(result)
    previous = site.status if site.last_checked_at is not None else None
    site.status = status
    site.status_code = result.status_code
    site.response_time_ms = round(result.response_ms) if result.response_ms is not None else None
    site.tls_days_left = result.tls_days_left
    site.grade, site.score, site.findings = result.grade, result.score, list(result.findings)
    site.last_error = result.error[:300] if result.error else None
    site.last_checked_at = result.checked_at
    session.add(site)
    session.add(SiteCheck(
        site_id=site.id, checked_at=result.checked_at, status=status, status_code=result.status_code,
        response_ms=site.response_time_ms, tls_days_left=result.tls_days_left, grade=result.grade, error=site.last_error,
    ))
    mark_changed(session, sites.TOPIC)
    changed = status != previous and not (previous is None and status == SiteStatus.secure.value)
    if not changed:
        return None
    reason = status_reason(result, status)
    label = STATUS_LABELS[status]
    events.record(
        session, event_type=EventType.site_status_changed, severity=_SEVERITY_OF_STATUS[status], site_id=site.id,
        description=f"{site.name} is now {label}: {reason}", source="monitor",
        details={"previous": previous, "status": status, "url": site.url, "statusCode": result.status_code},
    )
    activities.record(
        session, activity_type="scan", target=site.name, status=status,
        description=f"Probe of {site.domain}: {label} ({reason})",
    )
    await agents.follow_site_status(session=session, site_name=site.name, site_status=status)
    return status


async def probe_all(*, clients: ProbeClients | None = None, concurrency: int = MAX_CONCURRENT_PROBES) -> dict[int, str]:
    """One monitoring round: probe every site concurrently, record everything in one commit."""
    if clients is None:  # one client per address policy (one TLS context, one pool) for the whole round
        async with ProbeClients() as shared:
            return await probe_all(clients=shared, concurrency=concurrency)
    async with session_scope() as session:
        targets = [(site.id, site.url, site.is_demo or site.allow_private) for site in await sites.list_sites(session=session)]
    gate = asyncio.Semaphore(concurrency)

    async def probe(url: str, allow_private: bool) -> ProbeResult:
        async with gate:
            return await probe_site(url, client=clients.get(allow_private=allow_private), allow_private=allow_private)

    results = await asyncio.gather(*(probe(url, allow) for _id, url, allow in targets))
    statuses: dict[int, str] = {}
    async with session_scope() as session:
        for (site_id, _url, _allow), result in zip(targets, results, strict=True):
            site = await session.get(Site, site_id)
            if site is None:  # removed while it was being probed
                continue
            await apply_probe(session, site, result)
            statuses[site_id] = site.status
        await commit(session)
    return statuses


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
    async with leadership("site-monitor") as lost, ProbeClients() as clients:
        log.info("site monitor started (every %ss)", settings.MONITOR_INTERVAL_SECONDS)
        rounds = 0
        while not lost.is_set():
            started = time.monotonic()
            try:
                await probe_all(clients=clients)
                rounds += 1
                if rounds % 120 == 1:
                    async with session_scope() as session:
                        await prune_history(session=session)
            except Exception:
                log.exception("site monitor round failed")
            await asyncio.sleep(max(1.0, settings.MONITOR_INTERVAL_SECONDS - (time.monotonic() - started)))
