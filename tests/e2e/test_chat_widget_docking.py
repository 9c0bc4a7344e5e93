"""The floating chat widget never covers a page's own chat: it closes when the user goes to Defense Command or the
Center (and is not offered there), and stays available everywhere else. Checked at 1280 px and 390 px.

SECDASH_E2E_SCREENSHOTS=<folder> keeps screenshots (to look at)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in

SHOTS = os.environ.get("SECDASH_E2E_SCREENSHOTS", "")


def _shot(page: Page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=False)


def _uncovered(page: Page, locator) -> bool:
    """Whether the element itself (or something inside it) is what a click at its centre hits."""
    locator.scroll_into_view_if_needed()
    return locator.evaluate(
        "el => { const r = el.getBoundingClientRect();"
        " const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
        " return !!hit && (hit === el || el.contains(hit)); }"
    )


def _go(page: Page, link: str, width: int) -> None:
    """Navigate inside the app (client-side, as a user does), through the menu on a phone."""
    if width < 1280:
        page.get_by_label("Toggle navigation menu").click()
    page.get_by_role("navigation", name="Main navigation").get_by_role("link", name=link).filter(visible=True).first.click()


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_the_widget_gives_way_to_the_pages_own_chat(page: Page, width: int):
    page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
    sign_in(page)
    page.get_by_role("button", name="Open defense chat").click()
    expect(page.get_by_role("dialog", name="Defense Command chat")).to_be_visible()

    _go(page, "Defense Command", width)
    expect(page.get_by_role("heading", name="Defense Command", exact=True)).to_be_visible()
    expect(page.get_by_role("dialog", name="Defense Command chat")).to_have_count(0)
    expect(page.get_by_role("button", name="Open defense chat")).to_have_count(0)
    page.get_by_role("button", name=re.compile("^Tour")).click()
    box = page.locator("#command-input")
    box.fill("Staff received a phishing email")
    send = page.get_by_role("button", name="Send")
    assert _uncovered(page, send), "something covers the page's Send button"
    send.click()
    reply = page.get_by_test_id("agent-message").last
    expect(reply).to_contain_text("DMARC", timeout=15000)
    assert _uncovered(page, reply), "something covers the reply"
    _shot(page, f"widget-defense-command-{width}")

    page.get_by_role("link", name="Open the Defense Command Center").click()
    expect(page.get_by_role("heading", name="Defense Command Center")).to_be_visible()
    expect(page.get_by_role("button", name="Open defense chat")).to_have_count(0)
    for title in ("Capabilities", "Real-Time Metrics", "Defense Status"):
        assert _uncovered(page, page.get_by_role("heading", name=title)), f"something covers {title}"
    assert _uncovered(page, page.get_by_role("button", name="Send")), "something covers the Center's Send button"
    _shot(page, f"widget-center-{width}")

    # Elsewhere the widget is there again, closed until asked for.
    page.get_by_role("link", name="Go Home").click()
    expect(page.get_by_role("button", name="Open defense chat")).to_be_visible()
    expect(page.get_by_role("dialog", name="Defense Command chat")).to_have_count(0)
    page.get_by_role("button", name="Open defense chat").click()
    expect(page.get_by_role("dialog", name="Defense Command chat")).to_be_visible()
