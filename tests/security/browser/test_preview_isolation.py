"""A generated page in the builder's preview cannot reach the app: it runs in an opaque origin (the frame has no
allow-same-origin, and the /preview/ response's own CSP sandboxes it), so it cannot read localStorage.auth_token or
document.cookie, cannot call /api/... with the user's credentials, and cannot navigate the top window. The page
below tries each and writes what happened. Opened in a window of its own, the link shows SecDash's banner page
and the generated page below it with scripts off."""

from __future__ import annotations

import json
import subprocess
import sys

from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in
from tests.support.browser import ADMIN_EMAIL, SERVER_ENV
from tests.support.live_server import PROJECT_ROOT

HOSTILE = """<!doctype html>
<html><head><meta charset="utf-8"><title>hostile</title></head>
<body>
<h1>Hostile preview</h1>
<ul id="results"></ul>
<script src="attack.js"></script>
</body></html>
"""
ATTACK = """
const out = document.getElementById('results');
function note(name, value) {
  const li = document.createElement('li');
  li.dataset.attempt = name;
  li.textContent = name + ': ' + value;
  out.appendChild(li);
}
function attempt(name, fn) {
  try { note(name, 'LEAKED ' + String(fn())); } catch (e) { note(name, 'blocked ' + e.name); }
}
note('origin', String(self.origin));
attempt('localStorage', () => localStorage.getItem('auth_token'));
attempt('parentStorage', () => parent.localStorage.getItem('auth_token'));
attempt('cookie', () => document.cookie);
if (window === top) note('topLocation', 'not framed');
else attempt('topLocation', () => { top.location.href = '/api/code-project'; return 'navigated'; });
attempt('popup', () => { const w = window.open('/api/code-project'); return w === null ? 'null window' : 'opened'; });
fetch('/api/code-project', {credentials: 'include'})
  .then(r => r.text().then(t => note('fetch', 'LEAKED ' + r.status + ' ' + t.slice(0, 80))))
  .catch(e => note('fetch', 'blocked ' + e.name));
"""


def _opened_in_a_window(page: Page, src: str) -> None:
    """The preview link opened in a window of its own (issue 21, item 12: a generated fake sign-in page filled the
    window on the console's origin and sent what was typed away): SecDash's banner says what it is, and the page is
    shown below it in a frame with scripts and forms off, so it can send nothing anywhere."""
    direct = page.context.new_page()
    direct.goto(src)
    expect(direct.get_by_role("alert")).to_contain_text("this is not a SecDash page")
    expect(direct.locator("iframe")).to_have_attribute("sandbox", "")
    inner = direct.frame_locator("iframe")
    expect(inner.get_by_role("heading", name="Hostile preview")).to_be_visible()
    direct.wait_for_timeout(500)
    expect(inner.locator("#results li")).to_have_count(0)  # its script never ran
    direct.close()


def _plant(files: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "tests.support.plant_project", ADMIN_EMAIL, "Hostile page"],
        input=json.dumps(files),
        text=True,
        check=True,
        capture_output=True,
        cwd=PROJECT_ROOT,
        env=SERVER_ENV,
    )


def test_a_generated_page_cannot_escape_the_preview(page: Page):
    sign_in(page)
    token_before = page.evaluate("() => localStorage.getItem('auth_token')")
    assert token_before
    _plant({"index.html": HOSTILE, "attack.js": ATTACK})
    page.goto("/code-mode")
    expect(page.get_by_test_id("project-name")).to_have_text("Hostile page")
    page.get_by_role("button", name="Preview").click()
    frame_element = page.get_by_test_id("preview-frame")
    expect(frame_element).to_have_attribute("sandbox", "allow-scripts")
    frame = page.frame_locator("[data-testid=preview-frame]")
    results = frame.locator("#results li")
    expect(results).to_have_count(7, timeout=15000)
    attempts = {item.get_attribute("data-attempt"): item.text_content() for item in results.all()}
    assert attempts["origin"] == "origin: null"
    for name in ("localStorage", "parentStorage", "cookie", "topLocation", "fetch"):
        assert attempts[name].startswith(f"{name}: blocked"), attempts
    assert attempts["popup"] == "popup: LEAKED null window"  # window.open returns null: no popup
    assert page.url.rstrip("/").endswith("/code-mode")  # the top window stayed where it was
    assert len(page.context.pages) == 1
    assert page.evaluate("() => localStorage.getItem('auth_token')") == token_before

    _opened_in_a_window(page, frame_element.get_attribute("src"))


# The same attempts from an HTML artifact version (one page: the script is inline), against the artifacts API.
HOSTILE_ARTIFACT = HOSTILE.replace(
    '<script src="attack.js"></script>', "<script>\n" + ATTACK.replace("/api/code-project", "/api/artifacts") + "</script>"
)


def _attempts(items) -> dict[str, str | None]:
    expect(items).to_have_count(7, timeout=15000)
    return {item.get_attribute("data-attempt"): item.text_content() for item in items.all()}


def test_a_hostile_artifact_cannot_escape_the_preview(page: Page):
    sign_in(page)
    token_before = page.evaluate("() => localStorage.getItem('auth_token')")
    assert token_before
    subprocess.run(
        [sys.executable, "-m", "tests.support.plant_artifact", ADMIN_EMAIL, "Hostile artifact"],
        input=HOSTILE_ARTIFACT,
        text=True,
        check=True,
        capture_output=True,
        cwd=PROJECT_ROOT,
        env=SERVER_ENV,
    )
    page.goto("/code-artifacts")
    expect(page.get_by_test_id("artifact-name")).to_have_text("hostile")  # named after its <title>
    expect(page.get_by_test_id("artifact-version")).to_have_text("v1")
    frame_element = page.get_by_test_id("artifact-frame")  # the preview shows first
    expect(frame_element).to_have_attribute("sandbox", "allow-scripts")
    attempts = _attempts(page.frame_locator("[data-testid=artifact-frame]").locator("#results li"))
    assert attempts["origin"] == "origin: null"
    for name in ("localStorage", "parentStorage", "cookie", "topLocation", "fetch"):
        assert attempts[name].startswith(f"{name}: blocked"), attempts
    assert attempts["popup"] == "popup: LEAKED null window"  # window.open returns null: no popup
    assert page.url.rstrip("/").endswith("/code-artifacts")  # the top window stayed where it was
    assert len(page.context.pages) == 1
    assert page.evaluate("() => localStorage.getItem('auth_token')") == token_before

    _opened_in_a_window(page, frame_element.get_attribute("src"))
