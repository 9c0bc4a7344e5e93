"""Signing in and out through the browser, as an administrator would."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in, toast
from tests.support.browser import ADMIN_EMAIL, LIMITED_EMAIL, LIMITED_PASSWORD


def test_landing_page_leads_to_the_admin_portal(page: Page):
    page.goto("/")
    expect(page.get_by_text("Advanced Security Monitoring System")).to_be_visible()
    for feature in (
        "Live Traffic Monitoring",
        "Real-time User Scanning",
        "AI Defense Capabilities",
        "Security Problem Database",
        "Live Threat Detection",
    ):
        expect(page.get_by_text(feature)).to_be_visible()
    expect(page.get_by_text("Authorized Access Only")).to_be_visible()
    page.get_by_role("link", name="Access Security Dashboard").click()
    expect(page).to_have_url(re.compile(r"/login/?$"))
    expect(page.get_by_role("heading", name="Admin Access Portal")).to_be_visible()
    page.goto("/landing")
    expect(page.get_by_role("link", name="Access Security Dashboard")).to_be_visible()


def test_empty_fields_show_the_validation_toast(page: Page):
    page.goto("/login")
    expect(page.get_by_label("Email")).to_have_attribute("type", "email")
    page.get_by_role("button", name="Access System").click()
    expect(toast(page, "Validation Error")).to_contain_text("Please enter both email and password")


def test_password_visibility_toggle(page: Page):
    page.goto("/login")
    password = page.locator("#password")
    expect(password).to_have_attribute("type", "password")
    page.get_by_role("button", name="Show password").click()
    expect(password).to_have_attribute("type", "text")
    page.get_by_role("button", name="Hide password").click()
    expect(password).to_have_attribute("type", "password")


def test_wrong_password_shows_login_failed(page: Page):
    page.goto("/login")
    page.get_by_label("Email").fill(ADMIN_EMAIL)
    page.locator("#password").fill("definitely-not-it")
    page.get_by_role("button", name="Access System").click()
    expect(toast(page, "Login Failed")).to_contain_text("Invalid credentials")
    expect(page).to_have_url(re.compile(r"/login/?$"))


def test_admin_signs_in_to_the_shell_and_out_again(page: Page, base_url: str):
    sign_in(page, through_the_form=True)
    nav = page.get_by_role("navigation", name="Main navigation").first
    for label in ("Dashboard", "History Logs", "Defense Command", "AI Systems", "Battle Station", "Fix Mode", "Code Mode"):
        expect(nav.get_by_role("link", name=label)).to_be_visible()
    expect(nav.locator("[aria-current=page]")).to_have_text("Dashboard")
    expect(page.get_by_text(ADMIN_EMAIL)).to_be_visible()
    expect(page.get_by_text("Admin", exact=True)).to_be_visible()
    token = page.evaluate("localStorage.getItem('auth_token')")
    assert token and token.count(".") == 2
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies["secdash_session"]["httpOnly"]

    with page.expect_navigation(url=re.compile(r"/$")):
        page.get_by_role("banner").get_by_role("button", name="Logout").click()
    expect(page.get_by_role("link", name="Access Security Dashboard")).to_be_visible()
    assert page.evaluate("localStorage.getItem('auth_token')") in (None, "")
    assert "secdash_session" not in {c["name"] for c in page.context.cookies()}
    revoked = httpx.get(f"{base_url}/api/auth/user", headers={"Authorization": f"Bearer {token}"})
    assert revoked.status_code == 401


def test_limited_user_gets_the_green_active_badge(page: Page):
    sign_in(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    expect(page.get_by_text("Active", exact=True)).to_be_visible()
    expect(page.get_by_text("Admin", exact=True)).to_have_count(0)


def test_forged_token_is_refused_with_unauthorized(page: Page):
    page.goto("/landing")
    page.evaluate("localStorage.setItem('auth_token', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIiwic2lkIjoieCJ9.')")
    page.goto("/history")
    expect(toast(page, "Unauthorized")).to_contain_text("Please log in to access the dashboard.")
    expect(page.get_by_role("link", name="Access Security Dashboard")).to_be_visible()
    assert page.evaluate("localStorage.getItem('auth_token')") in (None, "")


def test_session_revoked_elsewhere_ends_the_page(page: Page, base_url: str):
    sign_in(page, through_the_form=True)
    page.goto("/history")
    expect(page.get_by_role("heading", name="History Logs")).to_be_visible()
    token = page.evaluate("localStorage.getItem('auth_token')")
    assert httpx.post(f"{base_url}/api/auth/logout", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    # The open page learns of it by itself (the revocation is audited, which wakes the page).
    expect(toast(page, "Unauthorized")).to_be_visible(timeout=8000)
    expect(page.get_by_role("link", name="Access Security Dashboard")).to_be_visible()


def test_unknown_page_is_404_and_unknown_api_is_json(page: Page, base_url: str):
    page.goto("/no/such/page")
    expect(page.get_by_text("404 Page Not Found")).to_be_visible()
    expect(page.get_by_text("Did you forget to add the page to the router?")).to_be_visible()
    response = httpx.delete(f"{base_url}/api/no/such/thing")
    assert response.status_code == 404 and "message" in response.json()
