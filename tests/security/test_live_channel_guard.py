"""The live channel (/_event) per client address: connections held at once and opened per minute."""

from __future__ import annotations

import asyncio

import pytest

from secdash.api.connection_guard import LiveChannelGuard
from secdash.core.config import Settings


class Downstream:
    """Stands in for Reflex: accepts a websocket and holds it until told to close."""

    def __init__(self) -> None:
        self.accepted = 0
        self.release = asyncio.Event()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.accept"})
            self.accepted += 1
            await self.release.wait()
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


async def _connect(app, address: str) -> tuple[asyncio.Task, list[dict]]:
    sent: list[dict] = []
    queue: asyncio.Queue = asyncio.Queue()
    await queue.put({"type": "websocket.connect"})

    async def send(message):
        sent.append(message)

    scope = {
        "type": "websocket",
        "path": "/_event/",
        "query_string": b"EIO=4&transport=websocket",
        "client": (address, 1234),
        "headers": [],
    }
    task = asyncio.create_task(app(scope, queue.get, send))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    return task, sent


@pytest.fixture
def guarded():
    downstream = Downstream()
    settings = Settings(SECDASH_WS_CONNECTIONS_PER_CLIENT=5, SECDASH_WS_CONNECTS_PER_MINUTE=8)
    return LiveChannelGuard(downstream, settings), downstream


async def test_connections_held_at_once_are_capped_per_address(guarded):
    app, downstream = guarded
    held = [await _connect(app, "203.0.113.5") for _ in range(5)]
    task, sent = await _connect(app, "203.0.113.5")
    await asyncio.wait_for(task, 1)
    assert sent == [{"type": "websocket.close", "code": 1008, "reason": "too many connections from this address"}]
    other, other_sent = await _connect(app, "203.0.113.6")  # another address is not affected
    assert other_sent == [{"type": "websocket.accept"}]
    assert downstream.accepted == 6
    downstream.release.set()
    await asyncio.gather(*(t for t, _ in held), other)
    assert app.open == {}


async def test_new_connections_per_minute_are_capped_per_address(guarded):
    app, downstream = guarded
    downstream.release.set()  # each connection ends at once: only the rate applies
    results = []
    for _ in range(10):
        task, sent = await _connect(app, "203.0.113.7")
        await asyncio.wait_for(task, 1)
        results.append(sent[0]["type"])
    assert results.count("websocket.accept") == 8
    assert results[-2:] == ["websocket.close", "websocket.close"]


async def test_polling_handshakes_count_as_new_connections(guarded):
    app, _downstream = guarded
    statuses = []
    for _ in range(9):
        sent: list[dict] = []

        async def send(message, sent=sent):
            sent.append(message)

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        scope = {
            "type": "http",
            "path": "/_event/",
            "query_string": b"EIO=4&transport=polling",
            "client": ("203.0.113.8", 1),
            "headers": [],
            "method": "GET",
        }
        await app(scope, receive, send)
        statuses.append(sent[0]["status"])
    assert statuses == [200] * 8 + [429]


async def test_other_paths_pass_untouched(guarded):
    app, _downstream = guarded
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    for _ in range(20):
        await app({"type": "http", "path": "/api/health", "client": ("203.0.113.9", 1), "headers": []}, receive, send)
    assert [m["status"] for m in sent if m["type"] == "http.response.start"] == [200] * 20
