"""Browser steps shared by the end-to-end tests."""

from __future__ import annotations

import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD


def sign_in(page: Page, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> None:
    page.goto("/login")
    expect(page.get_by_role("heading", name="Admin Access Portal")).to_be_visible()
    page.get_by_label("Email").fill(email)
    page.locator("#password").fill(password)
    page.get_by_role("button", name="Access System").click()
    expect(page).to_have_url(re.compile(r"/$"))
    # The sign-in hand-over stores the token, fetches the cookie and loads the app afresh: on a loaded
    # machine (CI runs beside other work) that can take longer than the default 5 s.
    expect(page.get_by_role("banner").get_by_role("button", name="Logout")).to_be_visible(timeout=20000)


def toast(page: Page, title: str):
    return page.locator("[data-sonner-toast]").filter(has_text=title)


_axe = Axe()
# Toasts stacked behind the newest one (sonner shows their content at opacity 0 until the stack is hovered) and
# toasts fading out: their text is not on screen, so its contrast is not a finding (axe measured them mid-fade).
HIDDEN_TOASTS = {
    "exclude": [["[data-sonner-toast][data-front='false'][data-expanded='false']"], ["[data-sonner-toast][data-removed='true']"]]
}


def assert_accessible(page: Page, where: str) -> None:
    """No serious or critical axe finding on the page as it is now (tests/e2e/test_accessibility.py audits every
    page at load; this audits a page in a given state)."""
    page.evaluate(
        "() => Promise.all(document.getAnimations()"  # finite animations (a toast) run to their end
        ".filter(a => isFinite(a.effect ? a.effect.getComputedTiming().endTime : Infinity))"
        ".map(a => a.finished.catch(() => null)))"
    )
    found = [
        f"{v['id']} ({v['impact']}): {v['help']} -> " + "; ".join(n["html"][:120] for n in v["nodes"][:3])
        for v in _axe.run(page, context=HIDDEN_TOASTS).response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not found, f"{where}:\n" + "\n".join(found)
