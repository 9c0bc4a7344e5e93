"""Helpers for states that follow a change feed while their page is open."""

from __future__ import annotations

import asyncio

from reflex.utils.prerequisites import get_app

from secdash.core import notify


def client_connected(client_token: str) -> bool:
    """Whether the browser tab that started a background task is still connected to this worker."""
    namespace = getattr(get_app().app, "event_namespace", None)
    return namespace is None or client_token in namespace.token_to_sid


async def wait_for_change(queue: asyncio.Queue[str], timeout: float) -> bool:
    """Wait for a change notice; False when `timeout` passed first (refresh anyway)."""
    try:
        await asyncio.wait_for(queue.get(), timeout=timeout)
        return True
    except TimeoutError:
        return False


subscribe = notify.subscribe
