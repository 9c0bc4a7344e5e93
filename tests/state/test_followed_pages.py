"""Every page that follows live changes ends its loop when it leaves the screen (its `stop_following`, the
page's on_unmount), and only its own loop: the same tab's loop on another page keeps running."""

from __future__ import annotations

import asyncio

import pytest
import reflex as rx
from reflex.istate.data import RouterData

import secdash.secdash  # noqa: F401  (every page and state registered)
from secdash.state import follow
from secdash.state.followed_page import FollowedPage
from tests.factories import make_user, sign_in

TOKEN = "tab-followed"


def _followed_states() -> list[type[FollowedPage]]:
    found, todo = [], list(FollowedPage.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if "_follow_page" in cls.__dict__:
            found.append(cls)
    return sorted(set(found), key=lambda cls: cls.__name__)


def _states_with_a_follow_loop() -> set[type]:
    found, todo = set(), list(rx.State.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if "follow_changes" in getattr(cls, "__dict__", {}):
            found.add(cls)
    return found


@pytest.fixture(autouse=True)
def every_tab_connected(monkeypatch):
    monkeypatch.setattr(follow, "client_connected", lambda _tab: True)


async def _loop(page: str) -> None:
    async with follow.follow(TOKEN, page, "audit") as changes:
        while follow.following(changes, TOKEN):
            await changes.wait(30)


def test_every_page_with_a_follow_loop_can_stop_it():
    assert _states_with_a_follow_loop() == set(_followed_states())
    assert len({cls._follow_page for cls in _followed_states()}) == len(_followed_states()) >= 9


@pytest.mark.parametrize("state_cls", _followed_states(), ids=lambda cls: cls.__name__)
async def test_leaving_the_page_ends_its_loop_and_only_its_own(session, state_cls):
    await make_user(session, "root@example.com", role="admin")
    root = rx.State(_reflex_internal_init=True)
    root.router = RouterData.from_router_data({"pathname": "/", "asPath": "/", "query": {}, "token": TOKEN})
    state = root.get_substate(state_cls.get_full_name().split("."))
    state.auth_token = await sign_in(session, "root@example.com")
    own = asyncio.create_task(_loop(state_cls._follow_page))
    other = asyncio.create_task(_loop("another-page"))
    try:
        async with asyncio.timeout(5):
            while follow.running_loops() < 2:
                await asyncio.sleep(0.01)
        await state_cls.event_handlers["stop_following"].fn(state)
        await asyncio.wait_for(own, timeout=2)
        assert follow.running_loops() == 1 and not other.done()
    finally:
        other.cancel()
        await asyncio.gather(own, other, return_exceptions=True)
