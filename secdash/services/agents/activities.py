"""AI activity feed: what the defense system did (real events) or, marked as such, simulated."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import col, delete, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import get_settings
from secdash.core.unit import commit, mark_changed
from secdash.models import ActivityType, AiActivity, utcnow

TOPIC = "activities"
FEED_SIZE = 5  # spec section 9: the list is kept at 5
ACTIVITY_TYPES = ("patch", "optimize", "block", "scan")


def record(
    session: AsyncSession,
    *,
    activity_type: str,
    target: str,
    description: str,
    status: str = "completed",
    simulated: bool = False,
) -> AiActivity:
    """Add an activity; written with the caller's commit."""
    assert activity_type in ACTIVITY_TYPES, activity_type
    activity = AiActivity(
        activity_type=ActivityType(activity_type),
        target=target[:200],
        description=description[:1000],
        status=status,
        simulated=simulated,
    )
    session.add(activity)
    mark_changed(session, TOPIC)
    return activity


async def recent(*, session: AsyncSession, limit: int = FEED_SIZE) -> list[AiActivity]:
    query = select(AiActivity).order_by(col(AiActivity.created_at).desc(), col(AiActivity.id).desc()).limit(limit)
    return list(await session.exec(query))


async def keep_newest_simulated(session: AsyncSession, keep: int = FEED_SIZE) -> None:
    """Delete simulated lines beyond the newest `keep` (real activity is never pruned here); caller commits."""
    await session.flush()
    newest = select(AiActivity.id).where(col(AiActivity.simulated).is_(True)).order_by(col(AiActivity.id).desc()).limit(keep)
    await session.exec(
        delete(AiActivity).where(
            col(AiActivity.simulated) == True,  # noqa: E712
            col(AiActivity.id).not_in(newest.scalar_subquery()),
        )
    )


async def prune(session: AsyncSession) -> int:
    """Real activity older than SECDASH_AI_ACTIVITY_DAYS (simulated lines are kept to the newest few as they are
    written); committed. Returns how many lines were dropped."""
    kept_from = utcnow() - timedelta(days=get_settings().AI_ACTIVITY_DAYS)
    dropped = await session.execute(delete(AiActivity).where(col(AiActivity.created_at) < kept_from))
    await commit(session)
    return dropped.rowcount or 0  # type: ignore[attr-defined]
