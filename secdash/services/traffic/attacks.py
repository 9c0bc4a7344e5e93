"""A real attack on a site as a problem and an alert.

A detection from the site's own requests (not a drill's: a drill records its own results) opens an
`attack_detected` problem, identified by the site, the client and the scenario's family, so one attacker trying
one thing is one open problem however often its buckets overflow: a later detection adds to it (requests, last
seen, the newest requests) and raises its severity when the new one is more severe. An admin's "false positive" or
"accepted risk" on that problem keeps it closed for that client and family (until an accepted risk's date).
A new problem notifies the "attack detected" rule at or above its severity (services/alerting/signals.py); the
bundled demo sites never page anyone.
"""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import mark_changed
from secdash.models import EventSeverity, EventType, SecurityEvent, Site, TrafficDetection, as_utc, utcnow
from secdash.services.alerting import signals
from secdash.services.problems import events, triage

SOURCE = "traffic"
MAX_FINGERPRINT = 128
_ORDER = {"low": 0, "medium": 1, "high": 2}


def fingerprint(site_id: int, client: str, family: str) -> str:
    return f"attack:{site_id}:{client}:{family}"[:MAX_FINGERPRINT]


def _iso(row: TrafficDetection, name: str) -> str:
    return as_utc(getattr(row, name)).isoformat().replace("+00:00", "Z")


def _details(row: TrafficDetection) -> dict[str, object]:
    return {
        "kind": "traffic",
        "scenario": row.scenario,
        "family": row.family,
        "client": row.client,
        "detectionId": row.id,
        "decisionId": row.decision_id,
        "firstSeen": _iso(row, "first_seen"),
        "lastSeen": _iso(row, "last_seen"),
        "events": row.events,
        "detections": 1,
        "samples": list(row.samples),
        "raisedBecause": row.raised_because,
    }


def _describe(site: Site, row: TrafficDetection) -> str:
    return f"{site.name}: {row.description} from {row.address} ({row.events} requests)"


def _add_to(event: SecurityEvent, row: TrafficDetection) -> None:
    details = dict(event.details or {})
    details["events"] = int(details.get("events") or 0) + row.events
    details["detections"] = int(details.get("detections") or 1) + 1
    details["lastSeen"], details["samples"], details["detectionId"] = _iso(row, "last_seen"), list(row.samples), row.id
    if row.decision_id:
        details["decisionId"] = row.decision_id
    if _ORDER.get(row.severity, 0) > _ORDER.get(str(event.severity), 0):
        event.severity = EventSeverity(row.severity)
        details["raisedBecause"] = row.raised_because
    event.details = details


async def report(session: AsyncSession, site: Site, row: TrafficDetection) -> SecurityEvent | None:
    """The problem a (non-drill) detection opens or adds to; None when an admin's decision keeps it closed.
    Written with the caller's commit."""
    key = fingerprint(site.id or 0, row.client, row.family)
    current = (await events.open_by_fingerprint(session=session, fingerprints=[key])).get(key)
    if current is not None:
        _add_to(current, row)
        session.add(current)
        mark_changed(session, events.TOPIC)
        return current
    now = utcnow()
    decided = (await triage.decided(session, [key])).get(key)
    if decided is not None and not triage.expired(decided, now):
        return None
    if decided is not None:  # an accepted risk whose date has passed: the same problem, open again
        triage.reopen(session, decided, triage.expiry_reason(decided), now)
        _add_to(decided, row)
        event = decided
    else:
        event = events.record(
            session,
            event_type=EventType.attack_detected,
            severity=EventSeverity(row.severity),
            description=_describe(site, row),
            site_id=site.id,
            source=SOURCE,
            source_ip=row.address,
            ai_action=f"Detected by {row.scenario}",
            details=_details(row),
            fingerprint=key,
        )
    if not site.is_demo:
        await signals.attack_detected(
            session,
            severity=str(event.severity),
            subject=key,
            title=f"Attack on {site.name}: {row.description} from {row.address}",
            body=_alert_body(site, row),
        )
    return event


def _alert_body(site: Site, row: TrafficDetection) -> str:
    lines = [
        f"{row.description} on {site.name} ({site.url}) from {row.address}: {row.events} requests between "
        f"{_iso(row, 'first_seen')} and {_iso(row, 'last_seen')} ({row.scenario}, severity {row.severity}).",
    ]
    if row.raised_because:
        lines.append(f"Severity raised: {row.raised_because}.")
    if row.samples:
        lines.append("Newest requests: " + " | ".join(row.samples))
    lines.append("Decision: " + (f"#{row.decision_id} in force." if row.decision_id else "none (the address is allowed)."))
    return "\n".join(lines)
