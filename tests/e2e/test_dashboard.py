"""The Dashboard in the browser: six tabs on real probes and scans, simulated figures marked."""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in
from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD, LIMITED_EMAIL, LIMITED_PASSWORD

SHOTS = os.environ.get("SECDASH_E2E_SCREENSHOTS", "")
TAB_NAMES = ("Dashboard", "Live Traffic", "User Scan", "Security Scan", "AI Defense Mode", "Problem Database")


def _tab(page: Page, name: str):
    return page.get_by_role("tablist", name="Dashboard sections").get_by_role("tab", name=name)


def test_dashboard_shows_real_site_probes_and_the_top_bar(page: Page):
    sign_in(page)
    for label in ("Sites Monitored", "Threats Blocked", "Defense System", "System Health"):
        expect(page.get_by_text(label, exact=True)).to_be_visible()
    expect(page.get_by_text("99.9%")).to_be_visible()
    expect(page.get_by_test_id("threats-blocked-note")).to_have_text("Real blocks only (simulated activity is not counted)")
    expect(page.get_by_test_id("active-alerts")).to_have_text(re.compile(r"^\d+ active$"))
    expect(page.get_by_text("LIVE", exact=True)).to_be_visible()
    expect(page.get_by_text("Encrypted", exact=True)).to_be_visible()
    expect(page.get_by_test_id("utc-clock")).to_contain_text(re.compile(r"\d{2}:\d{2}:\d{2} UTC"))
    expect(page.get_by_text("Welcome, Admin")).to_be_visible()
    rows = page.get_by_test_id("site-row")
    # The four demo sites, whatever other tests of this server added (a site another test adds is its own).
    for name in ("Stock", "Tour", "Gem", "Shares"):
        expect(rows.filter(has_text=name)).to_have_count(1)
    # The monitor probes the bundled demo sites: Stock (strong headers, plain http) turns SECURE with C+; Tour
    # (no CSP, no X-Frame-Options, plain http) grades F: ALERT (the Observatory's rules and letter scale).
    stock = rows.filter(has_text="Stock")
    expect(stock).to_contain_text("SECURE", timeout=30000)
    expect(stock).to_contain_text("C+")
    tour = rows.filter(has_text="Tour")
    expect(tour).to_contain_text("ALERT")


def test_all_six_tabs_open_and_simulated_figures_are_marked(page: Page):
    sign_in(page)
    for name in TAB_NAMES:
        _tab(page, name).click()
        expect(_tab(page, name)).to_have_attribute("aria-selected", "true")
    _tab(page, "Live Traffic").click()
    expect(page.get_by_text("Requests / min")).to_be_visible()
    expect(page.get_by_text("simulated").first).to_be_visible()
    _tab(page, "User Scan").click()
    expect(page.get_by_text("Suspicious", exact=True)).to_be_visible()
    _tab(page, "Problem Database").click()
    expect(page.get_by_role("combobox", name="Severity")).to_be_visible()


def test_live_traffic_shows_the_requests_a_demo_site_logged(page: Page, base_url):
    """A request to a bundled demo site reaches Live Traffic through the ingest path, and User Scan counts its
    client (127.0.0.1: private, so never reported by a scenario)."""
    sign_in(page)
    _tab(page, "Live Traffic").click()
    marker = "e2e-" + secrets.token_hex(4)
    assert httpx.get(f"{base_url}/demo/stock/search", params={"q": marker}).status_code == 200
    latest = page.get_by_test_id("latest-requests")
    expect(latest).to_contain_text(f"/demo/stock/search?q={marker}", timeout=15000)
    expect(latest.locator("li", has_text=marker)).to_contain_text("200")
    _tab(page, "User Scan").click()
    expect(page.get_by_text("127.0.0.1").first).to_be_visible()


def test_quick_scan_runs_and_its_findings_reach_the_problem_database(page: Page):
    sign_in(page)
    _tab(page, "Security Scan").click()
    # Another test's finished scan stays on screen (server state) until a new scan is chosen.
    choice = page.get_by_role("button", name=re.compile("New scan|Quick Scan")).first
    expect(choice).to_be_visible(timeout=60000)
    if choice.inner_text().strip() == "New scan":
        choice.click()
    quick = page.get_by_role("button", name=re.compile("^Quick Scan"))
    expect(quick).to_be_visible()
    quick.click()
    expect(page.get_by_text("Scan Complete")).to_be_visible(timeout=60000)
    # The job's log, read line by line as it was written: the start, findings per file, the end.
    log = page.get_by_test_id("scan-log")
    expect(log).to_contain_text("Quick scan of")
    expect(log).to_contain_text(re.compile(r"Complete: \d+ findings"))
    page.get_by_role("button", name="New scan").click()
    expect(page.get_by_role("button", name=re.compile("^Full Scan"))).to_be_visible()
    _tab(page, "Problem Database").click()
    rows = page.get_by_test_id("problem-row")
    expect(rows.filter(has_text="settings.py").first).to_be_visible()
    expect(rows.filter(has_text="secret:").first).to_be_visible()


