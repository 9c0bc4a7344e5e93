"""A site's security-header findings as problems: one open event per finding the monitor's probe reports.

Each finding of a probe (header_grade.py: "X-Frame-Options header missing (-20)") that has no open event
opens one, a `vulnerability_detected` event from the monitor, identified by the site and the finding's
text (its fingerprint); a probe that no longer reports it closes that event and records the fix, so Fix
Mode can fix a site's headers and a re-probe verify it. Only a probe that got an HTTP answer says which
findings a site has: the caller leaves failed probes out.

A monitor round reads the open findings of all its sites in one query (`open_findings_of_sites`) and reconciles
only a site whose reported findings differ from its open ones (`unchanged`); the triage decisions the others
need are read for all of them in one more query. A round where no finding changed reads nothing per site.
"""

from __future__ import annotations

import re
from datetime import datetime

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import EventSeverity, EventType, SecurityEvent, Site, as_utc
from secdash.services.alerting import signals
from secdash.services.problems import events, triage

SOURCE = "monitor"
MAX_FINGERPRINT_LENGTH = 128
MEDIUM_FROM_POINTS = 20  # a penalty of this many points or more is a medium problem, a smaller one low
SITES_PER_QUERY = 500
_POINTS = re.compile(r"\s*\(-(\d+)\)\s*$")


def split_finding(text: str) -> tuple[str, int]:
    """A finding's text without its "(-N)" suffix, and its N (0 when it has none)."""
    match = _POINTS.search(text)
    if match is None:
        return text.strip(), 0
    return text[: match.start()].strip(), int(match.group(1))


def fingerprint_prefix(site_id: int | None) -> str:
    return f"site-finding:{site_id}:"


def finding_fingerprint(site_id: int | None, finding: str) -> str:
    """The identity of one finding of one site (the finding's text without its points)."""
    prefix = fingerprint_prefix(site_id)
    key = split_finding(finding)[0].lower().replace(" ", "-")
    return prefix + key[: MAX_FINGERPRINT_LENGTH - len(prefix)]


def _clock(moment: datetime) -> str:
    return as_utc(moment).strftime("%H:%M:%S UTC")


async def open_site_findings(session: AsyncSession, site: Site) -> list[SecurityEvent]:
    """The site's open finding problems, oldest first."""
    prefix = fingerprint_prefix(site.id)
    rows = await events.open_of_type(session=session, event_type=EventType.vulnerability_detected, site_id=site.id)
    return [event for event in rows if (event.fingerprint or "").startswith(prefix)]


async def open_findings_of_sites(session: AsyncSession, site_ids: list[int]) -> dict[int, list[SecurityEvent]]:
    """open_site_findings of many sites at once, by site id (a site with none is missing)."""
    found: dict[int, list[SecurityEvent]] = {}
    for start in range(0, len(site_ids), SITES_PER_QUERY):
        chunk = site_ids[start : start + SITES_PER_QUERY]
        query = (
            select(SecurityEvent)
            .where(
                SecurityEvent.event_type == EventType.vulnerability_detected.value,
                SecurityEvent.resolved == False,  # noqa: E712
                col(SecurityEvent.site_id).in_(chunk),
                col(SecurityEvent.fingerprint).startswith("site-finding:"),
            )
            .order_by(col(SecurityEvent.created_at), col(SecurityEvent.id))
        )
        for event in await session.exec(query):
            if event.site_id is not None and (event.fingerprint or "").startswith(fingerprint_prefix(event.site_id)):
                found.setdefault(event.site_id, []).append(event)
    return found


def reported_fingerprints(site_id: int | None, findings: list[str]) -> set[str]:
    return {finding_fingerprint(site_id, text) for text in findings}


def unchanged(site_id: int | None, findings: list[str], open_events: list[SecurityEvent]) -> bool:
    """Whether reconciling would change nothing: the probe reports exactly the findings that are open, one event
    each (a finding an admin closed as a false positive or an accepted risk is reported but not open: that site is
    reconciled, which reads its decisions)."""
    open_prints = [event.fingerprint for event in open_events]
    return len(set(open_prints)) == len(open_prints) and set(open_prints) == reported_fingerprints(site_id, findings)


async def reconcile_site_findings(
    session: AsyncSession,
    site: Site,
    findings: list[str],
    now: datetime,
    *,
    open_now: list[SecurityEvent] | None = None,
    decided: dict[str, SecurityEvent] | None = None,
) -> tuple[int, int]:
    """Open an event for each of the probe's findings not open yet, close (as fixed) each open one the probe
    no longer reports; (opened, closed). The caller commits, and calls this only for a probe with an answer.
    `open_now` (the site's open findings) and `decided` (triage decisions by fingerprint, covering every reported
    finding not open) are a round's batched reads; without them they are read here."""
    reported: dict[str, tuple[str, int]] = {}
    for text in findings:
        reported.setdefault(finding_fingerprint(site.id, text), split_finding(text))
    open_events: dict[str, SecurityEvent] = {}
    for event in open_now if open_now is not None else await open_site_findings(session, site):
        kept = open_events.setdefault(event.fingerprint or "", event)
        if kept is not event:  # two rounds raced: one problem stays open
            events.close_by_system(
                session, event, by=SOURCE, at=now, note=f"Closed by the monitor: the same finding as event #{kept.id}"
            )
    opened = closed = 0
    if decided is None:
        decided = await triage.decided(session, [fp for fp in reported if fp not in open_events])
    for fingerprint, (finding, points) in reported.items():
        if fingerprint in open_events:
            continue
        if fingerprint in decided:  # an admin's false positive or accepted risk: closed while it holds
            if triage.expired(decided[fingerprint], now):
                triage.reopen(session, decided[fingerprint], triage.expiry_reason(decided[fingerprint]), now)
            continue
        severity = EventSeverity.medium if points >= MEDIUM_FROM_POINTS else EventSeverity.low
        events.record(
            session,
            event_type=EventType.vulnerability_detected,
            source=SOURCE,
            site_id=site.id,
            severity=severity,
            description=f"{site.name}: {finding}",
            fingerprint=fingerprint,
            details={"kind": "site", "finding": finding, "points": points, "url": site.url},
        )
        if not site.is_demo:  # alerting (the rule's severity decides; the demo sites never page)
            await signals.new_finding(
                session, severity=severity.value, rule_name=finding, where=site.url, message=f"{site.name}: {finding}"
            )
        opened += 1
    for fingerprint, event in open_events.items():
        if fingerprint in reported:
            continue
        finding = (event.details or {}).get("finding") or event.description
        events.close_by_system(session, event, by=SOURCE, at=now, note=f"Fixed: the probe at {_clock(now)} no longer sees it")
        record = events.record(
            session,
            event_type=EventType.vulnerability_fixed,
            severity=EventSeverity(event.severity),
            source=SOURCE,
            site_id=site.id,
            description=f"{site.name}: {finding} is fixed (probe at {_clock(now)})",
            details={"kind": "site", "eventId": event.id, "finding": finding},
        )
        events.close_by_system(session, record, by=SOURCE, at=now, note=f"Recorded by the probe at {_clock(now)}")
        closed += 1
    return opened, closed
