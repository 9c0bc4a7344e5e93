"""What the session check costs, and how soon a revoked session is refused (state.base).

Handlers that change nothing stored accept a check at most VERIFY_CACHE_SECONDS old, so N keystrokes
in a chat box cost one SELECT; handlers that change data always check. Time is moved forward through
`state.base.clock`, never slept.
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest
import reflex as rx
from sqlalchemy import event

import secdash.secdash  # noqa: F401
from secdash.core.config import get_settings
from secdash.core.db import get_engine
from secdash.services.identity import auth, users
from secdash.state import base
from secdash.state.auth import AuthState
from secdash.state.chat_widget import ChatWidgetState
from secdash.state.dashboard import DashboardState, OverviewTab
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


@pytest.fixture
def clock(monkeypatch):
    """The guard's clock, moved by hand."""
    now = [1000.0]
    monkeypatch.setattr(base, "clock", lambda: now[0])
    return now


async def _widget(session):
    await make_user(session, "ops@example.com")
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(ChatWidgetState.get_full_name().split("."))
    token = await sign_in(session, "ops@example.com")
    state.auth_token = token
    return root, state, token


def _refused(events) -> bool:
    return "Unauthorized" in str(events)


async def test_keystrokes_in_a_chat_box_cost_one_select_per_cache_window(session, clock):
    _root, state, _token = await _widget(session)
    with statements() as seen:
        for text in ("h", "he", "hel", "hell", "hello"):
            await ChatWidgetState.event_handlers["set_draft"].fn(state, text)
    assert state.draft == "hello"
    assert seen == ["SELECT"], seen  # five events, one check
    clock[0] += base.VERIFY_CACHE_SECONDS
    with statements() as seen:
        await ChatWidgetState.event_handlers["set_draft"].fn(state, "hello!")
        await ChatWidgetState.event_handlers["set_draft"].fn(state, "hello!!")
    assert seen == ["SELECT"], seen  # the window passed: checked again, once


async def test_a_handler_that_changes_data_checks_every_time(session, clock):
    _root, state, _token = await _widget(session)
    await ChatWidgetState.event_handlers["set_draft"].fn(state, "h")  # remembered now
    with statements() as seen:
        await ChatWidgetState.event_handlers["stop"].fn(state)
        await ChatWidgetState.event_handlers["stop"].fn(state)
    assert seen == ["SELECT", "SELECT"], seen


async def test_a_session_revoked_elsewhere_is_refused_within_the_cache_window(session, clock):
    _root, state, token = await _widget(session)
    await ChatWidgetState.event_handlers["set_draft"].fn(state, "draft")
    await auth.logout(session=session, settings=get_settings(), token=token)  # signed out in another worker

    # Inside the window a read-only handler may still pass (that is the cache) ...
    clock[0] += base.VERIFY_CACHE_SECONDS - 0.5
    assert not _refused([await ChatWidgetState.event_handlers["set_draft"].fn(state, "inside")])
    # ... never once it has passed.
    clock[0] += 0.5
    assert _refused([await ChatWidgetState.event_handlers["set_draft"].fn(state, "after the window")])
    assert state.draft == "inside" and state.auth_token == ""


async def test_a_handler_that_changes_data_is_refused_at_once_after_a_revocation(session, clock):
    _root, state, token = await _widget(session)
    await ChatWidgetState.event_handlers["set_draft"].fn(state, "a question")  # remembered now
    await auth.logout(session=session, settings=get_settings(), token=token)  # signed out in another worker
    assert _refused([await ChatWidgetState.event_handlers["send"].fn(state)])
    assert state.lines == [] and not state.streaming
    # The refused check is forgotten too: the read-only handlers are refused from now on, window or not.
    state.auth_token = token
    assert _refused([await ChatWidgetState.event_handlers["set_draft"].fn(state, "again")])


async def test_a_password_change_ends_live_refreshes_and_reads_within_the_window(session, clock):
    await make_user(session, "ops@example.com")
    token = await sign_in(session, "ops@example.com")
    root = rx.State(_reflex_internal_init=True)
    dashboard = root.get_substate(DashboardState.get_full_name().split("."))
    dashboard.auth_token = token
    await DashboardState.event_handlers["load"].fn(dashboard)
    overview = root.get_substate(OverviewTab.get_full_name().split("."))
    assert await dashboard._still_signed_in() is not None  # a live refresh's check, remembered

    await users.set_password(session=session, email="ops@example.com", password="a-brand-new-password-1")
    await session.commit()
    clock[0] += base.VERIFY_CACHE_SECONDS
    assert await dashboard._still_signed_in() is None  # the follow loop stops at its next wake-up
    events = await OverviewTab.event_handlers["open_site_dialog"].fn(overview, 0)
    assert _refused([events]) and not overview.site_dialog_open


async def test_logout_in_this_tab_forgets_the_session_at_once(session, clock):
    root, state, token = await _widget(session)
    await ChatWidgetState.event_handlers["set_draft"].fn(state, "draft")
    auth_state = root.get_substate(AuthState.get_full_name().split("."))
    await AuthState.event_handlers["logout"].fn(auth_state)
    state.auth_token = token  # replayed by a client that kept the token
    assert _refused([await ChatWidgetState.event_handlers["set_draft"].fn(state, "after logout")])  # no window
