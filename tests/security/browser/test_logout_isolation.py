"""A shared workstation: after Logout, nothing of the previous user reaches the tab again, and the
next person can sign in in the same tab."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in
from tests.support.browser import ADMIN_EMAIL, LIMITED_EMAIL, LIMITED_PASSWORD

MARKER = "quarterly-payroll-secret-7731"


def test_logout_forgets_the_user_and_the_next_user_can_sign_in(page: Page):
    frames: list[str] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived", lambda payload: frames.append(payload if isinstance(payload, str) else payload.decode())
        ),
    )
    sign_in(page, through_the_form=True)
    page.goto("/history")
    expect(page.get_by_text("Login succeeded").first).to_be_visible()
    page.goto("/defense-command/center")
    box = page.locator("#center-input")
    box.fill(f"note {MARKER} for the stock agent")
    box.press("Enter")
    expect(page.get_by_test_id("agent-message").last).to_be_visible(timeout=15000)
    client_token_before = page.evaluate("() => sessionStorage.getItem('token')")

    frames.clear()
    page.get_by_role("banner").get_by_role("button", name="Logout").click()
    expect(page.get_by_role("link", name="Access Security Dashboard")).to_be_visible()
    page.reload()  # the next hydrate of this tab
    expect(page.get_by_role("link", name="Access Security Dashboard")).to_be_visible()
    page.wait_for_timeout(1000)

    after_logout = "\n".join(frames)
    assert ADMIN_EMAIL not in after_logout
    assert MARKER not in after_logout
    assert "Login succeeded" not in after_logout
    assert page.evaluate("() => localStorage.getItem('auth_token')") in (None, "", '""')
    assert page.evaluate("() => sessionStorage.getItem('token')") != client_token_before

    # The next person signs in in the same tab: the button is not stuck on "Logging in...".
    page.goto("/login")
    expect(page.get_by_role("button", name="Access System")).to_be_enabled()
    sign_in(page, LIMITED_EMAIL, LIMITED_PASSWORD, through_the_form=True)
    expect(page.get_by_text(LIMITED_EMAIL)).to_be_visible()
    page.goto("/defense-command/center")
    expect(page.locator("#center-input")).to_be_visible()
    expect(page.get_by_text(MARKER)).to_have_count(0)
    assert ADMIN_EMAIL not in "\n".join(frames[-50:])
    expect(page).to_have_url(re.compile(r"/defense-command/center/?$"))
