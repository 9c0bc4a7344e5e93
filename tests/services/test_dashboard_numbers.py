"""The dashboard's headline numbers are honest: real blocks only, and the real count of open events."""

from __future__ import annotations

import random

from secdash.core.unit import commit
from secdash.models import EventSeverity, EventType
from secdash.services.agents import activities
from secdash.services.monitoring import simulation
from secdash.services.problems import events
from secdash.services.reads import dashboard


async def test_simulated_activity_never_reads_as_a_real_block(session):
    lines = [simulation.simulated_activity(random.Random(seed)) for seed in range(40)]
    assert {kind for kind, _site, _text in lines} == set(activities.ACTIVITY_TYPES)
    for _kind, _site, text in lines:
        assert text.startswith("Simulated"), text
        assert not text.lower().startswith(("blocked", "scanned", "tuned", "applied"))
    blocks = [text for kind, _site, text in lines if kind == "block"]
    assert blocks and all("nothing was blocked" in text for text in blocks)
    rng = random.Random(5)
    for _ in range(8):
        await simulation.record_simulated_activity(session, rng)
    await commit(session)
    feed = await activities.recent(session=session, limit=40)
    assert len(feed) == activities.FEED_SIZE
    assert all(activity.simulated and activity.status == "simulated" for activity in feed)
    overview = await dashboard.overview(session=session)
    assert overview["threatsBlocked"] == 0
    assert all(a["simulated"] for a in overview["aiActivities"])


async def test_a_real_block_is_one_record_counted_and_shown(session):
    """One source of truth: the blocked-threat event is the count, and the activity line comes with it."""
    events.record_blocked_threat(
        session,
        description="Blocked SQL injection on /login",
        source="drill",
        source_ip="203.0.113.7",
    )
    await commit(session)
    overview = await dashboard.overview(session=session)
    assert overview["threatsBlocked"] == 1
    [activity] = overview["aiActivities"]
    assert activity["activityType"] == "block" and not activity["simulated"]
    assert activity["description"] == "Blocked SQL injection on /login"
    [event] = overview["recentEvents"]
    assert event["eventType"] == "threat_blocked" and event["sourceIp"] == "203.0.113.7"


async def test_open_events_are_counted_beyond_the_five_listed(session):
    for n in range(7):
        events.record(session, event_type=EventType.attack_detected, severity=EventSeverity.low, description=f"open {n}")
    for n in range(2):
        event = events.record(
            session, event_type=EventType.attack_detected, severity=EventSeverity.low, description=f"closed {n}"
        )
        event.resolved = True
    await commit(session)
    assert await events.count_open(session=session) == 7
    overview = await dashboard.overview(session=session)
    assert [e["description"] for e in overview["recentEvents"]] == [f"open {n}" for n in (6, 5, 4, 3, 2)]
