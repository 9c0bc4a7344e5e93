"""Users, login sessions and login attempts."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from secdash.models.base import _enum, _ts, utcnow


class Role(StrEnum):
    admin = "admin"
    limited = "limited"


class User(SQLModel, table=True):
    __tablename__ = "users"

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(max_length=254, unique=True, index=True)
    password_hash: str = Field(max_length=255)
    role: Role = _enum(Role, name="ck_users_role", length=16, default=Role.limited)
    first_name: str = Field(default="", max_length=80)
    is_active: bool = True
    created_at: datetime = _ts(default_factory=utcnow)
    password_changed_at: datetime | None = _ts(default=None, nullable=True)


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
    """One login attempt in progress or failed, kept for the brute-force windows (services/identity/auth.py).

    `email` is the account as typed when it is an e-mail address, else a keyed hash of the typed
    text (never the text: it may be a password). `admitted`: the attempt passed the per-address
    limits, so it counts towards the account's limit over all addresses.
    """

    __tablename__ = "login_attempts"
    __table_args__ = (
        Index("ix_login_attempts_email_at", "email", "attempted_at"),
        Index("ix_login_attempts_ip_at", "ip", "attempted_at"),
        Index("ix_login_attempts_email_ip_at", "email", "ip", "attempted_at"),
        Index("ix_login_attempts_attempted_at", "attempted_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(max_length=254)
    ip: str = Field(default="", max_length=64)
    attempted_at: datetime = _ts(default_factory=utcnow)
    admitted: bool = False
