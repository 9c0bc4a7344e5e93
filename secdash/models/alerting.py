"""Alerting: notification channels (apprise URLs, stored encrypted), the rules that say which events notify
which channels, the per-subject alert state (de-duplication and flap damping) and the delivery log."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from secdash.models.base import _enum, _ts, utcnow


class AlertKind(StrEnum):
    """What can notify: each has one rule."""

    site_down = "site_down"  # a site turns ALERT
    site_checking = "site_checking"  # a site turns CHECKING (degraded)
    site_recovered = "site_recovered"  # a site that was notified down or degraded is SECURE again, and stays so
    tls_expiring = "tls_expiring"  # a site's certificate expires within the rule's days
    finding = "finding"  # a new code or site finding at or above the rule's severity
    drill_weak = "drill_weak"  # a Battle Station drill ends below the rule's effectiveness
    account_locked = "account_locked"  # failed logins lock an account or an address out
    attack_detected = "attack_detected"  # a site's own requests show an attack (a new attack problem)
    test = "test"  # a channel's "Send test" (no rule)


class DeliveryOutcome(StrEnum):
    pending = "pending"  # its job has not run yet
    retrying = "retrying"  # an attempt failed; another follows after a pause
    sent = "sent"
    failed = "failed"  # every attempt failed (the error is kept)
    suppressed = "suppressed"  # quiet hours, or the channel was disabled or deleted before sending


class NotificationChannel(SQLModel, table=True):
    """Where notifications go: one apprise URL, encrypted at rest; only its masked form is ever shown."""

    __tablename__ = "notification_channels"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100)
    service: str = Field(default="", max_length=60)  # apprise's name for it: "JSON", "E-Mail", "Slack"...
    url_encrypted: str = Field(sa_type=Text)  # type: ignore[call-overload]
    url_masked: str = Field(default="", max_length=1000)
    enabled: bool = True
    allow_private: bool = False  # may reach private or loopback addresses (an admin's explicit choice)
    created_by_user_id: int | None = Field(default=None, foreign_key="users.id", ondelete="SET NULL")
    last_test_at: datetime | None = _ts(default=None, nullable=True)
    last_test_ok: bool | None = None
    created_at: datetime = _ts(default_factory=utcnow)
    updated_at: datetime = _ts(default_factory=utcnow)


class NotificationRule(SQLModel, table=True):
    """Which channels an alert kind notifies (none listed: every enabled channel), with its parameters
    (`days` for TLS, `severity` for findings, `threshold` for drills)."""

    __tablename__ = "notification_rules"
    __table_args__ = (UniqueConstraint("kind", name="uq_notification_rules_kind"),)

    id: int | None = Field(default=None, primary_key=True)
    kind: AlertKind = _enum(AlertKind, name="ck_notification_rules_kind", length=20)
    enabled: bool = True
    channel_ids: list[int] = Field(default_factory=list, sa_column=Column("channel_ids", JSON, nullable=False))
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column("params", JSON, nullable=False))
    updated_at: datetime = _ts(default_factory=utcnow)


class AlertingSettings(SQLModel, table=True):
    """One row: reminders, flap damping and quiet hours."""

    __tablename__ = "alerting_settings"

    id: int | None = Field(default=None, primary_key=True)
    reminder_minutes: int = 60  # while a site stays down, at most one reminder per this many minutes (0: none)
    recovery_seconds: int = 120  # a recovery is announced once the site has stayed SECURE this long
    quiet_enabled: bool = False
    quiet_start: str = Field(default="22:00", max_length=5)  # HH:MM, UTC
    quiet_end: str = Field(default="07:00", max_length=5)
    updated_at: datetime = _ts(default_factory=utcnow)


class AlertState(SQLModel, table=True):
    """What has been announced about one subject ("site:3", "tls:3"): the de-duplication and flap-damping memory."""

    __tablename__ = "alert_states"
    __table_args__ = (UniqueConstraint("subject", name="uq_alert_states_subject"),)

    id: int | None = Field(default=None, primary_key=True)
    subject: str = Field(max_length=200)
    state: str = Field(default="ok", max_length=20)  # site: ok | degraded | down | recovering; tls: ok | expiring
    notified: str = Field(default="", max_length=20)  # the worst state announced in this episode ("" none)
    since: datetime = _ts(default_factory=utcnow)  # when `state` began
    last_sent_at: datetime | None = _ts(default=None, nullable=True)


class NotificationDelivery(SQLModel, table=True):
    """One message to one channel: its job, its attempts and how it ended (the admins' delivery log; bounded)."""

    __tablename__ = "notification_deliveries"
    __table_args__ = (Index("ix_notification_deliveries_created", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    channel_id: int | None = Field(default=None, foreign_key="notification_channels.id", ondelete="SET NULL")
    channel_name: str = Field(default="", max_length=100)
    kind: AlertKind = _enum(AlertKind, name="ck_notification_deliveries_kind", length=20)
    subject: str = Field(default="", max_length=200)
    title: str = Field(default="", max_length=250)
    body: str = Field(default="", sa_type=Text)  # type: ignore[call-overload]
    outcome: DeliveryOutcome = _enum(
        DeliveryOutcome, name="ck_notification_deliveries_outcome", length=16, default=DeliveryOutcome.pending
    )
    attempts: int = 0
    error: str | None = Field(default=None, max_length=1000)
    job_id: int | None = Field(default=None, foreign_key="jobs.id", ondelete="SET NULL")
    created_at: datetime = _ts(default_factory=utcnow)
    finished_at: datetime | None = _ts(default=None, nullable=True)
