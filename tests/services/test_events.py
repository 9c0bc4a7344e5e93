"""Security events: filters, resolution by admins only, audit and activity."""

from __future__ import annotations

import pytest
from sqlmodel import select

from secdash.core.unit import commit
from secdash.models import EventSeverity, EventType, HistoryLog
from secdash.services.agents import activities
from secdash.services.errors import Invalid, NotFound, PermissionDenied
from secdash.services.problems import events, resolution
from tests.factories import make_user


async def _event(session, severity=EventSeverity.high, description="Brute force on login"):
    event = events.record(session, event_type=EventType.attack_detected, severity=severity, description=description)
    await commit(session)
    return event


async def test_filters_newest_first(session):
    await _event(session, EventSeverity.high, "first")
    await _event(session, EventSeverity.low, "second")
    rows = await events.list_events(session=session)
    assert [e.description for e, _site in rows] == ["second", "first"]
    high = await events.list_events(session=session, severity="high")
    assert [e.description for e, _ in high] == ["first"]
    assert [e.description for e, _ in await events.list_events(session=session, search="SEC")] == ["second"]
    assert len(await events.list_events(session=session, limit=1)) == 1


def test_filter_validation_names_the_field():
    assert events.parse_filters(resolved="true", severity="low", limit="5", site_id="2") == {
        "resolved": True,
        "severity": "low",
        "limit": 5,
        "site_id": 2,
    }
    for kwargs, field in (
        ({"severity": "urgent"}, "severity"),
        ({"resolved": "maybe"}, "resolved"),
        ({"limit": "0"}, "limit"),
        ({"site_id": "x"}, "siteId"),
    ):
        with pytest.raises(Invalid, match=field):
            events.parse_filters(**kwargs)


async def test_admin_resolves_with_note_audited_and_shown_as_activity(session):
    admin = await make_user(session, "root@example.com", role="admin")
    event = await _event(session)
    resolved = await resolution.resolve_event(session=session, actor=admin, event_id=event.id, note="Blocked the IP range")
    assert resolved.resolved and resolved.resolved_by == "root@example.com"
    assert resolved.resolution_note == "Blocked the IP range"
    assert (await events.list_events(session=session, resolved=False)) == []
    logs = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Security event resolved"))).all()
    assert logs and logs[0].details["note"] == "Blocked the IP range"
    assert (await activities.recent(session=session))[0].activity_type == "patch"


async def test_limited_user_cannot_resolve_and_nothing_changes(session):
    viewer = await make_user(session, "viewer@example.com", role="limited")
    event = await _event(session)
    with pytest.raises(PermissionDenied):
        await resolution.resolve_event(session=session, actor=viewer, event_id=event.id)
    await session.refresh(event)
    assert not event.resolved


async def test_unknown_event_and_oversized_note(session):
    admin = await make_user(session, "root@example.com", role="admin")
    with pytest.raises(NotFound):
        await resolution.resolve_event(session=session, actor=admin, event_id=999)
    event = await _event(session)
    with pytest.raises(Invalid, match="note"):
        await resolution.resolve_event(session=session, actor=admin, event_id=event.id, note="x" * 2001)
