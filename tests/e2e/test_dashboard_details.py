"""Dashboard details a new user hit: removing a site asks first, the AI Defense Mode tab lists the
real agents with their status, and the browser's first request for /favicon.ico finds an icon."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in, toast
from tests.support.browser import LIMITED_EMAIL, LIMITED_PASSWORD

AGENT_NAMES = ("Stock Defense AI", "Tour Defense AI", "Gem Defense AI", "Shares Defense AI")
AGENT_STATUS = re.compile(r"monitoring|fighting|analyzing|secured", re.I)


def test_removing_a_site_asks_for_confirmation_first(page: Page, site_server):
    sign_in(page)
    page.get_by_role("button", name="Add site").click()
    page.get_by_label("Name").fill("Removal test")
    page.get_by_label("URL (http or https)").fill(site_server.base + "/")
    page.get_by_label(re.compile("Allow a private")).check()
    page.get_by_role("button", name="Save").click()
    row = page.get_by_test_id("site-row").filter(has_text="Removal test")
    expect(row).to_be_visible()

    row.get_by_role("button", name=re.compile("^Edit")).click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("button", name="Remove", exact=True).click()
    # Nothing is removed yet: the dialog asks, naming the site.
    expect(dialog.get_by_text(re.compile(r"Remove Removal test\?"))).to_be_visible()
    expect(row).to_be_visible()
    dialog.get_by_role("button", name="Keep site").click()
    expect(dialog.get_by_text(re.compile(r"Remove Removal test\?"))).to_have_count(0)
    expect(row).to_be_visible()

    dialog.get_by_role("button", name="Remove", exact=True).click()
    dialog.get_by_role("button", name="Remove site").click()
    expect(toast(page, "Site removed")).to_be_visible()
    expect(row).to_have_count(0)


def test_ai_defense_mode_lists_the_agents_with_their_status(page: Page):
    sign_in(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    page.get_by_role("tab", name="AI Defense Mode").click()
    expect(page.get_by_text("not connected yet")).to_have_count(0)
    agents = page.get_by_test_id("defense-agent")
    expect(agents).to_have_count(4)
    for name in AGENT_NAMES:
        agent = agents.filter(has_text=name)
        expect(agent).to_contain_text(AGENT_STATUS)
        expect(agent).to_contain_text(re.compile(r"\d+ threats? blocked"))


def test_favicon_is_served_on_the_first_load(page: Page, base_url: str):
    response = httpx.get(f"{base_url}/favicon.ico")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/")
    assert 0 < len(response.content) < 20_000
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    page.goto("/login")
    expect(page.get_by_role("heading", name="Admin Access Portal")).to_be_visible()
    assert page.evaluate("fetch('/favicon.ico').then(r => r.status)") == 200
    assert missing == []
