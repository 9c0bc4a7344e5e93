"""Battle Station in the browser (offline engine): each of the six attacks runs a real drill against a demo site
from its button, with the panel, the growing execution log, the success toast and the measured history entry;
a refused defend request shows the fallback and "System Alert"; a limited user cannot start a drill; an admin
resets a site's defense; the page fits 1280 px and 390 px.

SECDASH_E2E_SCREENSHOTS=<folder> keeps screenshots (to look at)."""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.helpers import sign_in, toast
from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD, LIMITED_EMAIL, LIMITED_PASSWORD, MODEL_MODE

SHOTS = os.environ.get("SECDASH_E2E_SCREENSHOTS", "")
LABELS = {
    "ddos": "DDoS Attack",
    "sql_injection": "SQL Injection",
    "xss": "XSS Attack",
    "malware": "Malware",
    "brute_force": "Brute Force",
    "phishing": "Phishing",
}
SITES = ("stock", "tour", "gem", "shares")
DRILL_TIMEOUT_MS = 120_000


def _shot(page: Page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def _headers(base_url: str) -> dict[str, str]:
    login = httpx.post(f"{base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    return {"Authorization": f"Bearer {login.json()['token']}"}


def _wait_idle(base_url: str, headers: dict[str, str], timeout: float = 180) -> None:
    """No drill runs (an earlier test's drills have ended): the page starts SECURE."""
    deadline = time.monotonic() + timeout
    while httpx.get(f"{base_url}/api/battle-station/active", headers=headers).json():
        assert time.monotonic() < deadline, "a drill was still running after 180 s"
        time.sleep(0.5)


def _open(page: Page, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> None:
    sign_in(page, email, password)
    page.goto("/battle-station")
    expect(page.get_by_role("heading", name="Battle Station", exact=True)).to_be_visible()
    expect(page.get_by_test_id("attack-card")).to_be_visible(timeout=15000)


@pytest.mark.parametrize("attack_type", list(LABELS))
def test_each_attack_runs_a_measured_drill_from_its_button(page: Page, base_url: str, attack_type: str):
    headers = _headers(base_url)
    _wait_idle(base_url, headers)
    _open(page)
    status = page.get_by_test_id("battle-status")
    expect(status).to_have_text("SECURE")
    history = page.get_by_test_id("operation")
    before = history.count()
    label = LABELS[attack_type]

    page.get_by_role("button", name=label, exact=True).click()
    expect(toast(page, f"{attack_type.upper().replace('_', ' ')} ATTACK DETECTED")).to_contain_text(
        "Activating enterprise defense systems..."
    )
    expect(status).to_have_text("DEFENDING")
    panel = page.get_by_test_id("active-threat")
    name = label.removesuffix(" Attack")  # "DDoS Attack": "DDoS Attack in Progress", not "Attack Attack"
    expect(panel.get_by_role("heading", name=f"{name} Attack in Progress", exact=True)).to_be_visible()
    expect(panel).to_contain_text("AI Defense Active")
    for name in LABELS.values():  # no second request while this one runs
        expect(page.get_by_role("button", name=name, exact=True)).to_be_disabled()
    log = panel.get_by_test_id("execution-log").locator("li")
    expect(log.filter(has_text="Baseline:").first).to_be_visible(timeout=DRILL_TIMEOUT_MS)
    first_count = log.count()
    # The log grows as the drill goes on: the agent's defense is written while the panel is open.
    expect(log.filter(has_text="Defense deployed to").first).to_be_visible(timeout=DRILL_TIMEOUT_MS)
    assert log.count() > first_count
    expect(panel.get_by_test_id("defense-code")).not_to_be_empty()
    if attack_type == "ddos":
        _shot(page, "battle-station-defending-1280")

    done = toast(page, "Defense Activated!")
    expect(done).to_contain_text(re.compile(r"Enterprise defense deployed with \d{1,3}% effectiveness"), timeout=DRILL_TIMEOUT_MS)
    percent = re.search(r"(\d{1,3})% effectiveness", done.inner_text()).group(1)
    expect(status).to_have_text("SECURE", timeout=15000)
    expect(page.get_by_test_id("active-threat")).to_have_count(0)
    expect(history).to_have_count(before + 1)
    newest = history.first
    expect(newest).to_contain_text(label)
    expect(newest.get_by_test_id("effectiveness")).to_have_text(f"{percent}%")
    expect(newest.get_by_test_id("operation-counts")).to_contain_text(
        re.compile(r"blocked \d+/[1-9]\d* attack, served \d+/[1-9]\d* benign · T\d{4}")
    )
    expect(newest.get_by_test_id("operation-status")).to_have_text(re.compile(r"^(defended|partial)$"))
    if MODEL_MODE:  # the local OpenAI-compatible test server wrote this defense, not the offline recipe
        expect(newest).to_contain_text("Model plan:")


def test_a_refused_defend_request_shows_the_fallback_and_a_system_alert(page: Page, base_url: str):
    """The page picks a random agent, so every demo site is busy first (one drill each through the API). The
    page's own request must then reach the server while the page still shows SECURE: its updates are held
    back for that moment (a page whose news is late), and the server refuses it with its 409."""
    headers = _headers(base_url)
    _wait_idle(base_url, headers)
    holding = threading.Event()
    held: list[tuple[WebSocketRoute, str | bytes]] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        ws.on_message(server.send)
        server.on_message(lambda message: held.append((ws, message)) if holding.is_set() else ws.send(message))

    page.route_web_socket(re.compile(r"/_event"), route)
    _open(page)
    expect(page.get_by_test_id("battle-status")).to_have_text("SECURE")

    holding.set()
    replies: list[httpx.Response] = []
    drills = [
        threading.Thread(
            target=lambda site=site: replies.append(
                httpx.post(
                    f"{base_url}/api/battle-station/defend",
                    headers=headers,
                    timeout=180,
                    json={"attackType": "xss", "attackSource": "198.51.100.7", "aiAgentId": site},
                )
            )
        )
        for site in SITES
    ]
    for thread in drills:
        thread.start()
    try:
        deadline = time.monotonic() + 30
        while len(httpx.get(f"{base_url}/api/battle-station/active", headers=headers).json()) < len(SITES):
            assert time.monotonic() < deadline, "the four drills did not start"
            time.sleep(0.1)
        page.get_by_role("button", name="Malware", exact=True).click()  # still enabled: the page has no news yet
        time.sleep(1.5)  # the click's event reaches the server and is answered (held)
        holding.clear()
        for ws, message in held:
            ws.send(message)
        held.clear()

        fallback = page.get_by_test_id("fallback-code")
        expect(fallback).to_contain_text("EMERGENCY FALLBACK - no AI defense was deployed")
        expect(fallback).to_contain_text("A drill is already running against")
        expect(toast(page, "System Alert")).to_contain_text("Defense systems operational - fallback protocols engaged")
        expect(page.get_by_test_id("active-threat").get_by_role("heading", name="Malware Attack in Progress")).to_be_visible()
        # 3 s later the fallback is gone; the page stays DEFENDING for the drills that really run.
        expect(fallback).to_have_count(0, timeout=8000)
        expect(page.get_by_test_id("battle-status")).to_have_text("DEFENDING")
        expect(page.get_by_test_id("active-threat").get_by_test_id("drill-progress")).to_be_visible()
    finally:
        holding.clear()
        for thread in drills:
            thread.join(timeout=200)
    assert sorted(reply.status_code for reply in replies) == [200] * len(SITES), [r.text for r in replies]


def test_a_limited_user_sees_the_attacks_disabled_with_the_reason(page: Page, base_url: str):
    headers = _headers(base_url)
    _wait_idle(base_url, headers)
    _open(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    reason = page.get_by_test_id("attack-reason")
    expect(reason).to_have_text("Read-only: only administrators may start Battle Station drills.")
    for label in LABELS.values():
        button = page.get_by_role("button", name=label, exact=True)
        expect(button).to_be_disabled()
        expect(button).to_have_attribute("aria-describedby", "attack-reason")
    expect(page.get_by_test_id("battle-status")).to_have_text("SECURE")
    expect(page.get_by_test_id("demo-defenses").get_by_role("button", name=re.compile("^Reset"))).to_have_count(0)
    # The server refuses the drill whatever the page shows.
    login = httpx.post(f"{base_url}/api/auth/login", json={"email": LIMITED_EMAIL, "password": LIMITED_PASSWORD})
    refused = httpx.post(
        f"{base_url}/api/battle-station/defend",
        json={"attackType": "phishing"},
        headers={"Authorization": f"Bearer {login.json()['token']}"},
    )
    assert refused.status_code == 403, refused.text
    # An administrator sees the same buttons enabled and no read-only note.
    page.context.clear_cookies()
    page.evaluate("localStorage.clear(); sessionStorage.clear()")
    _open(page)
    expect(page.get_by_test_id("attack-reason")).to_have_count(0)
    expect(page.get_by_role("button", name="Phishing", exact=True)).to_be_enabled()


def test_battle_station_and_history_agree_on_what_a_limited_user_reads(page: Page, base_url: str):
    headers = _headers(base_url)
    _wait_idle(base_url, headers)
    if not httpx.get(f"{base_url}/api/battle-station", headers=headers).json():
        reply = httpx.post(
            f"{base_url}/api/battle-station/defend",
            headers=headers,
            timeout=180,
            json={"attackType": "xss", "attackSource": "203.0.113.7", "aiAgentId": "gem"},
        )
        assert reply.status_code == 200, reply.text
    _open(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    expect(page.get_by_test_id("operation").first).to_be_visible()
    page.goto("/history")
    tab = page.get_by_role("tab", name=re.compile(r"^Battle Station \("))
    expect(tab).not_to_have_text("Battle Station (0)")
    tab.click()
    entries = page.get_by_role("tabpanel").get_by_test_id("history-entry")
    expect(entries.first).to_be_visible()
    expect(entries.filter(has_text=re.compile("Drill (started|result|failed)")).first).to_be_visible()


def test_an_admin_resets_a_drilled_defense(page: Page, base_url: str):
    headers = _headers(base_url)
    _wait_idle(base_url, headers)
    reply = httpx.post(
        f"{base_url}/api/battle-station/defend",
        headers=headers,
        timeout=180,
        json={"attackType": "sql_injection", "attackSource": "203.0.113.9", "aiAgentId": "shares"},
    )
    assert reply.status_code == 200, reply.text
    _open(page)
    row = page.get_by_test_id("defense-row").filter(has_text="Shares")
    expect(row.get_by_test_id("defense-source")).to_contain_text("drill")
    revision = int(row.get_by_test_id("defense-revision").inner_text())
    row.get_by_role("button", name="Reset Shares defense").click()
    expect(toast(page, "Defense reset")).to_contain_text("Shares runs its weak default defense again")
    expect(row.get_by_test_id("defense-revision")).to_have_text(str(revision + 1))
    expect(row.get_by_test_id("defense-source")).to_contain_text("reset")
    defense = httpx.get(f"{base_url}/api/battle-station/defenses/shares", headers=headers).json()
    assert defense["source"] == "reset" and defense["config"]["patterns"] == []


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, {"width": 390, "height": 844}], ids=["desktop", "phone"])
def test_the_page_fits_the_screen(page: Page, base_url: str, viewport: dict):
    _wait_idle(base_url, _headers(base_url))
    page.set_viewport_size(viewport)
    _open(page)
    expect(page.get_by_test_id("battle-status")).to_have_text("SECURE")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"], f"/battle-station is {width} px wide at {viewport['width']} px"
    _shot(page, f"battle-station-{viewport['width']}")
