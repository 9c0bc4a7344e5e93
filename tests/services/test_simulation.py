"""The traffic simulation keeps the spec's bounds and rhythms (section 9)."""

from __future__ import annotations

import random

from sqlmodel import select

from secdash.services.monitoring import simulation
from secdash.services.monitoring.simulation import SimulationState, advance_traffic, maybe_scan_user


def test_figures_stay_within_the_spec_bounds():
    state, rng = SimulationState(), random.Random(7)
    for _ in range(500):
        advance_traffic(state, rng)
        assert 8 <= state.requests_per_minute <= 16
        assert 45 <= state.active_users <= 120
        assert 5 <= state.bandwidth <= 25
        assert state.capacity_percent == round(state.requests_per_minute / 50 * 100, 1)


def test_every_40th_event_is_a_signup_and_feeds_are_bounded():
    state, rng = SimulationState(), random.Random(1)
    for _ in range(80):
        advance_traffic(state, rng)
    assert state.total_signups == simulation.START_TOTAL_SIGNUPS + 2
    assert state.signups_today == simulation.START_SIGNUPS_TODAY + 2
    assert len(state.feed) == 20
    assert all(len(feed) <= 10 for feed in state.site_feeds.values())
    assert state.feed[0]["id"] == 80  # newest first


def test_user_scans_happen_about_thirty_percent_of_the_time_and_keep_three():
    state, rng = SimulationState(), random.Random(3)
    hits = sum(1 for _ in range(2000) if maybe_scan_user(state, rng))
    assert 500 < hits < 700
    assert len(state.recent_scans) == 3
    assert sum(state.user_stats.values()) == hits


async def test_the_overview_marks_simulated_figures_and_has_none_with_the_simulation_off(session, monkeypatch):
    """What API clients and the Dashboard read: traffic and user-scan figures say they are simulated, and with
    SECDASH_SIMULATION=off no stored figure is served at all; SECDASH_TRAFFIC_SIMULATION (off by default) asks
    for them."""
    from secdash.core.config import get_settings
    from secdash.services.reads import dashboard

    await simulation.save_snapshot(session, SimulationState())
    await session.commit()
    overview = await dashboard.overview(session=session)
    assert overview["trafficData"] is None and overview["userStats"] is None  # the simulated traffic is asked for
    monkeypatch.setenv("SECDASH_TRAFFIC_SIMULATION", "on")
    get_settings.cache_clear()
    try:
        overview = await dashboard.overview(session=session)
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert overview["trafficData"]["simulated"] is True and overview["userStats"]["simulated"] is True
    monkeypatch.setenv("SECDASH_TRAFFIC_SIMULATION", "on")
    monkeypatch.setenv("SECDASH_SIMULATION", "off")
    get_settings.cache_clear()
    try:
        overview = await dashboard.overview(session=session)
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert overview["trafficData"] is None and overview["userStats"] is None


async def test_simulated_activity_keeps_only_the_feed_and_never_touches_real_lines(session):
    """An idle server wrote a simulated line every 8 s forever (240 rows in 30 minutes, nobody watching): only the
    feed's five simulated lines are kept, and real activity stays whatever its age."""
    from secdash.models import AiActivity
    from secdash.services.agents import activities
    from secdash.services.monitoring.simulation import record_simulated_activity

    activities.record(session, activity_type="scan", target="Stock", description="Probe of stock: SECURE")
    await session.commit()
    rng = random.Random(7)
    for _ in range(40):
        await record_simulated_activity(session, rng)
        await session.commit()
    rows = (await session.exec(select(AiActivity))).all()
    assert sum(row.simulated for row in rows) == activities.FEED_SIZE
    assert [row.description for row in rows if not row.simulated] == ["Probe of stock: SECURE"]
