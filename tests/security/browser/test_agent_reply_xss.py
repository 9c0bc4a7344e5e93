"""A model reply that quotes attacker HTML shows as text on every chat surface: nothing runs, no
element is created, and the sign-in token stays out of reach.

Runs with SECDASH_E2E_LLM=fake: the local OpenAI-compatible server echoes the question, so the
reply carries exactly the payload an attacker planted in pasted text."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in
from tests.support.browser import MODEL_MODE

pytestmark = pytest.mark.skipif(not MODEL_MODE, reason="needs SECDASH_E2E_LLM=fake")

PAYLOAD = (
    "<img src=x onerror=\"window.__xss_img=localStorage.getItem('auth_token')\"> "
    "<iframe srcdoc=\"<script>parent.__xss_iframe=parent.localStorage.getItem('auth_token')</script>\"></iframe> "
    "<script>window.__xss_script=1</script> <b>bold?</b> [js link](javascript:window.__xss_link=1)"
)


def _assert_inert(page: Page, reply) -> None:
    expect(reply).to_contain_text("onerror=", timeout=15000)  # the HTML is shown as text
    # by the Markdown renderer (loaded on first use), not only by its plain-text placeholder
    expect(reply.get_by_role("link", name="js link")).to_have_count(1)
    expect(reply).to_contain_text("<iframe srcdoc=")
    assert reply.locator("img, iframe, script, b").count() == 0
    for link in reply.get_by_role("link", name="js link").all():
        assert (link.get_attribute("href") or "") == ""
        link.click()
    page.wait_for_timeout(300)
    leaked = page.evaluate("() => [window.__xss_img, window.__xss_iframe, window.__xss_script, window.__xss_link]")
    assert leaked == [None, None, None, None]


def _widget_composer(page: Page):
    page.get_by_role("button", name="Open defense chat").click()
    panel = page.get_by_role("dialog", name="Defense Command chat")
    return panel.get_by_role("textbox"), panel.get_by_test_id("agent-message")


def _command_composer(page: Page):
    page.goto("/defense-command")
    page.get_by_role("button", name=re.compile("^Stock")).click()
    return page.locator("#command-input"), page.get_by_test_id("agent-message")


def _center_composer(page: Page):
    page.goto("/defense-command/center")
    return page.locator("#center-input"), page.get_by_test_id("agent-message")


@pytest.mark.parametrize(
    "open_composer", [_widget_composer, _command_composer, _center_composer], ids=["widget", "defense-command", "center"]
)
def test_a_reply_with_html_is_inert(page: Page, open_composer):
    sign_in(page)
    box, replies = open_composer(page)
    box.fill(PAYLOAD)
    box.press("Enter")
    _assert_inert(page, replies.last)
