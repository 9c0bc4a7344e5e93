"""What the dashboard shows: view rows built from the typed public shapes (the reads are services/reads/page_reads.py)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from secdash.core.site_status import STATUS_LABELS
from secdash.models.public import ActivityPublic, EventPublic, SiteCheckPublic, SitePublic


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
    allow_private: bool = False
    capacity_rpm: str = ""  # its traffic settings, as the edit form shows them ("" when not set)
    signup_route: str = ""
    tags: list[str] = dataclasses.field(default_factory=list)
    paused: bool = False
    status: str = "warning"
    status_label: str = "CHECKING"
    response_time: str = "-"  # total: every redirect hop and the body
    timing: str = ""  # first byte, redirects, certificate expiry: the line under the figures
    tls: str = "-"
    tls_title: str = ""
    grade: str = "-"
    checked: str = "never"
    error: str = ""
    findings: str = ""
    chart: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    tests: list[dict[str, str]] = dataclasses.field(default_factory=list)  # the header grade's tests, as rows
    tests_summary: str = ""


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
    reopened: str = ""  # why a closed problem is open again (its code changed, an accepted risk expired)


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


def _ms(value: int | None) -> str:
    return f"{value:,} ms" if value is not None else "-"


def _redirects(count: int | None) -> str:
    return "" if not count else f"{count} redirect" + ("s" if count > 1 else "")


def _tls(site: SitePublic) -> tuple[str, str]:
    """The TLS cell (days to one decimal, or "expired") and its title (the exact expiry instant)."""
    days, expires = site.tls_days_left, site.tls_expires_at
    if days is None:
        return ("n/a (http)" if site.url.startswith("http:") else "-"), ""
    instant = time_label(expires, "%b %d %Y, %H:%M:%S UTC") if expires else ""
    checked = site.last_checked_at
    if (expires <= checked) if expires is not None and checked is not None else days < 0:
        return "expired", f"Expired {abs(days):.1f} days before the check" + (f" ({instant})" if instant else "")
    return f"{days:.1f} days", f"Expires {instant}" if instant else ""


def _timing(site: SitePublic, tls: str) -> str:
    parts = [f"First byte {_ms(site.ttfb_ms)}" if site.ttfb_ms is not None else "", _redirects(site.redirects)]
    if site.tls_expires_at is not None:
        until = "expired" if tls == "expired" else "until"
        parts.append(f"certificate {until} {time_label(site.tls_expires_at, '%b %d %Y, %H:%M UTC')}")
    return " · ".join(part for part in parts if part)


def _point(check: SiteCheckPublic) -> dict[str, Any]:
    note = ", ".join(
        part
        for part in (f"first byte {_ms(check.ttfb_ms)}" if check.ttfb_ms is not None else "", _redirects(check.redirects))
        if part
    )
    return {"time": time_label(check.checked_at), "ms": check.response_time, "note": note}


def header_test_row(test: dict[str, Any]) -> dict[str, str]:
    """One header test as the card lists it: title, result, signed modifier, pass or fail."""
    modifier = int(test.get("modifier", 0))
    return {
        "title": str(test.get("title") or test.get("name", "")),
        "result": str(test.get("result", "")),
        "modifier": f"{modifier:+d}" if modifier else "0",
        "passed": "pass" if test.get("pass") else "fail",
    }


def site_view(site: SitePublic, history: list[SiteCheckPublic]) -> SiteView:
    tls, tls_title = _tls(site)
    return SiteView(
        id=site.id,
        name=site.name,
        domain=site.domain,
        url=site.url,
        allow_private=site.allow_private,
        capacity_rpm=str(site.capacity_rpm) if site.capacity_rpm else "",
        signup_route=site.signup_route or "",
        tags=list(site.tags),
        paused=site.paused,
        status=site.security_status.value,
        address=site.domain + urlsplit(site.url).path.rstrip("/"),
        status_label=STATUS_LABELS.get(site.security_status.value, "CHECKING"),
        response_time=_ms(site.response_time),
        timing=_timing(site, tls),
        tls=tls,
        tls_title=tls_title,
        grade=site.grade or "-",
        checked=time_label(site.last_checked_at),
        error=site.last_error or "",
        findings="; ".join(site.findings[:4]),
        tests=[header_test_row(test) for test in site.header_tests],
        tests_summary=(
            f"Header tests: {sum(bool(t.get('pass')) for t in site.header_tests)}/{len(site.header_tests)}"
            f" passed, score {site.score}"
        )
        if site.header_tests
        else "",
        chart=[_point(check) for check in history],  # a check with no answer is a gap ("No response yet" if all)
    )


def event_view(event: EventPublic) -> EventView:
    details = event.details
    return EventView(
        id=event.id,
        created=time_label(event.created_at, "%b %d, %H:%M:%S"),
        site=event.site or "-",
        event_type=event.event_type.value,
        severity=event.severity.value,
        description=event.description,
        resolved=event.resolved,
        ai_action=event.ai_action or "",
        source=event.source.value,
        location=f"{details['file']}:{details['line']}" if "file" in details else "",
        rule=details.get("rule", ""),
        resolution=_resolution(event) if event.resolved and event.resolved_by else "",
        reopened="" if event.resolved else str((details.get("reopened") or {}).get("reason") or ""),
    )


def _resolution(event: EventPublic) -> str:
    """Who closed a problem and how: 'Resolved by', 'Resolved as false positive by', 'Accepted risk by ... until'."""
    if event.disposition == "accepted_risk":
        until = f" until {event.accepted_until:%b %d, %Y}" if event.accepted_until else " (no end date)"
        head = f"Accepted risk by {event.resolved_by}{until}"
    else:
        head = ("Resolved as false positive by " if event.false_positive else "Resolved by ") + str(event.resolved_by)
    return head + (f": {event.resolution_note}" if event.resolution_note else "")


def activity_view(activity: ActivityPublic) -> ActivityView:
    return ActivityView(
        id=activity.id,
        activity_type=activity.activity_type.value,
        target=activity.target,
        description=activity.description,
        status=activity.status,
        created=time_label(activity.created_at),
        simulated=activity.simulated,
    )


def feed_view(entry: dict[str, Any]) -> FeedView:
    return FeedView(ip=entry["ip"], site=entry["site"], action=entry["action"], time=snapshot_time_label(entry["timestamp"]))
