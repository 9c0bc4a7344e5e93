"""Agent chats, agent records and the record of every AI model call."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Index, Text
from sqlmodel import Field, SQLModel

from secdash.models.ai_kinds import AgentStatus, ChatRole, ChatSurface, ThreatLevel
from secdash.models.base import _enum, _ts, utcnow


class DefenseChatMessage(SQLModel, table=True):
    """A chat turn with a defense agent; prompts and replies live here, never in logs."""

    __tablename__ = "defense_chat_messages"
    __table_args__ = (Index("ix_defense_chat_user_surface", "user_id", "surface", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", ondelete="CASCADE")
    surface: ChatSurface = _enum(ChatSurface, name="ck_defense_chat_messages_surface", length=16, default=ChatSurface.widget)
    agent_id: str = Field(default="general", max_length=16)
    role: ChatRole = _enum(ChatRole, name="ck_defense_chat_messages_role", length=16)
    content: str = Field(sa_type=Text)  # type: ignore[call-overload]
    threat_level: ThreatLevel | None = _enum(
        ThreatLevel, name="ck_defense_chat_messages_threat_level", length=8, default=None, nullable=True
    )
    provider: str | None = Field(default=None, max_length=32)
    model: str | None = Field(default=None, max_length=100)
    created_at: datetime = _ts(default_factory=utcnow)


class AgentRecord(SQLModel, table=True):
    """A platform agent's live status (its threats blocked are counted from the events: services/agents/agents.py)."""

    __tablename__ = "agent_records"

    id: str = Field(primary_key=True, max_length=16)
    agent_name: str = Field(max_length=80)
    status: AgentStatus = _enum(AgentStatus, name="ck_agent_records_status", length=16, default=AgentStatus.monitoring)
    updated_at: datetime = _ts(default_factory=utcnow)


class AiCallOutcome(StrEnum):
    ok = "ok"
    error = "error"
    stopped = "stopped"  # the user stopped the reply (the upstream request was closed)


class AiCall(SQLModel, table=True):
    """One model call (secdash/ai/calls.py): who asked for what, on which engine, how fast and how it ended.

    Never the prompt or the reply: those stay in the feature's own tables (chat messages) or nowhere.
    A follow-up call (e.g. the threat judgement of a chat reply) names the call it follows in `parent_id`.
    """

    __tablename__ = "ai_calls"
    __table_args__ = (
        Index("ix_ai_calls_created", "created_at"),
        Index("ix_ai_calls_agent_created", "agent", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    feature: str = Field(max_length=24)  # chat | later: defense_plan, remediation, build, artifact
    task: str = Field(max_length=24)  # the task module: chat | threat | ...
    agent: str = Field(max_length=16)
    user_id: int | None = Field(default=None, foreign_key="users.id", ondelete="SET NULL", index=True)
    parent_id: int | None = Field(default=None, foreign_key="ai_calls.id", ondelete="SET NULL")
    provider: str = Field(max_length=32)
    model: str = Field(max_length=100)
    prompt_tokens: int | None = None  # as the server reports them; None when it does not (offline engine)
    completion_tokens: int | None = None
    first_token_ms: int | None = None  # None: nothing arrived (an error, or a structured call)
    total_ms: int = 0
    outcome: AiCallOutcome = _enum(AiCallOutcome, name="ck_ai_calls_outcome", length=8, default=AiCallOutcome.ok)
    error_kind: str | None = Field(default=None, max_length=32)  # LLMError.kind when outcome is error
    created_at: datetime = _ts(default_factory=utcnow)
