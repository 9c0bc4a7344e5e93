"""The chat surfaces against a configured OpenAI-compatible server (the local test server).

Runs only with SECDASH_E2E_LLM=fake (make test runs it as a second pass with its own server)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in, toast
from tests.support.browser import MODEL_MODE

pytestmark = pytest.mark.skipif(not MODEL_MODE, reason="needs SECDASH_E2E_LLM=fake")


def _open_widget(page: Page):
    page.get_by_role("button", name="Open defense chat").click()
    panel = page.get_by_role("dialog", name="Defense Command chat")
    expect(panel).to_be_visible()
    return panel


def test_widget_streams_the_model_reply_and_shows_the_engine(page: Page, fake_model):
    sign_in(page)
    panel = _open_widget(page)
    box = panel.get_by_role("textbox")
    box.fill("hello model")
    box.press("Enter")
    reply = panel.get_by_test_id("agent-message").last
    expect(reply).to_contain_text("You said: hello model", timeout=15000)
    expect(reply).to_contain_text("openai-compatible")
    assert any(r["body"].get("stream") for r in fake_model.requests)


def test_widget_failure_shows_the_error_toast(page: Page):
    sign_in(page)
    panel = _open_widget(page)
    box = panel.get_by_role("textbox")
    box.fill("[fail] please")
    box.press("Enter")
    expect(toast(page, "Error")).to_contain_text("Failed to send message", timeout=15000)
    expect(box).to_be_enabled()


def test_defense_command_page_error_ends_the_wait_silently(page: Page):
    sign_in(page)
    page.goto("/defense-command")
    page.get_by_role("button", name=re.compile("^Stock")).click()
    box = page.locator("#command-input")
    box.fill("[fail] status")
    box.press("Enter")
    expect(box).to_be_enabled(timeout=15000)
    expect(page.get_by_test_id("agent-message")).to_have_count(0)
    expect(page.locator("[data-sonner-toast]")).to_have_count(0)


def test_center_failure_message_threat_toast_and_stop(page: Page, fake_model):
    sign_in(page)
    page.goto("/defense-command/center")
    box = page.locator("#center-input")
    box.fill("[fail] report")
    box.press("Enter")
    expect(page.get_by_test_id("agent-message").last).to_contain_text(
        "Defense protocols active. Continuing security operations.", timeout=15000
    )

    box.fill("an attack on the stock api")
    box.press("Enter")
    reply = page.get_by_test_id("agent-message").last
    expect(reply).to_contain_text("You said: an attack on the stock api", timeout=15000)
    expect(reply.get_by_test_id("threat-badge")).to_have_text("high")
    expect(toast(page, "High Threat Detected")).to_be_visible()

    cancelled_before = fake_model.cancelled
    box.fill("[slow] tell me everything")
    box.press("Enter")
    expect(page.get_by_test_id("typing-indicator")).to_contain_text("w3", timeout=15000)
    page.get_by_role("button", name="Stop").click()
    expect(box).to_be_enabled(timeout=10000)
    kept = page.get_by_test_id("agent-message").last
    expect(kept).to_contain_text("w1")
    expect(kept).not_to_contain_text("w49")
    page.wait_for_timeout(1500)
    assert fake_model.cancelled == cancelled_before + 1  # the upstream request was really closed
