"""Requests another origin can make a signed-in browser send: they must not act."""

from __future__ import annotations

import httpx
import pytest

from tests.factories import DEFAULT_PASSWORD, make_user
from tests.support.api_app import shared_api


@pytest.fixture
async def browser_like(session):
    transport = httpx.ASGITransport(app=shared_api(), client=("198.51.100.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://secdash.test") as http:
        await make_user(session, "ops@example.com", role="admin")
        response = await http.post("/api/auth/login", json={"email": "ops@example.com", "password": DEFAULT_PASSWORD})
        assert response.status_code == 200
        yield http, {"Authorization": f"Bearer {response.json()['token']}"}


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},  # another port of the same host is another origin
        {"Origin": "http://secdash.test:8081"},
        {"Referer": "https://evil.example/page"},
    ],
    ids=["cross-site", "same-site", "other-port-origin", "foreign-referer"],
)
async def test_logout_link_on_another_origin_does_not_sign_the_user_out(browser_like, headers):
    http, bearer = browser_like
    response = await http.get("/api/auth/logout", headers=headers)
    assert response.status_code == 303 and response.headers["location"] == "/"
    assert "set-cookie" not in response.headers  # the session cookie stays
    assert (await http.get("/api/auth/user", headers=bearer)).status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "none"},  # typed into the address bar
        {"Referer": "http://secdash.test/history"},
        {},
    ],
    ids=["same-origin", "address-bar", "own-referer", "no-headers"],
)
async def test_logout_from_the_app_itself_signs_out(browser_like, headers):
    http, bearer = browser_like
    response = await http.get("/api/auth/logout", headers=headers)
    assert response.status_code == 303
    assert 'secdash_session=""' in response.headers["set-cookie"]
    assert (await http.get("/api/auth/user", headers=bearer)).status_code == 401
