"""The audit trail: GET /api/history-logs."""

from __future__ import annotations

from fastapi import APIRouter

from secdash.api.deps import CurrentUser, DbSession
from secdash.models import HistoryLogPublic
from secdash.services import audit

router = APIRouter(prefix="/api", tags=["history"])


@router.get("/history-logs", response_model=list[HistoryLogPublic])
async def read_history_logs(
    user: CurrentUser, session: DbSession, category: str | None = None, limit: str | None = None
) -> list[HistoryLogPublic]:
    return await audit.list_logs(
        session=session, viewer=user, category=audit.parse_category(category), limit=audit.parse_limit(limit)
    )
