"""Live-follow loops of open pages: at most one per browser tab and page, decided on the server.

A page's `on_load` (or `on_mount`) starts its loop; starting another for the same tab and page
ends the previous one at once, and so does `stop_following`. Whatever a client sends, a tab can
keep no more than one loop per page running in this worker (the tab's websocket is bound to it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from secdash.core import notify
from secdash.state.live import client_connected

_loops: dict[tuple[str, str], notify.Changes] = {}


def running_loops() -> int:
    """How many follow loops this worker runs now (tests, diagnostics)."""
    return len(_loops)


def stop_following(client_token: str, page: str) -> None:
    """End the tab's loop for this page, if one runs."""
    changes = _loops.pop((client_token, page), None)
    if changes is not None:
        changes.close()


@asynccontextmanager
async def follow(client_token: str, page: str, *topics: str) -> AsyncIterator[notify.Changes]:
    """Subscribe to `topics` as the tab's one loop for `page`, replacing any earlier one.

    Loop `while following(changes, client_token)`; it ends when replaced, stopped or disconnected.
    """
    key = (client_token, page)
    async with notify.subscribe(*topics) as changes:
        stop_following(client_token, page)
        _loops[key] = changes
        try:
            yield changes
        finally:
            if _loops.get(key) is changes:
                del _loops[key]


def following(changes: notify.Changes, client_token: str) -> bool:
    return not changes.closed and client_connected(client_token)
