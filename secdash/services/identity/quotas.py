"""How much model work one user may start: a moving-window rate limit per user (shared by every
worker through Redis when configured) and a cap on replies running at once in this worker.

Both the JSON API and the Reflex UI reach the model through services that call `ai_call`, so one
budget covers both doors.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from limits import RateLimitItemPerHour, RateLimitItemPerMinute
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from secdash.core.config import Settings
from secdash.services.errors import RateLimited

MAX_CONCURRENT_AI_CALLS = 3  # per user in one worker

_limiters: dict[str, MovingWindowRateLimiter] = {}
_running: Counter[int] = Counter()


def _limiter(settings: Settings) -> MovingWindowRateLimiter:
    url = settings.REDIS_URL
    if url not in _limiters:
        storage: Storage = (
            RedisStorage(f"async+{url}", implementation="redispy", key_prefix="secdash-quota") if url else MemoryStorage()
        )
        _limiters[url] = MovingWindowRateLimiter(storage)
    return _limiters[url]


def _windows(settings: Settings):
    return (RateLimitItemPerMinute(settings.AI_CALLS_PER_MINUTE), RateLimitItemPerHour(settings.AI_CALLS_PER_HOUR))


async def _take(settings: Settings, user_id: int) -> None:
    limiter = _limiter(settings)
    for window in _windows(settings):
        if not await limiter.hit(window, "ai", str(user_id)):
            stats = await limiter.get_window_stats(window, "ai", str(user_id))
            wait = max(1, math.ceil(stats.reset_time - time.time()))
            raise RateLimited(f"Too many AI requests. Try again in {wait} seconds.", retry_after=wait)


@asynccontextmanager
async def ai_call(*, settings: Settings, user_id: int) -> AsyncIterator[None]:
    """Hold one model call for the user, or raise RateLimited (nothing is started then)."""
    if _running[user_id] >= MAX_CONCURRENT_AI_CALLS:
        raise RateLimited(f"At most {MAX_CONCURRENT_AI_CALLS} AI replies can run at once. Wait for one to finish.", retry_after=5)
    _running[user_id] += 1  # before the first await: concurrent calls see each other
    try:
        await _take(settings, user_id)
        yield
    finally:
        _running[user_id] -= 1
        if _running[user_id] <= 0:
            del _running[user_id]


async def reset() -> None:
    """Forget every count (tests)."""
    for limiter in _limiters.values():
        await limiter.storage.reset()
    _limiters.clear()
    _running.clear()
