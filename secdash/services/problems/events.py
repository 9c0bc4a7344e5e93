"""Security events: recorded by the monitor, the scanner and drills; listed, filtered and resolved."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import mark_changed
from secdash.models import (
    Disposition,
    EventSeverity,
    EventSource,
    EventType,
    SecurityEvent,
    Site,
    as_utc,
    utcnow,
)
from secdash.services import ids
from secdash.services.agents import activities
from secdash.services.errors import Invalid

TOPIC = "events"
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
ALERTS_SIZE = 5  # spec section 9: the alert list is kept at 5
MAX_NOTE_LENGTH = 2000
STATUSES = ("open", "resolved", "suppressed")
# Closed by an admin's decision that a later scan or probe keeps (services/problems/triage.py).
SUPPRESSED = (Disposition.false_positive.value, Disposition.accepted_risk.value)


def record(
    session: AsyncSession,
    *,
    event_type: EventType,
    severity: EventSeverity,
    description: str,
    site_id: int | None = None,
    source: str = "monitor",
    ai_action: str | None = None,
    source_ip: str | None = None,
    user_agent: str | None = None,
    details: dict[str, Any] | None = None,
    fingerprint: str | None = None,
) -> SecurityEvent:
    """Add an event; written with the caller's commit."""
    event = SecurityEvent(
        event_type=event_type,
        severity=severity,
        description=description[:2000],
        site_id=site_id,
        source=EventSource(source),
        ai_action=ai_action,
        source_ip=source_ip,
        user_agent=user_agent,
        details=details or {},
        fingerprint=fingerprint,
    )
    session.add(event)
    mark_changed(session, TOPIC)
    return event


async def open_fingerprints(*, session: AsyncSession, fingerprints: list[str]) -> set[str]:
    """Which of these fingerprints already belong to an unresolved event."""
    if not fingerprints:
        return set()
    query = select(SecurityEvent.fingerprint).where(
        col(SecurityEvent.fingerprint).in_(fingerprints),
        SecurityEvent.resolved == False,  # noqa: E712
    )
    return {fp for fp in await session.exec(query) if fp}


def parse_filters(
    *,
    site_id: str | int | None = None,
    severity: str | None = None,
    resolved: str | bool | None = None,
    limit: str | int | None = None,
    status: str | None = None,
    drills: str | None = None,
) -> dict[str, Any]:
    """Validate the list filters (API query strings or UI values); Invalid names the field."""
    filters: dict[str, Any] = {"limit": DEFAULT_LIMIT}
    if status not in (None, ""):
        if status not in STATUSES:
            raise Invalid("status must be one of: open, resolved, suppressed")
        filters["status"] = status
    if drills not in (None, ""):
        if drills not in ("include", "exclude"):
            raise Invalid("drills must be include or exclude")
        filters["include_drills"] = drills == "include"
    if site_id not in (None, ""):
        filters["site_id"] = ids.parse_id(site_id, "siteId")  # a positive id a SQL integer holds
    if severity not in (None, ""):
        if severity not in {s.value for s in EventSeverity}:
            raise Invalid("severity must be one of: high, medium, low")
        filters["severity"] = severity
    if resolved not in (None, ""):
        if isinstance(resolved, bool):
            filters["resolved"] = resolved
        elif str(resolved).lower() in {"true", "false"}:
            filters["resolved"] = str(resolved).lower() == "true"
        else:
            raise Invalid("resolved must be true or false")
    if limit not in (None, ""):
        try:
            value = int(limit)
        except (TypeError, ValueError):
            raise Invalid("limit must be a whole number") from None
        if not 1 <= value <= MAX_LIMIT:
            raise Invalid(f"limit must be between 1 and {MAX_LIMIT}")
        filters["limit"] = value
    return filters


