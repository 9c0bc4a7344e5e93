"""An administrator's decision that closes a problem: fixed, a false positive or an accepted risk (with a reason,
optionally until a date). Recording, listing and reopening events is services/problems/events.py; a later scan or
probe keeping a decision is services/problems/triage.py."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit, mark_changed
from secdash.models import Disposition, LogCategory, SecurityEvent, UserPublic, as_utc, utcnow
from secdash.services import audit
from secdash.services.agents import activities
from secdash.services.errors import Invalid, NotFound
from secdash.services.identity.permissions import require_admin
from secdash.services.problems.events import MAX_NOTE_LENGTH, TOPIC

MAX_ACCEPTANCE_DAYS = 366
DISPOSITION_WORDS = {"fixed": "", "false_positive": " as a false positive", "accepted_risk": " as an accepted risk"}


def _acceptance(disposition: str, note: str, accepted_until: datetime | None) -> datetime | None:
    """Validate an admin's decision: an accepted risk needs a reason; its optional end lies in the next year."""
    if disposition not in DISPOSITION_WORDS:
        raise Invalid("disposition must be one of: fixed, false_positive, accepted_risk")
    if disposition != Disposition.accepted_risk:
        if accepted_until is not None:
            raise Invalid("acceptedUntil applies only to an accepted risk")
        return None
    if not note:
        raise Invalid("an accepted risk needs a reason (the note)")
    if accepted_until is None:
        return None
    until, now = as_utc(accepted_until), utcnow()
    if until <= now:
        raise Invalid("acceptedUntil must be in the future")
    if until > now + timedelta(days=MAX_ACCEPTANCE_DAYS):
        raise Invalid(f"acceptedUntil must be within {MAX_ACCEPTANCE_DAYS} days")
    return until


async def resolve_event(
    *,
    session: AsyncSession,
    actor: UserPublic,
    event_id: int,
    note: str = "",
    disposition: str = "fixed",
    accepted_until: datetime | None = None,
) -> SecurityEvent:
    """Close a problem with an admin's decision (admins only; audited): fixed, a false positive (nothing was
    wrong; AI Systems counts these per platform) or an accepted risk (a reason, optionally until a date). A later
    scan or probe keeps a false positive or an accepted risk closed while the flagged code is unchanged
    (services/problems/triage.py)."""
    require_admin(actor, "resolve security events")
    note = (note or "").strip()
    if len(note) > MAX_NOTE_LENGTH:
        raise Invalid(f"note must be at most {MAX_NOTE_LENGTH} characters")
    until = _acceptance(disposition, note, accepted_until)
    event = await session.get(SecurityEvent, event_id)
    if event is None:
        raise NotFound("no security event with this id")
    if event.resolved:
        return event
    event.resolved = True
    event.resolved_at = utcnow()
    event.resolved_by = actor.email
    event.resolution_note = note or None
    event.disposition, event.accepted_until = Disposition(disposition), until
    session.add(event)
    mark_changed(session, TOPIC)
    how = DISPOSITION_WORDS[disposition] + (f" until {until:%Y-%m-%d}" if until else "")
    audit.record(
        session,
        category=LogCategory.security,
        action="Security event resolved",
        description=f"{actor.email} resolved event #{event_id}{how}: {event.description[:120]}",
        actor_user_id=actor.id,
        details={
            "eventId": event_id,
            "eventType": event.event_type,
            "severity": event.severity,
            "note": note,
            "disposition": disposition,
            "falsePositive": disposition == Disposition.false_positive,
            "acceptedUntil": until.isoformat().replace("+00:00", "Z") if until else None,
        },
    )
    activities.record(
        session, activity_type="patch", target=f"event #{event_id}", description=f"Resolved: {event.description[:200]}"
    )
    await commit(session)
    return event
