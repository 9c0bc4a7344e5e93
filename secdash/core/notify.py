"""Change notifications: producers publish a topic, open pages and read models subscribed to it refresh.

A topic is an area (`sites`, `traffic`, `history`, ...) or an area and a key (`site:3`, `scan:12`,
`job:41`, `battle:7`). Every publish carries a sequence number, increasing per topic: in one process
a counter in memory; with REFLEX_REDIS_URL set (several workers) a Redis counter (HINCRBY), so every
worker sees the same numbers, and the publish goes through Redis pub/sub to each process, which fans
it out to its own subscribers. A producer with its own order (a job log's row id) passes `seq=`.

Subscribers name exact topics or prefixes (`"job:*"`). Many publishes while a follower is busy make
one wake-up that carries, per topic, the newest sequence (coalescing). Append-only streams (job logs,
later build and drill logs) are read with `read_since`: from the last sequence a page has seen, never
whole.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TypeVar

from secdash.core.config import get_settings

log = logging.getLogger(__name__)

CHANNEL = "secdash:changes"  # + ":<db>": pub/sub channels span Redis databases, deployments on other dbs stay apart
_origin: tuple[int, str] = (0, "")


def origin() -> str:
    """This process (a forked worker gets its own): its messages coming back from Redis are not fanned out twice."""
    global _origin
    if _origin[0] != os.getpid():
        _origin = (os.getpid(), uuid.uuid4().hex[:12])
    return _origin[1]


SEQUENCES_KEY = "secdash:seq"  # Redis hash: topic -> newest sequence
PREFIX_MARK = "*"
T = TypeVar("T")


def area(topic: str) -> str:
    """`site:3` -> `site`; an area topic is its own area."""
    return topic.split(":", 1)[0]


def key_of(topic: str) -> str | None:
    """`site:3` -> `3`; None for an area topic."""
    return topic.split(":", 1)[1] if ":" in topic else None


class Changed(dict[str, int]):
    """What changed since the last wake-up: topic -> newest sequence. Iterating or `in` gives topics."""

    def seq(self, topic: str) -> int:
        return self.get(topic, 0)


class Changes:
    """What one subscriber has not yet seen (newest sequence per topic) and its wake-up event."""

    def __init__(self) -> None:
        self._pending = Changed()
        self._event = asyncio.Event()
        self.closed = False

    def close(self) -> None:
        """Wake the follower for good: its loop should end."""
        self.closed = True
        self._event.set()

    def notify(self, topic: str, seq: int = 0) -> None:
        if seq >= self._pending.get(topic, -1):
            self._pending[topic] = seq
        self._event.set()

    async def wait(self, timeout: float | None = None, settle: float = 0.05) -> Changed:
        """The topics changed since the last call, each with its newest sequence; empty if `timeout`
        passed with no change (or the subscription was closed)."""
        if not self._event.is_set():
            try:
                await asyncio.wait_for(self._event.wait(), timeout=timeout)
            except TimeoutError:
                return Changed()
            if settle and not self.closed:
                await asyncio.sleep(settle)  # notices that arrive together make one refresh
        changed, self._pending = self._pending, Changed()
        if not self.closed:
            self._event.clear()
        return changed


class _Subscribers:
    """Who follows what in this process: exact topics, prefixes, and synchronous listeners (read models)."""

    def __init__(self) -> None:
        self.exact: dict[str, set[Changes]] = {}
        self.prefixes: dict[str, set[Changes]] = {}
        self.listeners: list[Callable[[str, int], None]] = []

    def add(self, pattern: str, changes: Changes) -> None:
        table, name = self._table(pattern)
        table.setdefault(name, set()).add(changes)

    def discard(self, pattern: str, changes: Changes) -> None:
        table, name = self._table(pattern)
        followers = table.get(name)
        if followers is not None:
            followers.discard(changes)
            if not followers:
                del table[name]

    def _table(self, pattern: str) -> tuple[dict[str, set[Changes]], str]:
        if pattern.endswith(PREFIX_MARK):
            return self.prefixes, pattern[: -len(PREFIX_MARK)]
        return self.exact, pattern

    def matching(self, topic: str) -> set[Changes]:
        found = set(self.exact.get(topic, ()))
        for prefix, followers in self.prefixes.items():
            if topic.startswith(prefix):
                found |= followers
        return found

    def count(self) -> int:
        return len({c for group in (*self.exact.values(), *self.prefixes.values()) for c in group})


_subscribers = _Subscribers()
_sequences: dict[str, int] = {}  # the newest sequence this process has seen, per topic
_redis = None
_listener: asyncio.Task | None = None
_listening = False  # the Redis listener is subscribed to the channel now (see `listening`)


def sequence(topic: str) -> int:
    """The newest sequence of `topic` this process has seen (0: none yet)."""
    return _sequences.get(topic, 0)


def subscriber_count() -> int:
    """How many subscriptions this process holds (tests, diagnostics)."""
    return _subscribers.count()


def add_listener(listener: Callable[[str, int], None]) -> None:
    """Call `listener(topic, seq)` on every change this process hears of (cheap, synchronous: read models)."""
    if listener not in _subscribers.listeners:
        _subscribers.listeners.append(listener)


def _fan_out(topic: str, seq: int) -> None:
    if seq > _sequences.get(topic, 0):
        _sequences[topic] = seq
    for listener in list(_subscribers.listeners):
        try:
            listener(topic, seq)
        except Exception:
            log.exception("change feed: listener failed for %s", topic)
    for changes in _subscribers.matching(topic):
        changes.notify(topic, seq)


def _fan_out_everything() -> None:
    """The feed may have missed messages (Redis reconnected): every follower re-reads what it shows."""
    for listener in list(_subscribers.listeners):
        listener("*", 0)
    for group in (*_subscribers.exact.values(), *_subscribers.prefixes.values()):
        for changes in group:
            changes.notify("*", 0)


def _redis_client():
    global _redis
    url = get_settings().REDIS_URL
    if not url:
        return None
    if _redis is None:
        import redis.asyncio as redis_asyncio

        _redis = redis_asyncio.from_url(url)
    return _redis


def _channel(client) -> str:
    return f"{CHANNEL}:{client.connection_pool.connection_kwargs.get('db', 0)}"


def _decode(data: bytes | str) -> tuple[str, int, str]:
    """A message is `topic seq origin` (a topic has no spaces)."""
    text = data.decode() if isinstance(data, bytes) else str(data)
    topic, _, rest = text.partition(" ")
    seq, _, origin = rest.partition(" ")
    try:
        return topic, int(seq), origin
    except ValueError:
        return topic, 0, origin


async def _listen(client) -> None:
    global _listening
    first = True
    while True:
        try:
            pubsub = client.pubsub()
            await pubsub.subscribe(_channel(client))
            _listening = True
            if not first:
                _fan_out_everything()  # messages published while disconnected are gone
            first = False
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    topic, seq, sender = _decode(message["data"])
                    if sender != origin():  # this process fanned its own publishes out when it made them
                        _fan_out(topic, seq)
        except asyncio.CancelledError:
            _listening = False
            raise
        except Exception as exc:  # connection lost: retry, never kill the worker
            _listening = False
            log.warning("change feed: redis listener failed (%s); retrying", type(exc).__name__)
            first = False
            await asyncio.sleep(1)


def ensure_listener() -> bool:
    """Start this process's Redis listener if Redis is configured; False when changes are in memory only."""
    global _listener
    client = _redis_client()
    if client is None:
        return False
    if _listener is None or _listener.done():
        _listener = asyncio.get_running_loop().create_task(_listen(client))
    return True


