"""Browser steps shared by the end-to-end tests."""

from __future__ import annotations

import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, StorageState, expect

from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD

# The browser storage (session cookie and local storage) of the session each user last signed in with through the
# form: the user's next test starts from it, as a browser that stays signed in does, instead of the form (a page
# load, the production password hash and the hand-over's reload fewer). A test that ends that session makes the next
# one sign in through the form again. Tests of signing in and out pass through_the_form=True (and leave the kept
# session alone).
_KEPT: dict[str, StorageState] = {}


def sign_in(page: Page, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD, *, through_the_form: bool = False) -> None:
    kept = None if through_the_form else _KEPT.pop(email, None)
    if kept is not None:
        if _resume(page, kept):
            _KEPT[email] = kept
            return
        # Not resumed: forget what _resume stored, or a session that was still good (its dashboard had not shown yet
        # when the landing page did) sends /login on to / while the form is filled (CI: the button kept detaching).
        page.context.clear_cookies()
        page.evaluate("() => localStorage.clear()")
    page.goto("/login")
    expect(page.get_by_role("heading", name="Admin Access Portal")).to_be_visible()
    page.get_by_label("Email").fill(email)
    page.locator("#password").fill(password)
    page.get_by_role("button", name="Access System").click()
    expect(page).to_have_url(re.compile(r"/$"))
    # The sign-in hand-over stores the token, fetches the cookie and loads the app afresh: on a loaded
    # machine (CI runs beside other work) that can take longer than the default 5 s.
    expect(_logout(page)).to_be_visible(timeout=20000)
    if not through_the_form:  # a test of signing in may end its session: the kept one stays
        _KEPT[email] = page.context.storage_state()


def _logout(page: Page) -> Locator:
    return page.get_by_role("banner").get_by_role("button", name="Logout")


def _resume(page: Page, kept: StorageState) -> bool:
    """Open the dashboard with a kept session; False (the landing page) when that session has ended."""
    page.context.add_cookies(kept.get("cookies", []))
    page.goto("/api/health")  # the app's origin, to write its local storage before the app loads
    for origin in kept.get("origins", []):
        for item in origin.get("localStorage", []):
            page.evaluate("([key, value]) => localStorage.setItem(key, value)", [item["name"], item["value"]])
    page.goto("/")
    signed_out = page.get_by_role("link", name="Access Security Dashboard")
    expect(_logout(page).or_(signed_out)).to_be_visible(timeout=20000)
    return _logout(page).is_visible()


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
