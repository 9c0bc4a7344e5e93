"""The one follow helper every page uses (`follow.updates`): one loop per tab and page, coalesced
wake-ups with sequences, and the end of the loop when the tab's socket is gone (asked of the app's
real socket.io server, not of Reflex's token maps)."""

from __future__ import annotations

import asyncio

import pytest

import secdash.secdash  # noqa: F401  (the app: its socket.io server)
from secdash.core import notify
from secdash.state import follow


@pytest.fixture(autouse=True)
async def fresh_feed():
    await notify.reset()
    yield
    await notify.reset()


async def _page(tab: follow.Tab, page: str, seen: list[notify.Changed]) -> None:
    async for changed in follow.updates(tab, page, "sites", "site:*", timeout=30):
        seen.append(changed)


async def test_opening_the_page_again_replaces_the_loop_and_each_wake_up_is_coalesced():
    tab = follow.Tab("tab-1")  # no socket id: a loop that is not served over a socket (this test)
    first_seen: list[notify.Changed] = []
    second_seen: list[notify.Changed] = []
    first = asyncio.create_task(_page(tab, "dashboard", first_seen))
    await asyncio.sleep(0.05)
    second = asyncio.create_task(_page(tab, "dashboard", second_seen))
    await asyncio.wait_for(first, 1)  # replaced: ended at once
    assert follow.running_loops() == 1
    for _ in range(20):
        await notify.publish("site:3")
    await notify.publish("sites")
    await asyncio.sleep(0.2)
    assert second_seen == [{"site:3": 20, "sites": 1}] and first_seen == []
    follow.stop_following("tab-1", "dashboard")
    await asyncio.wait_for(second, 1)
    assert follow.running_loops() == 0 and notify.subscriber_count() == 0


async def test_a_loop_whose_socket_is_gone_ends_at_its_next_wake_up():
    gone = follow.Tab("tab-2", sid="a-socket-this-server-does-not-have")
    assert not follow.client_connected(gone)  # the app's socket.io server knows no such connection
    seen: list[notify.Changed] = []
    loop = asyncio.create_task(_page(gone, "dashboard", seen))
    await asyncio.sleep(0.05)
    await notify.publish("sites")
    await asyncio.wait_for(loop, 1)
    assert seen == [] and follow.running_loops() == 0


async def test_the_tab_of_a_state_is_its_token_and_socket():
    class Session:
        client_token, session_id = "tok-9", "sid-9"

    class Router:
        session = Session()

    class State:
        router = Router()

    assert follow.tab_of(State()) == follow.Tab("tok-9", "sid-9")
    assert follow.tab_of("tok-9") == follow.Tab("tok-9")


async def test_after_a_lost_feed_the_page_re_reads_everything():
    """When the Redis listener reconnects, messages published meanwhile are gone: every page is told to
    re-read all it shows (an empty mapping, as after the staleness timeout)."""
    seen: list[notify.Changed] = []
    loop = asyncio.create_task(_page(follow.Tab("tab-3"), "dashboard", seen))
    await asyncio.sleep(0.05)
    notify._fan_out_everything()  # what the listener does after a reconnect
    await asyncio.sleep(0.2)
    follow.stop_following("tab-3", "dashboard")
    await asyncio.wait_for(loop, 1)
    assert seen == [{}]
