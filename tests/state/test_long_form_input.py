"""The sign-in and site forms refuse over-long text with the API's own message (tests/api/test_input_limits.py),
keep what was typed, and change nothing: the page sends the text whole, and the service decides."""

from __future__ import annotations

import httpx
import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401
from secdash.models import LoginAttempt, Site
from secdash.pages.login import login_page
from secdash.state.dashboard import DashboardState, OverviewTab
from secdash.state.login import LoginState
from tests.factories import make_user, sign_in
from tests.support.api_app import shared_api


def _substate(root, cls):
    return root.get_substate(cls.get_full_name().split("."))


def _texts(events) -> str:
    events = events if isinstance(events, list) else [events]
    return " ".join(str(arg) for event in events if event is not None for _name, arg in event.args)


async def _api_message(method: str, path: str, body: dict, headers: dict | None = None) -> str:
    transport = httpx.ASGITransport(app=shared_api(), client=("198.51.100.8", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        response = await client.request(method, path, json=body, headers=headers or {})
    assert response.status_code == 400, response.text
    return response.json()["message"]


async def test_an_over_long_email_is_refused_at_sign_in_with_the_api_message(session):
    email = "a" * 300 + "@example.com"
    root = rx.State(_reflex_internal_init=True)
    login = _substate(root, LoginState)
    events = [e async for e in LoginState.event_handlers["login"].fn(login, {"email": email, "password": "pw"})]
    expected = await _api_message("POST", "/api/auth/login", {"email": email, "password": "pw"})
    assert expected == "email must be at most 254 characters"
    assert "Login Failed" in _texts(events) and expected in _texts(events)
    assert (await session.exec(select(LoginAttempt))).all() == []  # refused before any attempt is counted


def test_the_sign_in_form_does_not_cut_what_is_typed():
    """No maxlength on the inputs: a pasted long value reaches the rule above instead of being cut."""
    rendered = str(login_page())
    assert "maxLength" not in rendered and "max_length" not in rendered


async def test_an_over_long_site_name_is_refused_with_the_api_message_and_kept(session):
    await make_user(session, "ops@example.com", role="admin")
    root = rx.State(_reflex_internal_init=True)
    _substate(root, DashboardState).auth_token = token = await sign_in(session, "ops@example.com")
    overview = _substate(root, OverviewTab)
    name = "n" * 81
    result = await OverviewTab.event_handlers["save_site"].fn(overview, {"name": name, "url": "https://example.com"})
    expected = await _api_message(
        "POST", "/api/sites", {"name": name, "url": "https://example.com"}, {"Authorization": f"Bearer {token}"}
    )
    assert expected == "name must be at most 80 characters"
    assert expected in _texts(result)
    assert overview.site_form_name == name  # kept as typed, not cut
    assert (await session.exec(select(Site))).all() == []
