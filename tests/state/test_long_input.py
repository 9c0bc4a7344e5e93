"""Over-long input is kept as typed and refused with the API's own message, never cut silently."""

from __future__ import annotations

import pytest
import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401
from secdash.models import DefenseChatMessage, SecurityEvent
from secdash.state.chat_widget import ChatWidgetState
from secdash.state.dashboard import ProblemsTab
from secdash.state.defense_command import DefenseCenterState, DefenseCommandState
from tests.factories import make_user, sign_in


async def _state(session, cls, role="admin"):
    await make_user(session, "ops@example.com", role=role)
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(cls.get_full_name().split("."))
    state.auth_token = await sign_in(session, "ops@example.com")
    return state


@pytest.mark.parametrize("cls", [ChatWidgetState, DefenseCommandState, DefenseCenterState])
async def test_a_5000_character_message_is_kept_and_refused_with_the_reason(session, cls):
    state = await _state(session, cls)
    if cls is DefenseCommandState:
        state.selected = "stock"
    text = "x" * 5000
    await cls.event_handlers["set_draft"].fn(state, text)
    assert state.draft == text  # not cut to 4000
    event = await cls.event_handlers["send"].fn(state)
    assert "message must be at most 4000 characters" in str(event)
    assert state.draft == text
    assert (await session.exec(select(DefenseChatMessage))).all() == []


async def test_an_over_long_resolve_note_is_kept_and_refused(session):
    state = await _state(session, ProblemsTab)
    event_row = SecurityEvent(event_type="site_status_changed", severity="high", description="Tour is down")
    session.add(event_row)
    await session.commit()
    await ProblemsTab.event_handlers["open_resolve"].fn(state, event_row.id)
    await ProblemsTab.event_handlers["set_resolve_note"].fn(state, "n" * 2500)
    assert len(state.resolve_note) == 2500
    toast = await ProblemsTab.event_handlers["confirm_resolve"].fn(state)
    assert "note must be at most 2000 characters" in str(toast)
    assert state.resolving_id == event_row.id  # the dialog stays open with the note
    await session.refresh(event_row)
    assert event_row.resolved is False
