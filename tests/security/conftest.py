"""The API client of the security tests: the ASGI app from create_api(), from a fixed client address, with a
timeout long enough for a payload that a bounded worker takes seconds over (a file may define its own)."""

from __future__ import annotations

import httpx
import pytest

from tests.support.api_app import shared_api


@pytest.fixture
async def client(session):
    transport = httpx.ASGITransport(app=shared_api(), client=("198.51.100.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=120) as http:
        yield http
