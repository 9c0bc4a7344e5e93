"""Security events (alerts, findings) and AI activity."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel

from secdash.models.base import _enum, _ts, utcnow


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


class EventSource(StrEnum):
    """What recorded an event."""

    monitor = "monitor"
    scanner = "scanner"
    drill = "drill"
    fix = "fix"
    traffic = "traffic"  # the sites' own requests (services/traffic/attacks.py)


class Disposition(StrEnum):
    """How an admin closed a problem: what a later scan or probe may do with the same finding."""

    fixed = "fixed"  # the code or the site was changed: the finding coming back is a new problem
    false_positive = "false_positive"  # nothing was wrong: not reported again while the flagged code is unchanged
    accepted_risk = "accepted_risk"  # known and accepted (with a reason), optionally until a date


class ActivityType(StrEnum):
    """Spec section 3: patch, optimize, block, scan."""

    patch = "patch"
    optimize = "optimize"
    block = "block"
    scan = "scan"


class SecurityEvent(SQLModel, table=True):
    __tablename__ = "security_events"
    __table_args__ = (
        Index("ix_security_events_created", "created_at"),
        Index("ix_security_events_resolved_created", "resolved", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = _ts(default_factory=utcnow)
    site_id: int | None = Field(default=None, foreign_key="sites.id", ondelete="SET NULL", index=True)
    event_type: EventType = _enum(EventType, name="ck_security_events_event_type", length=32)
    severity: EventSeverity = _enum(EventSeverity, name="ck_security_events_severity", length=8)
    description: str = Field(max_length=2000)
    resolved: bool = False
    resolved_at: datetime | None = _ts(default=None, nullable=True)
    resolved_by: str | None = Field(default=None, max_length=254)
    resolution_note: str | None = Field(default=None, max_length=2000)
    # How an admin closed it (None: open, or closed by the system's own evidence); accepted risks may expire.
    disposition: Disposition | None = _enum(
        Disposition, name="ck_security_events_disposition", length=16, default=None, nullable=True
    )
    accepted_until: datetime | None = _ts(default=None, nullable=True)
    ai_action: str | None = Field(default=None, max_length=500)
    source_ip: str | None = Field(default=None, max_length=64)
    user_agent: str | None = Field(default=None, max_length=512)
    source: EventSource = _enum(EventSource, name="ck_security_events_source", length=16, default=EventSource.monitor)
    # Scanner findings: file, line, rule; the fingerprint keeps a finding from repeating while open.
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column("details", JSON))
    fingerprint: str | None = Field(default=None, max_length=128, index=True)
    # threat_blocked: how many requests this record stands for (a drill blocks many); None counts as one.
    blocked_requests: int | None = None

    @property
    def false_positive(self) -> bool:
        return self.disposition == Disposition.false_positive


class AiActivity(SQLModel, table=True):
    __tablename__ = "ai_activities"

    id: int | None = Field(default=None, primary_key=True)
    activity_type: ActivityType = _enum(ActivityType, name="ck_ai_activities_activity_type", length=16)
    target: str = Field(max_length=200)
    description: str = Field(max_length=1000)
    status: str = Field(default="completed", max_length=16)
    simulated: bool = False
    created_at: datetime = _ts(default_factory=utcnow, index=True)
