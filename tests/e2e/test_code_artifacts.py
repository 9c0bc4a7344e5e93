"""HTML artifacts in the browser (offline template engine, or the local test model with SECDASH_E2E_LLM=fake): a user
creates a page with Ctrl+Enter (v1), updates it (v2), finds both in Version History, loads v1 ("Version Loaded"),
compares v1 with v2 (highlighted added and removed rows with line numbers), restores v1 as v3, edits the HTML by
hand and saves it as v4, previews it in the sandboxed frame and downloads it under the spec's file name (and all
versions as a zip); a limited user works on their own artifacts only. The spec's empty texts and toasts; axe.

SECDASH_E2E_SCREENSHOTS=<folder> keeps screenshots at 1280 px and 390 px (to look at)."""

from __future__ import annotations

import io
import os
import re
import zipfile
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.helpers import assert_accessible, sign_in, toast
from tests.support.browser import LIMITED_EMAIL, LIMITED_PASSWORD, MODEL_MODE

SHOTS = os.environ.get("SECDASH_E2E_SCREENSHOTS", "")
GENERATION_TIMEOUT_MS = 90_000
# What each engine makes of the same requests (the test model: tests/support/fake_openai.py artifact_reply).
EXPECT = {
    "name": "Model Artifact" if MODEL_MODE else "Bean There",
    "update": "make the heading purple" if MODEL_MODE else "make it dark and add a footer saying Open every day",
    "added": "purple" if MODEL_MODE else "Open every day",
}
CREATE = "A landing page for a coffee shop called Bean There"
HAND_EDIT = '<p id="hand-made">Edited by hand in SecDash</p>\n'
TRANSPARENT = ("rgba(0, 0, 0, 0)", "transparent")


def _shot(page: Page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / name), full_page=True)


def _version(page: Page):
    return page.get_by_test_id("artifact-version")


def _fresh_page(page: Page) -> None:
    """/code-artifacts with no artifact open (other tests of this server may have left one open)."""
    page.goto("/code-artifacts")
    expect(page.get_by_role("heading", name="Code Mode - HTML Artifacts", level=1)).to_be_visible()
    expect(page.get_by_test_id("artifact-empty").or_(page.get_by_test_id("artifact-name"))).to_be_visible()
    if page.get_by_test_id("artifact-empty").count() == 0:
        page.get_by_test_id("new-artifact").click()
        expect(toast(page, "New Artifact")).to_be_visible()
    expect(page.get_by_text("Create your first HTML artifact")).to_be_visible()


