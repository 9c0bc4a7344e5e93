"""The login form and the session check, called as the browser would call them."""

from __future__ import annotations

import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401
from secdash.models import HistoryLog
from secdash.state.auth import AuthState
from secdash.state.browser_actions import BrowserActions
from secdash.state.history import HistoryState
from secdash.state.login import LoginState
from tests.factories import DEFAULT_PASSWORD, make_user, sign_in


def _substate(root, cls):
    return root.get_substate(cls.get_full_name().split("."))


def _texts(events) -> str:
    return " ".join(str(arg) for event in events if event is not None for _name, arg in event.args)


async def _run(gen) -> list:
    return [item async for item in gen]


async def test_empty_fields_show_validation_toast_and_call_nothing(session):
    root = rx.State(_reflex_internal_init=True)
    login = _substate(root, LoginState)
    events = await _run(LoginState.event_handlers["login"].fn(login, {"email": "  ", "password": ""}))
    assert "Validation Error" in _texts(events) and "Please enter both email and password" in _texts(events)
    assert (await session.exec(select(HistoryLog))).all() == []  # no login attempt was made


async def test_wrong_password_shows_login_failed(session):
    await make_user(session, "ops@example.com")
    root = rx.State(_reflex_internal_init=True)
    login = _substate(root, LoginState)
    events = await _run(LoginState.event_handlers["login"].fn(login, {"email": "ops@example.com", "password": "nope"}))
    assert "Login Failed" in _texts(events) and "Invalid credentials" in _texts(events)
    assert not login.is_submitting
    assert _substate(root, AuthState).auth_token == ""


async def test_successful_login_stores_token_and_enters_the_app(session):
    await make_user(session, "ops@example.com", role="admin")
    root = rx.State(_reflex_internal_init=True)
    login = _substate(root, LoginState)
    events = await _run(LoginState.event_handlers["login"].fn(login, {"email": "ops@example.com", "password": DEFAULT_PASSWORD}))
    # The page stores the token, exchanges it for the cookie and reloads (components/browser_actions.py):
    # no JavaScript travels in the events, and the login form's own state does not keep the token.
    handed_over = _substate(root, BrowserActions)
    assert handed_over.enter_token.count(".") == 2 and handed_over.enter_seq == 1  # a JWT, handed to the page
    assert "_call_script" not in str(events) and "_call_function" not in str(events)
    assert _substate(root, AuthState).auth_token == ""


def _writes_stored_token(delta: dict) -> bool:
    """Whether the browser, applying this delta, writes its localStorage auth_token (rx.LocalStorage)."""
    return any(key.startswith("auth_token") for key in delta.get(AuthState.get_full_name(), {}))


async def test_a_load_check_queued_before_the_sign_in_leaves_the_stored_token_alone(session):
    """A quick user submits the login form before the page's own on_load check ran: the server runs that
    check after the sign-in, while the browser holds the new token. It must not write its empty token
    over that one (seen in CI: the app then loaded signed out, on the landing page)."""
    await make_user(session, "ops@example.com", role="admin")
    root = rx.State(_reflex_internal_init=True)
    await _run(
        LoginState.event_handlers["login"].fn(
            _substate(root, LoginState), {"email": "ops@example.com", "password": DEFAULT_PASSWORD}
        )
    )
    assert _writes_stored_token(root.get_delta())  # the sign-in itself clears what the tab had stored
    root._clean()  # that delta reached the browser; the page stores the handed-over token
    await AuthState.event_handlers["check_auth"].fn(_substate(root, AuthState))
    assert _substate(root, AuthState).auth_checked
    assert not _writes_stored_token(root.get_delta())


async def test_check_auth_accepts_a_live_token(session):
    await make_user(session, "ops@example.com")
    token = await sign_in(session, "ops@example.com")
    root = rx.State(_reflex_internal_init=True)
    auth_state = _substate(root, AuthState)
    auth_state.auth_token = token
    await AuthState.event_handlers["check_auth"].fn(auth_state)
    assert auth_state.is_authenticated and auth_state.auth_checked
    assert auth_state.user_email == "ops@example.com" and auth_state.display_first_name == "Ops"


async def test_check_auth_drops_a_dead_token_with_the_unauthorized_toast(session):
    root = rx.State(_reflex_internal_init=True)
    auth_state = _substate(root, AuthState)
    auth_state.auth_token = "dead.token.value"
    events = await AuthState.event_handlers["check_auth"].fn(auth_state)
    assert auth_state.auth_token == "" and not auth_state.is_authenticated and auth_state.auth_checked
    assert "Unauthorized" in _texts(events)


async def test_history_load_shows_entries_to_a_signed_in_user(session):
    await make_user(session, "ops@example.com", role="admin")
    token = await sign_in(session, "ops@example.com")
    root = rx.State(_reflex_internal_init=True)
    history = _substate(root, HistoryState)
    history.auth_token = token
    await HistoryState.event_handlers["load"].fn(history)
    assert not history.loading
    assert history.all_entries[0].action == "Login succeeded"
    assert history.counts["security"] == len(history.security_entries) >= 1
    assert history.counts["all"] == len(history.all_entries)
