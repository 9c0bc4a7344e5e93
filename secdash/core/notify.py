"""Change notifications: producers publish a topic, open pages subscribed to it refresh.

In one process the fan-out is in memory. With REFLEX_REDIS_URL set (several workers), every
publish goes through Redis pub/sub and each process fans it out to its own subscribers.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from secdash.core.config import get_settings

log = logging.getLogger(__name__)

CHANNEL = "secdash:changes"


class Changes:
    """What one subscriber has not yet seen: a set of changed topics and a wake-up event."""

    def __init__(self) -> None:
        self._pending: set[str] = set()
        self._event = asyncio.Event()
        self.closed = False

    def close(self) -> None:
        """Wake the follower for good: its loop should end."""
        self.closed = True
        self._event.set()

    def notify(self, topic: str) -> None:
        self._pending.add(topic)
        self._event.set()

    async def wait(self, timeout: float, settle: float = 0.05) -> set[str]:
        """The topics changed since the last call; empty if `timeout` passed with no change."""
        try:
            await asyncio.wait_for(self._event.wait(), timeout=timeout)
        except TimeoutError:
            return set()
        await asyncio.sleep(settle)  # notices that arrive together make one refresh
        changed, self._pending = self._pending, set()
        self._event.clear()
        return changed


_subscribers: dict[str, set[Changes]] = {}
_redis = None
_listener: asyncio.Task | None = None


def _fan_out(topic: str) -> None:
    for changes in list(_subscribers.get(topic, ())):
        changes.notify(topic)


def _redis_client():
    global _redis
    url = get_settings().REDIS_URL
    if not url:
        return None
    if _redis is None:
        import redis.asyncio as redis_asyncio

        _redis = redis_asyncio.from_url(url)
    return _redis


async def _listen(client) -> None:
    while True:
        try:
            pubsub = client.pubsub()
            await pubsub.subscribe(CHANNEL)
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    data = message["data"]
                    _fan_out(data.decode() if isinstance(data, bytes) else str(data))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # connection lost: retry, never kill the worker
            log.warning("change feed: redis listener failed (%s); retrying", type(exc).__name__)
            await asyncio.sleep(1)


def _ensure_listener() -> None:
    global _listener
    client = _redis_client()
    if client is not None and (_listener is None or _listener.done()):
        _listener = asyncio.get_running_loop().create_task(_listen(client))


async def publish(*topics: str) -> None:
    """Tell every subscriber (in every worker) that these topics changed."""
    client = _redis_client()
    for topic in topics:
        if client is None:
            _fan_out(topic)
            continue
        try:
            await client.publish(CHANNEL, topic)
        except Exception as exc:
            log.warning("change feed: redis publish failed (%s); local only", type(exc).__name__)
            _fan_out(topic)


@asynccontextmanager
async def subscribe(*topics: str) -> AsyncIterator[Changes]:
    """Follow these topics until the block ends."""
    _ensure_listener()
    changes = Changes()
    for topic in topics:
        _subscribers.setdefault(topic, set()).add(changes)
    try:
        yield changes
    finally:
        for topic in topics:
            _subscribers[topic].discard(changes)


async def reset() -> None:
    """Forget connections and subscribers (tests)."""
    global _redis, _listener
    if _listener is not None:
        _listener.cancel()
    if _redis is not None:
        await _redis.aclose()
    _redis = None
    _listener = None
    _subscribers.clear()
