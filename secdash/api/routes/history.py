"""The audit trail: GET /api/history-logs."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from secdash.api.deps import CurrentUser, DbSession
from secdash.api.schemas import MAX_FILTER_LENGTH, MAX_ID, SIGNED_IN_ERRORS, choice_text, integer_text
from secdash.models.public import HistoryLogPublic
from secdash.services import audit

router = APIRouter(prefix="/api", tags=["history"], responses=SIGNED_IN_ERRORS)
Category = Annotated[str | None, Query(max_length=MAX_FILTER_LENGTH), choice_text(["", *audit.CATEGORIES])]
Limit = Annotated[
    str | None,
    Query(max_length=MAX_FILTER_LENGTH, description=f"How many (default {audit.DEFAULT_LIMIT})"),
    integer_text(1, audit.MAX_LIMIT),
]
Before = Annotated[
    str | None, Query(max_length=MAX_FILTER_LENGTH, description="The id of the last entry received"), integer_text(1, MAX_ID)
]
# The History page's search box: its limit is the service's rule (one message for the UI and the API).
Search = Annotated[str | None, Query(json_schema_extra={"maxLength": audit.MAX_SEARCH_LENGTH})]


@router.get("/history-logs", response_model=list[HistoryLogPublic])
async def read_history_logs(
    user: CurrentUser,
    session: DbSession,
    category: Category = None,
    limit: Limit = None,
    before: Before = None,
    q: Search = None,
) -> list[HistoryLogPublic]:
    """Newest first. Page on with `before` = the id of the last entry received; `q` filters by text."""
    return await audit.list_logs(
        session=session,
        viewer=user,
        category=audit.parse_category(category),
        limit=audit.parse_limit(limit),
        before=audit.parse_before(before),
        search=audit.parse_search(q),
    )
