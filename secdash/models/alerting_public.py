"""Public shapes of alerting: channels (masked URL only), rules and settings, deliveries."""

from __future__ import annotations

from typing import Any

from secdash.models.alerting import (
    AlertingSettings,
    AlertKind,
    DeliveryOutcome,
    NotificationChannel,
    NotificationDelivery,
    NotificationRule,
)
from secdash.models.public import PublicModel, UtcDateTime


class ChannelPublic(PublicModel):
    id: int
    name: str
    service: str
    url: str  # masked: never the secret parts
    enabled: bool
    allow_private: bool
    last_test_at: UtcDateTime | None
    last_test_ok: bool | None
    created_at: UtcDateTime

    @classmethod
    def of(cls, row: NotificationChannel) -> ChannelPublic:
        assert row.id is not None
        return cls(
            id=row.id,
            name=row.name,
            service=row.service,
            url=row.url_masked,
            enabled=row.enabled,
            allow_private=row.allow_private,
            last_test_at=row.last_test_at,
            last_test_ok=row.last_test_ok,
            created_at=row.created_at,
        )


class RulePublic(PublicModel):
    kind: AlertKind
    label: str
    enabled: bool
    channel_ids: list[int]  # empty: every enabled channel
    params: dict[str, Any]

    @classmethod
    def of(cls, row: NotificationRule, label: str) -> RulePublic:
        return cls(
            kind=row.kind,
            label=label,
            enabled=row.enabled,
            channel_ids=list(row.channel_ids or []),
            params=dict(row.params or {}),
        )


class AlertingSettingsPublic(PublicModel):
    reminder_minutes: int
    recovery_seconds: int
    quiet_enabled: bool
    quiet_start: str
    quiet_end: str

    @classmethod
    def of(cls, row: AlertingSettings) -> AlertingSettingsPublic:
        return cls(
            reminder_minutes=row.reminder_minutes,
            recovery_seconds=row.recovery_seconds,
            quiet_enabled=row.quiet_enabled,
            quiet_start=row.quiet_start,
            quiet_end=row.quiet_end,
        )


class RulesPublic(PublicModel):
    rules: list[RulePublic]
    settings: AlertingSettingsPublic


class DeliveryPublic(PublicModel):
    id: int
    channel_id: int | None
    channel_name: str
    kind: AlertKind
    title: str
    body: str
    outcome: DeliveryOutcome
    attempts: int
    error: str | None
    created_at: UtcDateTime
    finished_at: UtcDateTime | None

    @classmethod
    def of(cls, row: NotificationDelivery) -> DeliveryPublic:
        assert row.id is not None
        return cls(
            id=row.id,
            channel_id=row.channel_id,
            channel_name=row.channel_name,
            kind=row.kind,
            title=row.title,
            body=row.body,
            outcome=row.outcome,
            attempts=row.attempts,
            error=row.error,
            created_at=row.created_at,
            finished_at=row.finished_at,
        )
