"""Which events notify which channels, and the settings of reminders, flap damping and quiet hours.

A new install gets the defaults the issue names: a site going down and recovering, TLS expiring within 14 days,
critical findings (the scanner's highest severity, "high") and high-severity attacks (aimed at a hole the site has
open) notify every enabled channel; a site turning CHECKING, weak drills (under 70 %) and account lockouts are there
to switch on.
"""

from __future__ import annotations

import re
from datetime import time
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit, mark_changed
from secdash.models import LogCategory, UserPublic, utcnow
from secdash.models.alerting import AlertingSettings, AlertKind, NotificationChannel, NotificationRule
from secdash.models.alerting_public import AlertingSettingsPublic, RulePublic, RulesPublic
from secdash.services import audit
from secdash.services.alerting.records import TOPIC
from secdash.services.errors import Invalid
from secdash.services.identity.permissions import require_admin

SEVERITIES = ("low", "medium", "high")
LABELS = {
    AlertKind.site_down: "A site goes down (ALERT)",
    AlertKind.site_checking: "A site is degraded (CHECKING)",
    AlertKind.site_recovered: "A site recovers (SECURE again)",
    AlertKind.tls_expiring: "A TLS certificate expires soon",
    AlertKind.finding: "A new finding at or above a severity",
    AlertKind.drill_weak: "A drill ends below an effectiveness",
    AlertKind.account_locked: "Failed logins lock an account or address out",
    AlertKind.attack_detected: "An attack is detected on a site, at or above a severity",
}
DEFAULTS: dict[AlertKind, tuple[bool, dict[str, Any]]] = {
    AlertKind.site_down: (True, {}),
    AlertKind.site_checking: (False, {}),
    AlertKind.site_recovered: (True, {}),
    AlertKind.tls_expiring: (True, {"days": 14}),
    AlertKind.finding: (True, {"severity": "high"}),
    AlertKind.drill_weak: (False, {"threshold": 70}),
    AlertKind.account_locked: (False, {}),
    # high: the attack is aimed at a hole the site has open (services/traffic/exposure.py)
    AlertKind.attack_detected: (True, {"severity": "high"}),
}
_CLOCK = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
# The ranges a rule's parameter and a setting take (lowest, highest); the API documents them.
TLS_DAYS = (1, 365)
DRILL_THRESHOLD = (1, 100)  # percent
REMINDER_MINUTES = (0, 10080)  # a week
RECOVERY_SECONDS = (0, 86400)  # a day


async def ensure_defaults(session: AsyncSession) -> None:
    """The rules and settings of a new install (existing rows are kept); caller commits."""
    have = {row.kind for row in await session.exec(select(NotificationRule))}
    missing = [kind for kind in DEFAULTS if kind not in have]
    settings_missing = (await session.exec(select(AlertingSettings))).first() is None
    if not missing and not settings_missing:
        return
    try:
        async with session.begin_nested():  # another writer may add them at the same moment
            for kind in missing:
                enabled, params = DEFAULTS[kind]
                session.add(NotificationRule(kind=kind, enabled=enabled, params=dict(params)))
            if settings_missing:
                session.add(AlertingSettings(id=1))
    except IntegrityError:
        pass


async def settings_row(session: AsyncSession) -> AlertingSettings:
    row = (await session.exec(select(AlertingSettings))).first()
    if row is None:
        await ensure_defaults(session)
        row = (await session.exec(select(AlertingSettings))).first()
    assert row is not None
    return row


async def rule_of(session: AsyncSession, kind: AlertKind) -> NotificationRule | None:
    rule = (await session.exec(select(NotificationRule).where(NotificationRule.kind == kind))).first()
    if rule is None:
        await ensure_defaults(session)
        rule = (await session.exec(select(NotificationRule).where(NotificationRule.kind == kind))).first()
    return rule


async def read(*, session: AsyncSession, viewer: UserPublic) -> RulesPublic:
    require_admin(viewer, "see notification rules")
    await ensure_defaults(session)
    rows = {row.kind: row for row in await session.exec(select(NotificationRule))}
    return RulesPublic(
        rules=[RulePublic.of(rows[kind], LABELS[kind]) for kind in DEFAULTS if kind in rows],
        settings=AlertingSettingsPublic.of(await settings_row(session)),
    )


