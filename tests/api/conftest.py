from __future__ import annotations

import httpx
import pytest

from tests.support.api_app import shared_api


@pytest.fixture
async def client(session):
    transport = httpx.ASGITransport(app=shared_api(), client=("198.51.100.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


async def bearer(client: httpx.AsyncClient, email: str, password: str) -> dict[str, str]:
    response = await client.post("/api/auth/login", json={"email": email, "password": password})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}


async def signed_in(client: httpx.AsyncClient, session, email: str, role: str) -> dict[str, str]:
    """Create a user and return bearer headers for them (the client keeps no cookie)."""
    from tests.factories import DEFAULT_PASSWORD, make_user

    await make_user(session, email, role=role)
    headers = await bearer(client, email, DEFAULT_PASSWORD)
    client.cookies.clear()
    return headers
