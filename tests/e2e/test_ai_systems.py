"""AI Systems in the browser: the four platforms with measured figures, the "profile" marks on the figures
nothing measures, a model call showing up without a reload, and a layout that fits 1280 px and 390 px.

SECDASH_E2E_SCREENSHOTS=<folder> keeps a full-page screenshot of each viewport there (to look at)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in
from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD, EXPECT_TIMEOUT_MS

SHOTS = os.environ.get("SECDASH_E2E_SCREENSHOTS", "")
PLATFORMS = ("Stock", "Tour", "Gem", "Shares")


def _shot(page: Page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)
        width, height = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        for part, top in enumerate(range(0, height, 1200)):  # readable pieces of a long phone page
            page.screenshot(
                path=str(Path(SHOTS) / f"{name}-{part}.png"),
                full_page=True,
                clip={"x": 0, "y": top, "width": width, "height": min(1200, height - top)},
            )


def _open(page: Page, *, by_link: bool = True) -> None:
    sign_in(page)
    if by_link:
        page.get_by_role("link", name="AI Systems").first.click()
    else:  # on a phone the links sit in the menu
        page.goto("/ai-systems")
    expect(page.get_by_role("heading", name="AI Systems", exact=True)).to_be_visible()
    expect(page.get_by_test_id("platform-card")).to_have_count(4)


def test_platforms_show_measured_figures_and_marked_profile_figures(page: Page):
    _open(page)
    cards = page.get_by_test_id("platform-card")
    for index, name in enumerate(PLATFORMS):
        expect(cards.nth(index).get_by_role("heading", name=name, exact=True)).to_be_visible()
    summary = page.get_by_test_id("ai-summary")
    expect(summary).to_contain_text("Total Data")
    expect(summary).to_contain_text("12.7 TB")
    expect(summary).to_contain_text(re.compile(r"Code Lines\s*[1-9][\d,]*lines counted"))
    expect(summary).to_contain_text("AI Models4")
    expect(summary).to_contain_text("8,948")
    # The monitor probes the demo sites every 2 s here: real status, uptime and the counted code.
    stock = cards.nth(0)
    expect(stock.get_by_test_id("platform-online")).to_have_text("Online", timeout=30000)
    expect(stock).to_contain_text(re.compile(r"\d+ ms"))
    expect(stock.get_by_test_id("uptime-hours")).to_have_text(
        re.compile(r"^Under a minute$|^\d+ min$|^\d+ h( \d+ min)?$|^\d+ d( \d+ h)?$|^Down$")
    )
    expect(stock).to_contain_text(re.compile(r"\d+\.\d\d%"))
    expect(stock.get_by_test_id("code-lines")).to_have_text(re.compile(r"^[1-9][\d,]*$"))
    expect(stock.get_by_text("profile", exact=True)).to_have_count(7)  # users, data, models, datasets, accuracy, memory, ML
    expect(stock).to_contain_text("5,837")
    expect(page.get_by_test_id("systems-badge")).to_have_text(
        re.compile(r"All Systems Operational|Systems (Down|Degraded)|Awaiting first check")
    )
    training = page.get_by_test_id("training-overview")
    expect(training.get_by_role("heading", name="Training Data Overview")).to_be_visible()
    expect(training.get_by_role("row")).to_have_count(5)
    expect(training).to_contain_text("profile")


def test_a_model_call_appears_without_a_reload(page: Page, base_url: str):
    _open(page)
    gem_calls = page.get_by_test_id("platform-card").nth(2).get_by_test_id("ai-calls")
    expect(gem_calls).to_have_text(re.compile(r"^\d"))
    before = int(gem_calls.inner_text().split()[0].replace(",", ""))
    login = httpx.post(f"{base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    headers = {"Authorization": f"Bearer {login.json()['token']}"}
    reply = httpx.post(
        f"{base_url}/api/ai-chat",
        headers=headers,
        timeout=60,
        json={"agentId": "gem", "message": "How do you check a certificate's authenticity?"},
    )
    assert reply.status_code == 200, reply.text
    expect(gem_calls).to_have_text(re.compile(rf"^{before + 1}\b|^{before + 2}\b"), timeout=25000)


def test_a_drill_raises_its_platforms_threat_figures_without_a_reload(page: Page, base_url: str):
    _open(page)
    tour = page.get_by_test_id("platform-card").nth(1)
    detected, blocked = tour.get_by_test_id("threats-detected"), tour.get_by_test_id("threats-blocked")
    expect(blocked).to_have_text(re.compile(r"^\d+$"))
    before_detected, before_blocked = int(detected.inner_text()), int(blocked.inner_text())
    login = httpx.post(f"{base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    headers = {"Authorization": f"Bearer {login.json()['token']}"}
    deadline = time.monotonic() + 180  # an earlier test's drill on Tour may still run
    while True:
        reply = httpx.post(
            f"{base_url}/api/battle-station/defend",
            headers=headers,
            timeout=200,
            json={"attackType": "phishing", "aiAgentId": "tour"},
        )
        if reply.status_code != 409 or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert reply.status_code == 200, reply.text
    operation = httpx.get(f"{base_url}/api/battle-station/operations/{reply.json()['operationId']}", headers=headers).json()
    stopped = operation["after"]["attackBlocked"]
    assert stopped > 0
    # The requests its defense blocked, as measured: no random figure. A drill opens no problem (issue 23), so
    # "threats detected" does not move.
    expect(blocked).to_have_text(str(before_blocked + stopped), timeout=25000)
    expect(detected).to_have_text(str(before_detected))


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, {"width": 390, "height": 844}], ids=["desktop", "phone"])
def test_the_page_fits_the_screen(page: Page, viewport: dict):
    page.set_viewport_size(viewport)
    _open(page, by_link=False)
    expect(page.get_by_test_id("platform-card").nth(0).get_by_test_id("platform-online")).to_have_text("Online", timeout=30000)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"], f"/ai-systems is {width} px wide at {viewport['width']} px"
    _shot(page, f"ai-systems-{viewport['width']}")


def test_a_false_positive_resolution_is_counted_for_its_platform(page: Page, base_url: str):
    # Real findings first: a quick scan of the demo sources (Gem's settings.py holds a secret).
    login = httpx.post(f"{base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    headers = {"Authorization": f"Bearer {login.json()['token']}"}
    started = httpx.post(f"{base_url}/api/security-scan/start", headers=headers, json={"scanType": "quick"})
    assert started.status_code in (202, 409), started.text
    expect.set_options(timeout=60000)
    try:
        _open(page)
        gem = page.get_by_test_id("platform-card").nth(2)
        expect(gem.get_by_test_id("threats-detected")).not_to_have_text("0")  # the scan's findings, live
        before = int(gem.get_by_test_id("false-positives").inner_text())

        page.get_by_role("link", name="Dashboard").first.click()
        page.get_by_role("tab", name="Problem Database").click()
        # The subprocess-import notice (bandit B404): a finding an operator may well judge a false positive, and
        # one no other test fixes (a resolution now outlives re-scans, so resolving the eval finding Fix Mode's
        # test needs would take it away from that test).
        row = (
            page.get_by_test_id("problem-row")
            .filter(has_text="gem/settings.py:3)")
            .filter(has=page.get_by_role("button", name="Resolve"))
            .first
        )
        row.get_by_role("button", name="Resolve").click()
        page.get_by_label("Resolution note").fill("test data, not a real secret")
        page.get_by_text("False positive (nothing was wrong)").click()
        page.get_by_role("button", name="Mark resolved").click()
        expect(page.get_by_text("Resolved as false positive by " + ADMIN_EMAIL).first).to_be_visible()

        page.get_by_role("link", name="AI Systems").first.click()
        gem = page.get_by_test_id("platform-card").nth(2)
        expect(gem.get_by_test_id("false-positives")).to_have_text(str(before + 1))
    finally:
        expect.set_options(timeout=EXPECT_TIMEOUT_MS)