def _params(kind: AlertKind, value: Any) -> dict[str, Any]:
    params = value if isinstance(value, dict) else {}
    if value is not None and not isinstance(value, dict):
        raise Invalid(f"{kind.value}: params must be an object")
    if kind == AlertKind.tls_expiring:
        days = params.get("days", 14)
        if isinstance(days, bool) or not isinstance(days, int) or not TLS_DAYS[0] <= days <= TLS_DAYS[1]:
            raise Invalid(f"tls_expiring: days must be a whole number from {TLS_DAYS[0]} to {TLS_DAYS[1]}")
        return {"days": days}
    if kind in (AlertKind.finding, AlertKind.attack_detected):
        severity = params.get("severity", "high")
        if severity not in SEVERITIES:
            raise Invalid(f"{kind.value}: severity must be one of {', '.join(SEVERITIES)}")
        return {"severity": severity}
    if kind == AlertKind.drill_weak:
        threshold = params.get("threshold", 70)
        low, high = DRILL_THRESHOLD
        if isinstance(threshold, bool) or not isinstance(threshold, int) or not low <= threshold <= high:
            raise Invalid(f"drill_weak: threshold must be a whole number from {low} to {high} (percent)")
        return {"threshold": threshold}
    return {}


def _whole(value: Any, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Invalid(f"{field} must be a whole number from {low} to {high}")
    return value


def _clock(value: Any, field: str) -> str:
    if not isinstance(value, str) or not _CLOCK.match(value):
        raise Invalid(f"{field} must be a time HH:MM (24-hour, UTC)")
    return value


async def write(*, session: AsyncSession, actor: UserPublic, rules: object, settings: object) -> RulesPublic:
    """Replace the rules given (by kind) and the settings given; the rest stay as they are."""
    require_admin(actor, "change notification rules")
    await ensure_defaults(session)
    if rules is not None and not isinstance(rules, list):
        raise Invalid("rules must be a list of {kind, enabled, channelIds, params}")
    channels = {row.id for row in await session.exec(select(NotificationChannel))}
    rows = {row.kind: row for row in await session.exec(select(NotificationRule))}
    changed: list[str] = []
    for item in rules or []:
        if not isinstance(item, dict) or item.get("kind") not in {kind.value for kind in DEFAULTS}:
            raise Invalid(f"each rule needs a kind, one of {', '.join(kind.value for kind in DEFAULTS)}")
        kind = AlertKind(item["kind"])
        row = rows[kind]
        if "enabled" in item:
            if not isinstance(item["enabled"], bool):
                raise Invalid(f"{kind.value}: enabled must be true or false")
            row.enabled = item["enabled"]
        if "channelIds" in item:
            wanted = item["channelIds"]
            if not isinstance(wanted, list) or any(isinstance(x, bool) or not isinstance(x, int) for x in wanted):
                raise Invalid(f"{kind.value}: channelIds must be a list of channel ids (empty: every channel)")
            unknown = sorted(set(wanted) - channels)
            if unknown:
                raise Invalid(f"{kind.value}: no channel #{unknown[0]}")
            row.channel_ids = sorted(set(wanted))
        if "params" in item:
            row.params = _params(kind, item["params"])
        row.updated_at = utcnow()
        session.add(row)
        changed.append(kind.value)
    if settings is not None:
        if not isinstance(settings, dict):
            raise Invalid("settings must be an object")
        current = await settings_row(session)
        if "reminderMinutes" in settings:
            current.reminder_minutes = _whole(settings["reminderMinutes"], "reminderMinutes", *REMINDER_MINUTES)
        if "recoverySeconds" in settings:
            current.recovery_seconds = _whole(settings["recoverySeconds"], "recoverySeconds", *RECOVERY_SECONDS)
        if "quietEnabled" in settings:
            if not isinstance(settings["quietEnabled"], bool):
                raise Invalid("quietEnabled must be true or false")
            current.quiet_enabled = settings["quietEnabled"]
        if "quietStart" in settings:
            current.quiet_start = _clock(settings["quietStart"], "quietStart")
        if "quietEnd" in settings:
            current.quiet_end = _clock(settings["quietEnd"], "quietEnd")
        current.updated_at = utcnow()
        session.add(current)
        changed.append("settings")
    if changed:
        audit.record(
            session,
            category=LogCategory.system,
            admin_only=True,
            action="Notification rules changed",
            actor_user_id=actor.id,
            description=f"{actor.email} changed the notification rules ({', '.join(changed)})",
            details={"changed": changed},
        )
        mark_changed(session, TOPIC)
        await commit(session)
    return await read(session=session, viewer=actor)


def in_quiet_hours(row: AlertingSettings, now_time: time) -> bool:
    """Whether `now_time` (UTC) is inside the quiet hours (which may wrap midnight)."""
    if not row.quiet_enabled:
        return False
    start, end = (time(int(t[:2]), int(t[3:])) for t in (row.quiet_start, row.quiet_end))
    if start == end:
        return False
    return start <= now_time < end if start < end else (now_time >= start or now_time < end)
