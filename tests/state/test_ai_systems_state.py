"""AI Systems page state: signed in it shows the measured figures and the profile ones; signed out it refuses."""

from __future__ import annotations

import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401
from secdash.models import EventSeverity, EventType, Site
from secdash.services import events, sites
from secdash.services.unit import commit
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
    events.record(session, event_type=EventType.attack_detected, severity=EventSeverity.high, description="burst",
                  site_id=stock.id)
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
