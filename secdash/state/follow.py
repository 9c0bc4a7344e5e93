"""Live-follow loops of open pages: at most one per browser tab and page, decided on the server.

Every page follows the change feed the same way, from a background handler its `on_load` chains:

    @rx.event(background=True)
    async def follow_changes(self):
        async for changed in follow.updates(self, "history", audit.TOPIC, timeout=MAX_STALENESS_SECONDS):
            ...  # re-read what `changed` names (topic -> newest sequence); empty: the timeout passed

The loop subscribes when the page mounts and ends when
- the same tab starts the page's loop again (the earlier one ends at once), or the page calls
  `stop_following` (its `on_unmount`);
- the tab's socket disconnects: every wake-up asks python-socketio's public `get_environ(sid)`
  whether the socket that started the loop is still there, so a closed tab's loop ends at its next
  wake-up (at most the page's timeout later). Nothing here reads Reflex's backward-compatibility token
  maps. (Reflex 0.10.1's event processor also cancels an unfinished `on_load` chain on disconnect,
  which would end a loop chained from `on_load` at once; read in its source, not relied on here: the
  dashboard starts its loop on mount.)
Whatever a client sends, a tab keeps no more than one loop per page in this worker.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from secdash.core import notify
from secdash.models import UserPublic
from secdash.state.base import refusal_events

_loops: dict[tuple[str, str], notify.Changes] = {}
_sockets: dict[int, str] = {}  # id(changes) -> the socket id (sid) that started the loop
_app: Any = None  # the Reflex app, handed over at start-up: its socket.io server knows which tabs are connected


def use_app(app: Any) -> None:
    """Hand over the app (secdash.py does, at start-up) so loops can ask its socket.io server about their tab;
    this module never imports the app (the app imports the states)."""
    global _app
    _app = app


@dataclasses.dataclass(frozen=True)
class Tab:
    """A browser tab: its client token (one per tab, kept across reconnects) and its current socket id."""

    token: str
    sid: str = ""


def tab_of(state_or_token: Any) -> Tab:
    """The tab of a Reflex state (its router session), or a bare client token."""
    if isinstance(state_or_token, Tab):
        return state_or_token
    if isinstance(state_or_token, str):
        return Tab(state_or_token)
    session = state_or_token.router.session
    return Tab(session.client_token, session.session_id or "")


def client_connected(tab: Tab | str) -> bool:
    """Whether the tab's socket is still connected to this worker (True without a handed-over app: tests)."""
    tab = tab if isinstance(tab, Tab) else Tab(tab)
    if not tab.sid or _app is None:
        return True
    sio, namespace = _app.sio, _app.event_namespace
    if sio is None or namespace is None:
        return True
    return sio.get_environ(tab.sid, namespace.namespace) is not None


def running_loops() -> int:
    """How many follow loops this worker runs now (tests, diagnostics)."""
    return len(_loops)


def stop_following(client_token: str, page: str) -> None:
    """End the tab's loop for this page, if one runs."""
    changes = _loops.pop((client_token, page), None)
    if changes is not None:
        changes.close()


@asynccontextmanager
async def follow(tab: Any, page: str, *topics: str) -> AsyncIterator[notify.Changes]:
    """Subscribe to `topics` (exact or `prefix*`) as the tab's one loop for `page`, replacing any earlier one.

    `tab` is the state (preferred: its socket id lets the loop notice a disconnect) or the client token.
    Loop `while following(changes, tab)`; it ends when replaced, stopped or disconnected.
    """
    tab = tab_of(tab)
    key = (tab.token, page)
    async with notify.subscribe(*topics) as changes:
        stop_following(tab.token, page)
        _loops[key] = changes
        if tab.sid:
            _sockets[id(changes)] = tab.sid
        try:
            yield changes
        finally:
            _sockets.pop(id(changes), None)
            if _loops.get(key) is changes:
                del _loops[key]


def following(changes: notify.Changes, tab: Any) -> bool:
    """Whether the loop should go on: not replaced or stopped, and its tab still connected."""
    if changes.closed:
        return False
    tab = tab_of(tab)
    sid = tab.sid or _sockets.get(id(changes), "")
    return client_connected(Tab(tab.token, sid))


async def updates(state: Any, page: str, *topics: str, timeout: float | None = None) -> AsyncIterator[notify.Changed]:
    """The tab's one follow loop for `page`: yields what changed (topic -> newest sequence; many publishes
    while the page was busy come as one), or an empty mapping, meaning "re-read everything", when `timeout`
    passed with no change or the feed may have lost messages."""
    tab = tab_of(state)
    async with follow(tab, page, *topics) as changes:
        while following(changes, tab):
            changed = await changes.wait(timeout)
            if not following(changes, tab):
                return
            if "*" in changed:  # the feed may have lost messages (Redis reconnected): re-read everything
                changed = notify.Changed()
            yield changed


class StopFollowing(Exception):  # noqa: N818  (a signal, not an error)
    """Raised by a round of `signed_in_rounds` to end the loop quietly (the page can no longer be shown)."""


Round = Callable[[UserPublic, notify.Changed], Awaitable[Any]]


async def signed_in_rounds(
    state: Any,
    page: str,
    *topics: str,
    timeout: float | None,
    each_round: Round,
    user_topics: Callable[[UserPublic], tuple[str, ...]] | None = None,
    skip: tuple[type[BaseException], ...] = (),
) -> AsyncIterator[Any]:
    """The follow loop of a protected page's `follow_changes` (a `protected(reads_only=True, background=True)`
    handler that yields what this yields):

        async for out in follow.signed_in_rounds(self, PAGE, *TOPICS, timeout=..., each_round=self._follow_round):
            yield out

    Each round re-checks the signed-in user (`_still_signed_in`: cached, not counted as activity); when the
    session is gone the tab gets the refusal events and the loop ends. Otherwise `each_round(user, changed)`
    re-reads and applies (outside and under the state lock, as it needs); what it returns, when truthy, goes
    to the browser. A round raising one of `skip` is skipped (the next change reads again); raising
    `StopFollowing` ends the loop. `user_topics(user)`: topics of the signed-in user (checked once before
    subscribing, refused like a round when signed out).
    """
    if user_topics is not None:
        user = await state._still_signed_in()
        if user is None:
            yield refusal_events()
            return
        topics = (*topics, *user_topics(user))
    async for changed in updates(state, page, *topics, timeout=timeout):
        user = await state._still_signed_in()
        if user is None:
            yield refusal_events()
            return
        try:
            out = await each_round(user, changed)
        except StopFollowing:
            return
        except skip:
            continue
        if out:
            yield out
