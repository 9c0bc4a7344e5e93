"""Every database table, plus the public shapes where they differ from the tables."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel
from sqlalchemy import JSON, Column, DateTime, Index, Text, text
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
    """One login attempt in progress or failed, kept for the brute-force windows (services/auth.py).

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


class SiteStatus(StrEnum):
    secure = "secure"
    warning = "warning"
    critical = "critical"


class Site(SQLModel, table=True):
    """A monitored website and what its newest probe found."""

    __tablename__ = "sites"
    # A default site is created once: its slug ("stock", ...) is unique; sites an administrator adds have none.
    __table_args__ = (Index("uq_sites_default_slug", "default_slug", unique=True),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    domain: str = Field(max_length=253)
    url: str = Field(max_length=2048)
    status: str = Field(default=SiteStatus.warning.value, max_length=16)
    response_time_ms: int | None = None
    status_code: int | None = None
    tls_days_left: int | None = None
    grade: str | None = Field(default=None, max_length=4)
    score: int | None = None
    last_error: str | None = Field(default=None, max_length=300)
    findings: list[str] = Field(default_factory=list, sa_column=Column(JSON))
    last_checked_at: datetime | None = _ts(default=None, nullable=True)
    is_demo: bool = False
    allow_private: bool = False
    default_slug: str | None = Field(default=None, max_length=16)
    created_at: datetime = _ts(default_factory=utcnow)


class SiteCheck(SQLModel, table=True):
    """One probe of a site (history kept bounded per site)."""

    __tablename__ = "site_checks"
    __table_args__ = (Index("ix_site_checks_site_checked", "site_id", "checked_at"),)

    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="sites.id", ondelete="CASCADE")
    checked_at: datetime = _ts(default_factory=utcnow)
    status: str = Field(max_length=16)
    status_code: int | None = None
    response_ms: int | None = None
    tls_days_left: int | None = None
    grade: str | None = Field(default=None, max_length=4)
    error: str | None = Field(default=None, max_length=300)


class EventType(StrEnum):
    threat_blocked = "threat_blocked"
    attack_detected = "attack_detected"
    vulnerability_fixed = "vulnerability_fixed"
    # Beyond the spec's three: what the monitor and the scanner really observe.
    vulnerability_detected = "vulnerability_detected"
    site_status_changed = "site_status_changed"


class EventSeverity(StrEnum):
    high = "high"
    medium = "medium"
    low = "low"


class SecurityEvent(SQLModel, table=True):
    __tablename__ = "security_events"
    __table_args__ = (
        Index("ix_security_events_created", "created_at"),
        Index("ix_security_events_resolved_created", "resolved", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = _ts(default_factory=utcnow)
    site_id: int | None = Field(default=None, foreign_key="sites.id", ondelete="SET NULL", index=True)
    event_type: str = Field(max_length=32)
    severity: str = Field(max_length=8)
    description: str = Field(max_length=2000)
    resolved: bool = False
    resolved_at: datetime | None = _ts(default=None, nullable=True)
    resolved_by: str | None = Field(default=None, max_length=254)
    resolution_note: str | None = Field(default=None, max_length=2000)
    ai_action: str | None = Field(default=None, max_length=500)
    source_ip: str | None = Field(default=None, max_length=64)
    user_agent: str | None = Field(default=None, max_length=512)
    source: str = Field(default="monitor", max_length=16)  # monitor | scanner | drill | fix
    # Scanner findings: file, line, rule; the fingerprint keeps a finding from repeating while open.
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column("details", JSON))
    fingerprint: str | None = Field(default=None, max_length=128, index=True)


class AiActivity(SQLModel, table=True):
    __tablename__ = "ai_activities"

    id: int | None = Field(default=None, primary_key=True)
    activity_type: str = Field(max_length=16)  # patch | optimize | block | scan
    target: str = Field(max_length=200)
    description: str = Field(max_length=1000)
    status: str = Field(default="completed", max_length=16)
    simulated: bool = False
    created_at: datetime = _ts(default_factory=utcnow, index=True)


class ScanJob(SQLModel, table=True):
    """A code scan run in the background; progress is written as it goes."""

    __tablename__ = "scan_jobs"
    # At most one running scan, held by the database: a partial unique index over the running rows.
    __table_args__ = (
        Index(
            "uq_scan_jobs_one_running", "status", unique=True,
            sqlite_where=text("status = 'running'"), postgresql_where=text("status = 'running'"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    scan_type: str = Field(max_length=8)  # quick | full
    status: str = Field(default="running", max_length=12)  # running | complete | stopped | failed
    started_at: datetime = _ts(default_factory=utcnow)
    finished_at: datetime | None = _ts(default=None, nullable=True)
    started_by: str = Field(default="", max_length=254)
    total_files: int = 0
    total_lines: int = 0
    files_scanned: int = 0
    lines_scanned: int = 0
    current_file: str = Field(default="", max_length=500)
    threats_found: int = 0
    vulnerabilities: int = 0
    stop_requested: bool = False
    # Written with every progress update; a running job whose heartbeat stops was interrupted.
    heartbeat_at: datetime = _ts(default_factory=utcnow)
    error: str | None = Field(default=None, max_length=500)


class LiveSnapshot(SQLModel, table=True):
    """The newest figures of a producer (e.g. the traffic simulation), shared by every worker."""

    __tablename__ = "live_snapshots"

    name: str = Field(primary_key=True, max_length=32)
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    updated_at: datetime = _ts(default_factory=utcnow)


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