def test_full_scan_can_be_stopped(page: Page):
    sign_in(page)
    _tab(page, "Security Scan").click()
    # A finished scan's result stays on screen (it is server state) until a new scan is chosen.
    choice = page.get_by_role("button", name=re.compile("New scan|Full Scan")).first
    expect(choice).to_be_visible()
    if choice.inner_text().strip() == "New scan":
        choice.click()
    page.get_by_role("button", name=re.compile("Full Scan")).click()
    # The e2e server pauses after each scanned file (SECDASH_SCAN_PAUSE_MS): the scan is still running here.
    page.get_by_role("button", name="Stop Scan").click()
    expect(page.get_by_text("Scan stopped")).to_be_visible(timeout=30000)
    expect(page.get_by_text(re.compile(r"Stopped at \d+%: \d+ of \d+ files"))).to_be_visible()


@pytest.fixture
def removes_down_test(base_url: str):
    """The site the test adds is removed afterwards (through the API): later tests see the demo sites only."""
    yield
    login = httpx.post(f"{base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    headers = {"Authorization": f"Bearer {login.json()['token']}"}
    for site in httpx.get(f"{base_url}/api/sites", headers=headers).json():
        if site["name"] == "Down test":
            assert httpx.delete(f"{base_url}/api/sites/{site['id']}", headers=headers).status_code in (200, 204)


def test_site_turns_alert_when_its_server_goes_down(page: Page, base_url: str, site_server, removes_down_test):
    sign_in(page)
    page.get_by_role("button", name="Add site").click()
    page.get_by_label("Name").fill("Down test")
    page.get_by_label("URL (http or https)").fill(site_server.base + "/")
    page.get_by_label(re.compile("Allow a private")).check()
    page.get_by_role("button", name="Save").click()
    row = page.get_by_test_id("site-row").filter(has_text="Down test")
    expect(row).to_contain_text("SECURE", timeout=30000)
    site_server.close()
    expect(row).to_contain_text("ALERT", timeout=30000)
    expect(row).to_contain_text(re.compile("refused", re.I))
    # The status change is a security event, visible among the alerts.
    expect(page.get_by_test_id("alert-row").filter(has_text="Down test is now ALERT").first).to_be_visible()


def test_an_admin_adds_and_lifts_a_decision_on_user_scan_and_a_limited_user_sees_none(page: Page, browser, base_url):
    """SECDASH_E2E_SCREENSHOTS=<folder> keeps the User Scan tab at 1280 and 390 px there."""
    sign_in(page)
    _tab(page, "User Scan").click()
    decisions = page.get_by_role("heading", name="Decisions")
    expect(decisions).to_be_visible()
    page.get_by_label("Address or range").fill("not-an-address")
    page.get_by_role("button", name="Add decision").click()
    expect(page.get_by_text(re.compile("an IP address or a network in CIDR")).first).to_be_visible()
    page.get_by_label("Address or range").fill("198.51.100.0/24")
    page.get_by_label("Type").select_option("throttle")
    page.get_by_label("For", exact=True).select_option(label="7 days")
    page.get_by_label("Reason").fill("<b>stuffing</b> from the SOC")
    page.get_by_role("button", name="Add decision").click()
    row = page.get_by_test_id("decision-row").filter(has_text="198.51.100.0/24")
    expect(row).to_contain_text("throttle")
    expect(row).to_contain_text("<b>stuffing</b> from the SOC")  # an operator's text is shown as text
    expect(row).to_contain_text(re.compile(r"ends in 6 d 23 h"))
    if SHOTS:
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.screenshot(path=str(Path(SHOTS) / f"user-scan-decisions-{width}.png"), full_page=True)
        page.set_viewport_size({"width": 1280, "height": 900})
    row.get_by_role("button", name="Lift the decision on 198.51.100.0/24").click()
    expect(row).to_have_count(0)

    context = browser.new_context(base_url=base_url, reduced_motion="reduce")
    limited = context.new_page()
    sign_in(limited, LIMITED_EMAIL, LIMITED_PASSWORD)
    _tab(limited, "User Scan").click()
    expect(limited.get_by_text("Recent Clients")).to_be_visible()
    expect(limited.get_by_role("heading", name="Decisions")).to_have_count(0)
    context.close()
