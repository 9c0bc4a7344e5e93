"""The Dashboard's site list with many sites (issue 26): tag filter, pages, sort by a header (mouse and keyboard),
search, bulk pause, the summary's PAUSED filter, the same list at 390 px, and bulk removal after a confirmation."""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import assert_accessible, sign_in, toast
from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD

SHOTS = os.environ.get("SECDASH_E2E_SCREENSHOTS", "")
TAG = "e2e-list"
COUNT = 60


def _headers(base_url: str) -> dict[str, str]:
    login = httpx.post(f"{base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    return {"Authorization": f"Bearer {login.json()['token']}"}


@pytest.fixture
def many_sites(base_url: str):
    """COUNT sites (the bundled Stock demo site, allowPrivate), tagged TAG; whatever the test leaves is removed after."""
    headers = _headers(base_url)
    with httpx.Client(base_url=base_url, headers=headers, timeout=30) as client:
        for i in range(COUNT):
            body = {"name": f"List site {i:02d}", "url": f"{base_url}/demo/stock/?n={i}", "allowPrivate": True, "tags": [TAG]}
            assert client.post("/api/sites", json=body).status_code == 201
        yield
        for site in client.get("/api/sites").json():
            if TAG in site["tags"]:
                client.delete(f"/api/sites/{site['id']}")


def test_many_sites_list_sorts_filters_searches_pages_and_acts_in_bulk(page: Page, many_sites):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page)
    listing = page.get_by_test_id("site-list")
    rows = listing.get_by_test_id("site-list-row")
    shown = page.get_by_test_id("site-list-range")
    expect(page.get_by_test_id("status-summary")).to_contain_text(re.compile(r"\d+ ALERT · \d+ CHECKING · \d+ SECURE"))
    expect(page.get_by_test_id("site-row")).to_have_count(0)  # more than 12 sites: no chart per site

    page.get_by_test_id("tag-filter").select_option(TAG)
    expect(shown).to_have_text(f"1–50 of {COUNT}")
    expect(rows).to_have_count(50)
    page.get_by_role("button", name="Next").click()  # page 2
    expect(shown).to_have_text(f"51–60 of {COUNT}")
    expect(rows).to_have_count(10)

    site_header = listing.get_by_role("columnheader", name=re.compile("^Site"))
    site_header.get_by_role("button").click()  # sort by name: back to the first page
    expect(site_header).to_have_attribute("aria-sort", "ascending")
    expect(shown).to_have_text(f"1–50 of {COUNT}")
    expect(rows.first).to_contain_text("List site 00")
    site_header.get_by_role("button").focus()
    page.keyboard.press("Enter")  # the keyboard too: the same header again reverses
    expect(site_header).to_have_attribute("aria-sort", "descending")
    expect(rows.first).to_contain_text("List site 59")

    search = page.get_by_role("searchbox", name="Search sites")
    search.fill("site 07")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("List site 07")
    search.fill("")
    expect(rows).to_have_count(50)

    # Select all the tag's sites and pause them: the summary gains "60 PAUSED", which filters the list to them.
    listing.get_by_role("checkbox", name="Select the sites of this page").click()
    page.get_by_role("button", name=f"Select all {COUNT} matching").click()
    expect(page.get_by_test_id("selected-count")).to_have_text(f"{COUNT} selected")
    page.get_by_role("button", name="Pause monitoring").click()
    expect(toast(page, "Monitoring paused")).to_contain_text(f"{COUNT} sites paused")
    page.get_by_test_id("tag-filter").select_option("")
    paused = page.get_by_test_id("status-summary").get_by_role("button", name=f"{COUNT} PAUSED")
    paused.click()
    expect(paused).to_have_attribute("aria-pressed", "true")
    expect(shown).to_have_text(f"1–50 of {COUNT}")
    expect(rows.filter(has_text="PAUSED")).to_have_count(50)

    rows.nth(30).get_by_role("button").first.click()  # a row opens its card (chart, header tests, edit) above the rows
    chosen = page.get_by_test_id("chosen-site")
    expect(chosen.get_by_role("button", name="Close the chosen site's card")).to_be_focused()
    expect(chosen).to_be_in_viewport()  # the focus brought it into view
    expect(chosen.get_by_test_id("site-row")).to_have_count(1)
    expect(chosen.get_by_test_id("response-chart")).to_have_count(1)
    assert_accessible(page, "/ with 60 sites, filtered, a card chosen")
    if SHOTS:
        page.get_by_test_id("status-summary").scroll_into_view_if_needed()
        page.screenshot(path=str(Path(SHOTS) / "site-list-1280.png"))

    page.set_viewport_size({"width": 390, "height": 844})
    items = listing.get_by_test_id("site-list-item")
    expect(items).to_have_count(50)
    expect(rows.first).to_be_hidden()  # stacked rows instead of the table
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # no horizontal page scroll
    page.get_by_role("button", name="Select page").click()  # the stacked rows' select-the-page
    expect(page.get_by_test_id("selected-count")).to_have_text("50 selected")
    expect(items.get_by_role("checkbox").first).to_be_checked()
    if SHOTS:
        page.get_by_test_id("status-summary").scroll_into_view_if_needed()
        page.screenshot(path=str(Path(SHOTS) / "site-list-390-top.png"))
        items.nth(2).scroll_into_view_if_needed()
        page.screenshot(path=str(Path(SHOTS) / "site-list-390-rows.png"))
    page.set_viewport_size({"width": 1280, "height": 900})

    # Remove asks first, naming how many.
    page.get_by_role("button", name=f"Select all {COUNT} matching").click()
    page.get_by_test_id("bulk-bar").get_by_role("button", name="Remove", exact=True).click()
    expect(page.get_by_text(f"Remove {COUNT} sites?")).to_be_visible()
    page.get_by_role("button", name=f"Remove {COUNT} sites").click()
    expect(toast(page, "Sites removed")).to_contain_text(f"{COUNT} sites removed")
    expect(page.get_by_test_id("site-row").filter(has_text="Stock")).to_have_count(1)  # back to cards
    page.get_by_role("button", name="Clear filters").click()
    listing.get_by_role("link", name="Shares", exact=True).click()  # a small deployment: the name leads to the card
    expect(page.get_by_test_id("site-row").filter(has_text="Shares")).to_be_in_viewport()
