"""One holder per named job: a second contender waits until the first lets go."""

from __future__ import annotations

import asyncio

import pytest

from secdash.core import leader


@pytest.mark.parametrize("use_redis", [False, True])
async def test_second_contender_waits_for_the_first(settings, monkeypatch, use_redis):
    if use_redis:
        import redis

        try:
            redis.Redis.from_url("redis://127.0.0.1:6379/9", socket_connect_timeout=1).ping()
        except Exception:
            pytest.skip("no Redis on this machine")
        monkeypatch.setattr(settings, "REDIS_URL", "redis://127.0.0.1:6379/9")
    monkeypatch.setattr(leader, "LEASE_SECONDS", 0.3)
    order: list[str] = []

    async def contender(name: str, hold: float) -> None:
        async with leader.leadership("test-job"):
            order.append(f"{name} in")
            await asyncio.sleep(hold)
            order.append(f"{name} out")

    first = asyncio.create_task(contender("first", 0.5))
    await asyncio.sleep(0.05)
    second = asyncio.create_task(contender("second", 0.0))
    await asyncio.wait_for(asyncio.gather(first, second), timeout=10)
    assert order == ["first in", "first out", "second in", "second out"]
