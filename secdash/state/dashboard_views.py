"""What the dashboard shows: view rows built from service data (the reads are services/page_reads.py)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

STATUS_LABELS = {"secure": "SECURE", "warning": "CHECKING", "critical": "ALERT"}


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

