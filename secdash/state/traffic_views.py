"""What Live Traffic and User Scan show: view rows built from services/traffic/live.py's figures.

Paths, clients and user agents are text from the internet: they reach the page only as text children (Reflex
escapes them), never as markup or attributes that run.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from secdash.models.traffic_public import DecisionPublic
from secdash.state.dashboard_views import snapshot_time_label

VERDICT_CLASSES = {"clean": "text-emerald-300", "suspicious": "text-amber-300", "blocked": "text-red-300"}


def rate_text(bytes_per_second: int) -> str:
    """Bytes a second as people read them (B/s, KB/s, MB/s)."""
    if bytes_per_second < 1024:
        return f"{bytes_per_second} B/s"
    if bytes_per_second < 1024 * 1024:
        return f"{bytes_per_second / 1024:.1f} KB/s"
    return f"{bytes_per_second / (1024 * 1024):.1f} MB/s"


def _status_class(status: int) -> str:
    if status in (403, 429):
        return "text-red-300"
    if status >= 500:
        return "text-red-300"
    if status >= 400:
        return "text-amber-300"
    return "text-emerald-300"


@dataclasses.dataclass
class RequestView:
    time: str = ""
    site: str = ""
    client: str = ""
    method: str = ""
    path: str = ""
    status: str = ""
    status_class: str = ""
    drill: bool = False


def request_view(entry: dict[str, Any]) -> RequestView:
    return RequestView(
        time=snapshot_time_label(entry["time"]),
        site=entry["site"],
        client=entry["client"],
        method=entry["method"],
        path=entry["path"],
        status=str(entry["status"]),
        status_class=_status_class(entry["status"]),
        drill=entry["drill"],
    )


@dataclasses.dataclass
class SiteTrafficView:
    name: str = ""
    requests_per_minute: int = 0
    active_clients: int = 0
    bandwidth: str = ""
    blocked_last_hour: int = 0
    capacity: str = ""  # "12% of 600 req/min capacity" ("" when the site has no capacity set)
    feed: list[RequestView] = dataclasses.field(default_factory=list)


def capacity_text(percent: int | None, capacity_rpm: int | None = None) -> str:
    if percent is None:
        return ""
    return f"{percent}% of {capacity_rpm:,} req/min capacity" if capacity_rpm else f"{percent}% of capacity"


def site_traffic_view(site: dict[str, Any]) -> SiteTrafficView:
    return SiteTrafficView(
        name=site["name"],
        capacity=capacity_text(site.get("capacityPercent"), site.get("capacityRpm")),
        requests_per_minute=site["requestsPerMinute"],
        active_clients=site["activeClients"],
        bandwidth=rate_text(site["bytesPerSecond"]),
        blocked_last_hour=site["lastHour"]["blocked"],
        feed=[request_view(entry) for entry in site["feed"]],
    )


@dataclasses.dataclass
class MixView:
    label: str = ""
    count: int = 0
    color: str = ""  # a CSS colour (a class made at run time would not be in the built stylesheet)


def status_mix(last_hour: dict[str, int]) -> list[MixView]:
    return [
        MixView("2xx", last_hour["status_2xx"], "#10b981"),
        MixView("3xx", last_hour["status_3xx"], "#0ea5e9"),
        MixView("4xx", last_hour["status_4xx"], "#f59e0b"),
        MixView("5xx", last_hour["status_5xx"], "#f97316"),
        MixView("blocked (403/429)", last_hour["blocked"], "#ef4444"),
    ]


@dataclasses.dataclass
class ClientView:
    client: str = ""
    site: str = ""
    verdict: str = ""
    verdict_class: str = ""
    reason: str = ""
    requests: int = 0
    time: str = ""


def client_view(row: dict[str, Any]) -> ClientView:
    return ClientView(
        client=row["client"],
        site=row["site"],
        verdict=row["verdict"],
        verdict_class=VERDICT_CLASSES.get(row["verdict"], ""),
        reason=row["reason"],
        requests=row["requests"],
        time=snapshot_time_label(row["lastSeen"]),
    )


# The durations an operator picks for a decision (seconds: label).
DECISION_DURATIONS = {"3600": "1 hour", "14400": "4 hours", "86400": "24 hours", "604800": "7 days", "2592000": "30 days"}


@dataclasses.dataclass
class DecisionView:
    id: int = 0
    value: str = ""  # the address, or the range in CIDR
    type: str = ""  # ban or throttle
    origin: str = ""  # scenario, operator or drill
    why: str = ""  # the scenario, else the reason
    ends: str = ""  # how long it still holds


def time_left(seconds: float) -> str:
    """A remaining time as people read it: "3 h 59 min", "12 min", "2 d 4 h"."""
    minutes = max(0, int(seconds // 60))
    days, hours, mins = minutes // 1440, minutes % 1440 // 60, minutes % 60
    if days:
        return f"{days} d {hours} h" if hours else f"{days} d"
    if hours:
        return f"{hours} h {mins} min" if mins else f"{hours} h"
    return f"{mins} min" if mins else "under a minute"


def decision_view(row: DecisionPublic, now: datetime) -> DecisionView:
    return DecisionView(
        id=row.id,
        value=row.value,
        type=row.type,
        origin=row.origin,
        why=row.scenario or row.reason or row.origin,
        ends=f"ends in {time_left((row.until - now).total_seconds())}",
    )
