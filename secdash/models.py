"""Every database table, plus the public shapes where they differ from the tables."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel
from sqlalchemy import JSON, Column, DateTime, Index
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """SQLite returns naive datetimes; everything stored here is UTC."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _ts(**kwargs: Any) -> Any:
    """A timezone-aware timestamp column."""
    return Field(sa_type=DateTime(timezone=True), **kwargs)  # type: ignore[call-overload]


class Role(StrEnum):
    admin = "admin"
    limited = "limited"


class User(SQLModel, table=True):
    __tablename__ = "users"

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(max_length=254, unique=True, index=True)
    password_hash: str = Field(max_length=255)
    role: str = Field(default=Role.limited.value, max_length=16)
    first_name: str = Field(default="", max_length=80)
    is_active: bool = True
    created_at: datetime = _ts(default_factory=utcnow)
    password_changed_at: datetime | None = _ts(default=None, nullable=True)


class UserPublic(BaseModel):
    """What the API and the UI may see of a user (spec section 3: email, role, firstName)."""

    id: int
    email: str
    role: str
    firstName: str

    @classmethod
    def from_user(cls, user: User) -> UserPublic:
        assert user.id is not None
        return cls(id=user.id, email=user.email, role=user.role, firstName=user.first_name)


class AuthSession(SQLModel, table=True):
    """A server-side login session; a token is valid only while its session is."""

    __tablename__ = "auth_sessions"

    id: str = Field(primary_key=True, max_length=64)
    user_id: int = Field(foreign_key="users.id", index=True)
    created_at: datetime = _ts(default_factory=utcnow)
    expires_at: datetime = _ts()
    last_seen_at: datetime = _ts(default_factory=utcnow)
    ip: str = Field(default="", max_length=64)
    user_agent: str = Field(default="", max_length=512)
    revoked_at: datetime | None = _ts(default=None, nullable=True)


class LoginAttempt(SQLModel, table=True):
    """One failed login, kept for the brute-force windows."""

    __tablename__ = "login_attempts"
    __table_args__ = (
        Index("ix_login_attempts_email_at", "email", "attempted_at"),
        Index("ix_login_attempts_ip_at", "ip", "attempted_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(max_length=254)
    ip: str = Field(default="", max_length=64)
    attempted_at: datetime = _ts(default_factory=utcnow)


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
