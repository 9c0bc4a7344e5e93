"""Reflex's /_event protocol spoken by a hand-written socket.io client, as an attacker would: a
signed-out client and a limited user call handlers directly, with replays, floods and bad input.
The server decides every gate; the UI's disabled buttons play no part here."""

from __future__ import annotations

import asyncio
import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
import socketio
from playwright.sync_api import Page

import secdash.secdash  # noqa: F401  (state class names)
from secdash.state.chat_widget import ChatWidgetState
from secdash.state.dashboard import DashboardState, ScanTab
from secdash.state.defense_command import DefenseCenterState
from secdash.state.history import HistoryState
from tests.e2e.helpers import sign_in
from tests.support.browser import LIMITED_EMAIL, LIMITED_PASSWORD

TOKEN_VAR = "reflex___state____state.secdash___state___auth____auth_state.auth_token_rx_state_"


def _event(state_cls, handler: str, **payload: Any) -> dict[str, Any]:
    return {
        "name": f"{state_cls.get_full_name()}.{handler}",
        "payload": payload,
        "router_data": {"pathname": "/history/", "asPath": "/history/"},
    }


@pytest.fixture(scope="module")
def handshake(browser, base_url: str) -> dict[str, Any]:
    """What a real browser sends when it opens a page signed in as the limited user."""
    page: Page = browser.new_page(base_url=base_url)
    hydrates: list[dict] = []

    def keep(payload):
        text = payload if isinstance(payload, str) else payload.decode()
        if text.startswith("40/_event,") and TOKEN_VAR in text:
            hydrates.append(json.loads(text.removeprefix("40/_event,")))

    page.on("websocket", lambda ws: ws.on("framesent", keep))
    sign_in(page, LIMITED_EMAIL, LIMITED_PASSWORD)
    page.goto("/history")
    page.wait_for_timeout(1000)
    page.close()
    assert hydrates, "the browser sent no hydrate with its token"
    return hydrates[-1]


class Attacker:
    def __init__(self, base_url: str, auth: dict[str, Any]) -> None:
        self.base_url, self.auth = base_url, auth
        self.received: list[dict] = []
        self.client = socketio.AsyncClient(reconnection=False)
        self.client.on("event", self.received.append, namespace="/_event")

    async def __aenter__(self):
        await self.client.connect(
            f"{self.base_url}?token={uuid.uuid4()}",
            namespaces=["/_event"],
            auth=self.auth,
            socketio_path="/_event",
            transports=["websocket"],
            headers={"Origin": self.base_url},
            wait_timeout=10,
        )
        await asyncio.sleep(1.0)  # hydrate
        return self

    async def __aexit__(self, *exc):
        await self.client.disconnect()

    async def send(self, event: dict[str, Any], times: int = 1) -> None:
        for _ in range(times):
            await self.client.emit("event", event, namespace="/_event")

    def text(self) -> str:
        return json.dumps(self.received)


def _run(coro):
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API may hold this thread's loop
        return pool.submit(asyncio.run, coro).result()


def _bearer(handshake) -> dict[str, str]:
    return {"Authorization": f"Bearer {handshake['event']['payload']['vars'][TOKEN_VAR]}"}


def test_replayed_stream_reply_starts_no_model_call(base_url, handshake):
    async def attack():
        async with Attacker(base_url, handshake) as attacker:
            await attacker.send(_event(ChatWidgetState, "stream_reply"), times=60)
            await attacker.send(_event(ChatWidgetState, "stream_reply", text="injected question"), times=5)
            await asyncio.sleep(2)

    before = httpx.get(f"{base_url}/api/defense-chat/messages", headers=_bearer(handshake)).json()
    _run(attack())
    after = httpx.get(f"{base_url}/api/defense-chat/messages", headers=_bearer(handshake)).json()
    assert after == before  # nothing asked, nothing answered


def test_a_limited_user_cannot_start_a_scan_over_the_socket(base_url, handshake):
    async def attack():
        async with Attacker(base_url, handshake) as attacker:
            await attacker.send(_event(ScanTab, "start_scan", scan_type="quick"))
            await asyncio.sleep(1.5)
            return attacker.text()

    frames = _run(attack())
    assert "Only administrators may start scans" in frames
    trail = httpx.get(f"{base_url}/api/history-logs", params={"limit": 200}, headers=_bearer(handshake)).json()
    assert not any(entry["action"] == "Code scan started" for entry in trail)


def test_follow_loop_flood_and_bad_agent_ids_do_not_hurt_the_server(base_url, handshake):
    async def attack():
        async with Attacker(base_url, handshake) as attacker:
            await attacker.send(_event(HistoryState, "follow_changes"), times=300)
            await attacker.send(_event(DashboardState, "follow_changes", generation=10**9), times=50)
            await attacker.send(_event(DefenseCenterState, "select", agent_id="../../etc/passwd"))
            await attacker.send(_event(DefenseCenterState, "select", agent_id={"not": "a string"}))
            await attacker.send(_event(DefenseCenterState, "send"))
            await asyncio.sleep(2)
            async with httpx.AsyncClient(timeout=5) as http:
                return (await http.get(f"{base_url}/api/health")).status_code

    assert _run(attack()) == 200


def test_a_signed_out_client_is_sent_away(base_url, handshake):
    signed_out = {
        **handshake,
        "event": {**handshake["event"], "payload": {**handshake["event"]["payload"], "vars": {TOKEN_VAR: ""}}},
    }

    async def attack():
        async with Attacker(base_url, signed_out) as attacker:
            await attacker.send(_event(HistoryState, "load"))
            await attacker.send(_event(ScanTab, "start_scan", scan_type="full"))
            await asyncio.sleep(1.5)
            return attacker.text()

    frames = _run(attack())
    assert "Login succeeded" not in frames and LIMITED_EMAIL not in frames
    assert "_redirect" in frames