def listener_running() -> bool:
    return _listener is not None and not _listener.done()


async def listening(timeout: float) -> bool:
    """Wait until this process's Redis listener is subscribed (changes other workers publish from then on reach
    it); False when it is not within `timeout` seconds, or changes are in memory only."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not (_listening and listener_running()):
        if _redis_client() is None or asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


async def publish(*topics: str, seq: int | None = None) -> dict[str, int]:
    """Tell every subscriber (in every worker) that these topics changed; returns each topic's sequence.

    Without `seq` each topic's sequence goes up by one (shared by all workers on Redis). With `seq` the
    caller's own increasing number is announced (a job log's row id), and nothing is counted.
    """
    client = _redis_client()
    published: dict[str, int] = {}
    for topic in topics:
        if " " in topic:
            raise ValueError(f"a topic has no spaces: {topic!r}")
        if client is None:
            number = seq if seq is not None else _sequences.get(topic, 0) + 1
            published[topic] = number
            _fan_out(topic, number)
            continue
        try:
            number = seq if seq is not None else int(await client.hincrby(SEQUENCES_KEY, topic, 1))
            published[topic] = number
            await client.publish(_channel(client), f"{topic} {number} {origin()}")
            _fan_out(topic, number)  # this process at once: a read right after a write sees it
        except Exception as exc:
            log.warning("change feed: redis publish failed (%s); local only", type(exc).__name__)
            number = seq if seq is not None else _sequences.get(topic, 0) + 1
            published[topic] = number
            _fan_out(topic, number)
    return published


@asynccontextmanager
async def subscribe(*topics: str) -> AsyncIterator[Changes]:
    """Follow these topics (exact, or a prefix ending in `*`: `"job:*"`) until the block ends."""
    ensure_listener()
    changes = Changes()
    for topic in topics:
        _subscribers.add(topic, changes)
    try:
        yield changes
    finally:
        for topic in topics:
            _subscribers.discard(topic, changes)


async def read_since(
    reader: Callable[[int, int], Awaitable[Sequence[T]]],
    after: int,
    *,
    seq_of: Callable[[T], int],
    limit: int = 500,
) -> tuple[list[T], int]:
    """Read an append-only stream from the last sequence seen: `reader(after, limit)` returns the entries
    with a sequence above `after`, oldest first, at most `limit`. Returns the entries and the new last
    sequence (unchanged when there was nothing new). Never re-reads what was seen."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    entries = list(await reader(after, limit))
    if len(entries) > limit:
        entries = entries[:limit]
    last = after
    for entry in entries:
        number = seq_of(entry)
        if number <= last:
            raise ValueError(f"stream out of order: {number} after {last}")
        last = number
    return entries, last


