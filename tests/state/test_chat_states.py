"""Chat states: Enter sends through the server queue, whatever the button looked like."""

from __future__ import annotations

import reflex as rx

import secdash.secdash  # noqa: F401
from secdash.state.chat_widget import ChatWidgetState
from secdash.state.defense_command import DefenseCenterState, DefenseCommandState
from tests.factories import make_user, sign_in


async def test_enter_sends_the_text_that_arrived_just_before_it(session):
    """Regression: in a slow browser, Enter pressed before the server enabled Send was lost."""
    await make_user(session, "ops@example.com")
    token = await sign_in(session, "ops@example.com")
    for state_cls in (ChatWidgetState, DefenseCommandState, DefenseCenterState):
        root = rx.State(_reflex_internal_init=True)
        state = root.get_substate(state_cls.get_full_name().split("."))
        state.auth_token = token
        await state_cls.event_handlers["set_draft"].fn(state, "How do we stop a DDoS flood?")
        assert await state_cls.event_handlers["key_down"].fn(state, "a") is None
        follow_up = await state_cls.event_handlers["key_down"].fn(state, "Enter")
        assert follow_up is state_cls.event_handlers["send"], state_cls
        if state_cls is DefenseCommandState:
            state.selected = "stock"
        await state_cls.event_handlers["send"].fn(state)
        assert state.draft == "", state_cls
