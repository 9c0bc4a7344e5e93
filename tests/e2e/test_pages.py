"""Signed-in pages: every route exists, History Logs shows the trail and follows it live."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in
from tests.support.browser import ADMIN_EMAIL

ROUTE_TITLES = {  # every module has its page now (each has its own browser test)
    "/code-artifacts": "Code Mode - HTML Artifacts",
    "/settings": "Settings",
}


def test_every_signed_in_route_shows_its_title_and_no_invented_data(page: Page):
    sign_in(page)
    for route, title in ROUTE_TITLES.items():
        page.goto(route)
        expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible()
        expect(page.get_by_text("Not available yet")).to_have_count(0)


def test_signed_out_visitor_is_sent_to_the_landing_page(page: Page):
    page.goto("/battle-station")
    expect(page.get_by_role("link", name="Access Security Dashboard")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/$"))


def test_history_logs_show_the_trail_and_new_entries_arrive_without_reload(page: Page, base_url: str):
    sign_in(page, through_the_form=True)
    page.get_by_role("link", name="History Logs").first.click()
    expect(page.get_by_role("heading", name="History Logs")).to_be_visible()
    expect(page.get_by_text("Complete audit trail of all system activities")).to_be_visible()
    expect(page.get_by_text("Real-time updates")).to_be_visible()
    expect(page.get_by_text("System Activity Log")).to_be_visible()
    entries = page.get_by_test_id("history-entry")
    login = entries.filter(has_text="Login succeeded").first
    expect(login).to_contain_text(ADMIN_EMAIL)
    expect(login.locator("pre")).to_contain_text('"email"')
    expect(login).to_contain_text(re.compile(r"[A-Z][a-z]{2} \d{2}, \d{2}:\d{2}:\d{2}"))

    # Another client fails to sign in: the entry appears here with no reload.
    httpx.post(f"{base_url}/api/auth/login", json={"email": "intruder@e2e.test", "password": "guess-123"})
    expect(entries.filter(has_text="Failed login for intruder@e2e.test").first).to_be_visible(timeout=8000)

    battle_tab = page.get_by_role("tab", name=re.compile(r"Battle Station \(\d+\)"))
    battle_tab.click()
    if battle_tab.inner_text().strip().endswith("(0)"):  # no drill has run in this test session
        expect(page.get_by_text("No battle station logs")).to_be_visible()
    else:  # tests/e2e/test_battle_station.py ran drills: the tab lists their entries
        expect(page.get_by_role("tabpanel").get_by_test_id("history-entry").first).to_contain_text(
            re.compile(r"drill|defense", re.IGNORECASE)
        )
    page.get_by_role("tab", name=re.compile(r"Security \(\d+\)")).click()
    expect(page.get_by_role("tabpanel").get_by_test_id("history-entry").first).to_contain_text("intruder@e2e.test")
