"""The three chat surfaces in the browser, with the built-in offline engine."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in, toast


def test_widget_sends_streams_and_keeps_the_conversation(page: Page):
    sign_in(page)
    page.get_by_role("button", name="Open defense chat").click()
    panel = page.get_by_role("dialog", name="Defense Command chat")
    expect(panel).to_be_visible()
    box = panel.get_by_role("textbox")
    send = panel.get_by_role("button", name="Send")
    expect(send).to_be_disabled()
    box.fill("   ")
    expect(send).to_be_disabled()
    box.fill("How do we stop a DDoS flood?")
    box.press("Enter")
    expect(box).to_have_value("")
    reply = panel.get_by_test_id("agent-message").last
    expect(reply).to_contain_text("CDN or scrubbing", timeout=15000)
    expect(reply).to_contain_text("offline engine")
    # The conversation is stored: a new browser session of the same user sees it.
    page.context.clear_cookies()
    page.evaluate("sessionStorage.clear()")
    page.reload()
    expect(page.get_by_role("banner").get_by_role("button", name="Logout")).to_be_visible()
    page.get_by_role("button", name="Open defense chat").click()
    expect(page.get_by_role("dialog").get_by_test_id("user-message").last).to_contain_text("DDoS flood")


def test_defense_command_page_selects_systems_and_chats(page: Page):
    sign_in(page)
    page.goto("/defense-command")
    expect(page.get_by_role("heading", name="Defense Command", exact=True)).to_be_visible()
    expect(page.get_by_text("Secure communication with encrypted defense systems")).to_be_visible()
    expect(page.get_by_text("Knowledge Database")).to_be_visible()
    expect(page.get_by_text("12.7TB")).to_be_visible()
    expect(page.get_by_text("Select defense system to communicate")).to_be_visible()
    page.get_by_role("button", name=re.compile("^Tour")).click()
    expect(page.get_by_text("Start a conversation with Tour")).to_be_visible()
    box = page.locator("#command-input")
    box.fill("Staff received a phishing email")
    box.press("Enter")
    expect(page.get_by_test_id("agent-message").last).to_contain_text("DMARC", timeout=15000)
    page.get_by_role("button", name=re.compile("^Gem")).click()  # another system: the conversation clears
    expect(page.get_by_text("Start a conversation with Gem")).to_be_visible()
    expect(page.get_by_test_id("agent-message")).to_have_count(0)


def test_center_keeps_a_chat_per_agent_with_threat_badges(page: Page):
    sign_in(page)
    page.goto("/defense-command")
    page.get_by_role("link", name="Open the Defense Command Center").click()
    expect(page.get_by_role("heading", name="Defense Command Center")).to_be_visible()
    expect(page.get_by_text("System Active")).to_be_visible()
    expect(page.get_by_text("Real-Time Metrics")).to_be_visible()
    expect(page.get_by_text("Defense Status")).to_be_visible()
    box = page.locator("#center-input")
    box.fill("Ransomware is encrypting the inventory server")
    box.press("Enter")
    reply = page.get_by_test_id("agent-message").last
    expect(reply).to_contain_text("Isolate the affected host", timeout=15000)
    expect(reply.get_by_test_id("threat-badge")).to_have_text("critical")
    expect(reply).to_contain_text(re.compile(r"\d{2}:\d{2}:\d{2}"))
    expect(toast(page, "High Threat Detected")).to_contain_text("actively defending against threats")
    page.get_by_role("button", name=re.compile("^Gem Defense AI")).click()
    expect(page.get_by_test_id("agent-message")).to_have_count(0)
    page.get_by_role("button", name=re.compile("^Stock Defense AI")).click()
    expect(page.get_by_test_id("agent-message")).to_have_count(1)
    page.get_by_role("link", name="Go Home").click()
    expect(page.get_by_text("Sites Monitored")).to_be_visible()
