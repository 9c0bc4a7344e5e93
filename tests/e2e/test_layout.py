"""Layout on a 390 px phone and a 1280 px desktop: nothing wider than the screen, the floating chat
button and its panel on screen, Send never under the button, toasts clear of the composer, the
Problem Database as cards, and Logout visible beside a long e-mail."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.helpers import sign_in, toast
from tests.support.browser import LIMITED_EMAIL, LIMITED_PASSWORD, LONG_EMAIL, LONG_PASSWORD

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
SIGNED_IN_ROUTES = (
    "/",
    "/history",
    "/defense-command",
    "/defense-command/center",
    "/ai-systems",
    "/battle-station",
    "/fix-mode",
    "/code-mode",
    "/code-artifacts",
    "/settings",
)
DASHBOARD_TABS = ("Live Traffic", "User Scan", "Security Scan", "AI Defense Mode", "Problem Database")

# A touch phone: like a real one, it widens its layout viewport to content that overflows (that is how the
# floating button went off-screen), which a plain small desktop window does not.
phone = pytest.mark.browser_context_args(viewport=PHONE, is_mobile=True, has_touch=True)
desktop = pytest.mark.browser_context_args(viewport=DESKTOP)


def _page_width(page: Page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def _inside_viewport(page: Page, locator: Locator) -> None:
    box = locator.bounding_box()
    size = page.viewport_size
    assert box is not None
    assert box["x"] >= 0 and box["y"] >= 0, box
    assert box["x"] + box["width"] <= size["width"] and box["y"] + box["height"] <= size["height"], (box, size)


def _topmost_is(page: Page, locator: Locator) -> bool:
    """Whether a tap at the centre of this element reaches it (nothing fixed lies on top)."""
    return locator.evaluate(
        "el => { const r = el.getBoundingClientRect();"
        " const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
        " return hit !== null && (hit === el || el.contains(hit)); }"
    )


def _overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def _check_widths(page: Page, width: int) -> None:
    for route in SIGNED_IN_ROUTES:
        page.goto(route)
        expect(page.get_by_role("banner").get_by_role("button", name="Logout")).to_be_visible()
        expect(page.get_by_role("heading").first).to_be_visible()
        if route == "/":
            # Probed sites carry their longest text (Tour's missing headers): the width that once overflowed.
            tour = page.get_by_test_id("site-row").filter(has_text="Tour")
            expect(tour).to_contain_text("missing", timeout=30000)
        assert _page_width(page) <= width, f"{route} is {_page_width(page)} px wide"
    page.goto("/")
    for name in DASHBOARD_TABS:
        page.get_by_role("tab", name=name).click()
        expect(page.get_by_role("tab", name=name)).to_have_attribute("aria-selected", "true")
        assert _page_width(page) <= width, f"the {name} tab is {_page_width(page)} px wide"


@phone
def test_no_page_is_wider_than_a_phone(page: Page):
    for route in ("/", "/login", "/no-such-page"):
        page.goto(route)
        expect(page.get_by_role("heading").first).to_be_visible()
        assert _page_width(page) <= PHONE["width"], route
    sign_in(page)
    _check_widths(page, PHONE["width"])


@phone
def test_floating_chat_button_and_panel_stay_on_a_phone_screen(page: Page):
    sign_in(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    expect(page.get_by_test_id("site-row").first).to_be_visible()
    button = page.get_by_role("button", name="Open defense chat")
    _inside_viewport(page, button)
    assert _topmost_is(page, button)
    button.click()
    panel = page.get_by_role("dialog", name="Defense Command chat")
    expect(panel).to_be_visible()
    _inside_viewport(page, panel)
    send = panel.get_by_role("button", name="Send")
    assert _topmost_is(page, send)
    assert _topmost_is(page, panel.get_by_role("textbox"))


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("route", ["/defense-command", "/defense-command/center"])
def test_send_is_never_under_the_floating_button(page: Page, route: str, viewport: dict):
    page.set_viewport_size(viewport)
    sign_in(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    page.goto(route)
    if route == "/defense-command":
        page.get_by_role("button", name="Tour", exact=False).first.click()
    main = page.get_by_role("main")
    send = main.get_by_role("button", name="Send")
    box = main.get_by_role("textbox")
    expect(send).to_be_visible()
    # The worst place: the composer at the very bottom of the screen, where the floating button sits.
    for block in ("end", "center", "start"):
        send.evaluate(f"el => el.scrollIntoView({{block: '{block}'}})")
        assert _topmost_is(page, send), f"Send is covered when scrolled to {block}"
        assert _topmost_is(page, box), f"the message box is covered when scrolled to {block}"


@phone
def test_toasts_leave_the_composer_free_on_a_phone(page: Page):
    sign_in(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    page.goto("/defense-command/center")
    main = page.get_by_role("main")
    box = main.get_by_role("textbox")
    box.fill("Ransomware is encrypting the inventory server right now")
    box.press("Enter")
    shown = toast(page, "High Threat Detected")
    expect(shown).to_be_visible(timeout=15000)
    send = main.get_by_role("button", name="Send")
    send.evaluate("el => el.scrollIntoView({block: 'end'})")
    toast_box = shown.bounding_box()
    assert toast_box is not None
    for target in (box, send):
        target_box = target.bounding_box()
        assert target_box is not None and not _overlap(toast_box, target_box), (toast_box, target_box)


@phone
def test_problem_database_reads_as_cards_on_a_phone(page: Page):
    sign_in(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    page.get_by_role("tab", name="Problem Database").click()
    row = page.get_by_test_id("problem-row").first
    expect(row).to_be_visible(timeout=30000)
    problem = row.locator("td").nth(3)  # the problem description
    box, row_box = problem.bounding_box(), row.bounding_box()
    assert box is not None and row_box is not None
    # The problem text takes the card's width instead of a column one or two words wide.
    assert box["width"] >= 0.7 * row_box["width"], (box, row_box)
    assert row_box["x"] >= 0 and row_box["x"] + row_box["width"] <= PHONE["width"], row_box
    assert _page_width(page) <= PHONE["width"]


@desktop
def test_logout_stays_on_screen_at_1280_beside_a_60_character_email(page: Page):
    assert len(LONG_EMAIL) == 60
    sign_in(page, LONG_EMAIL, LONG_PASSWORD)
    banner = page.get_by_role("banner")
    logout = banner.get_by_role("button", name="Logout")
    client_width = page.evaluate("document.documentElement.clientWidth")
    box = logout.bounding_box()
    assert box is not None and box["x"] + box["width"] <= client_width, (box, client_width)
    assert _topmost_is(page, logout)
    email = banner.get_by_title(LONG_EMAIL)
    expect(email).to_be_visible()
    for label in ("Dashboard", "History Logs", "Defense Command", "AI Systems", "Battle Station", "Fix Mode", "Code Mode"):
        expect(banner.get_by_role("link", name=label, exact=True)).to_be_visible()
    _check_widths(page, client_width)


def _live_dot_animation(page: Page) -> dict:
    dot = page.get_by_text("LIVE", exact=True).locator("span")
    expect(dot).to_be_visible()
    return dot.evaluate(
        "el => { const s = getComputedStyle(el);"
        " return {name: s.animationName, seconds: parseFloat(s.animationDuration), count: s.animationIterationCount}; }"
    )


@pytest.mark.browser_context_args(viewport=DESKTOP, reduced_motion="no-preference")
def test_the_live_dot_pulses_for_everyone_who_did_not_ask_for_less_motion(page: Page):
    sign_in(page)
    animation = _live_dot_animation(page)
    assert animation["name"] == "pulse" and animation["seconds"] >= 1 and animation["count"] == "infinite", animation


@pytest.mark.browser_context_args(viewport=DESKTOP, reduced_motion="reduce")
def test_the_live_dot_keeps_still_when_the_system_asks_for_less_motion(page: Page):
    sign_in(page)
    animation = _live_dot_animation(page)
    assert animation["seconds"] < 0.001 and animation["count"] == "1", animation
