"""The change feed: keyed topics with a sequence per topic, prefix subscriptions, coalescing while a
follower is busy, append-only streams read from the last sequence seen, and the Redis path (real Redis,
database 9) shared by several worker processes."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from secdash.core import notify
from tests.support.redis_server import REDIS_URL, redis_or_skip

PROJECT_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
async def fresh_feed():
    await notify.reset()
    yield
    await notify.reset()


async def test_each_topic_counts_its_own_sequence():
    assert await notify.publish("site:3") == {"site:3": 1}
    assert await notify.publish("site:3", "site:4") == {"site:3": 2, "site:4": 1}
    assert await notify.publish("sites") == {"sites": 1}  # a plain area topic keeps working
    assert notify.sequence("site:3") == 2 and notify.sequence("site:9") == 0


async def test_a_producer_may_announce_its_own_sequence():
    """A job log announces its row's sequence: the follower learns which line is the newest."""
    async with notify.subscribe("job:41") as changes:
        await notify.publish("job:41", seq=17)
        changed = await changes.wait(1)
    assert changed == {"job:41": 17} and notify.sequence("job:41") == 17


async def test_keys_and_prefixes_reach_only_their_followers():
    async with (
        notify.subscribe("job:*") as jobs,
        notify.subscribe("site:3") as site_3,
        notify.subscribe("sites") as area,
    ):
        await notify.publish("job:41", "job:42", "site:3", "site:4", "sites", "jobs")
        assert set(await jobs.wait(1)) == {"job:41", "job:42"}
        assert set(await site_3.wait(1)) == {"site:3"}
        assert set(await area.wait(1)) == {"sites"}
    assert notify.subscriber_count() == 0  # leaving the block unsubscribes


async def test_many_publishes_while_busy_make_one_wake_up_with_the_newest_sequence():
    wake_ups: list[notify.Changed] = []
    async with notify.subscribe("battle:7", "traffic") as changes:
        for _ in range(50):  # the follower is busy (not waiting) while these arrive
            await notify.publish("battle:7")
        await notify.publish("traffic")
        wake_ups.append(await changes.wait(1))
        wake_ups.append(await changes.wait(0.2))  # nothing more: the 51 notices were one wake-up
    assert wake_ups[0] == {"battle:7": 50, "traffic": 1}
    assert wake_ups[1] == {}


async def test_a_closed_subscription_wakes_its_follower_at_once():
    async with notify.subscribe("history") as changes:
        waiter = asyncio.create_task(changes.wait(30))
        await asyncio.sleep(0.05)
        changes.close()
        assert await asyncio.wait_for(waiter, 1) == {}
        assert changes.closed


class Log:
    """An append-only stream (a job log): entries (seq, text); the reader counts what it hands out."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, str]] = []
        self.handed_out = 0
        self.reads: list[int] = []

    def append(self, text: str) -> int:
        seq = len(self.rows) + 1
        self.rows.append((seq, text))
        return seq

    async def since(self, after: int, limit: int) -> list[tuple[int, str]]:
        self.reads.append(after)
        rows = [row for row in self.rows if row[0] > after][:limit]
        self.handed_out += len(rows)
        return rows


async def test_a_stream_is_read_from_the_last_sequence_seen():
    log = Log()
    for i in range(5):
        log.append(f"line {i}")
    entries, last = await notify.read_since(log.since, 0, seq_of=lambda row: row[0])
    assert [row[1] for row in entries] == [f"line {i}" for i in range(5)] and last == 5
    log.append("line 5")
    entries, last = await notify.read_since(log.since, last, seq_of=lambda row: row[0])
    assert entries == [(6, "line 5")] and last == 6
    entries, last = await notify.read_since(log.since, last, seq_of=lambda row: row[0])
    assert entries == [] and last == 6
    assert log.handed_out == 6  # nothing read twice


async def test_following_a_stream_reads_only_new_lines_and_pages_a_long_gap():
    log = Log()
    for i in range(7):
        log.append(f"early {i}")
    batches: list[list[tuple[int, str]]] = []

    async def page_follows() -> None:
        async for batch in notify.follow_stream("job:41", log.since, 2, seq_of=lambda row: row[0], limit=3, timeout=5):
            batches.append(batch)
            if sum(map(len, batches)) >= 15:
                return

    follower = asyncio.create_task(page_follows())
    async with asyncio.timeout(5):  # the follower has read what was there (and waits for more)
        while sum(map(len, batches)) < 5:
            await asyncio.sleep(0.01)
    assert [[seq for seq, _ in batch] for batch in batches] == [[3, 4, 5], [6, 7]]  # from seq 2, in pages of 3
    for i in range(10):  # a busy producer: ten lines, ten announcements
        await notify.publish("job:41", seq=log.append(f"late {i}"))
    await asyncio.wait_for(follower, 2)
    seen = [seq for batch in batches for seq, _ in batch]
    assert seen == list(range(3, 18))  # every line once, in order
    assert log.handed_out == 15  # never re-read whole


@pytest.fixture
def redis_feed(settings, monkeypatch):
    client = redis_or_skip()
    monkeypatch.setattr(settings, "REDIS_URL", REDIS_URL)
    topics: list[str] = []
    yield topics
    if topics:
        client.hdel(notify.SEQUENCES_KEY, *topics)
    client.close()


def _other_worker(*topics: str) -> None:
    """Publish from another process, as another worker of the same deployment would."""
    code = (
        "import asyncio, sys; from secdash.core import notify\n"
        "async def main():\n"
        "    await notify.publish(*sys.argv[1:])\n"
        "    await notify.reset()\n"
        "asyncio.run(main())\n"
    )
    env = {**os.environ, "REFLEX_REDIS_URL": REDIS_URL}
    subprocess.run([sys.executable, "-c", code, *topics], cwd=PROJECT_ROOT, env=env, check=True, timeout=60)


async def test_on_redis_every_worker_shares_the_sequence_and_hears_the_others(redis_feed):
    topic = f"job:{secrets.randbelow(10**9)}"
    redis_feed.append(topic)
    async with notify.subscribe(topic) as changes:
        assert await notify.listening(10)  # the listener has subscribed to the channel
        assert await notify.publish(topic) == {topic: 1}
        assert await changes.wait(2) == {topic: 1}  # heard once, though Redis also sends it back
        await asyncio.to_thread(_other_worker, topic, topic)  # another worker: the count goes on
        first = await changes.wait(5)
        if first.seq(topic) < 3:
            first = await changes.wait(5)
        assert first == {topic: 3}
        assert await notify.publish(topic) == {topic: 4}
        assert await changes.wait(2) == {topic: 4}
    assert notify.sequence(topic) == 4


async def test_on_redis_a_prefix_follower_hears_other_workers_keys(redis_feed):
    area = f"battle{secrets.token_hex(3)}"
    redis_feed.extend([f"{area}:7", f"{area}:8"])
    async with notify.subscribe(f"{area}:*") as changes:
        assert await notify.listening(10)
        await asyncio.to_thread(_other_worker, f"{area}:7", f"{area}:8")
        heard: dict[str, int] = {}
        for _ in range(3):
            heard |= await changes.wait(5)
            if len(heard) == 2:
                break
    assert heard == {f"{area}:7": 1, f"{area}:8": 1}


async def test_without_redis_there_is_no_listener_to_wait_for():
    assert await notify.listening(5) is False  # at once: changes stay in this process
