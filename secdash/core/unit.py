"""Committing a unit of work: publish the topics it changed and run what waits for its commit.

Below the domain: services, jobs and the job runner use it; it imports nothing of theirs. Work that must only
start once the data is visible (a job handed to a worker) is registered with `after_commit` by the layer that
knows how to start it (`jobs.runner.enqueue`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core import notify

_TOPICS_KEY = "secdash_changed_topics"
_AFTER_COMMIT_KEY = "secdash_after_commit"


def mark_changed(session: AsyncSession, *topics: str) -> None:
    """Remember that this session's commit changes these topics."""
    session.info.setdefault(_TOPICS_KEY, set()).update(topics)


def after_commit(session: AsyncSession, action: Callable[[], Awaitable[None]]) -> None:
    """Run `action` once this session's next `commit` has made its writes visible (in the order registered)."""
    session.info.setdefault(_AFTER_COMMIT_KEY, []).append(action)


async def end_read(session: AsyncSession) -> None:
    """End a read-only transaction (nothing written yet) so no pooled connection is held across slow work that
    follows: a DNS lookup, a model call, `node --check` (objects stay loaded: sessions do not expire on commit)."""
    if session.in_transaction() and not (session.new or session.dirty or session.deleted):
        await session.commit()


async def commit(session: AsyncSession) -> None:
    """Commit, then publish the topics the work changed and run what waited for the commit (never before the data
    is visible)."""
    await session.commit()
    topics = session.info.pop(_TOPICS_KEY, set())
    if topics:
        await notify.publish(*sorted(topics))
    for action in session.info.pop(_AFTER_COMMIT_KEY, []):
        await action()
