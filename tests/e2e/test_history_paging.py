"""History Logs beyond the newest 100 entries, and the text filter, in the browser."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in
from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD


def test_older_entries_and_the_filter(page: Page, base_url: str):
    # More than one page of entries, written cheaply: toggling quiet hours is an audited change (a sign-in costs the
    # production password hash), and an even number of toggles leaves the setting as it was.
    with httpx.Client(base_url=base_url, timeout=30) as http:
        login = http.post("/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
        assert login.status_code == 200
        headers = {"Authorization": f"Bearer {login.json()['token']}"}
        http.cookies.clear()
        quiet = http.get("/api/notification-rules", headers=headers).json()["settings"]["quietEnabled"]
        for turn in range(106):
            body = {"settings": {"quietEnabled": quiet if turn % 2 else not quiet}}
            assert http.put("/api/notification-rules", json=body, headers=headers).status_code == 200
    sign_in(page)
    page.goto("/history")
    more = page.get_by_test_id("history-more").first
    expect(more).to_contain_text(re.compile(r"Showing 100 of \d{3}"))
    page.get_by_role("button", name="Load older entries").first.click()
    expect(more).not_to_contain_text("Showing 100 of")
    page.get_by_label("Filter logs by text").fill("Login succeeded")
    expect(page.get_by_test_id("history-entry").first).to_contain_text("Login succeeded")
    expect(page.get_by_test_id("history-entry").filter(has_not_text="Login succeeded")).to_have_count(0)
