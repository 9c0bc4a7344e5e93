"""Live-follow loops: one per browser tab and page, whatever a client sends."""

from __future__ import annotations

import asyncio
import inspect

import pytest

import secdash.secdash  # noqa: F401
from secdash.core import notify
from secdash.state import follow
from secdash.state.dashboard import DashboardState
from secdash.state.history import HistoryState


@pytest.fixture(autouse=True)
def every_tab_connected(monkeypatch):
    monkeypatch.setattr(follow, "client_connected", lambda _token: True)


async def _loop(token: str, page: str, woke: list[str]) -> None:
    async with follow.follow(token, page, "audit") as changes:
        while follow.following(changes, token):
            woke.extend(await changes.wait(30))


async def _until(condition, timeout: float) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


async def test_a_flood_of_follow_requests_leaves_one_loop_per_tab_and_page():
    woke: list[str] = []
    tasks = [asyncio.create_task(_loop("tab-1", "history", woke)) for _ in range(300)]
    other_page = asyncio.create_task(_loop("tab-1", "dashboard", woke))
    other_tab = asyncio.create_task(_loop("tab-2", "history", woke))
    try:
        # The replaced loops end at once, not at their 30 s timeout (polled: a loaded CI machine is slow to
        # schedule 300 tasks, and a fixed sleep made this depend on the machine's speed).
        await _until(lambda: sum(not t.done() for t in tasks) == 1, timeout=10)
        assert follow.running_loops() == 3
        assert sum(not t.done() for t in tasks) == 1
        await notify.publish("audit")
        await _until(lambda: woke.count("audit") >= 3, timeout=10)
        await asyncio.sleep(0.1)
        assert woke.count("audit") == 3  # each remaining loop refreshes once
    finally:
        for task in (*tasks, other_page, other_tab):
            task.cancel()
        await asyncio.gather(*tasks, other_page, other_tab, return_exceptions=True)
    assert follow.running_loops() == 0


async def test_stop_following_ends_the_loop_at_once():
    task = asyncio.create_task(_loop("tab-9", "dashboard", []))
    await _until(lambda: follow.running_loops() == 1, timeout=5)
    follow.stop_following("tab-9", "dashboard")
    await asyncio.wait_for(task, timeout=2)
    assert follow.running_loops() == 0


@pytest.mark.parametrize("state_cls", [HistoryState, DashboardState])
def test_follow_handlers_take_nothing_from_the_client(state_cls):
    """No client-supplied generation or id can open a second loop."""
    fn = state_cls.event_handlers["follow_changes"].fn
    assert list(inspect.signature(fn).parameters) == ["self"]
    source = inspect.getsource(fn)
    entry_points = ("follow.follow(", "follow(client_token", "follow.updates(self", "follow.signed_in_rounds(")
    assert any(entry in source for entry in entry_points)
