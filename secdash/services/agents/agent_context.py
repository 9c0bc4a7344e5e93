"""What an agent knows of the system right now: its site(s), their newest checks, the open security
events and the open code findings, read in one short database session (never held across a model
call) and returned as plain data (`secdash.ai.situation.Situation`); the deployed defenses, drills,
fixes ready and the last 24 hours' changes come from services/agents/agent_operations.py in the same session.

A platform agent (stock, tour, gem, shares) sees the site of its name; the general agent sees every
site (ALERT first, bounded) and every open event, also those tied to no site. Lists are bounded;
the totals count everything open.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.agents import PLATFORM_AGENT_IDS
from secdash.ai.situation import CheckFact, EventFact, SiteFact, Situation
from secdash.core.db import session_scope
from secdash.models import EventType, SecurityEvent, Site, SiteCheck, as_utc, utcnow
from secdash.services.agents import agent_operations

RECENT_CHECKS = 5
HISTORY_CHECKS = 48  # read for patterns (a flapping site): the agents summarise them, never list them all
MAX_EVENTS = 10
MAX_FINDINGS = 10
MAX_SITES = 20
_STATUS_ORDER = {"critical": 0, "warning": 1, "secure": 2}
_SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}


def _iso(value: datetime | None) -> str | None:
    return as_utc(value).isoformat(timespec="seconds").replace("+00:00", "Z") if value else None


def _event_fact(event: SecurityEvent, site_name: str | None, fix_ready: str | None = None) -> EventFact:
    details = event.details or {}
    line = details.get("line")
    traffic = details.get("kind") == "traffic"
    samples = details.get("samples") if traffic else None
    return EventFact(
        id=event.id or 0,
        created_at=_iso(event.created_at) or "",
        event_type=event.event_type,
        severity=event.severity,
        description=event.description,
        source=event.source,
        site=site_name,
        rule=str(details["rule"]) if details.get("rule") else None,
        file=str(details["file"]) if details.get("file") else None,
        line=line if isinstance(line, int) else None,
        fix_ready=fix_ready,
        requests=tuple(str(target) for target in samples[-5:]) if isinstance(samples, list) else (),
        raised_because=str(details["raisedBecause"]) if traffic and details.get("raisedBecause") else None,
    )


async def _checks(session: AsyncSession, site_id: int) -> tuple[CheckFact, ...]:
    query = (
        select(SiteCheck)
        .where(SiteCheck.site_id == site_id)
        .order_by(col(SiteCheck.checked_at).desc(), col(SiteCheck.id).desc())
        .limit(HISTORY_CHECKS)
    )
    return tuple(
        CheckFact(
            checked_at=_iso(c.checked_at) or "",
            status=c.status,
            status_code=c.status_code,
            response_ms=c.response_ms,
            grade=c.grade,
            error=c.error,
        )
        for c in await session.exec(query)
    )


async def _site_fact(session: AsyncSession, site: Site) -> SiteFact:
    history = await _checks(session, site.id or 0)
    return SiteFact(
        id=site.id or 0,
        name=site.name,
        url=site.url,
        status=site.status,
        grade=site.grade,
        score=site.score,
        findings=tuple(site.findings or ()),
        tls_days_left=site.tls_days_left,
        last_error=site.last_error,
        response_ms=site.response_time_ms,
        status_code=site.status_code,
        last_checked_at=_iso(site.last_checked_at),
        recent_checks=history[:RECENT_CHECKS],
        history=history,
        slug=site.default_slug if site.is_demo else None,
        public=agent_operations.is_public(site.url),
    )


async def situation(*, agent_id: str) -> Situation:
    """The agent's view of the system now (an unknown agent id sees what the general agent sees)."""
    agent_id = (agent_id or "general").strip().lower()
    platform = agent_id in PLATFORM_AGENT_IDS
    now = utcnow()
    async with session_scope() as session:
        query = select(Site)
        if platform:
            query = query.where(func.lower(Site.name) == agent_id)
        sites = sorted(await session.exec(query), key=lambda s: (_STATUS_ORDER.get(s.status, 3), s.id or 0))
        total_sites = len(sites)
        sites = sites[:MAX_SITES]
        facts = tuple([await _site_fact(session, site) for site in sites])
        if platform and not sites:
            return Situation(agent_id=agent_id)
        site_ids = [site.id for site in sites]
        names = {site.id: site.name for site in sites}
        opened = (
            select(SecurityEvent, Site.name)
            .join(Site, col(Site.id) == SecurityEvent.site_id, isouter=True)
            .where(
                col(SecurityEvent.resolved) == False  # noqa: E712
            )
        )
        if platform:
            opened = opened.where(col(SecurityEvent.site_id).in_(site_ids))
        scanner = (col(SecurityEvent.source) == "scanner") | (
            col(SecurityEvent.event_type) == EventType.vulnerability_detected.value
        )
        newest = (col(SecurityEvent.created_at).desc(), col(SecurityEvent.id).desc())
        events = [
            _event_fact(e, name or names.get(e.site_id))
            for e, name in await session.exec(opened.where(~scanner).order_by(*newest).limit(MAX_EVENTS))
        ]
        finding_rows = list(await session.exec(opened.where(scanner).order_by(*newest).limit(MAX_FINDINGS * 5)))
        ready = await agent_operations.fixes_ready(
            session, [e for e, _name in finding_rows], {site.id or 0: site for site in sites}
        )
        # most severe first, newest first within a severity (the rows come newest first; the sort is stable)
        findings = sorted(
            (_event_fact(e, name or names.get(e.site_id), ready.get(e.id or 0)) for e, name in finding_rows),
            key=lambda f: _SEVERITY_ORDER.get(f.severity, 3),
        )[:MAX_FINDINGS]
        counted = (
            select(scanner, func.count())
            .select_from(SecurityEvent)
            .where(
                col(SecurityEvent.resolved) == False  # noqa: E712
            )
            .group_by(scanner)
        )
        if platform:
            counted = counted.where(col(SecurityEvent.site_id).in_(site_ids))
        counts = {bool(is_finding): n for is_finding, n in await session.exec(counted)}
        defenses = await agent_operations.defenses(session, sites)
        drills = await agent_operations.drills(session, sites, now)
        changes = await agent_operations.changes(
            session,
            [site.id or 0 for site in sites] if platform else None,
            {site.id or 0: site.name for site in sites},
            sites,
            now,
        )
    return Situation(
        agent_id=agent_id,
        sites=facts,
        events=tuple(events),
        findings=tuple(findings),
        open_events=counts.get(False, 0),
        open_findings=counts.get(True, 0),
        sites_total=total_sites if total_sites > len(facts) else 0,
        now=agent_operations.iso(now),
        defenses=defenses,
        drills=drills,
        changes=changes,
    )
