"""Chats with the defense agents: validation, streamed replies, threat levels and storage; the model
calls go through services/agents/ai_calls.py (budget, call record, audit)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.agents import AGENTS, AgentProfile
from secdash.ai.base import ChatTurn, Done, LLMError, Provider, TextDelta
from secdash.ai.calls import AICalls
from secdash.ai.tasks.chat import ChatTask
from secdash.ai.tasks.threat import ThreatAssessment, ThreatTask
from secdash.core.config import Settings
from secdash.core.db import session_scope
from secdash.core.unit import commit, mark_changed
from secdash.models import ChatRole, ChatSurface, DefenseChatMessage, ThreatLevel, UserPublic, as_utc
from secdash.services.agents import agent_context, ai_calls
from secdash.services.errors import Invalid

TOPIC = "chat"
MAX_MESSAGE_LENGTH = 4000
HISTORY_LIMIT = 20  # spec: the widget shows the last 20 messages
CONTEXT_TURNS = 10  # earlier turns sent to the model with a new question
SURFACES = ("widget", "command", "center", "api")


@dataclass(frozen=True)
class ReplyDone:
    """The end of a streamed reply: what was stored; `threat_level` is the rules' level (a ThreatJudged
    with the final one follows)."""

    message_id: int
    content: str
    threat_level: str
    provider: str
    model: str


@dataclass(frozen=True)
class ThreatJudged:
    """After a ReplyDone: the reply's final threat level (the rules' level raised by the engine's judgement)."""

    message_id: int
    threat_level: str


def validate(content: str, agent_id: str | None) -> tuple[str, AgentProfile]:
    """Trimmed message and its agent; Invalid names what is wrong."""
    text = (content or "").strip()
    if not text:
        raise Invalid("message must not be blank")
    if len(text) > MAX_MESSAGE_LENGTH:
        raise Invalid(f"message must be at most {MAX_MESSAGE_LENGTH} characters")
    agent = AGENTS.get((agent_id or "general").strip().lower())
    if agent is None:
        raise Invalid(f"agentId must be one of: {', '.join(AGENTS)}")
    return text, agent


def message_public(message: DefenseChatMessage) -> dict[str, Any]:
    return {
        "id": message.id,
        "role": message.role,
        "content": message.content,
        "timestamp": as_utc(message.created_at).isoformat().replace("+00:00", "Z"),
        "agentId": message.agent_id,
        "threatLevel": message.threat_level,
        "provider": message.provider,
    }


async def conversation(
    *,
    session: AsyncSession,
    user: UserPublic,
    surface: str = "widget",
    agent_id: str | None = None,
    limit: int = HISTORY_LIMIT,
) -> list[DefenseChatMessage]:
    """The newest messages of the user's conversation on a surface, oldest first."""
    query = select(DefenseChatMessage).where(DefenseChatMessage.user_id == user.id, DefenseChatMessage.surface == surface)
    if agent_id:
        query = query.where(DefenseChatMessage.agent_id == agent_id)
    query = query.order_by(col(DefenseChatMessage.created_at).desc(), col(DefenseChatMessage.id).desc()).limit(limit)
    return list(reversed(list(await session.exec(query))))


async def _store(user: UserPublic, surface: str, agent_id: str, role: str, content: str, **extra: Any) -> DefenseChatMessage:
    async with session_scope() as session:
        message = DefenseChatMessage(
            user_id=user.id, surface=ChatSurface(surface), agent_id=agent_id, role=ChatRole(role), content=content, **extra
        )
        session.add(message)
        mark_changed(session, TOPIC)
        await commit(session)
        return message


async def _set_threat_level(message_id: int, level: str) -> None:
    async with session_scope() as session:
        message = await session.get(DefenseChatMessage, message_id)
        if message is not None:
            message.threat_level = ThreatLevel(level)
            session.add(message)
            mark_changed(session, TOPIC)
            await commit(session)


async def assess_threat(calls: AICalls, task: ThreatTask, *, follows: int | None) -> str:
    """The rules' level in the agent's situation, raised by the engine's structured judgement
    (secdash/ai/threat.py says how); a failed judgement leaves the rules' level."""
    try:
        judged = await calls.structured(task, ThreatAssessment, follows=follows)
    except LLMError:
        return task.rules().level
    return task.level(judged)


