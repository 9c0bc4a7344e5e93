"""The machine's real Redis for tests that need one (database 9), or a skip where there is none."""

from __future__ import annotations

import pytest

REDIS_URL = "redis://127.0.0.1:6379/9"


def redis_or_skip():
    """A connected synchronous client to REDIS_URL; skips the test when no Redis answers."""
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        client.ping()
    except Exception:
        pytest.skip("no Redis on this machine")
    return client
