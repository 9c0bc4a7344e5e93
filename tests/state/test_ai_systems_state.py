"""AI Systems page state: signed in it shows the measured figures and the profile ones; signed out it refuses."""

from __future__ import annotations

import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401
from secdash.core.unit import commit
from secdash.models import EventSeverity, EventType, Site
from secdash.services.monitoring import sites
from secdash.services.problems import events
from secdash.state.ai_systems import AiSystemsState
from tests.factories import make_user, sign_in


def _state(token: str = "") -> AiSystemsState:
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(AiSystemsState.get_full_name().split("."))
    state.auth_token = token
    return state


async def test_signed_out_load_is_refused_and_reads_nothing(session):
    state = _state()
    events_out = await AiSystemsState.event_handlers["load"].fn(state)
    assert "Unauthorized" in str(events_out)
    assert state.loading and state.platforms == []


async def test_load_shows_the_four_platforms_with_real_counts(session, settings):
    await make_user(session, "viewer@example.com", role="limited")
    await sites.init_default_sites(session=session, settings=settings)
    stock = next(site for site in await session.exec(select(Site)) if site.default_slug == "stock")
    events.record(
        session, event_type=EventType.attack_detected, severity=EventSeverity.high, description="burst", site_id=stock.id
    )
    await commit(session)
    state = _state(await sign_in(session, "viewer@example.com"))
    follow_up = await AiSystemsState.event_handlers["load"].fn(state)
    assert follow_up is AiSystemsState.follow_changes or "follow_changes" in str(follow_up)
    assert not state.loading
    assert [p.name for p in state.platforms] == ["Stock", "Tour", "Gem", "Shares"]
    assert state.platforms[0].threats_detected == 1
    assert state.platforms[0].users == "5,837"  # the profile figure (spec section 9)
    assert state.platforms[0].status_label == "Not checked yet"
    assert state.ai_models == 4 and state.total_data == "12.7 TB"
    assert [row.platform for row in state.training] == ["Stock", "Tour", "Gem", "Shares"]


# Issue 23 item 5: measured figures in the unit that reads naturally ("Code Lines 0.0001M", "Uptime 0 min" before).


def test_figures_read_in_natural_units():
    from datetime import UTC, datetime

    from secdash.state.ai_systems import code_lines_label, uptime_label

    assert code_lines_label(150) == ("150", "lines counted")
    assert code_lines_label(48_213) == ("48,213", "lines counted")
    assert code_lines_label(2_345_678) == ("2.35M", "2,345,678 lines counted")
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    first = datetime(2026, 11, 25, 11, 58, 30, tzinfo=UTC)
    assert uptime_label(None, None, False, now) == ("-", "")
    assert uptime_label(0.0, None, False, now) == ("Down", "at the newest check")
    assert uptime_label(0.0, now, True, now) == ("Under a minute", "since 12:00 UTC, the monitor's first check")
    assert uptime_label(0.02, first, True, now) == ("1 min", "since 11:58 UTC, the monitor's first check")
    assert uptime_label(3.5, first, False, now) == ("3 h 30 min", "since 11:58 UTC, after a failed check")
    two_days = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
    assert uptime_label(50.0, two_days, True, now) == ("2 d 2 h", "since Nov 23, 10:00 UTC, the monitor's first check")
