"""One holder per named job: a second contender waits until the first lets go; a lost or unreachable lease
stops the holder before the lease can lapse, and the producer contends again instead of ending."""

from __future__ import annotations

import asyncio
import contextvars
import secrets

import pytest

from secdash.core import leader
from tests.support.redis_server import REDIS_URL, redis_or_skip


@pytest.fixture
def redis_sync(settings, monkeypatch):
    """The real Redis, database 9; each test uses its own key and deletes only that."""
    client = redis_or_skip()
    monkeypatch.setattr(settings, "REDIS_URL", REDIS_URL)
    yield client
    client.close()


@pytest.fixture
def job_name(redis_sync):
    name = f"test-job-{secrets.token_hex(4)}"
    yield name
    redis_sync.delete(f"secdash:leader:{name}")


@pytest.mark.parametrize("use_redis", [False, True])
async def test_second_contender_waits_for_the_first(settings, monkeypatch, use_redis):
    if use_redis:
        redis_or_skip()
        monkeypatch.setattr(settings, "REDIS_URL", REDIS_URL)
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


def _fail_for(monkeypatch, commands: set[str], tokens: set[bytes] | None = None) -> None:
    """Make Redis commands raise a connection error, as a broken link would: every call of `commands`, or only
    those that carry one of `tokens` (the lock holder cut off from Redis, the others unaffected)."""
    import redis
    import redis.asyncio

    original = redis.asyncio.Redis.execute_command

    async def broken(self, *args, **options):
        if str(args[0]).upper() in commands and (tokens is None or any(arg in tokens for arg in args[1:])):
            raise redis.ConnectionError("injected: Redis unreachable")
        return await original(self, *args, **options)

    monkeypatch.setattr(redis.asyncio.Redis, "execute_command", broken)


_SCRIPTS = {"EVAL", "EVALSHA"}  # renewal and release are scripts (compare the token, then expire or delete)


async def test_renewal_error_sets_lost_before_the_lease_lapses(redis_sync, job_name, monkeypatch):
    monkeypatch.setattr(leader, "LEASE_SECONDS", 1.5)
    key = f"secdash:leader:{job_name}"
    async with leader.leadership(job_name) as lost:
        token = redis_sync.get(key)
        assert token
        _fail_for(monkeypatch, _SCRIPTS)
        await asyncio.wait_for(lost.wait(), timeout=10)
        # Fail closed: the holder learns of the loss while its lease still stands, so no one else can hold it yet.
        assert redis_sync.get(key) == token
        assert redis_sync.pttl(key) > 0


async def test_lock_taken_away_sets_lost(redis_sync, job_name, monkeypatch):
    monkeypatch.setattr(leader, "LEASE_SECONDS", 1.5)
    async with leader.leadership(job_name) as lost:
        redis_sync.set(f"secdash:leader:{job_name}", b"someone-else")
        await asyncio.wait_for(lost.wait(), timeout=10)


async def test_acquire_error_is_retried_then_acquired(redis_sync, job_name, monkeypatch):
    import redis
    import redis.asyncio

    monkeypatch.setattr(leader, "LEASE_SECONDS", 1.0)
    monkeypatch.setattr(leader, "RETRY_MIN_SECONDS", 0.05)
    original = redis.asyncio.Redis.execute_command
    calls = 0

    async def flaky(self, *args, **options):
        nonlocal calls
        if str(args[0]).upper() == "SET":
            calls += 1
            if calls <= 3:
                raise redis.ConnectionError("injected: Redis unreachable")
        return await original(self, *args, **options)

    monkeypatch.setattr(redis.asyncio.Redis, "execute_command", flaky)
    ran = asyncio.Event()

    async def body(lost: asyncio.Event) -> None:
        ran.set()

    await asyncio.wait_for(leader.run_as_leader(job_name, body), timeout=10)
    assert ran.is_set() and calls >= 4


