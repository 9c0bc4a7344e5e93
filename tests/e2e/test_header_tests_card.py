"""A site's card lists every header test with the Observatory's result and modifier, at 1280 px and on a 390 px
phone (screenshots in $SECDASH_SCREENSHOTS if set)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in, toast
from tests.support.web_servers import STRONG_HEADERS, LocalSite

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def strong_site():
    server = LocalSite({"/": (200, STRONG_HEADERS | {"Content-Type": "text/html"}, b"<h1>shop</h1>", 0.0)})
    yield server
    server.close()


def _check(page: Page, site: LocalSite, width: int, label: str) -> None:
    sign_in(page)
    page.get_by_role("button", name="Add site").click()
    page.get_by_label("Name").fill(f"Headers {label}")
    page.get_by_label("URL (http or https)").fill(site.base + "/")
    page.get_by_label(re.compile("Allow a private")).check()
    page.get_by_role("button", name="Save").click()
    expect(toast(page, "Site saved").first).to_be_visible()
    row = page.get_by_test_id("site-row").filter(has_text=f"Headers {label}")
    tests = row.get_by_test_id("header-tests")
    # plain http: the reference's C+ 60 (no HTTPS, no redirect to it), still SECURE
    expect(tests).to_contain_text("Header tests: 10/12 passed, score 60", timeout=30000)
    expect(row).to_contain_text("C+")
    tests.locator("summary").click()
    lines = tests.get_by_test_id("header-test")
    expect(lines).to_have_count(12)
    expect(lines.filter(has_text="Redirection")).to_contain_text("redirection-missing")
    expect(lines.filter(has_text="Redirection")).to_contain_text("-20")
    expect(lines.filter(has_text="Content Security Policy")).to_contain_text("+5")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    folder = os.environ.get("SECDASH_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        row.scroll_into_view_if_needed()
        row.screenshot(path=str(Path(folder) / f"header-tests-{label}.png"))


@pytest.mark.browser_context_args(viewport=DESKTOP)
def test_the_card_lists_every_header_test_at_1280_px(page: Page, strong_site):
    _check(page, strong_site, DESKTOP["width"], "desktop")


@pytest.mark.browser_context_args(viewport=PHONE, is_mobile=True, has_touch=True)
def test_the_card_lists_every_header_test_on_a_phone(page: Page, strong_site):
    _check(page, strong_site, PHONE["width"], "phone")
