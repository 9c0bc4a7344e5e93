"""What the dashboard shows: view rows built from the typed public shapes (the reads are services/page_reads.py)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from secdash.models.public import ActivityPublic, EventPublic, SiteCheckPublic, SitePublic

STATUS_LABELS = {"secure": "SECURE", "warning": "CHECKING", "critical": "ALERT"}


def time_label(value: datetime | None, fmt: str = "%H:%M:%S") -> str:
    """A UTC time as the dashboard prints it ("-" when there is none)."""
    return value.strftime(fmt) if value else "-"


def snapshot_time_label(iso: str | None) -> str:
    """A time stored in the simulation's snapshot document (ISO text, UTC)."""
    return time_label(datetime.fromisoformat(iso.replace("Z", "+00:00")) if iso else None)


@dataclasses.dataclass
class SiteView:
    id: int = 0
    name: str = ""
    domain: str = ""
    address: str = ""  # what the card shows: host[:port] plus the path, so the four demo sites differ
    url: str = ""
    status: str = "warning"
    status_label: str = "CHECKING"
    response_time: str = "-"
    tls: str = "-"
    grade: str = "-"
    checked: str = "never"
    error: str = ""
    findings: str = ""
    chart: list[dict[str, Any]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class EventView:
    id: int = 0
    created: str = ""
    site: str = ""
    event_type: str = ""
    severity: str = "low"
    description: str = ""
    resolved: bool = False
    ai_action: str = ""
    source: str = ""
    location: str = ""
    rule: str = ""
    resolution: str = ""


@dataclasses.dataclass
class ActivityView:
    id: int = 0
    activity_type: str = ""
    target: str = ""
    description: str = ""
    status: str = ""
    created: str = ""
    simulated: bool = False


@dataclasses.dataclass
class FeedView:
    ip: str = ""
    site: str = ""
    action: str = ""
    time: str = ""


def site_view(site: SitePublic, history: list[SiteCheckPublic]) -> SiteView:
    return SiteView(
        id=site.id, name=site.name, domain=site.domain, url=site.url, status=site.security_status.value,
        address=site.domain + urlsplit(site.url).path.rstrip("/"),
        status_label=STATUS_LABELS.get(site.security_status.value, "CHECKING"),
        response_time=f"{site.response_time} ms" if site.response_time is not None else "-",
        tls="n/a (http)" if site.url.startswith("http:") else (
            f"{site.tls_days_left} days" if site.tls_days_left is not None else "-"),
        grade=site.grade or "-", checked=time_label(site.last_checked_at), error=site.last_error or "",
        findings="; ".join(site.findings[:4]),
        chart=[{"time": time_label(check.checked_at), "ms": check.response_time} for check in history
               if check.response_time is not None],
    )


def event_view(event: EventPublic) -> EventView:
    details = event.details
    return EventView(
        id=event.id, created=time_label(event.created_at, "%b %d, %H:%M:%S"), site=event.site or "-",
        event_type=event.event_type.value, severity=event.severity.value, description=event.description,
        resolved=event.resolved, ai_action=event.ai_action or "", source=event.source.value,
        location=f"{details['file']}:{details['line']}" if "file" in details else "", rule=details.get("rule", ""),
        resolution=(("Resolved as false positive by " if event.false_positive else "Resolved by ") + event.resolved_by
                    + (f": {event.resolution_note}" if event.resolution_note else ""))
        if event.resolved and event.resolved_by else "",
    )


def activity_view(activity: ActivityPublic) -> ActivityView:
    return ActivityView(
        id=activity.id, activity_type=activity.activity_type.value, target=activity.target,
        description=activity.description, status=activity.status, created=time_label(activity.created_at),
        simulated=activity.simulated,
    )


def feed_view(entry: dict[str, Any]) -> FeedView:
    return FeedView(ip=entry["ip"], site=entry["site"], action=entry["action"], time=snapshot_time_label(entry["timestamp"]))

