"""The real server seen from another origin: no credentialed CORS, no websocket, no framing headers missing."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import aiohttp
import httpx
import pytest

EVIL = "http://127.0.0.1:1"  # another port of the same host: another origin


@pytest.mark.parametrize("origin", [EVIL, "https://evil.example", "null"])
def test_other_origins_get_no_credentialed_cors(base_url: str, origin: str):
    read = httpx.get(f"{base_url}/api/history-logs", headers={"Origin": origin})
    assert "access-control-allow-origin" not in read.headers
    preflight = httpx.options(
        f"{base_url}/api/sites",
        headers={"Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"},
    )
    assert preflight.headers.get("access-control-allow-origin") != origin
    assert preflight.headers.get("access-control-allow-origin") != "*"


def test_the_apps_own_origin_is_allowed(base_url: str):
    read = httpx.get(f"{base_url}/api/health", headers={"Origin": base_url})
    assert read.headers.get("access-control-allow-origin") == base_url


async def _websocket_status(base_url: str, origin: str) -> int:
    url = base_url.replace("http://", "ws://") + "/_event/?EIO=4&transport=websocket"
    async with aiohttp.ClientSession() as http:
        try:
            async with http.ws_connect(url, headers={"Origin": origin}, timeout=aiohttp.ClientWSTimeout(ws_close=5)):
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


def _status(base_url: str, origin: str) -> int:
    # Its own thread and loop: Playwright's sync API may hold this thread's loop.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _websocket_status(base_url, origin)).result()


def test_the_live_channel_refuses_other_origins(base_url: str):
    assert _status(base_url, "https://evil.example") == 403
    assert _status(base_url, base_url) == 101
