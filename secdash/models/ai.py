"""Agent chats and agent records."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Text
from sqlmodel import Field, SQLModel

from secdash.models.base import _ts, utcnow


class DefenseChatMessage(SQLModel, table=True):
    """A chat turn with a defense agent; prompts and replies live here, never in logs."""

    __tablename__ = "defense_chat_messages"
    __table_args__ = (Index("ix_defense_chat_user_surface", "user_id", "surface", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", ondelete="CASCADE")
    surface: str = Field(default="widget", max_length=16)  # widget | command | center | api
    agent_id: str = Field(default="general", max_length=16)
    role: str = Field(max_length=16)  # user | assistant
    content: str = Field(sa_type=Text)  # type: ignore[call-overload]
    threat_level: str | None = Field(default=None, max_length=8)
    provider: str | None = Field(default=None, max_length=32)
    model: str | None = Field(default=None, max_length=100)
    created_at: datetime = _ts(default_factory=utcnow)


class AgentRecord(SQLModel, table=True):
    """A platform agent's live status and tally (updated by the system, later by drills)."""

    __tablename__ = "agent_records"

    id: str = Field(primary_key=True, max_length=16)
    agent_name: str = Field(max_length=80)
    status: str = Field(default="monitoring", max_length=16)  # monitoring | fighting | analyzing | secured
    threats_blocked: int = 0
    updated_at: datetime = _ts(default_factory=utcnow)
