"""The Center's red "High Threat Detected" toast follows the situation: an active brute force raises
it, a hypothetical question does not (before: the other way round)."""

from __future__ import annotations

import reflex as rx

import secdash.secdash  # noqa: F401
from secdash.state.defense_command import DefenseCenterState
from tests.factories import make_user, sign_in


async def _ask(state, text: str) -> tuple[str, str]:
    state.draft = text
    await DefenseCenterState.event_handlers["send"].fn(state)
    events = [item async for item in DefenseCenterState.event_handlers["stream_reply"].fn(state)]
    return state.chats[state.selected][-1].threat_level, str(events)


async def test_the_toast_is_for_incidents_not_for_hypotheticals(session):
    await make_user(session, "ops@example.com", role="admin")
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(DefenseCenterState.get_full_name().split("."))
    state.auth_token = await sign_in(session, "ops@example.com")

    level, events = await _ask(state, "is there a DDoS risk?")
    assert level == "low" and "High Threat Detected" not in events

    level, events = await _ask(state, "We see 5000 failed logins per minute from one IP range, what do we do?")
    assert level == "high" and "High Threat Detected" in events
