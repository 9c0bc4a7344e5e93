"""A site's status as problems: one ongoing problem per site and kind (ALERT outage, CHECKING degradation).

A site that turns ALERT (or CHECKING) opens one event for that kind of problem; when it is SECURE again the monitor
closes it ("Recovered at ...") and the recovery itself is activity only. A site that fails again within REOPEN_WINDOW
of its recovery reopens the same event (occurrences, first and last seen in its details): a flapping site is one
ongoing problem, not a stream of alerts. The monitor (monitor.apply_probe) calls these on a status change.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.site_status import STATUS_LABELS
from secdash.models import EventSeverity, EventType, SecurityEvent, Site, SiteStatus, as_utc
from secdash.services.monitoring import sites
from secdash.services.problems import events

_SEVERITY_OF_STATUS = {"critical": EventSeverity.high, "warning": EventSeverity.medium, "secure": EventSeverity.low}
# After a recovery, the same failure within this window reopens the same problem (a flapping site is one problem).
REOPEN_WINDOW = timedelta(minutes=30)


def problem_fingerprint(site_id: int | None, status: str) -> str:
    """One ongoing problem per site and kind (ALERT outage, CHECKING degradation)."""
    return f"site-status:{site_id}:{status}"


def iso(value: datetime) -> str:
    return as_utc(value).isoformat().replace("+00:00", "Z")


def clock(value: datetime | str) -> str:
    moment = datetime.fromisoformat(value.replace("Z", "+00:00")) if isinstance(value, str) else as_utc(value)
    return moment.strftime("%H:%M:%S UTC")


async def end_problems(session: AsyncSession, site: Site, *, status: str, now: datetime) -> list[SecurityEvent]:
    """Close the site's open status problems the new status ends (all of them when it is SECURE again)."""
    closed = []
    for event in await events.open_of_type(session=session, event_type=EventType.site_status_changed, site_id=site.id):
        if (event.details or {}).get("status") == status:
            continue
        if status == SiteStatus.secure.value:
            note = f"Recovered at {clock(now)}: {site.name} is SECURE again"
        else:
            note = f"Ended at {clock(now)}: {site.name} is now {STATUS_LABELS[status]}"
        event.details = (event.details or {}) | {"endedAt": iso(now)}
        events.close_by_system(session, event, by="monitor", note=note, at=now)
        closed.append(event)
    return closed


async def open_problem(
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
        "lastSeenAt": iso(now),
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
            details=facts | {"occurrences": 1, "firstSeenAt": iso(now)},
        )
    events.reopen(session, event)  # keeps its last resolution in its details
    details = {key: value for key, value in (event.details or {}).items() if key != "endedAt"}
    occurrences = int(details.get("occurrences", 1)) + 1
    first_seen = details.get("firstSeenAt") or iso(event.created_at)
    event.details = details | facts | {"occurrences": occurrences, "firstSeenAt": first_seen}
    event.description = f"{site.name} is now {label}: {reason} ({occurrences} times since {clock(first_seen)})"[:2000]
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
                note = f"Closed by the monitor at {clock(now)}: the site was removed"
            elif (event.details or {}).get("status") == SiteStatus.secure.value:
                note = f"Closed by the monitor at {clock(now)}: a recovery is not an open problem"
            elif current == SiteStatus.secure.value:
                note = f"Recovered before {clock(now)}: {site.name} is SECURE"
            elif keep is not None and (event.details or {}).get("status") == current:
                note = f"Closed by the monitor at {clock(now)}: superseded by event #{keep.id}, the same problem"
            else:
                note = f"Ended before {clock(now)}: {site.name} is now {STATUS_LABELS.get(current or '', 'CHECKING')}"
            events.close_by_system(session, event, by="monitor", note=note, at=now)
            closed += 1
        if keep is not None and keep.fingerprint is None and current is not None:
            keep.fingerprint = problem_fingerprint(site_id, current)
            keep.details = (keep.details or {}) | {"occurrences": 1, "firstSeenAt": iso(keep.created_at)}
            session.add(keep)
    return closed
