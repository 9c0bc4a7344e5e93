"""The audit trail (History Logs): recording entries and reading them per role."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import and_, false, func, or_, true
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import mark_changed
from secdash.models import HistoryLog, HistoryLogPublic, LogCategory, LogSeverity, Role, UserPublic
from secdash.services.errors import Invalid
from secdash.services.identity import permissions

TOPIC = "history"
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
CATEGORIES = tuple(c.value for c in LogCategory)
# Caps on what one entry may hold (a 5 MB URL once made every History page 15 MB).
MAX_ACTION_LENGTH = 120
MAX_DESCRIPTION_LENGTH = 2000
MAX_DETAIL_TEXT = 500  # characters of one string value in the metadata
MAX_DETAILS_BYTES = 4096  # the metadata as JSON
MAX_DETAIL_ITEMS = 50  # entries of one list or object in the metadata
MAX_DETAIL_DEPTH = 6


def _text(value: str, limit: int) -> str:
    """The text cut to about limit characters, saying how long it was; unencodable characters replaced."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", "replace").decode("utf-8")
    if len(value) <= limit:
        return value
    return f"{value[:limit]}… [truncated, {len(value)} characters]"


def _shrink(value: Any, limit: int, depth: int = 0) -> Any:
    if isinstance(value, str):
        return _text(value, limit)
    if isinstance(value, dict | list | tuple) and depth >= MAX_DETAIL_DEPTH:
        return "[nested too deeply]"
    if isinstance(value, dict):
        items = list(value.items())
        out = {_text(str(k), 100): _shrink(v, limit, depth + 1) for k, v in items[:MAX_DETAIL_ITEMS]}
        if len(items) > MAX_DETAIL_ITEMS:
            out["_omitted"] = len(items) - MAX_DETAIL_ITEMS
        return out
    if isinstance(value, list | tuple):
        out_list = [_shrink(v, limit, depth + 1) for v in value[:MAX_DETAIL_ITEMS]]
        if len(value) > MAX_DETAIL_ITEMS:
            out_list.append(f"… [{len(value) - MAX_DETAIL_ITEMS} more]")
        return out_list
    return value


def _size(details: dict[str, Any]) -> int:
    return len(json.dumps(details, default=str))


def bounded_details(details: dict[str, Any] | None) -> dict[str, Any]:
    """Metadata fit for the trail: long strings truncated with a marker, the whole at most MAX_DETAILS_BYTES."""
    if not details:
        return {}
    for limit in (MAX_DETAIL_TEXT, 200, 50):
        out = _shrink(details, limit)
        if _size(out) <= MAX_DETAILS_BYTES:
            return out
    kept: dict[str, Any] = {}
    for key, value in out.items():  # still too big: keep the first keys that fit
        if _size({**kept, key: value, "_truncated": True}) > MAX_DETAILS_BYTES:
            break
        kept[key] = value
    kept["_truncated"] = True
    return kept


def record(
    session: AsyncSession,
    *,
    category: LogCategory,
    action: str,
    description: str,
    severity: LogSeverity = LogSeverity.info,
    actor_user_id: int | None = None,
    details: dict[str, Any] | None = None,
    admin_only: bool = False,
) -> HistoryLog:
    """Add an entry to the trail; it is written with the caller's commit. An admin_only entry is never shown to a
    limited user, whatever its category or author."""
    entry = HistoryLog(
        category=category,
        action=_text(action, MAX_ACTION_LENGTH - 40),
        severity=severity,
        description=_text(description, MAX_DESCRIPTION_LENGTH - 40),
        actor_user_id=actor_user_id,
        details=bounded_details(details),
        admin_only=admin_only,
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
    """Admins see everything; limited users see the categories every user reads (permissions.fully_readable) and
    their own entries, never an admin-only one."""
    if viewer.role == Role.admin.value:
        return true()
    return and_(
        col(HistoryLog.admin_only) == false(),
        or_(col(HistoryLog.category).in_(sorted(permissions.fully_readable(viewer))), col(HistoryLog.actor_user_id) == viewer.id),
    )


MAX_SEARCH_LENGTH = 200


def parse_before(value: int | str | None) -> int | None:
    """The paging cursor: the id of the last entry the client has (entries older than it come next)."""
    if value in (None, ""):
        return None
    try:
        before = int(value)
    except (TypeError, ValueError):
        raise Invalid("before must be the id of a log entry") from None
    if not 1 <= before <= 2**31 - 1:
        raise Invalid("before must be the id of a log entry")
    return before


def parse_search(value: str | None) -> str:
    text = (value or "").strip()
    if len(text) > MAX_SEARCH_LENGTH:
        raise Invalid(f"q must be at most {MAX_SEARCH_LENGTH} characters")
    return text


def _matching(search: str):
    """Entries whose action or description contains the text (case-insensitive, literal)."""
    if not search:
        return true()
    pattern = "%" + search.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    return or_(
        func.lower(HistoryLog.action).like(pattern, escape="\\"), func.lower(HistoryLog.description).like(pattern, escape="\\")
    )


async def list_logs(
    *,
    session: AsyncSession,
    viewer: UserPublic,
    category: str | None = None,
    limit: int = DEFAULT_LIMIT,
    before: int | None = None,
    search: str = "",
) -> list[HistoryLogPublic]:
    """Entries the viewer may see, newest first; `before` pages on from an entry, `search` filters text."""
    query = select(HistoryLog).where(_visible_to(viewer), _matching(search))
    if category:
        query = query.where(HistoryLog.category == category)
    if before is not None:
        cursor = (await session.exec(select(HistoryLog).where(HistoryLog.id == before, _visible_to(viewer)))).first()
        if cursor is None:  # unknown, or an entry this viewer may not see
            raise Invalid("before must be the id of a log entry")
        query = query.where(
            or_(
                col(HistoryLog.timestamp) < cursor.timestamp,
                (col(HistoryLog.timestamp) == cursor.timestamp) & (col(HistoryLog.id) < cursor.id),
            )
        )
    query = query.order_by(col(HistoryLog.timestamp).desc(), col(HistoryLog.id).desc()).limit(limit)
    rows = await session.exec(query)
    entries = [HistoryLogPublic.from_log(row) for row in rows]
    for entry in entries:  # entries written before the caps existed are cut on the way out
        entry.metadata = bounded_details(entry.metadata)
        entry.description = _text(entry.description, MAX_DESCRIPTION_LENGTH - 40)
    return entries


async def count_by_category(*, session: AsyncSession, viewer: UserPublic, search: str = "") -> dict[str, int]:
    """How many entries the viewer may see (matching `search`), per category and in all ("all")."""
    query = select(HistoryLog.category, func.count()).where(_visible_to(viewer), _matching(search)).group_by(HistoryLog.category)
    counts = {category: 0 for category in CATEGORIES}
    for category, number in await session.exec(query):
        counts[category] = number
    counts["all"] = sum(counts[c] for c in CATEGORIES)
    return counts
