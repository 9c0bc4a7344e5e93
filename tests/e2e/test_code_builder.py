"""The Live Code Builder in the browser (offline template engine, or the local test model with SECDASH_E2E_LLM=fake):
a user builds with Ctrl+Enter and watches the
files arrive, continues and reads the diff, previews the project in its sandboxed frame, downloads the zip and a
file, saves, starts a new project and clears everything; the spec's empty texts, toasts and dialog.

SECDASH_E2E_SCREENSHOTS=<folder> keeps screenshots at 1280 px and 390 px (to look at)."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.helpers import assert_accessible, sign_in, toast
from tests.support.browser import MODEL_MODE

SHOTS = os.environ.get("SECDASH_E2E_SCREENSHOTS", "")
BUILD_TIMEOUT_MS = 90_000
# What each engine makes of the same requests (the test model: tests/support/fake_openai.py project_reply).
EXPECT = {
    "name": "Model Page" if MODEL_MODE else "Bean There",
    "engine": "Engine: openai-compatible (echo)" if MODEL_MODE else "Engine: the offline template engine",
    "continue": "make the heading purple" if MODEL_MODE else "make it dark and add a footer saying Open every day",
    "changed": "style.css" if MODEL_MODE else "index.html",
    "added": "purple" if MODEL_MODE else "Open every day",
}


def _shot(page: Page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / name), full_page=True)


def _status(page: Page):
    return page.get_by_test_id("project-status")


def test_build_continue_preview_download_and_clear(page: Page):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page)
    page.goto("/code-mode")
    expect(page.get_by_role("heading", name="Live Code Builder")).to_be_visible()
    expect(page.get_by_text("Connected to secure development environment...")).to_be_visible()
    send = page.get_by_test_id("builder-send")
    expect(send).to_have_text("Build")
    expect(send).to_be_disabled()  # a blank prompt sends nothing
    expect(page.get_by_role("button", name="Save")).to_have_count(0)
    expect(page.get_by_role("button", name="Preview")).to_have_count(0)
    _shot(page, "code-builder-empty-1280.png")

    prompt = page.get_by_test_id("builder-prompt")
    prompt.fill("A landing page for a coffee shop called Bean There")
    prompt.press("Enter")  # Enter alone is a new line, not a send
    expect(toast(page, "Build Started")).to_have_count(0)
    prompt.press("Control+Enter")
    expect(toast(page, "Build Started")).to_be_visible()
    expect(prompt).to_have_value("")
    expect(page.get_by_test_id("file-row").filter(has_text="index.html")).to_be_visible(timeout=BUILD_TIMEOUT_MS)
    expect(_status(page)).to_have_text("COMPLETE", timeout=BUILD_TIMEOUT_MS)
    expect(page.get_by_test_id("project-name")).to_have_text(EXPECT["name"])
    log = page.get_by_test_id("build-log")
    expect(log).to_contain_text(EXPECT["engine"])
    expect(log.locator("[data-type=success]").filter(has_text="Created index.html")).to_be_visible()
    expect(log.locator("[data-type=success]").filter(has_text="Checks passed")).to_be_visible()
    expect(page.get_by_test_id("project-checks")).to_have_text("Checks: 0 errors, 0 warnings")
    expect(send).to_have_text("Continue")
    _shot(page, "code-builder-built-1280.png")
    assert_accessible(page, "a built project")

    page.get_by_test_id("file-row").filter(has_text="index.html").get_by_role("button").click()
    expect(page.get_by_test_id("file-viewer")).to_contain_text(EXPECT["name"])

    prompt.fill(EXPECT["continue"])
    send.click()
    expect(toast(page, "Continuing Build")).to_be_visible()
    expect(log.locator("[data-type=success]").filter(has_text=f"Updated {EXPECT['changed']}")).to_be_visible(
        timeout=BUILD_TIMEOUT_MS
    )
    expect(_status(page)).to_have_text("COMPLETE", timeout=BUILD_TIMEOUT_MS)
    changed = page.get_by_test_id("file-row").filter(has_text="changed")
    expect(changed.first).to_be_visible()
    unchanged = page.get_by_test_id("file-row").filter(has_text="app.js")
    expect(unchanged).not_to_contain_text("changed")
    page.get_by_test_id("file-row").filter(has_text=EXPECT["changed"]).get_by_role("button").click()
    page.get_by_test_id("show-changes").click()
    diff = page.get_by_test_id("file-diff")
    expect(diff.locator("[data-kind=added]").filter(has_text=EXPECT["added"])).to_be_visible()
    expect(diff.locator("[data-kind=removed]").first).to_be_visible()
    _shot(page, "code-builder-continued-1280.png")
    assert_accessible(page, "a continued project, its diff")

    page.get_by_role("button", name="Preview").click()
    frame = page.frame_locator("[data-testid=preview-frame]")
    heading = frame.get_by_role("heading", name=EXPECT["name"], level=1)
    expect(heading).to_be_visible()
    if MODEL_MODE:  # style.css (purple heading) loaded in the sandbox
        assert heading.evaluate("h => getComputedStyle(h).color") == "rgb(128, 0, 128)"
    else:
        expect(frame.get_by_text("Open every day")).to_be_visible()
        background = frame.locator("body").evaluate("b => getComputedStyle(b).backgroundColor")
        assert background not in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)")  # style.css (dark) loaded
    _shot(page, "code-builder-preview-1280.png")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("preview-frame")).to_have_count(0)

    with page.expect_download() as zipped:
        page.get_by_role("button", name="Download", exact=True).click()
    expect(toast(page, "Files Downloaded")).to_be_visible()
    with zipfile.ZipFile(io.BytesIO(Path(zipped.value.path()).read_bytes())) as archive:
        names = {name.split("/", 1)[1] for name in archive.namelist()}
    assert names == {"index.html", "style.css", "app.js"}
    page.get_by_test_id("file-row").filter(has_text=EXPECT["changed"]).get_by_role("button").click()
    with page.expect_download() as one:
        page.get_by_test_id("download-file").click()
    assert one.value.suggested_filename == EXPECT["changed"]
    assert EXPECT["added"] in Path(one.value.path()).read_text()

    page.get_by_role("button", name="Save").click()
    expect(toast(page, "Project Saved")).to_be_visible()

    page.set_viewport_size({"width": 390, "height": 844})
    _shot(page, "code-builder-phone-390.png")
    page.set_viewport_size({"width": 1280, "height": 900})

    page.get_by_role("button", name="New Project").click()
    expect(toast(page, "New Project")).to_be_visible()
    expect(send).to_have_text("Build")
    expect(page.get_by_text("Connected to secure development environment...")).to_be_visible()

    page.get_by_role("button", name="Clear All").click()
    dialog = page.get_by_role("alertdialog")
    expect(dialog.get_by_text("Clear All Projects?")).to_be_visible()
    expect(dialog).to_contain_text(
        "This action will permanently delete all your code projects and cannot be undone. "
        "All files, build logs, and project data will be removed."
    )
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_have_count(0)
    page.get_by_role("button", name="Clear All").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Delete All Projects").click()
    expect(toast(page, "All Projects Cleared")).to_be_visible()
    page.reload()
    expect(page.get_by_text("Connected to secure development environment...")).to_be_visible()
    expect(page.get_by_test_id("file-row")).to_have_count(0)
