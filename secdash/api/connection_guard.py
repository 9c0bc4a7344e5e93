"""Bounds on the live channel (Reflex's /_event socket.io endpoint) per client address.

Every new websocket (or long-polling handshake) creates page state on the server, so one client
could otherwise open thousands. Per client address this worker allows a number of connections
held at once and a number of new connections per minute; the rest are refused before Reflex sees
them (websocket: closed with 1008, which the browser sees as HTTP 403; polling: 429).
"""

from __future__ import annotations

from collections import Counter
from urllib.parse import parse_qs

from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from secdash.core.client_address import client_address
from secdash.core.config import Settings, get_settings

EVENT_PATH = "/_event"


class LiveChannelGuard:
    """ASGI wrapper: caps concurrent and new /_event connections per client address."""

    def __init__(self, app, settings: Settings | None = None) -> None:
        self.app = app
        self.settings = settings or get_settings()
        self.open: Counter[str] = Counter()
        self.connects = MovingWindowRateLimiter(MemoryStorage())
        self.per_minute = RateLimitItemPerMinute(self.settings.WS_CONNECTS_PER_MINUTE)

    def _client(self, scope) -> str:
        client = scope.get("client")
        forwarded = [v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"x-forwarded-for"]
        return client_address(client[0] if client else "", forwarded, self.settings.trusted_proxies)

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket") or not scope["path"].startswith(EVENT_PATH):
            return await self.app(scope, receive, send)
        address = self._client(scope)
        if scope["type"] == "http":
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            if "sid" not in query and not self.connects.hit(self.per_minute, address):
                return await _refuse_http(send)
            return await self.app(scope, receive, send)
        if self.open[address] >= self.settings.WS_CONNECTIONS_PER_CLIENT or not self.connects.hit(self.per_minute, address):
            return await _refuse_websocket(receive, send)
        self.open[address] += 1
        try:
            return await self.app(scope, receive, send)
        finally:
            self.open[address] -= 1
            if self.open[address] <= 0:
                del self.open[address]


async def _refuse_websocket(receive, send) -> None:
    message = await receive()  # websocket.connect
    if message["type"] == "websocket.connect":
        await send({"type": "websocket.close", "code": 1008, "reason": "too many connections from this address"})


async def _refuse_http(send) -> None:
    body = b'{"message":"Too many connections from this address. Try again in a minute."}'
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"retry-after", b"60"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
