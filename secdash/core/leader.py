"""One holder per deployment for a named job (the site monitor, the simulation), even with several workers.

With Redis configured the lock is a Redis key with a renewed expiry (works across machines);
otherwise an exclusive file lock under DATA_DIR (works across the workers of one machine).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import secrets
from collections.abc import AsyncIterator

from secdash.core.config import get_settings

LEASE_SECONDS = 15
_RELEASE_SCRIPT = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
_RENEW_SCRIPT = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"
)


@contextlib.asynccontextmanager
async def _hold_redis(name: str, client, stop: asyncio.Event) -> AsyncIterator[asyncio.Event]:
    key, me = f"secdash:leader:{name}", secrets.token_hex(8)
    while not await client.set(key, me, nx=True, px=int(LEASE_SECONDS * 1000)):
        await asyncio.sleep(LEASE_SECONDS / 3)
    lost = asyncio.Event()

    async def renew() -> None:
        while not stop.is_set():
            await asyncio.sleep(LEASE_SECONDS / 3)
            if not await client.eval(_RENEW_SCRIPT, 1, key, me, int(LEASE_SECONDS * 1000)):
                lost.set()
                return

    renewer = asyncio.create_task(renew())
    try:
        yield lost
    finally:
        renewer.cancel()
        with contextlib.suppress(Exception):
            await client.eval(_RELEASE_SCRIPT, 1, key, me)


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

        client = redis_asyncio.from_url(url)
        stop = asyncio.Event()
        try:
            async with _hold_redis(name, client, stop) as lost:
                yield lost
        finally:
            stop.set()
            await client.aclose()
    else:
        async with _hold_file(name) as lost:
            yield lost