async def test_two_contenders_never_lead_together_and_the_second_takes_over(redis_sync, job_name, monkeypatch):
    """The first holder is cut off from Redis: it must stop before the second starts, and it keeps contending
    (it does not end) until Redis is back, when it can take over again."""
    import redis
    import redis.asyncio

    monkeypatch.setattr(leader, "LEASE_SECONDS", 1.5)
    monkeypatch.setattr(leader, "RETRY_MIN_SECONDS", 0.05)
    monkeypatch.setattr(leader, "RETRY_MAX_SECONDS", 0.2)
    key = f"secdash:leader:{job_name}"
    who: contextvars.ContextVar[str] = contextvars.ContextVar("who")
    cut_off: set[str] = set()
    original = redis.asyncio.Redis.execute_command

    async def partitioned(self, *args, **options):
        if who.get(None) in cut_off:
            raise redis.ConnectionError("injected: Redis unreachable")
        return await original(self, *args, **options)

    monkeypatch.setattr(redis.asyncio.Redis, "execute_command", partitioned)
    leaders: list[str] = []
    log: list[str] = []
    started = {name: asyncio.Event() for name in ("a", "b")}

    async def contender(name: str) -> None:
        who.set(name)  # this task and the tasks it starts talk to Redis as `name`

        async def body(lost: asyncio.Event) -> None:
            assert not leaders, f"{name} leads while {leaders} still does"
            leaders.append(name)
            log.append(f"{name} in")
            started[name].set()
            try:
                await asyncio.Event().wait()  # a producer loop: runs until stopped
            finally:
                leaders.remove(name)
                log.append(f"{name} out")

        await leader.run_as_leader(job_name, body)

    a = asyncio.create_task(contender("a"))
    await asyncio.wait_for(started["a"].wait(), timeout=10)
    b = asyncio.create_task(contender("b"))
    try:
        await asyncio.sleep(0.5)
        assert log == ["a in"]  # b waits while a holds the lease
        cut_off.add("a")  # a's link to Redis breaks: it cannot renew, release or contend
        await asyncio.wait_for(started["b"].wait(), timeout=10)
        assert log == ["a in", "a out", "b in"]
        assert not a.done()  # a did not give up: it keeps contending
        cut_off.clear()
        redis_sync.set(key, b"someone-else", px=100)  # b loses too; a new leader follows once the key lapses
        await asyncio.wait_for(_until(lambda: len(log) >= 5), timeout=10)
        assert log[3] == "b out" and log[4].endswith(" in") and len(leaders) == 1
    finally:
        a.cancel()
        b.cancel()
        await asyncio.gather(a, b, return_exceptions=True)
    assert not leaders


async def _until(predicate) -> None:
    while not predicate():
        await asyncio.sleep(0.02)


async def test_a_producer_stops_at_once_and_contends_again_after_a_lost_lease(redis_sync, monkeypatch):
    """run_housekeeping sleeps 10 minutes between rounds: a lost lease must still stop it now and start a new term."""
    from secdash.services import housekeeping
    from secdash.services.identity import auth

    monkeypatch.setattr(leader, "LEASE_SECONDS", 1.5)
    key = "secdash:leader:housekeeping"
    redis_sync.delete(key)
    rounds = 0
    second_term = asyncio.Event()

    async def purge_once() -> auth.PurgeResult:
        nonlocal rounds
        rounds += 1
        if rounds == 2:
            second_term.set()
        return auth.PurgeResult(sessions=0, login_attempts=0)

    monkeypatch.setattr(housekeeping, "purge_once", purge_once)
    task = asyncio.create_task(housekeeping.run_housekeeping())
    try:
        await asyncio.wait_for(_until(lambda: rounds == 1), timeout=10)
        redis_sync.set(key, b"someone-else", px=300)  # the lease is taken away, then lapses
        await asyncio.wait_for(second_term.wait(), timeout=10)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        redis_sync.delete(key)