def test_create_update_compare_restore_edit_preview_and_download(page: Page):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page)
    _fresh_page(page)
    expect(page.get_by_test_id("version-history")).to_contain_text("No history yet")
    send = page.get_by_test_id("artifact-send")
    expect(send).to_have_text("Create HTML")
    expect(send).to_be_disabled()  # a blank prompt sends nothing
    _shot(page, "code-artifacts-empty-1280.png")
    assert_accessible(page, "the empty artifacts page")

    prompt = page.get_by_test_id("artifact-prompt")
    prompt.fill(CREATE)
    prompt.press("Enter")  # Enter alone is a new line, not a send
    expect(toast(page, "Creating HTML")).to_have_count(0)
    prompt.press("Control+Enter")
    expect(toast(page, "Creating HTML")).to_be_visible()
    expect(prompt).to_have_value("")
    expect(_version(page)).to_have_text("v1", timeout=GENERATION_TIMEOUT_MS)
    expect(page.get_by_test_id("artifact-name")).to_have_text(EXPECT["name"])
    expect(send).to_have_text("Update HTML")
    expect(page.get_by_test_id("findings-badge")).to_have_text("No findings")
    expect(page.get_by_test_id("recent-artifacts").get_by_test_id("recent-artifact").first).to_contain_text(EXPECT["name"])

    prompt.fill(EXPECT["update"])
    send.click()
    expect(toast(page, "Updating HTML")).to_be_visible()
    expect(_version(page)).to_have_text("v2", timeout=GENERATION_TIMEOUT_MS)
    history = page.get_by_test_id("history-version")
    expect(history).to_have_count(2)
    expect(history.nth(0)).to_contain_text("v2")
    expect(history.nth(1)).to_contain_text("v1")

    # Load v1: the panel shows it, with a way to restore it.
    history.filter(has_text="v1").get_by_role("button").click()
    expect(toast(page, "Version Loaded")).to_be_visible()
    expect(_version(page)).to_have_text("v1")
    page.get_by_test_id("mode-edit").click()
    source = page.get_by_test_id("artifact-source").input_value()
    assert EXPECT["name"] in source and EXPECT["added"] not in source

    # Compare v1 with v2: added and removed rows, highlighted, with line numbers.
    page.get_by_test_id("mode-compare").click()
    expect(page.get_by_test_id("compare-from")).to_have_value("1")
    expect(page.get_by_test_id("compare-to")).to_have_value("2")
    diff = page.get_by_test_id("artifact-diff")
    added = diff.locator("[data-kind=added]").filter(has_text=EXPECT["added"]).first
    expect(added).to_be_visible()
    expect(diff.locator("[data-kind=removed]").first).to_be_visible()
    assert added.evaluate("r => getComputedStyle(r).backgroundColor") not in TRANSPARENT
    assert diff.locator("[data-kind=context]").first.evaluate("r => getComputedStyle(r).backgroundColor") in TRANSPARENT
    assert added.locator("span").nth(1).inner_text().strip().isdigit()  # its line number in v2
    expect(page.get_by_test_id("diff-summary")).to_contain_text("v1 → v2")
    page.get_by_test_id("compare-from").select_option("2")
    expect(page.get_by_test_id("diff-summary")).to_have_text("v2 and v2 have the same HTML")
    page.get_by_test_id("compare-from").select_option("1")
    expect(diff.locator("[data-kind=added]").first).to_be_visible()
    _shot(page, "code-artifacts-compare-1280.png")
    assert_accessible(page, "the compare view")

    # Restore v1 as v3: nothing is lost.
    page.get_by_test_id("restore-version").click()
    expect(toast(page, "Version Restored")).to_be_visible()
    expect(_version(page)).to_have_text("v3")
    expect(history).to_have_count(3)
    expect(history.nth(0)).to_contain_text("Restored version 1")
    expect(page.get_by_test_id("restore-version")).to_have_count(0)

    # Edit by hand and save as v4.
    page.get_by_test_id("mode-edit").click()
    editor = page.get_by_test_id("artifact-source")
    edited = editor.input_value().replace("</body>", HAND_EDIT + "</body>", 1)
    assert HAND_EDIT in edited
    expect(page.get_by_test_id("save-edit")).to_have_count(0)
    editor.fill(edited)
    page.get_by_test_id("save-edit").click()
    expect(toast(page, "Version Saved")).to_be_visible()
    expect(_version(page)).to_have_text("v4")
    expect(history.nth(0)).to_contain_text("edited by hand")
    expect(page.get_by_test_id("save-edit")).to_have_count(0)

    # Preview: the page runs in the sandboxed frame (scripts, no same-origin).
    page.get_by_test_id("mode-preview").click()
    frame_element = page.get_by_test_id("artifact-frame")
    expect(frame_element).to_have_attribute("sandbox", "allow-scripts")
    frame = page.frame_locator("[data-testid=artifact-frame]")
    expect(frame.get_by_role("heading", name=EXPECT["name"], level=1)).to_be_visible()
    expect(frame.locator("#hand-made")).to_have_text("Edited by hand in SecDash")
    assert frame.locator("body").evaluate("() => String(self.origin)") == "null"
    _shot(page, "code-artifacts-preview-1280.png")
    assert_accessible(page, "the preview of v4")

    # Downloads: the spec's file name; every version in the zip.
    base = EXPECT["name"].replace(" ", "_")
    with page.expect_download() as one:
        page.get_by_test_id("download-html").click()
    expect(toast(page, "Downloaded")).to_be_visible()
    assert one.value.suggested_filename == f"{base}_v4.html"
    assert HAND_EDIT.strip() in Path(one.value.path()).read_text()
    with page.expect_download() as zipped:
        page.get_by_test_id("download-all").click()
    with zipfile.ZipFile(io.BytesIO(Path(zipped.value.path()).read_bytes())) as archive:
        names = {name.split("/", 1)[1] for name in archive.namelist()}
    assert names == {f"{base}_v{n}.html" for n in (1, 2, 3, 4)}

    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.get_by_test_id("artifact-frame")).to_be_visible()
    _shot(page, "code-artifacts-phone-390.png")
    assert_accessible(page, "the artifacts page on a phone")
    page.set_viewport_size({"width": 1280, "height": 900})

    # A reload shows the same artifact and its history (the server holds it).
    page.reload()
    expect(_version(page)).to_have_text("v4")
    expect(page.get_by_test_id("history-version")).to_have_count(4)


def test_a_limited_user_works_on_their_own_artifacts(page: Page):
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    page.goto("/code-artifacts")
    expect(page.get_by_text("Create your first HTML artifact")).to_be_visible()
    expect(page.get_by_test_id("recent-artifacts")).to_contain_text("No artifacts yet")  # nobody else's
    expect(page.get_by_test_id("version-history")).to_contain_text("No history yet")
    _shot(page, "code-artifacts-empty-390.png")

    prompt = page.get_by_test_id("artifact-prompt")
    prompt.fill(CREATE)
    page.get_by_test_id("artifact-send").click()
    expect(toast(page, "Creating HTML")).to_be_visible()
    expect(_version(page)).to_have_text("v1", timeout=GENERATION_TIMEOUT_MS)
    expect(page.get_by_test_id("recent-artifact")).to_have_count(1)
    frame = page.frame_locator("[data-testid=artifact-frame]")
    expect(frame.get_by_role("heading", name=EXPECT["name"], level=1)).to_be_visible()
    _shot(page, "code-artifacts-limited-390.png")
    assert_accessible(page, "a limited user's artifact on a phone")


def test_the_code_mode_tools_link_each_other(page: Page):
    """The navigation's Code Mode opens the builder; its tools bar reaches the HTML artifacts and back."""
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page)
    page.goto("/code-mode")
    tools = page.get_by_role("navigation", name="Code Mode tools")
    expect(tools.get_by_role("link", name="Live Code Builder")).to_have_attribute("aria-current", "page")
    tools.get_by_role("link", name="HTML Artifacts").click()
    expect(page.get_by_role("heading", name="Code Mode - HTML Artifacts", level=1)).to_be_visible()
    expect(page).to_have_url(re.compile(r"/code-artifacts$"))
    tools.get_by_role("link", name="Live Code Builder").click()
    expect(page.get_by_role("heading", name="Live Code Builder", level=1)).to_be_visible()
