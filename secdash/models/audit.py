"""The audit trail (History Logs)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, Index, false
from sqlmodel import Field, SQLModel

from secdash.models.base import _enum, _ts, utcnow


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
    category: LogCategory = _enum(LogCategory, name="ck_history_logs_category", length=16)
    action: str = Field(max_length=120)
    severity: LogSeverity = _enum(LogSeverity, name="ck_history_logs_severity", length=16, default=LogSeverity.info)
    description: str = Field(default="", max_length=2000)
    # "metadata" is reserved on SQLModel classes; the column keeps the spec's name.
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column("metadata", JSON))
    actor_user_id: int | None = Field(default=None, index=True)
    timestamp: datetime = _ts(default_factory=utcnow, index=True)
    # Entries only admins may read, whatever their category (alerting's: channel names, hosts, masked URLs).
    admin_only: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
