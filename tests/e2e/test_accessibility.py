"""Accessibility: axe-core finds no serious or critical violation on any page, as admin on a desktop
and as the limited user on a phone, with the chat widget, the mobile menu and the dialogs open."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in
from tests.support.browser import LIMITED_EMAIL, LIMITED_PASSWORD

SIGNED_IN_ROUTES = (
    "/history",
    "/defense-command",
    "/defense-command/center",
    "/ai-systems",
    "/battle-station",
    "/fix-mode",
    "/code-mode",
    "/code-artifacts",
    "/no-such-page",
)
DASHBOARD_TABS = ("Dashboard", "Live Traffic", "User Scan", "Security Scan", "AI Defense Mode", "Problem Database")
BLOCKING = ("serious", "critical")

_axe = Axe()


# Finite animations (a dialog fading in) first run to their end: mid-fade colours are not the real contrast.
_SETTLE = (
    "() => Promise.all(document.getAnimations()"
    ".filter(a => isFinite(a.effect ? a.effect.getComputedTiming().endTime : Infinity))"
    ".map(a => a.finished.catch(() => null)))"
)


def _violations(page: Page) -> list[str]:
    """Serious and critical axe findings, one line each: rule, impact and the first offending nodes."""
    page.evaluate(_SETTLE)
    results = _axe.run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} -> " + "; ".join(n["html"][:120] for n in v["nodes"][:3])
        for v in results.response["violations"]
        if v["impact"] in BLOCKING
    ]


class Audit:
    def __init__(self, page: Page):
        self.page = page
        self.found: dict[str, list[str]] = {}

    def check(self, where: str) -> None:
        found = _violations(self.page)
        if found:
            self.found[where] = found

    def assert_clean(self) -> None:
        report = "\n".join(f"{where}:\n  " + "\n  ".join(lines) for where, lines in self.found.items())
        assert not self.found, f"axe found serious or critical violations on {len(self.found)} screens:\n{report}"


def _audit_signed_in(page: Page, *, admin: bool) -> Audit:
    audit = Audit(page)
    expect(page.get_by_test_id("site-row").first).to_be_visible()
    for name in DASHBOARD_TABS:
        page.get_by_role("tab", name=name).click()
        expect(page.get_by_role("tab", name=name)).to_have_attribute("aria-selected", "true")
        if name == "Security Scan" and admin:
            _show_a_finished_scan(page)
        if name == "Problem Database":
            expect(page.get_by_text("Loading security database...")).to_have_count(0)
        audit.check(f"/ ({name} tab)")
    page.get_by_role("tab", name="Dashboard").click()
    if admin:
        page.get_by_role("button", name="Add site").click()
        expect(page.get_by_role("dialog")).to_be_visible()
        audit.check("/ (Add site dialog)")
        page.get_by_role("button", name="Cancel").click()
        expect(page.get_by_role("dialog")).to_have_count(0)
    toggle = page.get_by_role("button", name="Open defense chat")
    toggle.click()
    expect(page.get_by_role("dialog", name="Defense Command chat")).to_be_visible()
    audit.check("/ (chat widget open)")
    page.get_by_role("button", name="Close defense chat").click()
    for route in SIGNED_IN_ROUTES:
        page.goto(route)
        expect(page.get_by_role("heading").first).to_be_visible()
        if route == "/defense-command":
            page.get_by_role("button", name="Tour", exact=False).first.click()
            expect(page.get_by_text("Start a conversation with Tour")).to_be_visible()
        audit.check(route)
    return audit


def _show_a_finished_scan(page: Page) -> None:
    """The scan tab's progress view: a finished scan keeps it on screen (other tests expect a finished
    scan, never one still running)."""
    quick = page.get_by_role("button", name=re.compile("Quick Scan"))
    new_scan = page.get_by_role("button", name="New scan")
    expect(quick.or_(new_scan)).to_be_visible(timeout=60000)
    if quick.is_visible():
        quick.click()
    expect(new_scan).to_be_visible(timeout=60000)
    expect(page.get_by_role("progressbar")).to_be_visible()


def test_axe_runs_under_the_apps_csp_and_sees_a_planted_violation(page: Page):
    """The audit is no silent no-op: axe is injected despite the app's CSP and reports what it should."""
    page.goto("/login")
    expect(page.get_by_role("heading", name="Admin Access Portal")).to_be_visible()
    page.evaluate("""() => { const p = document.createElement('p'); p.textContent = 'planted grey on grey';
        p.style.color = '#475569'; p.style.background = '#334155'; document.body.appendChild(p); }""")
    assert any(line.startswith("color-contrast (serious)") for line in _violations(page))


def test_signed_out_pages_have_no_serious_violation(page: Page):
    audit = Audit(page)
    for route, heading in (
        ("/", "SecDash"),
        ("/landing", "SecDash"),
        ("/login", "Admin Access Portal"),
        ("/no-such-page", "404 Page Not Found"),
    ):
        page.goto(route)
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
        audit.check(route)
    audit.assert_clean()


@pytest.mark.browser_context_args(viewport={"width": 1280, "height": 900})
def test_admin_desktop_pages_have_no_serious_violation(page: Page):
    sign_in(page)
    _audit_signed_in(page, admin=True).assert_clean()


@pytest.mark.browser_context_args(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
def test_limited_user_phone_pages_have_no_serious_violation(page: Page):
    sign_in(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    audit = _audit_signed_in(page, admin=False)
    page.goto("/history")
    page.get_by_label("Toggle navigation menu").click()
    expect(page.get_by_role("navigation", name="Main navigation").get_by_role("link", name="Fix Mode")).to_be_visible()
    audit.check("/history (mobile menu open)")
    audit.assert_clean()


def test_the_chat_toggle_says_what_it_will_do(page: Page):
    sign_in(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    toggle = page.get_by_role("button", name="Open defense chat")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.click()
    expect(page.get_by_role("dialog", name="Defense Command chat")).to_be_visible()
    close = page.get_by_role("button", name="Close defense chat")
    expect(close).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_role("button", name="Open defense chat")).to_have_count(0)
    close.click()
    expect(page.get_by_role("dialog", name="Defense Command chat")).to_have_count(0)
    expect(page.get_by_role("button", name="Open defense chat")).to_be_visible()
