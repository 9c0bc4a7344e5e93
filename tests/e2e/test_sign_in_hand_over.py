"""Signing in while a load check of the login page is still queued on the server.

A quick user (or a busy server) submits the login form before the page's own on_load check
(`AuthState.check_auth`) ran: the server runs the sign-in first and the check after it, while the
browser is handing the new token over (stored, exchanged for the session cookie, then the app is
loaded afresh). Seen in CI about once in 5-10 runs with 2 workers: the sign-in ended on the
signed-out landing page, because the late check wrote the empty token of its signed-out state over
the one the sign-in had just stored.

The natural order cannot be forced from a browser, so the test sends the page's check itself, at
the moment it arrived in those runs: after the sign-in's answer, during the cookie exchange.
"""

from __future__ import annotations

import json
import re
import time

from playwright.sync_api import Page, Route, WebSocketRoute, expect

from secdash.state.auth import AuthState
from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD

LIVE_CHANNEL = re.compile(r"/_event/")
COOKIE_EXCHANGE = "**/api/auth/session-cookie"
LOAD_CHECKED = '"auth_checked_rx_state_":true'  # an answer of check_auth (the sign-in resets it to false)


class Tab:
    """One tab's live channel, passed through and recorded, and its cookie exchange, held until
    `release_cookie()` (a slow network or server)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.server: WebSocketRoute | None = None
        self.from_server: list[str] = []
        self.held_cookie: list[Route] = []
        page.route_web_socket(LIVE_CHANNEL, self._route_channel)
        page.route(COOKIE_EXCHANGE, self._hold_cookie)

    def _route_channel(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()  # the page's frames go on to the server unchanged
        self.server = server

        def from_server(message: str | bytes) -> None:
            self.from_server.append(message if isinstance(message, str) else message.decode())
            ws.send(message)

        server.on_message(from_server)

    def _hold_cookie(self, route: Route) -> None:
        self.held_cookie.append(route)

    def wait_for(self, what: str, condition, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            self.page.wait_for_timeout(50)

    def send_load_check(self, path: str) -> int:
        """Send the page's on_load check as the page sends events; the index its answer comes after."""
        event = {
            "name": f"{AuthState.get_full_name()}.check_auth",
            "payload": {},
            "router_data": {"pathname": path, "asPath": path},
        }
        sent_at = len(self.from_server)
        self.server.send("42/_event," + json.dumps(["event", event]))
        return sent_at

    def answered_since(self, index: int, marker: str) -> bool:
        return any(marker in frame for frame in self.from_server[index:])

    def release_cookie(self) -> None:
        for route in self.held_cookie:
            route.continue_()
        self.page.unroute(COOKIE_EXCHANGE, self._hold_cookie)


def test_a_load_check_answered_during_the_sign_in_hand_over_does_not_sign_the_user_out(page: Page):
    tab = Tab(page)
    page.goto("/login")
    tab.wait_for("the login page's own load check", lambda: tab.answered_since(0, LOAD_CHECKED))
    page.get_by_label("Email").fill(ADMIN_EMAIL)
    page.locator("#password").fill(ADMIN_PASSWORD)
    page.get_by_role("button", name="Access System").click()
    tab.wait_for("the cookie exchange", lambda: tab.held_cookie)  # the token is being handed over

    sent_at = tab.send_load_check("/login/")
    tab.wait_for("the late load check's answer", lambda: tab.answered_since(sent_at, LOAD_CHECKED))
    tab.release_cookie()

    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.get_by_role("banner").get_by_role("button", name="Logout")).to_be_visible(timeout=20000)
    expect(page.get_by_role("link", name="Access Security Dashboard")).to_have_count(0)
    assert page.evaluate("() => localStorage.getItem('auth_token')").count(".") == 2
