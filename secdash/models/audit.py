"""The audit trail (History Logs)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel
from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel

from secdash.models.base import _ts, as_utc, utcnow


class LogCategory(StrEnum):
    security = "security"
    ai = "ai"
    battle = "battle"
    user = "user"
    system = "system"


class LogSeverity(StrEnum):
    info = "info"
    warning = "warning"
    error = "error"
    critical = "critical"


class HistoryLog(SQLModel, table=True):
    """One audit-trail entry (spec: History log)."""

    __tablename__ = "history_logs"
    __table_args__ = (Index("ix_history_logs_category_ts", "category", "timestamp"),)

    id: int | None = Field(default=None, primary_key=True)
    category: str = Field(max_length=16)
    action: str = Field(max_length=120)
    severity: str = Field(default=LogSeverity.info.value, max_length=16)
    description: str = Field(default="", max_length=2000)
    # "metadata" is reserved on SQLModel classes; the column keeps the spec's name.
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column("metadata", JSON))
    actor_user_id: int | None = Field(default=None, index=True)
    timestamp: datetime = _ts(default_factory=utcnow, index=True)


class HistoryLogPublic(BaseModel):
    id: int
    category: str
    action: str
    severity: str
    description: str
    metadata: dict[str, Any]
    timestamp: datetime

    @classmethod
    def from_log(cls, log: HistoryLog) -> HistoryLogPublic:
        assert log.id is not None
        return cls(
            id=log.id,
            category=log.category,
            action=log.action,
            severity=log.severity,
            description=log.description,
            metadata=log.details or {},
            timestamp=as_utc(log.timestamp),
        )