async def list_events(
    *,
    session: AsyncSession,
    site_id: int | None = None,
    severity: str | None = None,
    resolved: bool | None = None,
    search: str = "",
    limit: int = DEFAULT_LIMIT,
    status: str | None = None,
    include_drills: bool = True,
) -> list[tuple[SecurityEvent, str | None]]:
    """Events newest first, each with its site's name. `status`: open, resolved (closed, however) or suppressed
    (closed as a false positive or an accepted risk); `include_drills=False` leaves Battle Station's drill
    records out (the Problem Database's default view: problems an operator must act on)."""
    query = select(SecurityEvent, Site.name).join(Site, col(Site.id) == SecurityEvent.site_id, isouter=True)
    if site_id is not None:
        query = query.where(SecurityEvent.site_id == site_id)
    if severity:
        query = query.where(SecurityEvent.severity == severity)
    if resolved is not None:
        query = query.where(SecurityEvent.resolved == resolved)
    if status == "open":
        query = query.where(SecurityEvent.resolved == False)  # noqa: E712
    elif status == "resolved":
        query = query.where(SecurityEvent.resolved == True)  # noqa: E712
    elif status == "suppressed":
        query = query.where(SecurityEvent.resolved == True, col(SecurityEvent.disposition).in_(SUPPRESSED))  # noqa: E712
    if not include_drills:
        query = query.where(SecurityEvent.source != EventSource.drill.value)
    if search.strip():
        pattern = f"%{search.strip().lower()}%"
        query = query.where(
            func.lower(SecurityEvent.description).like(pattern) | func.lower(SecurityEvent.event_type).like(pattern)
        )
    query = query.order_by(col(SecurityEvent.created_at).desc(), col(SecurityEvent.id).desc()).limit(limit)
    return [(event, name) for event, name in await session.exec(query)]


def record_blocked_threat(
    session: AsyncSession,
    *,
    description: str,
    source: str,
    site_id: int | None = None,
    target: str = "",
    severity: EventSeverity = EventSeverity.high,
    source_ip: str | None = None,
    user_agent: str | None = None,
    ai_action: str | None = None,
    details: dict[str, Any] | None = None,
    blocked_requests: int = 1,
    resolved_note: str | None = None,
) -> SecurityEvent:
    """Requests that were really blocked: the one record "Threats Blocked" counts, and its activity line.

    Whatever really blocks (Battle Station drills behind the defense middleware) records through here, so
    the headline and the AI activity feed cannot disagree. Simulated activity never comes here.
    """
    event = record(
        session,
        event_type=EventType.threat_blocked,
        severity=severity,
        description=description,
        site_id=site_id,
        source=source,
        ai_action=ai_action,
        source_ip=source_ip,
        user_agent=user_agent,
        details=details,
    )
    event.blocked_requests = max(1, blocked_requests)
    if resolved_note is not None:  # blocked already: nothing left open for an admin to act on
        close_by_system(session, event, by=source, note=resolved_note, at=utcnow())
    activities.record(session, activity_type="block", target=target or source_ip or source, description=description)
    return event


# What one threat_blocked record counts for: the requests it stands for (a drill blocks many), else one.
BLOCKED_REQUESTS = func.coalesce(SecurityEvent.blocked_requests, 1)


async def count_threats_blocked(*, session: AsyncSession) -> int:
    """Real blocks only: the requests of threat_blocked events (recorded by record_blocked_threat)."""
    query = select(func.coalesce(func.sum(BLOCKED_REQUESTS), 0)).where(SecurityEvent.event_type == EventType.threat_blocked.value)
    return int((await session.exec(query)).one())


# Threats detected on a site: its attack and vulnerability records (one each).
DETECTED_TYPES = (EventType.attack_detected.value, EventType.vulnerability_detected.value)
NO_COUNTS = {"detected": 0, "blocked": 0, "false": 0}


async def counts_by_site(*, session: AsyncSession, site_ids: list[int]) -> dict[int, dict[str, int]]:
    """Per site: threats detected, threats blocked (the requests, as count_threats_blocked sums them) and false
    positives. The one query behind every per-site or per-agent figure (AI Systems, the agents, the Center)."""
    counts: dict[int, dict[str, int]] = {site_id: dict(NO_COUNTS) for site_id in site_ids}
    if not site_ids:
        return counts
    rows = await session.exec(
        select(
            SecurityEvent.site_id,
            func.sum(case((col(SecurityEvent.event_type).in_(DETECTED_TYPES), 1), else_=0)),
            func.sum(case((col(SecurityEvent.event_type) == EventType.threat_blocked.value, BLOCKED_REQUESTS), else_=0)),
            func.sum(
                case(
                    (
                        and_(
                            col(SecurityEvent.resolved) == True,  # noqa: E712
                            col(SecurityEvent.disposition) == Disposition.false_positive.value,
                        ),
                        1,
                    ),
                    else_=0,
                )
            ),
        )
        .where(col(SecurityEvent.site_id).in_(site_ids))
        .group_by(col(SecurityEvent.site_id))
    )
    for site_id, detected, blocked, false in rows:
        if site_id is None:  # never: the query keeps the events of these sites
            continue
        counts[site_id] = {"detected": int(detected or 0), "blocked": int(blocked or 0), "false": int(false or 0)}
    return counts


