"""One short unit of work for callers that hold no database session (the Reflex states).

States never open sessions themselves: they call a service function through `in_session`, which
opens a session for that one call and closes it (anything uncommitted rolls back), or call one of
the composed page reads in `services/reads/page_reads.py`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from secdash.core.db import session_scope

T = TypeVar("T")


async def in_session(fn: Callable[..., Awaitable[T]], /, **kwargs: Any) -> T:
    """`await fn(session=<a new session>, **kwargs)`; the session ends with the call."""
    async with session_scope() as session:
        return await fn(session=session, **kwargs)
