"""AI Systems: GET /api/ai-systems (signed-in users)."""

from __future__ import annotations

from fastapi import APIRouter

from secdash.api.deps import CurrentUser, DbSession
from secdash.api.schemas import SIGNED_IN_ERRORS
from secdash.models.ai_systems_public import AiSystemsPublic
from secdash.services.agents import ai_systems

router = APIRouter(prefix="/api", tags=["ai-systems"], responses=SIGNED_IN_ERRORS)


@router.get("/ai-systems", response_model=AiSystemsPublic)
async def read_ai_systems(user: CurrentUser, session: DbSession) -> AiSystemsPublic:
    """The four platforms: measured figures, and the profile figures (under `profile`) nothing measures."""
    return await ai_systems.read(session=session)
