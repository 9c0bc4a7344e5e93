"""Helpers for states that follow a change feed while their page is open."""

from __future__ import annotations

from reflex.utils.prerequisites import get_app

from secdash.core import notify


def client_connected(client_token: str) -> bool:
    """Whether the browser tab that started a background task is still connected to this worker."""
    namespace = getattr(get_app().app, "event_namespace", None)
    return namespace is None or client_token in namespace.token_to_sid


async def wait_for_change(changes: notify.Changes, timeout: float) -> set[str]:
    """The topics that changed (waiting at most `timeout`; empty when it passed: refresh anyway)."""
    return await changes.wait(timeout)


subscribe = notify.subscribe
