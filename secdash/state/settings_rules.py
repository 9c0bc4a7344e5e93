"""Settings: the alerting rules (one per kind of event: on or off, all channels or chosen ones, its parameter) and
the settings (reminders, flap damping, quiet hours), edited as a draft in this tab until Save (or Discard)."""

from __future__ import annotations

from typing import Any

from secdash.models import UserPublic
from secdash.models.alerting_public import RulesPublic
from secdash.services.alerting import rules as rule_service
from secdash.services.errors import DomainError, PermissionDenied
from secdash.services.scoped import in_session
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.settings import SettingsState
from secdash.state.settings_view import RuleRow, field_text, rule_rows, rules_payload


class SettingsRulesState(SettingsState):
    """The rules draft of /settings."""

    rules: list[RuleRow] = []
    reminder_minutes: str = ""
    recovery_seconds: str = ""
    quiet_enabled: bool = False
    quiet_start: str = ""
    quiet_end: str = ""
    rules_dirty: bool = False
    rules_key: int = 0  # remounts the typed rule fields when the rules are read afresh

    def _apply_rules(self, data: RulesPublic) -> None:
        self.rules = rule_rows(data)
        settings = data.settings
        self.reminder_minutes, self.recovery_seconds = str(settings.reminder_minutes), str(settings.recovery_seconds)
        self.quiet_enabled, self.quiet_start, self.quiet_end = (settings.quiet_enabled, settings.quiet_start, settings.quiet_end)
        self.rules_dirty = False
        self.rules_key += 1

    def _clear_part(self) -> None:
        self.rules = []

    def _rule(self, kind: Any) -> RuleRow | None:
        return next((rule for rule in self.rules if rule.kind == kind), None)

    def _touch(self) -> None:
        self.rules_dirty = True
        self.rules = list(self.rules)

    @protected(reads_only=True)
    async def set_rule_enabled(self, kind: str, value: bool):
        rule = self._rule(kind)
        if rule is not None:
            rule.enabled = bool(value)
            self._touch()
        return None

    @protected(reads_only=True)
    async def set_rule_scope(self, kind: str, value: str):
        rule = self._rule(kind)
        if rule is not None and value in ("all", "chosen"):
            rule.scope = value
            self._touch()
        return None

    @protected(reads_only=True)
    async def set_rule_channel(self, kind: str, channel_id: int, value: bool):
        rule = self._rule(kind)
        if rule is None or self._channel(channel_id) is None:
            return None
        wanted = int(channel_id)
        chosen = [cid for cid in rule.channel_ids if cid != wanted]
        rule.channel_ids = sorted([*chosen, wanted] if value else chosen)
        self._touch()
        return None

    @protected(reads_only=True)
    async def set_rule_param(self, kind: str, value: str):
        rule = self._rule(kind)
        if rule is not None and rule.param:
            rule.param_value = field_text(value)[:20]
            self._touch()
        return None

    async def _set_setting(self, name: str, value: Any) -> None:
        setattr(self, name, field_text(value)[:20] if not isinstance(value, bool) else value)
        self.rules_dirty = True

    @protected(reads_only=True)
    async def set_reminder_minutes(self, value: str):
        await self._set_setting("reminder_minutes", value)

    @protected(reads_only=True)
    async def set_recovery_seconds(self, value: str):
        await self._set_setting("recovery_seconds", value)

    @protected(reads_only=True)
    async def set_quiet_enabled(self, value: bool):
        await self._set_setting("quiet_enabled", bool(value))

    @protected(reads_only=True)
    async def set_quiet_start(self, value: str):
        await self._set_setting("quiet_start", value)

    @protected(reads_only=True)
    async def set_quiet_end(self, value: str):
        await self._set_setting("quiet_end", value)

    @protected
    async def save_rules(self, user: UserPublic):
        payload = rules_payload(
            self.rules,
            {row.id for row in self.channels},
            {
                "reminderMinutes": self.reminder_minutes,
                "recoverySeconds": self.recovery_seconds,
                "quietEnabled": self.quiet_enabled,
                "quietStart": self.quiet_start,
                "quietEnd": self.quiet_end,
            },
        )
        if isinstance(payload, str):
            return toast.error("Rules not saved", description=payload)
        items, settings = payload
        try:
            data = await in_session(rule_service.write, actor=user, rules=items, settings=settings)
        except PermissionDenied as exc:
            return toast.error("Access denied", description=exc.message)
        except DomainError as exc:  # the draft stays as typed
            return toast.error("Rules not saved", description=exc.message)
        self._apply_rules(data)
        return toast.success("Rules saved")

    @protected(reads_only=True)
    async def discard_rules(self, user: UserPublic):
        """Drop the draft: the rules as stored."""
        try:
            data = await in_session(rule_service.read, viewer=user)
        except PermissionDenied as exc:
            return toast.error("Access denied", description=exc.message)
        except DomainError as exc:
            return toast.error("Error", description=exc.message)
        self._apply_rules(data)
        return None