async def follow_stream(
    topic: str,
    reader: Callable[[int, int], Awaitable[Sequence[T]]],
    after: int,
    *,
    seq_of: Callable[[T], int],
    limit: int = 500,
    timeout: float | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> AsyncIterator[list[T]]:
    """Yield new entries of an append-only stream as `topic` announces them (and at most every `timeout`
    seconds, in case an announcement was lost), each batch read from the last sequence seen."""
    async with subscribe(topic) as changes:
        last = after
        while not stop() and not changes.closed:
            while True:  # a long gap is read in pages of `limit`
                entries, last = await read_since(reader, last, seq_of=seq_of, limit=limit)
                if entries:
                    yield entries
                if len(entries) < limit:
                    break
            # Many announcements while the page was busy are one wake-up, and one read from `last`.
            await changes.wait(timeout)


async def reset() -> None:
    """Forget connections, subscribers and sequences (tests)."""
    global _redis, _listener, _listening
    _listening = False
    if _listener is not None:
        _listener.cancel()
        try:
            await _listener
        except BaseException:  # noqa: S110 - cancelled on purpose
            pass
    if _redis is not None:
        await _redis.aclose()
    _redis = None
    _listener = None
    _subscribers.exact.clear()
    _subscribers.prefixes.clear()
    _sequences.clear()
    for listener in list(_subscribers.listeners):
        listener("*", 0)  # read models drop what they cached