async def stream_reply(
    *,
    user: UserPublic,
    content: str,
    agent_id: str | None,
    surface: str,
    settings: Settings,
    provider: Provider | None = None,
) -> AsyncGenerator[str | ReplyDone | ThreatJudged, None]:
    """Store the question, yield the reply piece by piece, store it and yield a ReplyDone (the reply
    is complete: the composer may free), then judge the threat and yield a ThreatJudged.

    The budget is taken before anything is stored (RateLimited: nothing stored). Closing the
    generator early (the user pressed Stop) closes the model request; the partial reply is kept and
    the call is recorded as stopped (audited as cancelled).
    """
    text, agent = validate(content, agent_id)
    if surface not in SURFACES:
        raise Invalid("unknown chat surface")
    calls = ai_calls.for_user(settings=settings, user=user, feature="chat", agent=agent.id, provider=provider)
    # Closing this generator (Stop) closes the inner one, which stops the model request.
    async with aclosing(_stream_reply(user=user, text=text, agent=agent, surface=surface, calls=calls)) as pieces:
        async for item in pieces:
            yield item


async def _stream_reply(
    *,
    user: UserPublic,
    text: str,
    agent: AgentProfile,
    surface: str,
    calls: AICalls,
) -> AsyncGenerator[str | ReplyDone | ThreatJudged, None]:
    pieces: list[str] = []
    call_id: int | None = None
    async with calls.admitted():  # the budget for the reply: refused here, before anything is stored
        async with session_scope() as session:
            earlier = await conversation(session=session, user=user, surface=surface, agent_id=agent.id, limit=CONTEXT_TURNS)
        await _store(user, surface, agent.id, "user", text)
        facts = await agent_context.situation(agent_id=agent.id)  # its own short session, closed before the model
        task = ChatTask(
            agent=agent, situation=facts, conversation=(*(ChatTurn(m.role, m.content) for m in earlier), ChatTurn("user", text))
        )
        try:
            async with aclosing(calls.stream(task)) as events:
                async for event in events:
                    if isinstance(event, TextDelta):
                        pieces.append(event.text)
                        yield event.text
                    elif isinstance(event, Done):
                        call_id = event.call_id
        except LLMError:
            if pieces:  # what arrived before the failure is kept (the call is recorded as an error)
                await _store(user, surface, agent.id, "assistant", "".join(pieces), provider=calls.name, model=calls.model)
            raise
        except (GeneratorExit, asyncio.CancelledError):
            if pieces:  # the partial reply is kept (the call itself is recorded as stopped)
                await asyncio.shield(
                    _store(user, surface, agent.id, "assistant", "".join(pieces), provider=calls.name, model=calls.model)
                )
            raise
    reply_text = "".join(pieces)
    threat_task = ThreatTask(message=text, situation=facts, agent_id=agent.id)
    first_level = threat_task.rules().level
    stored = (
        await _store(
            user, surface, agent.id, "assistant", reply_text, threat_level=first_level, provider=calls.name, model=calls.model
        )
        if reply_text
        else None
    )
    message_id = stored.id if stored and stored.id else 0
    yield ReplyDone(message_id=message_id, content=reply_text, threat_level=first_level, provider=calls.name, model=calls.model)
    # The reply is complete and shown; the engine's judgement follows without holding the composer.
    level = await assess_threat(calls, threat_task, follows=call_id) if call_id is not None else first_level
    if level != first_level and message_id:
        await _set_threat_level(message_id, level)
    yield ThreatJudged(message_id=message_id, threat_level=level)


async def reply(
    *,
    user: UserPublic,
    content: str,
    agent_id: str | None,
    surface: str,
    settings: Settings,
    provider: Provider | None = None,
) -> ReplyDone:
    """The whole reply at once, with the final threat level (for the JSON API)."""
    done = None
    async for item in stream_reply(
        user=user, content=content, agent_id=agent_id, surface=surface, settings=settings, provider=provider
    ):
        if isinstance(item, ReplyDone):
            done = item
        elif isinstance(item, ThreatJudged) and done is not None:
            done = replace(done, threat_level=item.threat_level)
    assert done is not None
    return done
