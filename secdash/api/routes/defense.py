"""Defense chats and agents (spec section 7)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import Field

from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS
from secdash.api.deps import AppSettings, CurrentUser, DbSession
from secdash.api.schemas import MODEL_ERRORS, REQUIRED, SIGNED_IN_ERRORS, RequestBody, choice_text, text
from secdash.models.ai_kinds import ChatRole
from secdash.models.public import (
    AiAgentPublic,
    AiReplyPublic,
    ChatMessagePublic,
    DefenseAgentPublic,
    DefenseReplyPublic,
    WidgetReplyPublic,
)
from secdash.services.agents import agents, defense_chat
from secdash.services.errors import Invalid

router = APIRouter(prefix="/api", tags=["defense"], responses=SIGNED_IN_ERRORS)
MAX_AGENT_ID_LENGTH = 40
MAX_HISTORY_MESSAGES = 200
# An agent id (GET /api/ai-agents); empty or null: general.
AgentId = Annotated[str | None, choice_text([None, "", *AGENTS])]
PlatformAgentId = Annotated[str, choice_text(PLATFORM_AGENT_IDS)]


def _agent_id() -> Any:
    return Field(None, max_length=MAX_AGENT_ID_LENGTH, description="An agent id (GET /api/ai-agents); default general")


def _question() -> Any:
    return text(defense_chat.MAX_MESSAGE_LENGTH, "The question", required=True, not_blank=True)


class WidgetMessageIn(RequestBody):
    content: str = _question()
    agentId: AgentId = _agent_id()  # noqa: N815


class AgentMessageIn(RequestBody):
    message: str = _question()
    agentId: AgentId = _agent_id()  # noqa: N815


class PlatformMessageIn(RequestBody):
    message: str = _question()
    agentId: PlatformAgentId = Field(
        "",
        max_length=MAX_AGENT_ID_LENGTH,
        description="The platform's agent",  # noqa: N815
        json_schema_extra={REQUIRED: True},
    )


# Chat routes take no database session: the service opens short ones, never across the model call.
@router.get("/defense-chat/messages", response_model=list[ChatMessagePublic])
async def read_widget_messages(
    user: CurrentUser,
    session: DbSession,
    limit: Annotated[int, Query(ge=1, le=MAX_HISTORY_MESSAGES, description="How many, newest")] = (defense_chat.HISTORY_LIMIT),
) -> list[ChatMessagePublic]:
    rows = await defense_chat.conversation(session=session, user=user, surface="widget", limit=limit)
    return [ChatMessagePublic.of(row) for row in rows]


@router.post("/defense-chat/message", response_model=WidgetReplyPublic, responses=MODEL_ERRORS)
async def send_widget_message(body: WidgetMessageIn, user: CurrentUser, settings: AppSettings) -> WidgetReplyPublic:
    done = await defense_chat.reply(user=user, content=body.content, agent_id=body.agentId, surface="widget", settings=settings)
    return WidgetReplyPublic(
        id=done.message_id, role=ChatRole.assistant, content=done.content, threat_level=done.threat_level, provider=done.provider
    )


@router.post("/defense-chat", response_model=DefenseReplyPublic, responses=MODEL_ERRORS)
async def defense_chat_reply(body: AgentMessageIn, user: CurrentUser, settings: AppSettings) -> DefenseReplyPublic:
    done = await defense_chat.reply(user=user, content=body.message, agent_id=body.agentId, surface="api", settings=settings)
    return DefenseReplyPublic(response=done.content, threat_level=done.threat_level)


@router.post("/ai-chat", response_model=AiReplyPublic, responses=MODEL_ERRORS)
async def ai_chat_reply(body: PlatformMessageIn, user: CurrentUser, settings: AppSettings) -> AiReplyPublic:
    if (body.agentId or "").lower() not in PLATFORM_AGENT_IDS:
        raise Invalid(f"agentId must be one of: {', '.join(PLATFORM_AGENT_IDS)}")
    done = await defense_chat.reply(user=user, content=body.message, agent_id=body.agentId, surface="api", settings=settings)
    return AiReplyPublic(response=done.content)


@router.get("/defense-agents", response_model=list[DefenseAgentPublic])
async def read_defense_agents(user: CurrentUser, session: DbSession) -> list[DefenseAgentPublic]:
    return [DefenseAgentPublic.of(a, blocked) for a, blocked in await agents.with_threats_blocked(session=session)]


@router.get("/ai-agents", response_model=list[AiAgentPublic])
async def read_ai_agents(user: CurrentUser, session: DbSession) -> list[AiAgentPublic]:
    return [AiAgentPublic.of(a, blocked) for a, blocked in await agents.with_threats_blocked(session=session)]