async def count_open(*, session: AsyncSession) -> int:
    """How many events are open (unresolved): the number the Security Alerts card shows."""
    query = select(func.count()).select_from(SecurityEvent).where(SecurityEvent.resolved == False)  # noqa: E712
    return (await session.exec(query)).one()


async def open_of_type(
    *,
    session: AsyncSession,
    event_type: EventType,
    site_id: int | None = None,
    any_site: bool = False,
) -> list[SecurityEvent]:
    """Open events of one type, oldest first: of one site, or of every site with any_site."""
    query = select(SecurityEvent).where(SecurityEvent.event_type == event_type.value, SecurityEvent.resolved == False)  # noqa: E712
    if not any_site:
        query = query.where(SecurityEvent.site_id == site_id)
    return list(await session.exec(query.order_by(col(SecurityEvent.created_at), col(SecurityEvent.id))))


async def open_by_fingerprint(*, session: AsyncSession, fingerprints: list[str]) -> dict[str, SecurityEvent]:
    """The unresolved events carrying these fingerprints, by fingerprint."""
    if not fingerprints:
        return {}
    query = (
        select(SecurityEvent)
        .where(
            col(SecurityEvent.fingerprint).in_(fingerprints),
            SecurityEvent.resolved == False,  # noqa: E712
        )
        .order_by(col(SecurityEvent.id))
    )
    return {event.fingerprint: event for event in await session.exec(query) if event.fingerprint}


async def latest_with_fingerprint(*, session: AsyncSession, fingerprint: str) -> SecurityEvent | None:
    """The newest event carrying this fingerprint, open or resolved."""
    query = (
        select(SecurityEvent)
        .where(SecurityEvent.fingerprint == fingerprint)
        .order_by(col(SecurityEvent.created_at).desc(), col(SecurityEvent.id).desc())
        .limit(1)
    )
    return (await session.exec(query)).first()


def close_by_system(session: AsyncSession, event: SecurityEvent, *, by: str, note: str, at: datetime) -> None:
    """Resolve an event on the system's own evidence (e.g. the monitor saw the site recover); caller commits."""
    event.resolved, event.resolved_at, event.resolved_by = True, at, by
    event.resolution_note = note[:MAX_NOTE_LENGTH]
    session.add(event)
    mark_changed(session, TOPIC)


async def close_of_removed_site(session: AsyncSession, *, site_id: int, site_name: str, by: str) -> int:
    """Close a site's open problems because the site is being removed (each keeps the site's name); how many.
    The caller removes the site and commits, in the same transaction."""
    query = select(SecurityEvent).where(SecurityEvent.site_id == site_id, SecurityEvent.resolved == False)  # noqa: E712
    rows = list(await session.exec(query))
    now = utcnow()
    for event in rows:
        close_by_system(session, event, by=by, at=now, note=f"Closed: {site_name} was removed from monitoring")
        event.details = (event.details or {}) | {"removedSite": site_name}
    return len(rows)


def reopen(session: AsyncSession, event: SecurityEvent) -> None:
    """Open a resolved event again; its last resolution is kept in its details."""
    if event.resolved:
        event.details = (event.details or {}) | {
            "lastResolution": {
                "by": event.resolved_by,
                "at": as_utc(event.resolved_at).isoformat().replace("+00:00", "Z") if event.resolved_at else None,
                "note": event.resolution_note,
            }
        }
    event.resolved, event.resolved_at, event.resolved_by, event.resolution_note = False, None, None, None
    session.add(event)
    mark_changed(session, TOPIC)
