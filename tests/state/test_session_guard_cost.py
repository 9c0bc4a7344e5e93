"""What the session check costs per event: one SELECT (plus, at most once a minute, the last-seen write)."""

from __future__ import annotations

from contextlib import contextmanager

import reflex as rx
from sqlalchemy import event

import secdash.secdash  # noqa: F401
from secdash.core.db import get_engine
from secdash.state.chat_widget import ChatWidgetState
from tests.factories import make_user, sign_in


@contextmanager
def statements():
    seen: list[str] = []

    def record(_conn, _cursor, statement, *_args):
        seen.append(statement.split()[0].upper())

    engine = get_engine().sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


async def test_a_keystroke_in_a_chat_box_costs_one_select(session):
    await make_user(session, "ops@example.com")
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(ChatWidgetState.get_full_name().split("."))
    state.auth_token = await sign_in(session, "ops@example.com")
    await ChatWidgetState.event_handlers["set_draft"].fn(state, "h")  # the first event may refresh last-seen
    with statements() as seen:
        for text in ("he", "hel", "hell", "hello"):
            await ChatWidgetState.event_handlers["set_draft"].fn(state, text)
    assert state.draft == "hello"
    assert seen == ["SELECT"] * 4, seen
