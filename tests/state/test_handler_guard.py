"""Every public handler of every protected state refuses to act without a valid session.

The handlers are enumerated from the app's state tree, so a handler added later without the
check fails here: each must be declared through the protected-state base (state/base.py), and each
is called signed out, with a revoked, tampered, expired, unsigned and foreign token, and (read-only
handlers, which accept a remembered check) with a token revoked after it was remembered, once the
cache window has passed.
"""

from __future__ import annotations

import inspect
import time
import typing

import jwt
import pytest
import reflex as rx

import secdash.secdash  # noqa: F401  (registers every page and state)
from secdash.core.config import get_settings
from secdash.state import base
from secdash.state.auth import AuthState
from secdash.state.login import LoginState
from tests.factories import make_user, sign_in

# States a signed-out visitor must be able to use (by full name), each with the reason.
PUBLIC_STATES = {
    f"{LoginState.__module__}.{LoginState.__name__}": "signing in is what a signed-out visitor does",
    "secdash.state.browser_actions.BrowserActions": "toasts and the sign-in hand-over: only what the tab itself shows",
}
# AuthState's own handlers establish or end the session; they are tested for what they do.
AUTH_ENTRY_POINTS = {"check_auth", "logout"}
AUTH_VARS = {"auth_token", "auth_checked", "user_id", "user_email", "user_role", "user_first_name"}


def _app_states(cls: type[rx.State] = rx.State):
    for sub in sorted(cls.get_substates(), key=lambda state: state.get_full_name()):  # a set: one order everywhere
        if sub.__module__.startswith("secdash."):
            yield sub
        yield from _app_states(sub)


def _protected_handlers():
    for state_cls in _app_states():
        if not issubclass(state_cls, AuthState):
            continue
        for name in state_cls.event_handlers:
            if name == "setvar" or (state_cls is AuthState and name in AUTH_ENTRY_POINTS):
                continue
            yield pytest.param(state_cls, name, id=f"{state_cls.__name__}.{name}")


PROTECTED_HANDLERS = list(_protected_handlers())


def test_there_are_protected_handlers_to_check():
    assert len(PROTECTED_HANDLERS) >= 3


def test_every_app_state_is_protected_or_explicitly_public():
    for state_cls in _app_states():
        assert issubclass(state_cls, AuthState) or f"{state_cls.__module__}.{state_cls.__name__}" in PUBLIC_STATES, state_cls


@pytest.mark.parametrize(("state_cls", "handler_name"), PROTECTED_HANDLERS)
def test_handler_is_declared_through_the_protected_base(state_cls, handler_name):
    fn = state_cls.event_handlers[handler_name].fn
    assert getattr(fn, base.GUARD_MARKER, None) in {"read", "write", "stream"}, (
        f"{state_cls.__name__}.{handler_name} is not declared with state.base.protected / protected_stream"
    )


def test_the_census_covers_every_kind_of_guard():
    kinds = {
        getattr(state_cls.event_handlers[name].fn, base.GUARD_MARKER, None)
        for state_cls, name in (p.values for p in PROTECTED_HANDLERS)
    }
    assert kinds == {"read", "write", "stream"}


def _dummy(annotation):
    origin = typing.get_origin(annotation) or annotation
    return {str: "all", int: 1, float: 1.0, bool: True, dict: {}, list: []}.get(origin, None)


async def _call(state, handler_name: str) -> list:
    fn = type(state).event_handlers[handler_name].fn
    hints = typing.get_type_hints(fn)
    params = list(inspect.signature(fn).parameters.values())[1:]
    args = [_dummy(hints.get(p.name, str)) for p in params]
    result = fn(state, *args)
    if inspect.isasyncgen(result):
        return [item async for item in result]
    if inspect.iscoroutine(result):
        result = await result
    return [result]


def _flatten(events) -> list:
    flat = []
    for item in events:
        if isinstance(item, list | tuple):
            flat.extend(_flatten(item))
        elif item is not None:
            flat.append(item)
    return flat


def _redirects_home(events) -> bool:
    for spec in _flatten(events):
        if getattr(spec.handler.fn, "__qualname__", "") == "_redirect":
            args = {str(name): value for name, value in spec.args}
            if str(args.get("path")) == '"/"':
                return True
    return False


def _own_vars(state) -> dict:
    return {name: getattr(state, name) for name in type(state).base_vars if name not in AUTH_VARS}


async def _tokens(session) -> dict[str, str]:
    """A set of tokens the UI must refuse, each for a different reason."""
    await make_user(session, "ops@example.com")
    revoked = await sign_in(session, "ops@example.com")
    from secdash.services.identity import auth

    await auth.logout(session=session, settings=get_settings(), token=revoked)
    live = await sign_in(session, "ops@example.com")
    head, payload, sig = live.split(".")
    now = int(time.time())
    claims = {"sub": "1", "sid": "x", "iat": now, "exp": now + 600}
    secret = get_settings().secret_key()
    return {
        "missing": "",
        "revoked": revoked,
        "tampered": f"{head}.{payload[:-2]}AA.{sig}",
        "expired": jwt.encode({**claims, "exp": now - 1}, secret, algorithm="HS256"),
        "alg none": jwt.encode(claims, key=None, algorithm="none"),
        "wrong key": jwt.encode(claims, "a-different-key-a-different-key-0000", algorithm="HS256"),
    }


@pytest.mark.parametrize(("state_cls", "handler_name"), PROTECTED_HANDLERS)
async def test_handler_refuses_without_a_valid_session(session, state_cls, handler_name):
    for kind, token in (await _tokens(session)).items():
        root = rx.State(_reflex_internal_init=True)
        state = root.get_substate(state_cls.get_full_name().split("."))
        state.auth_token = token
        before = _own_vars(state)
        events = await _call(state, handler_name)
        assert _redirects_home(events), f"{kind}: {handler_name} did not send the user away"
        assert _own_vars(state) == before, f"{kind}: {handler_name} changed state without a session"


READ_ONLY_HANDLERS = [
    p for p in PROTECTED_HANDLERS if getattr(p.values[0].event_handlers[p.values[1]].fn, base.GUARD_MARKER, None) == "read"
]


@pytest.mark.parametrize(("state_cls", "handler_name"), READ_ONLY_HANDLERS)
async def test_read_only_handler_refuses_a_remembered_session_once_the_window_passed(
    session, monkeypatch, state_cls, handler_name
):
    now = [1000.0]
    monkeypatch.setattr(base, "clock", lambda: now[0])
    await make_user(session, "ops@example.com")
    token = await sign_in(session, "ops@example.com")
    assert await base.verify_session(token, cached=True) is not None  # remembered, as after any event
    assert await base.verify_session(token, touch=False, cached=True) is not None  # and by a live refresh
    from secdash.services.identity import auth

    await auth.logout(session=session, settings=get_settings(), token=token)  # revoked in another worker
    now[0] += base.VERIFY_CACHE_SECONDS
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(state_cls.get_full_name().split("."))
    state.auth_token = token
    before = _own_vars(state)
    events = await _call(state, handler_name)
    assert _redirects_home(events), f"{handler_name} still accepted the revoked session"
    assert _own_vars(state) == before


def test_setvar_cannot_grant_a_role():
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(AuthState.get_full_name().split("."))
    with pytest.raises(AttributeError):
        AuthState.event_handlers["setvar"].fn(state, "user_role", "admin")
    assert state.user_role == ""
