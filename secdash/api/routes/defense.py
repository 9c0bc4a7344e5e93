"""Defense chats and agents (spec section 7)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import Field

from secdash.ai.agents import PLATFORM_AGENT_IDS
from secdash.api.deps import AppSettings, CurrentUser, DbSession
from secdash.api.schemas import MODEL_ERRORS, SIGNED_IN_ERRORS, RequestBody, text
from secdash.models.ai_kinds import ChatRole
from secdash.models.public import (
    AiAgentPublic,
    AiReplyPublic,
    ChatMessagePublic,
    DefenseAgentPublic,
    DefenseReplyPublic,
    WidgetReplyPublic,
)
from secdash.services import agents, defense_chat
from secdash.services.errors import Invalid

router = APIRouter(prefix="/api", tags=["defense"], responses=SIGNED_IN_ERRORS)
MAX_AGENT_ID_LENGTH = 40


def _agent_id() -> Any:
    return Field(None, max_length=MAX_AGENT_ID_LENGTH, description="An agent id (GET /api/ai-agents); default general")


class WidgetMessageIn(RequestBody):
    content: str = text(defense_chat.MAX_MESSAGE_LENGTH, "The question")
    agentId: str | None = _agent_id()  # noqa: N815


class AgentMessageIn(RequestBody):
    message: str = text(defense_chat.MAX_MESSAGE_LENGTH, "The question")
    agentId: str | None = _agent_id()  # noqa: N815


# Chat routes take no database session: the service opens short ones, never across the model call.
@router.get("/defense-chat/messages", response_model=list[ChatMessagePublic])
async def read_widget_messages(
    user: CurrentUser, session: DbSession, limit: int = defense_chat.HISTORY_LIMIT
) -> list[ChatMessagePublic]:
    if not 1 <= limit <= 200:
        raise Invalid("limit must be between 1 and 200")
    rows = await defense_chat.conversation(session=session, user=user, surface="widget", limit=limit)
    return [ChatMessagePublic.of(row) for row in rows]


@router.post("/defense-chat/message", response_model=WidgetReplyPublic, responses=MODEL_ERRORS)
async def send_widget_message(body: WidgetMessageIn, user: CurrentUser, settings: AppSettings) -> WidgetReplyPublic:
    done = await defense_chat.reply(user=user, content=body.content, agent_id=body.agentId, surface="widget",
                                    settings=settings)
    return WidgetReplyPublic(id=done.message_id, role=ChatRole.assistant, content=done.content,
                             threat_level=done.threat_level, provider=done.provider)


@router.post("/defense-chat", response_model=DefenseReplyPublic, responses=MODEL_ERRORS)
async def defense_chat_reply(body: AgentMessageIn, user: CurrentUser, settings: AppSettings) -> DefenseReplyPublic:
    done = await defense_chat.reply(user=user, content=body.message, agent_id=body.agentId, surface="api",
                                    settings=settings)
    return DefenseReplyPublic(response=done.content, threat_level=done.threat_level)


@router.post("/ai-chat", response_model=AiReplyPublic, responses=MODEL_ERRORS)
async def ai_chat_reply(body: AgentMessageIn, user: CurrentUser, settings: AppSettings) -> AiReplyPublic:
    if (body.agentId or "").lower() not in PLATFORM_AGENT_IDS:
        raise Invalid(f"agentId must be one of: {', '.join(PLATFORM_AGENT_IDS)}")
    done = await defense_chat.reply(user=user, content=body.message, agent_id=body.agentId, surface="api",
                                    settings=settings)
    return AiReplyPublic(response=done.content)


@router.get("/defense-agents", response_model=list[DefenseAgentPublic])
async def read_defense_agents(user: CurrentUser, session: DbSession) -> list[DefenseAgentPublic]:
    return [DefenseAgentPublic.of(a) for a in await agents.list_agents(session=session)]


@router.get("/ai-agents", response_model=list[AiAgentPublic])
async def read_ai_agents(user: CurrentUser, session: DbSession) -> list[AiAgentPublic]:
    return [AiAgentPublic.of(a) for a in await agents.list_agents(session=session)]
