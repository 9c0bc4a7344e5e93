"""Sign-in and sign-out in one browser tab: nothing of the previous user survives in the tab's
server-side state, the sign-in token never sits in it, and the tab gets a new client token."""

from __future__ import annotations

import inspect

import reflex as rx

import secdash.secdash  # noqa: F401  (registers every page and state)
from secdash.components import browser_actions as browser_actions_component
from secdash.state.auth import AuthState, app_state_classes
from secdash.state.browser_actions import BrowserActions
from secdash.state.chat_stream import ChatLine
from secdash.state.chat_widget import ChatWidgetState
from secdash.state.dashboard import ProblemsTab
from secdash.state.defense_command import DefenseCenterState
from secdash.state.history import HistoryState
from secdash.state.login import LoginState
from tests.factories import DEFAULT_PASSWORD, make_user, sign_in


def _substate(root, cls):
    return root.get_substate(cls.get_full_name().split("."))


def _texts(events) -> str:
    return " ".join(str(arg) for event in events if event is not None for _name, arg in event.args)


def _signed_in_values(root) -> dict[str, dict]:
    """Every var of every app state that differs from its default."""
    changed = {}
    for cls in app_state_classes():
        state = _substate(root, cls)
        own = {
            name: getattr(state, name)
            for name, field in cls.__fields__.items()
            if field._owner is cls and not name.startswith("router")
        }
        defaults = {name: cls.__fields__[name].default_value() for name in own}
        diff = {name: value for name, value in own.items() if value != defaults[name]}
        if diff:
            changed[cls.__name__] = diff
    return changed


async def _signed_in_tab(session, email: str):
    """A tab where a user signed in, read History, chatted with the widget and the Center."""
    await make_user(session, email, role="admin")
    token = await sign_in(session, email)
    root = rx.State(_reflex_internal_init=True)
    auth_state = _substate(root, AuthState)
    auth_state.auth_token = token
    await AuthState.event_handlers["check_auth"].fn(auth_state)
    history = _substate(root, HistoryState)
    await HistoryState.event_handlers["load"].fn(history)
    center = _substate(root, DefenseCenterState)
    center.chats = {**center.chats, "stock": [ChatLine(id="u0", text=f"secret plan of {email}")]}
    widget = _substate(root, ChatWidgetState)
    widget.lines = [ChatLine(id="u0", text=f"question of {email}")]
    widget.draft = "half-typed secret"
    _substate(root, ProblemsTab).search = "payroll"
    assert history.all_entries, "the tab should show the trail before logout"
    return root, token


async def test_logout_forgets_every_signed_in_state_and_rotates_the_client_token(session):
    root, _token = await _signed_in_tab(session, "alice@example.com")
    assert _signed_in_values(root)  # the tab holds alice's data

    events = [await AuthState.event_handlers["logout"].fn(_substate(root, AuthState))]

    # What is left is the instruction to leave (BrowserActions.leave_seq), not anything of alice's.
    leftovers = {cls: {k: v for k, v in values.items() if k != "auth_checked"} for cls, values in _signed_in_values(root).items()}
    assert {cls: values for cls, values in leftovers.items() if values} == {"BrowserActions": {"leave_seq": 1}}
    assert "alice@example.com" not in repr(_signed_in_values(root))
    assert events == [None]  # no script for the browser to evaluate: the bundle's own code leaves (no eval)
    leave = inspect.getsource(browser_actions_component)
    assert "localStorage.removeItem('auth_token'); sessionStorage.removeItem('token');" in leave


async def test_signing_in_again_in_the_same_tab_is_possible_after_logout(session):
    root, _token = await _signed_in_tab(session, "alice@example.com")
    login = _substate(root, LoginState)
    login.is_submitting = True  # what the tab looked like after the first sign-in
    await AuthState.event_handlers["logout"].fn(_substate(root, AuthState))
    assert login.is_submitting is False  # the button says "Access System" again, not "Logging in..."


async def test_sign_in_keeps_the_token_out_of_server_state_and_rotates_the_client_token(session):
    root, _token = await _signed_in_tab(session, "alice@example.com")
    await make_user(session, "bob@example.com", role="limited")
    login = _substate(root, LoginState)
    events = [
        e async for e in LoginState.event_handlers["login"].fn(login, {"email": "bob@example.com", "password": DEFAULT_PASSWORD})
    ]

    state_text = repr(_signed_in_values(root))
    assert "alice@example.com" not in state_text and "secret plan" not in state_text
    assert _substate(root, AuthState).auth_token == ""  # the token is not kept in the signed-in state
    # It waits in BrowserActions for one round trip, until the page has stored it (and rotated its client token).
    actions = _substate(root, BrowserActions)
    assert actions.enter_token and actions.enter_seq == 1 and "localStorage.setItem('auth_token'" not in _texts(events)
    bobs_token = actions.enter_token
    BrowserActions.event_handlers["token_stored"].fn(actions)
    assert actions.enter_token == "" and bobs_token not in repr(_signed_in_values(root))
    enter = inspect.getsource(browser_actions_component)
    assert "localStorage.setItem('auth_token', token); " in enter and "sessionStorage.removeItem('token'); " in enter


async def test_a_dead_session_on_page_load_forgets_the_previous_users_data(session):
    root, token = await _signed_in_tab(session, "alice@example.com")
    from secdash.core.config import get_settings
    from secdash.services.identity import auth

    await auth.logout(session=session, settings=get_settings(), token=token)  # revoked elsewhere
    await AuthState.event_handlers["check_auth"].fn(_substate(root, AuthState))
    assert _substate(root, HistoryState).all_entries == []
    assert "secret plan" not in repr(_signed_in_values(root))
