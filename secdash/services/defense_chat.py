"""Chats with the defense agents: validation, streamed replies, threat levels, storage and audit."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai import threat
from secdash.ai.agents import AGENTS, AgentProfile
from secdash.ai.base import ChatProvider, ChatTurn, LLMError
from secdash.ai.prompts import ThreatAssessment, agent_system_prompt, threat_system_prompt
from secdash.ai.providers import get_provider
from secdash.ai.situation import Situation
from secdash.ai.structured import parse_structured
from secdash.core.config import Settings
from secdash.core.db import session_scope
from secdash.models import DefenseChatMessage, LogCategory, LogSeverity, UserPublic, as_utc
from secdash.services import agent_context, audit, quotas
from secdash.services.errors import Invalid
from secdash.services.unit import commit, mark_changed

TOPIC = "chat"
MAX_MESSAGE_LENGTH = 4000
HISTORY_LIMIT = 20  # spec: the widget shows the last 20 messages
CONTEXT_TURNS = 10  # earlier turns sent to the model with a new question
SURFACES = ("widget", "command", "center", "api")


@dataclass(frozen=True)
class ReplyDone:
    """The end of a streamed reply: what was stored and how it was judged."""

    message_id: int
    content: str
    threat_level: str
    provider: str
    model: str


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
        "id": message.id, "role": message.role, "content": message.content,
        "timestamp": as_utc(message.created_at).isoformat().replace("+00:00", "Z"), "agentId": message.agent_id,
        "threatLevel": message.threat_level, "provider": message.provider,
    }


async def conversation(
    *, session: AsyncSession, user: UserPublic, surface: str = "widget", agent_id: str | None = None,
    limit: int = HISTORY_LIMIT,
) -> list[DefenseChatMessage]:
    """The newest messages of the user's conversation on a surface, oldest first."""
    query = select(DefenseChatMessage).where(DefenseChatMessage.user_id == user.id, DefenseChatMessage.surface == surface)
    if agent_id:
        query = query.where(DefenseChatMessage.agent_id == agent_id)
    query = query.order_by(col(DefenseChatMessage.created_at).desc(), col(DefenseChatMessage.id).desc()).limit(limit)
    return list(reversed(list(await session.exec(query))))


async def assess_threat(provider: ChatProvider, content: str, situation: Situation | None = None) -> str:
    """The rules' level in the agent's situation, raised by the model's structured judgement when a model is
    configured (secdash/ai/threat.py says how)."""
    rules = threat.judge(content, situation)
    complete_json = getattr(provider, "complete_json", None)
    if complete_json is None:
        return rules.level
    try:
        judged = parse_structured(await complete_json([ChatTurn("user", content)],
                                                      system=threat_system_prompt(situation)), ThreatAssessment)
    except LLMError:
        return rules.level
    return threat.with_model(rules, judged.threatLevel)


async def _store(user: UserPublic, surface: str, agent_id: str, role: str, content: str, **extra: Any) -> DefenseChatMessage:
    async with session_scope() as session:
        message = DefenseChatMessage(user_id=user.id, surface=surface, agent_id=agent_id, role=role, content=content,
                                     **extra)
        session.add(message)
        mark_changed(session, TOPIC)
        await commit(session)
        return message


async def _audit_call(user: UserPublic, agent: AgentProfile, provider: ChatProvider, *, chars: int, latency_ms: int,
                      outcome: str, threat_level: str | None) -> None:
    async with session_scope() as session:
        audit.record(
            session, category=LogCategory.ai, action="AI reply" if outcome == "ok" else f"AI reply {outcome}",
            severity=LogSeverity.info if outcome in ("ok", "cancelled") else LogSeverity.error,
            description=f"{agent.name} answered {user.email} via {provider.name}"
            if outcome == "ok" else f"{agent.name} reply to {user.email}: {outcome}",
            actor_user_id=user.id,
            details={"agent": agent.id, "provider": provider.name, "model": provider.model, "characters": chars,
                     "latencyMs": latency_ms, "outcome": outcome, "threatLevel": threat_level},
        )
        await commit(session)


async def stream_reply(
    *, user: UserPublic, content: str, agent_id: str | None, surface: str, settings: Settings,
    provider: ChatProvider | None = None,
) -> AsyncIterator[str | ReplyDone]:
    """Store the question, yield the reply piece by piece, then store it and yield a ReplyDone.

    Closing the generator early (the user pressed Stop) closes the model request; the partial
    reply is kept and the call is audited as cancelled.
    """
    text, agent = validate(content, agent_id)
    if surface not in SURFACES:
        raise Invalid("unknown chat surface")
    async with (
        quotas.ai_call(settings=settings, user_id=user.id),
        # Closing this generator (Stop) closes the inner one, which stops the model request.
        aclosing(_stream_reply(user=user, text=text, agent=agent, surface=surface,
                               provider=provider or get_provider(settings))) as pieces,
    ):
        async for item in pieces:
            yield item


async def _stream_reply(
    *, user: UserPublic, text: str, agent: AgentProfile, surface: str, provider: ChatProvider,
) -> AsyncIterator[str | ReplyDone]:
    async with session_scope() as session:
        earlier = await conversation(session=session, user=user, surface=surface, agent_id=agent.id, limit=CONTEXT_TURNS)
    await _store(user, surface, agent.id, "user", text)
    facts = await agent_context.situation(agent_id=agent.id)  # its own short session, closed before the model
    grounding = {"situation": facts} if getattr(provider, "reads_situation", False) else {}
    turns = [ChatTurn(m.role, m.content) for m in earlier] + [ChatTurn("user", text)]
    pieces: list[str] = []
    started = time.monotonic()

    async def finish(outcome: str, level: str | None) -> DefenseChatMessage | None:
        reply = "".join(pieces)
        stored = None
        if reply:
            stored = await _store(user, surface, agent.id, "assistant", reply, threat_level=level,
                                  provider=provider.name, model=provider.model)
        await _audit_call(user, agent, provider, chars=len(reply), latency_ms=int((time.monotonic() - started) * 1000),
                          outcome=outcome, threat_level=level)
        return stored

    try:
        async for piece in provider.stream_chat(turns, agent_id=agent.id, system=agent_system_prompt(agent, facts),
                                                **grounding):
            pieces.append(piece)
            yield piece
    except LLMError as exc:
        await finish(exc.kind, None)
        raise
    except (GeneratorExit, asyncio.CancelledError):
        await asyncio.shield(finish("cancelled", None))
        raise
    level = await assess_threat(provider, text, facts)
    stored = await finish("ok", level)
    yield ReplyDone(message_id=stored.id if stored and stored.id else 0, content="".join(pieces), threat_level=level,
                    provider=provider.name, model=provider.model)


async def reply(
    *, user: UserPublic, content: str, agent_id: str | None, surface: str, settings: Settings,
    provider: ChatProvider | None = None,
) -> ReplyDone:
    """The whole reply at once (for the JSON API)."""
    done = None
    async for item in stream_reply(user=user, content=content, agent_id=agent_id, surface=surface, settings=settings,
                                   provider=provider):
        if isinstance(item, ReplyDone):
            done = item
    assert done is not None
    return done
