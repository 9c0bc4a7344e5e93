"""Keyboard use, pressing real keys: the chat composer keeps focus while a reply streams and after it; a dialog
closed with Escape gives focus back to the control that opened it; the Dashboard's tabs follow the WAI-ARIA tabs
pattern (Left/Right/Home/End move and activate, roving tabindex, aria-selected, aria-controls)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in

TABS = ("Dashboard", "Live Traffic", "User Scan", "Security Scan", "AI Defense Mode", "Problem Database")


def test_the_widget_composer_keeps_focus_through_a_streamed_reply(page: Page):
    sign_in(page)
    page.get_by_role("button", name="Open defense chat").click()
    panel = page.get_by_role("dialog", name="Defense Command chat")
    box = panel.get_by_role("textbox")
    box.click()
    replies = panel.get_by_test_id("agent-message")
    before = replies.count()
    page.keyboard.type("How do we stop a DDoS flood?", delay=40)
    page.keyboard.press("Enter")
    expect(box).to_have_value("")
    expect(box).to_be_focused()  # while the reply streams
    expect(replies).to_have_count(before + 1, timeout=15000)
    expect(panel.get_by_test_id("typing-indicator")).to_have_count(0)
    expect(box).to_be_focused()  # and after it
    page.keyboard.type("And a phishing email?", delay=40)  # the next message goes straight in (at a typist's pace)
    expect(box).to_have_value("And a phishing email?")


def test_the_page_composers_keep_focus_after_a_reply(page: Page):
    sign_in(page)
    page.goto("/defense-command")
    page.get_by_role("button", name=re.compile("^Tour")).click()
    box = page.locator("#command-input")
    box.click()
    page.keyboard.type("Staff received a phishing email")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("agent-message").last).to_contain_text("DMARC", timeout=15000)
    expect(box).to_be_focused()

    page.goto("/defense-command/center")
    box = page.locator("#center-input")
    expect(box).to_be_visible()
    box.click()
    page.keyboard.type("Any brute-force attempts?")
    page.get_by_role("button", name="Send").click()  # a mouse send also leaves the composer ready
    expect(page.get_by_test_id("typing-indicator")).to_have_count(0, timeout=15000)
    expect(box).to_be_focused()


def test_escape_returns_focus_to_the_control_that_opened_the_dialog(page: Page):
    sign_in(page)
    add = page.get_by_role("button", name="Add site")
    add.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(add).to_be_focused()

    page.goto("/code-mode")
    clear = page.get_by_role("button", name="Clear All")
    clear.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("alertdialog")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("alertdialog")).to_have_count(0)
    expect(clear).to_be_focused()


def _tab(page: Page, name: str):
    return page.get_by_role("tab", name=name, exact=True)


def _assert_selected(page: Page, name: str) -> None:
    tab = _tab(page, name)
    expect(tab).to_be_focused()
    expect(tab).to_have_attribute("aria-selected", "true")
    expect(tab).to_have_attribute("tabindex", "0")
    panel_id = tab.get_attribute("aria-controls")
    assert panel_id, f"the {name} tab names no panel"
    panel = page.locator(f"#{panel_id}")
    expect(panel).to_have_attribute("role", "tabpanel")
    expect(panel).to_be_visible()
    for other in TABS:
        if other != name:
            expect(_tab(page, other)).to_have_attribute("aria-selected", "false")
            expect(_tab(page, other)).to_have_attribute("tabindex", "-1")


def test_dashboard_tabs_follow_the_aria_tabs_pattern(page: Page):
    sign_in(page)
    expect(page.get_by_test_id("site-row").first).to_be_visible()
    _tab(page, "Dashboard").focus()
    _assert_selected(page, "Dashboard")
    page.keyboard.press("ArrowRight")
    _assert_selected(page, "Live Traffic")
    page.keyboard.press("ArrowRight")
    _assert_selected(page, "User Scan")
    page.keyboard.press("End")
    _assert_selected(page, "Problem Database")
    page.keyboard.press("ArrowRight")  # wraps around
    _assert_selected(page, "Dashboard")
    page.keyboard.press("ArrowLeft")
    _assert_selected(page, "Problem Database")
    page.keyboard.press("Home")
    _assert_selected(page, "Dashboard")
    # Tab leaves the tab list for the panel: one tab stop for the whole list.
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    expect(_tab(page, "Dashboard")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator('[role="tab"]:focus')).to_have_count(0)


def test_the_chat_widget_opens_into_its_composer_and_gives_the_focus_back(page: Page):
    sign_in(page)
    toggle = page.get_by_role("button", name="Open defense chat")
    toggle.focus()
    page.keyboard.press("Enter")
    panel = page.get_by_role("dialog", name="Defense Command chat")
    expect(panel.get_by_role("textbox")).to_be_focused()
    page.keyboard.press("Escape")
    expect(panel).to_have_count(0)
    expect(page.get_by_role("button", name="Open defense chat")).to_be_focused()
    page.keyboard.press("Enter")
    expect(panel.get_by_role("textbox")).to_be_focused()
    panel.get_by_role("button", name="Close chat").click()
    expect(panel).to_have_count(0)
    expect(page.get_by_role("button", name="Open defense chat")).to_be_focused()
