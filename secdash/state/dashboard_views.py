"""What the dashboard shows: view rows built from service data, and the reads behind each topic."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from secdash.core.db import session_scope
from secdash.services import activities, dashboard, events, scans, simulation, sites

STATUS_LABELS = {"secure": "SECURE", "warning": "CHECKING", "critical": "ALERT"}
TOPICS = (sites.TOPIC, events.TOPIC, activities.TOPIC, simulation.TOPIC, scans.TOPIC)


def time_label(iso: str | None, fmt: str = "%H:%M:%S") -> str:
    if not iso:
        return "-"
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).strftime(fmt)


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


def site_view(data: dict[str, Any], history: list[dict[str, Any]]) -> SiteView:
    return SiteView(
        id=data["id"], name=data["name"], domain=data["domain"], url=data["url"], status=data["securityStatus"],
        address=data["domain"] + urlsplit(data["url"]).path.rstrip("/"),
        status_label=STATUS_LABELS.get(data["securityStatus"], "CHECKING"),
        response_time=f"{data['responseTime']} ms" if data["responseTime"] is not None else "-",
        tls="n/a (http)" if data["url"].startswith("http:") else (
            f"{data['tlsDaysLeft']} days" if data["tlsDaysLeft"] is not None else "-"),
        grade=data["grade"] or "-", checked=time_label(data["lastCheckedAt"]), error=data["lastError"] or "",
        findings="; ".join(data["findings"][:4]),
        chart=[{"time": time_label(p["checkedAt"]), "ms": p["responseTime"]} for p in history if p["responseTime"] is not None],
    )


def event_view(data: dict[str, Any]) -> EventView:
    details = data.get("details") or {}
    return EventView(
        id=data["id"], created=time_label(data["createdAt"], "%b %d, %H:%M:%S"), site=data["site"] or "-",
        event_type=data["eventType"], severity=data["severity"], description=data["description"],
        resolved=data["resolved"], ai_action=data["aiAction"] or "", source=data["source"],
        location=f"{details['file']}:{details['line']}" if "file" in details else "", rule=details.get("rule", ""),
        resolution=(f"Resolved by {data['resolvedBy']}" + (f": {data['resolutionNote']}" if data["resolutionNote"] else ""))
        if data["resolved"] and data["resolvedBy"] else "",
    )


def activity_view(data: dict[str, Any]) -> ActivityView:
    return ActivityView(
        id=data["id"], activity_type=data["activityType"], target=data["target"], description=data["description"],
        status=data["status"], created=time_label(data["createdAt"]), simulated=data["simulated"],
    )


def feed_view(entry: dict[str, Any]) -> FeedView:
    return FeedView(ip=entry["ip"], site=entry["site"], action=entry["action"], time=time_label(entry["timestamp"]))


async def read_changes(topics: set[str], problem_filters: dict[str, Any], with_target: bool = False) -> dict[str, Any]:
    """Only what these topics touch (everything when topics is empty): a traffic tick reads one row."""
    reads: dict[str, Any] = {}

    def touched(topic: str) -> bool:
        return not topics or topic in topics

    async with session_scope() as session:
        if touched(sites.TOPIC):
            listed = [dashboard.site_public(site) for site in await sites.list_sites(session=session)]
            reads["sites"] = [(site, await dashboard.site_history(session=session, site_id=site["id"])) for site in listed]
        if touched(activities.TOPIC):
            reads["activities"] = [dashboard.activity_public(a) for a in await activities.recent(session=session)]
        if touched(events.TOPIC):
            recent = await events.list_events(session=session, resolved=False, limit=events.ALERTS_SIZE)
            reads["alerts"] = [dashboard.event_public(event, name) for event, name in recent]
            reads["open_alerts"] = await events.count_open(session=session)  # the list shows 5; this counts all
            reads["threats_blocked"] = await events.count_threats_blocked(session=session)
            rows = await events.list_events(session=session, **problem_filters)
            reads["problems"] = [dashboard.event_public(event, name) for event, name in rows]
        if touched(simulation.TOPIC):
            reads["snapshot"] = await simulation.read_snapshot(session=session)
        if touched(scans.TOPIC):
            reads["scan"] = await scans.current_job(session=session)
    if with_target:
        reads["target"] = await asyncio.to_thread(scans.target_summary)
    return reads
