"""Triage that sticks: what a later scan or probe does with a finding an admin already decided on.

A problem is open until it is closed: by the system's own evidence (the scanner no longer sees it, the probe no
longer reports it), or by an admin as fixed, a false positive or an accepted risk (with a reason, optionally
until a date). Findings are known by their fingerprint (for code: root, file, rule and the flagged code itself).

- fixed: the same finding seen again is a new problem (a regression), as before.
- false positive / accepted risk: a scan or probe that reports the same fingerprint leaves it closed ("suppressed").
  It reopens, saying why, when the acceptance has expired, or (code findings) when the code it flagged changed
  but still breaks the same rule.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import Disposition, EventType, SecurityEvent, as_utc, utcnow
from secdash.services.problems import events

SUPPRESSING = events.SUPPRESSED
LABELS = {
    Disposition.fixed: "fixed",
    Disposition.false_positive: "a false positive",
    Disposition.accepted_risk: "an accepted risk",
}


def _day(moment: datetime | None) -> str:
    return as_utc(moment).strftime("%Y-%m-%d") if moment else "an unknown date"


def expired(event: SecurityEvent, now: datetime) -> bool:
    """Whether an accepted risk's date has passed (a false positive never expires)."""
    return (
        event.disposition == Disposition.accepted_risk
        and event.accepted_until is not None
        and as_utc(event.accepted_until) <= as_utc(now)
    )


def _decision(event: SecurityEvent) -> str:
    label = LABELS.get(Disposition(event.disposition), str(event.disposition)) if event.disposition else "closed"
    return f"marked {label} by {event.resolved_by or 'an admin'} on {_day(event.resolved_at)}"


def reopen(session: AsyncSession, event: SecurityEvent, reason: str, now: datetime | None = None) -> None:
    """Open a decided problem again, keeping its last decision and saying why; caller commits."""
    events.reopen(session, event)
    event.disposition, event.accepted_until = None, None
    at = as_utc(now or utcnow()).isoformat().replace("+00:00", "Z")
    event.details = (event.details or {}) | {"reopened": {"reason": reason[:500], "at": at}}
    session.add(event)


def expiry_reason(event: SecurityEvent) -> str:
    return f"The accepted risk expired on {_day(event.accepted_until)} ({_decision(event)})"


def code_changed_reason(event: SecurityEvent) -> str:
    return f"The flagged code changed since it was {_decision(event)}, and it still breaks the rule"


async def decided(session: AsyncSession, fingerprints: list[str]) -> dict[str, SecurityEvent]:
    """The newest closed problem carrying each of these fingerprints whose admin decision suppresses it (a false
    positive or an accepted risk, expired or not: the caller tells them apart with `expired`)."""
    if not fingerprints:
        return {}
    query = (
        select(SecurityEvent)
        .where(
            col(SecurityEvent.fingerprint).in_(fingerprints),
            SecurityEvent.resolved == True,  # noqa: E712
            col(SecurityEvent.disposition).in_(SUPPRESSING),
        )
        .order_by(col(SecurityEvent.id))
    )
    return {event.fingerprint: event for event in await session.exec(query) if event.fingerprint}


async def decided_code_findings(session: AsyncSession, root: str, files: set[str]) -> list[SecurityEvent]:
    """The suppressed scanner findings of these files of one code root (to notice their code changing)."""
    if not files:
        return []
    query = (
        select(SecurityEvent)
        .where(
            SecurityEvent.event_type == EventType.vulnerability_detected.value,
            SecurityEvent.source == "scanner",
            SecurityEvent.resolved == True,  # noqa: E712
            col(SecurityEvent.disposition).in_(SUPPRESSING),
        )
        .order_by(col(SecurityEvent.id))
    )
    return [
        event
        for event in await session.exec(query)
        if (event.details or {}).get("root") == root and (event.details or {}).get("file") in files
    ]
