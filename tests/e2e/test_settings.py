"""Settings (alerting) in the browser: an admin reaches Settings from the navigation, adds a webhook channel pointing
at a local receiver started by the test (a refused URL first: the toast says why and the typed fields stay), sends a
test and sees "Sent", the delivery in the log and the receiver holding the message; the edit dialog shows the masked
URL and an empty field for a new one; the channel is deleted after a confirmation. A limited user has no Settings
item and the page refuses. axe-clean, at 1280 px and 390 px.

SECDASH_E2E_SCREENSHOTS=<folder> keeps screenshots at 1280 px and 390 px (to look at)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import assert_accessible, sign_in, toast
from tests.support.browser import LIMITED_EMAIL, LIMITED_PASSWORD
from tests.support.notify_receivers import WebhookReceiver

SHOTS = os.environ.get("SECDASH_E2E_SCREENSHOTS", "")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PRIVATE = "Allow a private or local address (only for hosts you own)"


@pytest.fixture
def receiver():
    hook = WebhookReceiver()
    yield hook
    hook.close()


def _shot(page: Page, name: str) -> None:
    """A full-page screenshot at 1280 px and at 390 px (the page keeps its state while it is resized)."""
    if not SHOTS:
        return
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    for label, viewport in (("1280", DESKTOP), ("390", PHONE)):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(300)
        page.screenshot(path=str(Path(SHOTS) / f"settings-{name}-{label}.png"), full_page=True)
    if size:
        page.set_viewport_size(size)


def _fits(page: Page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    logout = page.get_by_role("banner").get_by_role("button", name="Logout")
    box = logout.bounding_box()
    assert box is not None and box["x"] + box["width"] <= width, box


def test_an_admin_adds_a_webhook_sends_a_test_and_sees_the_delivery(page: Page, receiver: WebhookReceiver):
    page.set_viewport_size(DESKTOP)
    sign_in(page)
    banner = page.get_by_role("banner")
    banner.get_by_role("link", name="Settings", exact=True).click()
    expect(page.get_by_role("heading", name="Settings", level=1)).to_be_visible()
    expect(banner.get_by_role("link", name="Settings", exact=True)).to_have_attribute("aria-current", "page")
    _fits(page, DESKTOP["width"])
    main = page.get_by_role("main")
    expect(main.get_by_role("region", name="Rules").get_by_test_id("rule-row")).to_have_count(8)
    page.mouse.move(600, 600)  # off the nav link: a hovered link takes Radix's darker hover colour
    assert_accessible(page, "settings as loaded")

    name = f"E2E webhook {uuid.uuid4().hex[:6]}"
    form = main.get_by_role("form", name="Add channel")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Apprise URL").fill(receiver.url())
    form.get_by_role("button", name="Add channel").click()
    # Without "Allow a private or local address" the local receiver is refused; nothing typed is lost.
    expect(toast(page, "Channel not added")).to_contain_text(PRIVATE.split(" (")[0])
    expect(form.get_by_label("Name")).to_have_value(name)
    expect(form.get_by_label("Apprise URL")).to_have_value(receiver.url())
    form.get_by_label(PRIVATE).click()
    expect(form.get_by_label(PRIVATE)).to_be_checked()  # at once, before any round trip (the box is the user's)
    form.get_by_role("button", name="Add channel").click()
    expect(toast(page, "Channel added")).to_be_visible()
    expect(form.get_by_label("Apprise URL")).to_have_value("")  # emptied for the next channel

    row = main.get_by_test_id("channel-row").filter(has_text=name)
    expect(row).to_contain_text("JSON")
    expect(row.get_by_test_id("channel-url")).to_contain_text(f"127.0.0.1:{receiver.port}")
    expect(row.get_by_test_id("channel-test-result")).to_have_text("Never tested")
    row.get_by_role("button", name=f"Send a test to {name}").click()
    expect(row.get_by_test_id("channel-test-result")).to_have_text("Sent", timeout=30000)
    expect(toast(page, "Test sent")).to_be_visible()
    received = receiver.wait_for(1)
    assert [body.get("title") for _path, body in received] == ["SecDash test notification"]
    assert name in received[0][1].get("message", "")
    delivery = page.get_by_test_id("delivery-row").first  # newest first
    expect(delivery).to_contain_text(name)
    expect(delivery).to_contain_text("SecDash test notification")
    expect(delivery.get_by_test_id("delivery-outcome")).to_have_text("sent")
    expect(delivery).to_contain_text("1 attempt")
    assert_accessible(page, "settings after a test")
    _shot(page, "channel")

    row.get_by_role("button", name=f"Edit {name}").click()
    dialog = page.get_by_role("dialog", name="Edit channel")
    expect(dialog.get_by_label("Name")).to_have_value(name)
    expect(dialog.get_by_label("New apprise URL (optional)")).to_have_value("")
    expect(dialog).to_contain_text(f"127.0.0.1:{receiver.port}")
    assert_accessible(page, "the edit dialog")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_have_count(0)

    finding = main.get_by_test_id("rule-row").filter(has_text="A new finding at or above a severity")
    finding.get_by_label("Send to").select_option("chosen")
    choice = finding.get_by_role("group", name="Channels for: A new finding at or above a severity")
    expect(choice.get_by_label(name)).not_to_be_checked()
    choice.get_by_label(name).click()
    expect(choice.get_by_label(name)).to_be_checked()  # the draft follows the server's answer
    expect(main.get_by_text("Unsaved changes")).to_be_visible()
    assert_accessible(page, "a rule for chosen channels")
    _shot(page, "chosen")
    main.get_by_role("button", name="Discard changes").click()
    expect(finding.get_by_label("Send to")).to_have_value("all")

    row.get_by_role("button", name=f"Delete {name}").click()
    confirm = page.get_by_role("alertdialog")
    expect(confirm).to_contain_text(f"Delete channel {name}?")
    assert_accessible(page, "the delete confirmation")
    confirm.get_by_role("button", name="Delete channel").click()
    expect(toast(page, "Channel deleted")).to_be_visible()
    expect(row).to_have_count(0)
    expect(delivery).to_contain_text(name)  # its deliveries stay in the log


def test_rules_are_saved_and_a_refused_value_stays_as_typed(page: Page):
    page.set_viewport_size(DESKTOP)
    sign_in(page)
    page.goto("/settings")
    rules = page.get_by_role("region", name="Rules")
    tls = rules.get_by_test_id("rule-row").filter(has_text="A TLS certificate expires soon")
    days = tls.get_by_label("Days before expiry")
    expect(days).to_have_value("14")
    reminder = rules.get_by_label("Reminder every (minutes)")
    before = reminder.input_value()
    reminder.fill("soon")
    days.fill("30")
    rules.get_by_role("button", name="Save rules").click()
    expect(toast(page, "Rules not saved")).to_contain_text("reminderMinutes must be a whole number")
    expect(reminder).to_have_value("soon")  # nothing typed is lost
    expect(days).to_have_value("30")
    expect(rules.get_by_text("Unsaved changes")).to_be_visible()
    reminder.fill(before)
    rules.get_by_role("button", name="Save rules").click()
    expect(toast(page, "Rules saved")).to_be_visible()
    page.reload()
    expect(
        page.get_by_role("region", name="Rules")
        .get_by_test_id("rule-row")
        .filter(has_text="A TLS certificate expires soon")
        .get_by_label("Days before expiry")
    ).to_have_value("30")
    # Back to the default for the other tests of this server.
    page.get_by_role("region", name="Rules").get_by_label("Days before expiry").fill("14")
    page.get_by_role("region", name="Rules").get_by_role("button", name="Save rules").click()
    expect(toast(page, "Rules saved")).to_be_visible()


def test_the_settings_page_fits_a_phone_and_the_menu_offers_it(page: Page):
    page.set_viewport_size(PHONE)
    sign_in(page)
    page.get_by_role("button", name="Toggle navigation menu").or_(page.get_by_label("Toggle navigation menu")).click()
    page.get_by_role("navigation", name="Main navigation").get_by_role("link", name="Settings").first.click()
    expect(page.get_by_role("heading", name="Settings", level=1)).to_be_visible()
    expect(page.get_by_test_id("rule-row")).to_have_count(8)
    _fits(page, PHONE["width"])
    assert_accessible(page, "settings on a phone")


def test_a_limited_user_has_no_settings_item_and_the_page_refuses(page: Page):
    sign_in(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    expect(page.get_by_role("banner").get_by_role("link", name="History Logs").first).to_be_attached()
    expect(page.get_by_role("link", name="Settings")).to_have_count(0)
    page.goto("/settings")
    expect(page.get_by_test_id("admins-only")).to_have_text("Only administrators can manage alerting.")
    expect(page.get_by_role("form", name="Add channel")).to_have_count(0)
    expect(page.get_by_test_id("delivery-log")).to_have_count(0)
    assert_accessible(page, "settings as a limited user")
    _shot(page, "limited")
