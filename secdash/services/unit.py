"""Committing a unit of work and announcing what it changed."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core import notify

_TOPICS_KEY = "secdash_changed_topics"


def mark_changed(session: AsyncSession, topic: str) -> None:
    """Remember that this session's commit changes `topic`."""
    session.info.setdefault(_TOPICS_KEY, set()).add(topic)


async def commit(session: AsyncSession) -> None:
    """Commit, then publish the topics the work changed (never before the data is visible)."""
    await session.commit()
    topics = session.info.pop(_TOPICS_KEY, set())
    if topics:
        await notify.publish(*sorted(topics))
