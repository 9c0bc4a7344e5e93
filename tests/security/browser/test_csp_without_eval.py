"""The real server's CSP has no 'unsafe-eval', and nothing in the app needs it.

Server-sent toasts (from a form handler, a page's on_load and a streaming background handler), the
sign-in hand-over (token stored, HttpOnly cookie, new client token), a Markdown reply (loaded on
first use) and the sign-out all work with no CSP violation, no EvalError and no page error.
"""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.helpers import toast
from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD

COLLECT_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
});
"""
CSP_WORDS = re.compile(r"Content Security Policy|unsafe-eval|EvalError", re.I)


def _script_src(base_url: str, path: str) -> list[str]:
    csp = httpx.get(base_url + path).headers["content-security-policy"]
    return next(d for d in csp.split(";") if d.strip().startswith("script-src")).split()


def test_the_served_policy_allows_no_eval(base_url: str):
    for path in ("/", "/login/", "/history/", "/api/health"):
        script_src = _script_src(base_url, path)
        assert "'unsafe-eval'" not in script_src and "'unsafe-inline'" not in script_src, path


def test_toasts_sign_in_chat_and_sign_out_need_no_eval(page: Page):
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if CSP_WORDS.search(m.text) else None)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.add_init_script(COLLECT_VIOLATIONS)

    # Toasts a form handler returns.
    page.goto("/login")
    expect(page.get_by_role("heading", name="Admin Access Portal")).to_be_visible()
    page.get_by_role("button", name="Access System").click()
    expect(toast(page, "Validation Error")).to_be_visible()
    page.get_by_label("Email").fill(ADMIN_EMAIL)
    page.locator("#password").fill("not-the-password-at-all")
    page.get_by_role("button", name="Access System").click()
    expect(toast(page, "Login Failed")).to_be_visible()
    page.reload()  # a toast is shown once: the next load of the tab does not repeat it
    expect(page.get_by_role("heading", name="Admin Access Portal")).to_be_visible()
    page.wait_for_timeout(1000)
    expect(toast(page, "Login Failed")).to_have_count(0)

    # The sign-in hand-over: the token in local storage, the HttpOnly cookie, a new client token.
    client_token = page.evaluate("() => sessionStorage.getItem('token')")
    page.get_by_label("Email").fill(ADMIN_EMAIL)
    page.locator("#password").fill(ADMIN_PASSWORD)
    page.get_by_role("button", name="Access System").click()
    expect(page.get_by_role("banner").get_by_role("button", name="Logout")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/$"))
    assert page.evaluate("() => localStorage.getItem('auth_token')").count(".") == 2
    assert page.evaluate("() => sessionStorage.getItem('token')") != client_token
    cookie = next(c for c in page.context.cookies() if c["name"] == "secdash_session")
    assert cookie["httpOnly"]

    # A Markdown reply, its renderer loaded when the reply shows; then a toast from a streaming handler.
    page.goto("/defense-command/center")
    box = page.locator("#center-input")
    box.fill("We see 5000 failed logins per minute from one IP range, what do we do?")
    box.press("Enter")
    reply = page.get_by_test_id("agent-message").last
    expect(reply.locator("strong, li").first).to_be_visible(timeout=30000)
    expect(toast(page, "High Threat Detected")).to_be_visible(timeout=30000)

    # Sign-out: the stored token and the cookie are gone, the tab is on the landing page.
    page.goto("/")
    with page.expect_response(lambda response: "/api/auth/logout" in response.url):  # the full-page logout
        page.get_by_role("banner").get_by_role("button", name="Logout").click()
    page.wait_for_load_state("load")
    expect(page.get_by_role("link", name="Access Security Dashboard")).to_be_visible()
    assert page.evaluate("() => localStorage.getItem('auth_token')") in (None, "", '""')
    assert not [c for c in page.context.cookies() if c["name"] == "secdash_session"]

    # A toast from a page's on_load: a signed-out visit to a protected page.
    page.goto("/history")
    expect(toast(page, "Unauthorized")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/$"))

    assert page.evaluate("window.__cspViolations || []") == []
    assert problems == []
