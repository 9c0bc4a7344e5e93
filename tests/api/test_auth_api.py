"""The auth endpoints of spec section 7, with the {"message": ...} error body."""

from __future__ import annotations

import time

import jwt
import pytest

from secdash.api.deps import SESSION_COOKIE
from tests.api.conftest import bearer
from tests.factories import DEFAULT_PASSWORD, make_user

SECRET = "test-secret-key-that-is-long-enough-for-hs256-0123456789"


async def test_login_returns_token_user_and_httponly_cookie(client, session):
    await make_user(session, "ops@example.com", role="admin")
    response = await client.post("/api/auth/login", json={"email": "ops@example.com", "password": DEFAULT_PASSWORD})
    assert response.status_code == 200
    body = response.json()
    assert body["user"] == {"id": body["user"]["id"], "email": "ops@example.com", "role": "admin", "firstName": "Ops"}
    cookie = response.headers["set-cookie"]
    assert f"{SESSION_COOKIE}={body['token']}" in cookie
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie


async def test_login_failure_is_401_with_generic_message(client, session):
    await make_user(session, "ops@example.com")
    response = await client.post("/api/auth/login", json={"email": "ops@example.com", "password": "wrong-password"})
    assert response.status_code == 401
    assert response.json() == {"message": "Invalid credentials"}


@pytest.mark.parametrize(
    ("payload", "field"),
    [({"password": "x"}, "email"), ({"email": "a@b.com"}, "password"), ({"email": 5, "password": "x"}, "email")],
)
async def test_bad_login_input_is_400_naming_the_field(client, session, payload, field):
    response = await client.post("/api/auth/login", json=payload)
    assert response.status_code == 400
    assert field in response.json()["message"]


async def test_malformed_json_is_400(client, session):
    response = await client.post("/api/auth/login", content=b"{nope", headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json() == {"message": "request body is not valid JSON"}


async def test_lockout_is_429_with_retry_after(client, session):
    await make_user(session, "ops@example.com")
    for _ in range(5):
        await client.post("/api/auth/login", json={"email": "ops@example.com", "password": "wrong-password"})
    response = await client.post("/api/auth/login", json={"email": "ops@example.com", "password": DEFAULT_PASSWORD})
    assert response.status_code == 429
    assert int(response.headers["retry-after"]) > 0
    assert "Try again in" in response.json()["message"]


async def test_current_user_by_bearer_and_by_cookie(client, session):
    await make_user(session, "ops@example.com")
    headers = await bearer(client, "ops@example.com", DEFAULT_PASSWORD)
    by_header = await client.get("/api/auth/user", headers=headers)
    assert by_header.status_code == 200 and by_header.json()["email"] == "ops@example.com"
    by_cookie = await client.get("/api/auth/user")  # the login response set the cookie on this client
    assert by_cookie.status_code == 200


async def test_no_token_is_401(client, session):
    response = await client.get("/api/auth/user")
    assert response.status_code == 401
    assert response.json() == {"message": "No token"}


def _forged_tokens(user_id: int) -> dict[str, str]:
    now = int(time.time())
    claims = {"sub": str(user_id), "sid": "x", "iat": now, "exp": now + 600}
    return {
        "alg none": jwt.encode(claims, key=None, algorithm="none"),
        "wrong key": jwt.encode(claims, "another-key-another-key-another-key!", algorithm="HS256"),
        "expired": jwt.encode({**claims, "exp": now - 5}, SECRET, algorithm="HS256"),
        "garbage": "not.a.token",
    }


async def test_forged_tokens_are_401(client, session):
    user = await make_user(session, "ops@example.com")
    headers = await bearer(client, "ops@example.com", DEFAULT_PASSWORD)
    real = headers["Authorization"].split()[1]
    head, payload, sig = real.split(".")
    tokens = _forged_tokens(user.id) | {"tampered": f"{head}.{payload[:-2]}AA.{sig}"}
    client.cookies.clear()
    for name, token in tokens.items():
        response = await client.get("/api/auth/user", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401, name
        assert response.json() == {"message": "Authentication failed"}, name


async def test_post_logout_revokes_the_token(client, session):
    await make_user(session, "ops@example.com")
    headers = await bearer(client, "ops@example.com", DEFAULT_PASSWORD)
    client.cookies.clear()
    response = await client.post("/api/auth/logout", headers=headers)
    assert response.status_code == 200
    assert (await client.get("/api/auth/user", headers=headers)).status_code == 401


async def test_get_logout_revokes_cookie_session_clears_cookie_and_redirects(client, session):
    await make_user(session, "ops@example.com")
    headers = await bearer(client, "ops@example.com", DEFAULT_PASSWORD)
    response = await client.get("/api/auth/logout")
    assert response.status_code == 303 and response.headers["location"] == "/"
    assert f'{SESSION_COOKIE}=""' in response.headers["set-cookie"]
    assert (await client.get("/api/auth/user", headers=headers)).status_code == 401


async def test_session_cookie_exchange_needs_a_bearer_token(client, session):
    await make_user(session, "ops@example.com")
    headers = await bearer(client, "ops@example.com", DEFAULT_PASSWORD)
    # The login cookie alone must not be enough (it would let any page re-issue cookies).
    assert (await client.post("/api/auth/session-cookie")).status_code == 401
    client.cookies.clear()
    response = await client.post("/api/auth/session-cookie", headers=headers)
    assert response.status_code == 204
    assert "HttpOnly" in response.headers["set-cookie"]


async def test_provider_login_redirects_to_admin_login(client, session):
    response = await client.get("/api/login")
    assert response.status_code == 303 and response.headers["location"] == "/login"


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "DELETE", "PATCH"])
async def test_unknown_api_path_is_json_404(client, session, method):
    response = await client.request(method, "/api/does-not-exist/at/all")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/json")
    assert "message" in response.json()
