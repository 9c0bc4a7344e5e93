"""The audit trail (History Logs): recording entries and reading them per role."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, true
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import HistoryLog, HistoryLogPublic, LogCategory, LogSeverity, Role, UserPublic
from secdash.services.errors import Invalid
from secdash.services.unit import mark_changed

TOPIC = "history"
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
CATEGORIES = tuple(c.value for c in LogCategory)


def record(
    session: AsyncSession,
    *,
    category: LogCategory,
    action: str,
    description: str,
    severity: LogSeverity = LogSeverity.info,
    actor_user_id: int | None = None,
    details: dict[str, Any] | None = None,
) -> HistoryLog:
    """Add an entry to the trail; it is written with the caller's commit."""
    entry = HistoryLog(
        category=category.value,
        action=action,
        severity=severity.value,
        description=description,
        actor_user_id=actor_user_id,
        details=details or {},
    )
    session.add(entry)
    mark_changed(session, TOPIC)
    return entry


def parse_category(value: str | None) -> str | None:
    if value in (None, ""):
        return None
    if value not in CATEGORIES:
        raise Invalid(f"category must be one of: {', '.join(CATEGORIES)}")
    return value


def parse_limit(value: int | str | None) -> int:
    if value in (None, ""):
        return DEFAULT_LIMIT
    try:
        limit = int(value)
    except (TypeError, ValueError):
        raise Invalid("limit must be a whole number") from None
    if not 1 <= limit <= MAX_LIMIT:
        raise Invalid(f"limit must be between 1 and {MAX_LIMIT}")
    return limit


def _visible_to(viewer: UserPublic):
    """Admins see everything; limited users see system entries and their own."""
    if viewer.role == Role.admin.value:
        return true()
    return or_(HistoryLog.category == LogCategory.system.value, HistoryLog.actor_user_id == viewer.id)


async def list_logs(
    *, session: AsyncSession, viewer: UserPublic, category: str | None = None, limit: int = DEFAULT_LIMIT
) -> list[HistoryLogPublic]:
    """Entries the viewer may see, newest first."""
    query = select(HistoryLog).where(_visible_to(viewer))
    if category:
        query = query.where(HistoryLog.category == category)
    query = query.order_by(col(HistoryLog.timestamp).desc(), col(HistoryLog.id).desc()).limit(limit)
    rows = await session.exec(query)
    return [HistoryLogPublic.from_log(row) for row in rows]


async def count_by_category(*, session: AsyncSession, viewer: UserPublic) -> dict[str, int]:
    """How many entries the viewer may see, per category and in all ("all")."""
    query = (
        select(HistoryLog.category, func.count())
        .where(_visible_to(viewer))
        .group_by(HistoryLog.category)
    )
    counts = {category: 0 for category in CATEGORIES}
    for category, number in await session.exec(query):
        counts[category] = number
    counts["all"] = sum(counts[c] for c in CATEGORIES)
    return counts
