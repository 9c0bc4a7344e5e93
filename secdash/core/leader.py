"""One holder per deployment for a named job (the site monitor, the simulation), even with several workers.

With Redis configured the lock is redis-py's own `Lock` (a key with an expiry, renewed while held; works across
machines); otherwise an exclusive file lock under DATA_DIR (works across the workers of one machine).

The Redis lease fails closed: it is renewed every third of its TTL, a failed renewal is retried, and once the
remaining lease is shorter than a third of the TTL (or the lock is no longer ours) the lost event is set, so the
holder stops while its lease still stands and no other worker can hold it yet. Errors while acquiring are retried
with backoff. `run_as_leader` runs a producer only while it leads and contends again after a loss.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable

from secdash.core.config import get_settings

log = logging.getLogger(__name__)

LEASE_SECONDS = 15
RETRY_MIN_SECONDS = 0.5  # backoff after a Redis error while acquiring: doubles up to RETRY_MAX_SECONDS
RETRY_MAX_SECONDS = 30.0


def _backoff(attempt: int) -> float:
    return min(RETRY_MAX_SECONDS, RETRY_MIN_SECONDS * 2**attempt) * random.uniform(0.5, 1.0)


async def _acquire_redis(lock) -> float:
    """Block until `lock` is ours and return when the winning attempt was sent (its lease runs from no earlier).

    Redis errors are logged and retried with backoff, never raised: a producer must not end because Redis blinked.
    """
    from redis.exceptions import RedisError

    failures = 0
    while True:
        sent = time.monotonic()
        try:
            if await lock.acquire(blocking=False):
                return sent
            failures, delay = 0, lock.sleep
        except (RedisError, OSError) as exc:
            delay = _backoff(failures)
            failures += 1
            log.warning("could not contend for %s (%s); retrying in %.1fs", lock.name, exc, delay)
        await asyncio.sleep(delay)


async def _renew_redis(lock, held_until: float, lost: asyncio.Event) -> None:
    """Keep the lease alive; set `lost` as soon as it is gone or can no longer be shown to last."""
    from redis.exceptions import LockNotOwnedError, RedisError

    ttl = LEASE_SECONDS
    margin = ttl / 3
    try:
        wait = ttl / 3
        while True:
            await asyncio.sleep(wait)
            remaining = held_until - time.monotonic()
            if remaining <= margin:
                log.warning("lease on %s could not be renewed in time; giving it up", lock.name)
                return
            sent = time.monotonic()
            try:
                # bounded so a hung call cannot carry us past the point where the lease may lapse
                await asyncio.wait_for(lock.reacquire(), timeout=remaining - margin)
            except LockNotOwnedError:
                log.warning("lease on %s was lost", lock.name)
                return
            except (RedisError, OSError, TimeoutError) as exc:
                log.warning("renewing the lease on %s failed (%s)", lock.name, exc)
                wait = min(ttl / 10, max(0.0, held_until - time.monotonic() - margin))
                continue
            held_until, wait = sent + ttl, ttl / 3  # measured from before the call: never later than Redis's expiry
    finally:
        lost.set()  # however the renewer ends (even by a bug), the holder must stop


@contextlib.asynccontextmanager
async def _hold_redis(name: str, client) -> AsyncIterator[asyncio.Event]:
    from redis.exceptions import RedisError

    lock = client.lock(f"secdash:leader:{name}", timeout=LEASE_SECONDS, sleep=min(1.0, LEASE_SECONDS / 3), thread_local=False)
    held_until = await _acquire_redis(lock) + LEASE_SECONDS
    lost = asyncio.Event()
    renewer = asyncio.create_task(_renew_redis(lock, held_until, lost))
    try:
        yield lost
    finally:
        renewer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewer
        with contextlib.suppress(RedisError, OSError):
            await asyncio.wait_for(lock.release(), timeout=max(1.0, LEASE_SECONDS / 3))


@contextlib.asynccontextmanager
async def _hold_file(name: str) -> AsyncIterator[asyncio.Event]:
    lock_dir = get_settings().DATA_DIR / "locks"
    lock_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_dir / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await asyncio.sleep(LEASE_SECONDS / 3)
        yield asyncio.Event()  # a file lock is never lost while the process lives
    finally:
        os.close(fd)


@contextlib.asynccontextmanager
async def leadership(name: str) -> AsyncIterator[asyncio.Event]:
    """Wait until this process holds the named lock; the yielded event is set if it is lost."""
    url = get_settings().REDIS_URL
    if url:
        import redis.asyncio as redis_asyncio

        timeout = max(1.0, LEASE_SECONDS / 3)
        client = redis_asyncio.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        try:
            async with _hold_redis(name, client) as lost:
                yield lost
        finally:
            await client.aclose()
    else:
        async with _hold_file(name) as lost:
            yield lost


async def run_as_leader(name: str, body: Callable[[asyncio.Event], Awaitable[None]]) -> None:
    """Run `body(lost)` only while this process leads `name`, for as long as the process lives.

    The body is cancelled as soon as leadership is lost (a producer sleeping between rounds stops at once), the
    lock is let go and the process contends again. Returns when the body returns on its own; its errors propagate.
    """
    while True:
        async with leadership(name) as lost:
            task = asyncio.ensure_future(body(lost))
            waiter = asyncio.ensure_future(lost.wait())
            try:
                await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiter.cancel()
                if not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            if task.done() and not task.cancelled():
                return task.result()  # the body finished (or failed) on its own
        log.warning("lost leadership of %s; contending again", name)
