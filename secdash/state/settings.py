"""Settings (/settings): alerting for administrators: notification channels, the rules and their settings, and
the delivery log.

Everything is read and changed through services/alerting/ (channels, rules, deliveries), which check the role: a
limited user's page loads nothing (the services refuse; the page says so) and every handler gets the refusal.
Channel URLs are never held here: the add and edit forms send the typed URL once, on submit, and only the masked
form the service answers comes back. The page follows the "alerting" topic, so the delivery log and the channels'
test results update live. The rules form is a draft: changes stay in this tab until Save.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from secdash.core import notify
from secdash.models import UserPublic, as_utc
from secdash.models.alerting import AlertKind
from secdash.models.alerting_public import ChannelPublic, DeliveryPublic, RulesPublic
from secdash.services.alerting import channels as channel_service
from secdash.services.alerting import deliveries as delivery_service
from secdash.services.alerting import rules as rule_service
from secdash.services.alerting.records import TOPIC
from secdash.services.errors import DomainError, PermissionDenied
from secdash.services.scoped import in_session
from secdash.state import follow
from secdash.state.auth import AuthState
from secdash.state.base import protected
from secdash.state.browser_actions import toast

PAGE = "settings"
MAX_STALENESS_SECONDS = 15.0
LOG_ROWS = 100
MAX_FIELD_CHARS = 2100  # a little over the service's URL limit: the service says what is too long
PARAMS = {AlertKind.tls_expiring.value: "days", AlertKind.finding.value: "severity", AlertKind.drill_weak.value: "threshold"}
KIND_LABELS = {
    AlertKind.site_down.value: "Site down",
    AlertKind.site_checking.value: "Site degraded",
    AlertKind.site_recovered.value: "Site recovered",
    AlertKind.tls_expiring.value: "TLS expiring",
    AlertKind.finding.value: "Finding",
    AlertKind.drill_weak.value: "Weak drill",
    AlertKind.account_locked.value: "Account locked",
    AlertKind.test.value: "Test",
}
ENDED = {"sent", "failed"}


@dataclasses.dataclass
class ChannelRow:
    id: int = 0
    name: str = ""
    service: str = ""
    url: str = ""  # masked
    enabled: bool = True
    allow_private: bool = False
    test_state: str = ""  # "" never tested | sent | failed | pending (sending or retrying)
    test_result: str = ""  # "Sent" | "Failed: <error>" | "Sending..." | "Never tested"
    test_time: str = ""


@dataclasses.dataclass
class RuleRow:
    kind: str = ""
    label: str = ""
    enabled: bool = False
    scope: str = "all"  # all | chosen
    channel_ids: list[int] = dataclasses.field(default_factory=list)
    param: str = ""  # days | severity | threshold | ""
    param_value: str = ""


@dataclasses.dataclass
class DeliveryRow:
    id: int = 0
    time: str = ""
    channel: str = ""
    kind: str = ""
    title: str = ""
    outcome: str = ""
    attempts: int = 0
    error: str = ""


def _when(value: Any) -> str:
    return as_utc(value).strftime("%Y-%m-%d %H:%M:%S UTC") if value else ""


def delivery_row(row: DeliveryPublic) -> DeliveryRow:
    return DeliveryRow(
        id=row.id,
        time=_when(row.created_at),
        channel=row.channel_name or "(deleted channel)",
        kind=KIND_LABELS.get(row.kind.value, row.kind.value),
        title=row.title,
        outcome=row.outcome.value,
        attempts=row.attempts,
        error=row.error or "",
    )


def channel_row(row: ChannelPublic, log: list[DeliveryPublic]) -> ChannelRow:
    """A channel with its last test: the newest test delivery in the log (its real outcome and error), else what
    the channel row remembers of its last test."""
    view = ChannelRow(
        id=row.id, name=row.name, service=row.service, url=row.url, enabled=row.enabled, allow_private=row.allow_private
    )
    test = next((d for d in log if d.kind == AlertKind.test and d.channel_id == row.id), None)
    if test is not None:
        outcome = test.outcome.value
        if outcome == "sent":
            view.test_state, view.test_result = "sent", "Sent"
        elif outcome in ("failed", "suppressed"):
            view.test_state, view.test_result = "failed", f"Failed: {test.error or outcome}"
        else:
            view.test_state = "pending"
            view.test_result = "Retrying..." if outcome == "retrying" else "Sending..."
        view.test_time = _when(test.finished_at or test.created_at)
    elif row.last_test_ok is not None:
        view.test_state = "sent" if row.last_test_ok else "failed"
        view.test_result = "Sent" if row.last_test_ok else "Failed"
        view.test_time = _when(row.last_test_at)
    else:
        view.test_result = "Never tested"
    return view


def rule_rows(data: RulesPublic) -> list[RuleRow]:
    out = []
    for rule in data.rules:
        param = PARAMS.get(rule.kind.value, "")
        out.append(
            RuleRow(
                kind=rule.kind.value,
                label=rule.label,
                enabled=rule.enabled,
                scope="chosen" if rule.channel_ids else "all",
                channel_ids=list(rule.channel_ids),
                param=param,
                param_value=str(rule.params.get(param, "")) if param else "",
            )
        )
    return out


def _number(text: str) -> int | str:
    """A whole number as typed, or the text itself (the service then says what it wants)."""
    value = text.strip()
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 9 else value


def _text(value: Any) -> str:
    return str(value if value is not None else "")[:MAX_FIELD_CHARS]


class SettingsState(AuthState):
    """State of /settings (administrators)."""

    loading: bool = True
    denied: bool = False  # the server refused this user (limited): nothing is loaded
    channels: list[ChannelRow] = []
    rules: list[RuleRow] = []
    reminder_minutes: str = ""
    recovery_seconds: str = ""
    quiet_enabled: bool = False
    quiet_start: str = ""
    quiet_end: str = ""
    rules_dirty: bool = False
    rules_key: int = 0  # remounts the typed rule fields when the rules are read afresh
    deliveries: list[DeliveryRow] = []
    add_key: int = 0  # remounts the add form (emptied) after a channel was added; an error keeps what was typed
    add_private: bool = False
    edit_open: bool = False
    edit_id: int = 0
    edit_name: str = ""
    edit_url: str = ""  # the masked URL, shown beside the empty "new URL" field
    edit_private: bool = False
    edit_key: int = 0
    delete_open: bool = False
    delete_id: int = 0
    delete_name: str = ""
    testing_id: int = 0  # the channel whose test is being sent from this tab

    # --- reads ------------------------------------------------------------------------------------------

    @staticmethod
    async def _read_log(user: UserPublic) -> tuple[list[ChannelPublic], list[DeliveryPublic]]:
        found = await in_session(channel_service.list_channels, viewer=user)
        log = await in_session(delivery_service.list_deliveries, viewer=user, limit=LOG_ROWS)
        return found, log

    def _apply_log(self, found: list[ChannelPublic], log: list[DeliveryPublic]) -> None:
        self.channels = [channel_row(row, log) for row in found]
        self.deliveries = [delivery_row(row) for row in log]

    def _apply_rules(self, data: RulesPublic) -> None:
        self.rules = rule_rows(data)
        settings = data.settings
        self.reminder_minutes, self.recovery_seconds = str(settings.reminder_minutes), str(settings.recovery_seconds)
        self.quiet_enabled, self.quiet_start, self.quiet_end = (settings.quiet_enabled, settings.quiet_start, settings.quiet_end)
        self.rules_dirty = False
        self.rules_key += 1

    def _clear(self) -> None:
        self.channels, self.rules, self.deliveries = [], [], []
        self.edit_open = self.delete_open = False

    async def _reload(self, user: UserPublic) -> None:
        self._apply_log(*await self._read_log(user))

    # --- page -------------------------------------------------------------------------------------------

    @protected(reads_only=True)
    async def load(self, user: UserPublic):
        try:
            found, log = await self._read_log(user)
            data = await in_session(rule_service.read, viewer=user)
        except PermissionDenied:  # a limited user: the page says administrators only, and holds nothing
            self._clear()
            self.denied, self.loading = True, False
            return None
        except DomainError as exc:
            self.loading = False
            return toast.error("Error", description=exc.message)
        self.denied = False
        self._apply_log(found, log)
        self._apply_rules(data)
        self.loading = False
        return SettingsState.follow_changes

    @protected(reads_only=True)
    async def stop_following(self):
        follow.stop_following(self.router.session.client_token, PAGE)
        return None

    @protected(reads_only=True, background=True)
    async def follow_changes(self):
        """Re-read the channels and the delivery log on every alerting change (a delivery sent, retried or failed,
        a channel changed in another tab), or every MAX_STALENESS_SECONDS. The rules draft is left alone."""
        async for out in follow.signed_in_rounds(
            self, PAGE, TOPIC, timeout=MAX_STALENESS_SECONDS, each_round=self._follow_round, skip=(DomainError,)
        ):
            yield out

    async def _follow_round(self, user: UserPublic, _changed: notify.Changed) -> None:
        try:
            found, log = await self._read_log(user)  # outside the state lock
        except PermissionDenied:  # the role changed while the page was open
            async with self:
                self._clear()
                self.denied = True
            raise follow.StopFollowing from None
        async with self:
            self._apply_log(found, log)

    # --- channels ---------------------------------------------------------------------------------------

    @protected(reads_only=True)
    async def set_add_private(self, value: bool):
        self.add_private = bool(value)
        return None

    @protected
    async def add_channel(self, user: UserPublic, form: dict):
        """Add a channel from the form (name, url); the typed URL goes to the service and is not kept here."""
        try:
            row = await in_session(
                channel_service.create_channel,
                actor=user,
                name=_text(form.get("name")),
                url=_text(form.get("url")),
                allow_private=self.add_private,
            )
        except PermissionDenied as exc:
            return toast.error("Access denied", description=exc.message)
        except DomainError as exc:  # the form keeps what was typed
            return toast.error("Channel not added", description=exc.message)
        self.add_key += 1
        self.add_private = False
        await self._reload(user)
        return toast.success("Channel added", description=f"{row.name} ({row.service}): {row.url}")

    def _channel(self, channel_id: Any) -> ChannelRow | None:
        try:
            wanted = int(channel_id)
        except (TypeError, ValueError):
            return None
        return next((row for row in self.channels if row.id == wanted), None)

    @protected(reads_only=True)
    async def open_edit(self, channel_id: int):
        row = self._channel(channel_id)
        if row is None:
            return toast.error("Error", description="That channel is not in the list (it may have been deleted)")
        self.edit_id, self.edit_name, self.edit_url, self.edit_private = row.id, row.name, row.url, row.allow_private
        self.edit_open = True
        self.edit_key += 1
        return None

    @protected(reads_only=True)
    async def set_edit_open(self, value: bool):
        self.edit_open = bool(value)
        return None

    @protected(reads_only=True)
    async def set_edit_private(self, value: bool):
        self.edit_private = bool(value)
        return None

    @protected
    async def save_channel(self, user: UserPublic, form: dict):
        """Save the edit form: the name, allowPrivate, and a new URL when one was typed (empty keeps the old)."""
        if not self.edit_id:
            return toast.error("Error", description="Choose a channel to edit first")
        changes: dict[str, Any] = {"name": _text(form.get("name")), "allowPrivate": self.edit_private}
        url = _text(form.get("url")).strip()
        if url:
            changes["url"] = url
        try:
            row = await in_session(channel_service.update_channel, actor=user, channel_id=self.edit_id, changes=changes)
        except PermissionDenied as exc:
            return toast.error("Access denied", description=exc.message)
        except DomainError as exc:  # the dialog stays open with what was typed
            return toast.error("Channel not saved", description=exc.message)
        self.edit_open, self.edit_id, self.edit_url = False, 0, ""
        await self._reload(user)
        return toast.success("Channel saved", description=f"{row.name}: {row.url}")

    async def _change(self, user: UserPublic, channel_id: int, changes: dict[str, Any], done: str):
        try:
            row = await in_session(channel_service.update_channel, actor=user, channel_id=channel_id, changes=changes)
        except PermissionDenied as exc:
            return toast.error("Access denied", description=exc.message)
        except DomainError as exc:
            await self._reload(user)
            return toast.error("Channel not changed", description=exc.message)
        await self._reload(user)
        return toast.success(done, description=row.name)

    @protected
    async def set_channel_enabled(self, user: UserPublic, channel_id: int, value: bool):
        return await self._change(user, channel_id, {"enabled": bool(value)}, "Channel enabled" if value else "Channel disabled")

    @protected
    async def set_channel_private(self, user: UserPublic, channel_id: int, value: bool):
        return await self._change(
            user, channel_id, {"allowPrivate": bool(value)}, "Private addresses allowed" if value else "Private addresses refused"
        )

    @protected(reads_only=True)
    async def ask_delete(self, channel_id: int):
        row = self._channel(channel_id)
        if row is None:
            return toast.error("Error", description="That channel is not in the list (it may have been deleted)")
        self.delete_id, self.delete_name, self.delete_open = row.id, row.name, True
        return None

    @protected(reads_only=True)
    async def set_delete_open(self, value: bool):
        self.delete_open = bool(value)
        return None

    @protected
    async def delete_channel(self, user: UserPublic):
        """Delete the channel the confirmation dialog names (only its button deletes)."""
        if not self.delete_open or not self.delete_id:
            return None
        name = self.delete_name
        try:
            await in_session(channel_service.delete_channel, actor=user, channel_id=self.delete_id)
        except PermissionDenied as exc:
            return toast.error("Access denied", description=exc.message)
        except DomainError as exc:
            self.delete_open = False
            await self._reload(user)
            return toast.error("Channel not deleted", description=exc.message)
        deleted, self.delete_open, self.delete_id, self.delete_name = self.delete_id, False, 0, ""
        await self._reload(user)
        if self.rules_dirty:  # the draft forgets the channel; the rest of it stays as typed
            for rule in self.rules:
                rule.channel_ids = [cid for cid in rule.channel_ids if cid != deleted]
            self.rules = list(self.rules)
        else:  # rules that named it changed on the server (one left with no channel is switched off)
            self._apply_rules(await in_session(rule_service.read, viewer=user))
        return toast.success("Channel deleted", description=name)

    @protected
    async def send_test(self, user: UserPublic, channel_id: int):
        """Send a test to one channel and show how it really ended (Sent, or Failed with the error)."""
        if self.testing_id:
            yield toast.info("A test is being sent", description="Wait for its result first")
            return
        row = self._channel(channel_id)
        if row is None:
            yield toast.error("Error", description="That channel is not in the list (it may have been deleted)")
            return
        self.testing_id = row.id
        yield
        try:
            delivery = await in_session(delivery_service.send_test, actor=user, channel_id=row.id)
        except PermissionDenied as exc:
            yield toast.error("Access denied", description=exc.message)
            return
        except DomainError as exc:
            yield toast.error("Test not sent", description=exc.message)
            return
        finally:
            self.testing_id = 0
        await self._reload(user)
        outcome = delivery.outcome.value
        if outcome == "sent":
            yield toast.success("Test sent", description=f"{row.name}: Sent")
        elif outcome in ENDED or outcome == "suppressed":
            yield toast.error("Test failed", description=f"{row.name}: {delivery.error or outcome}")
        else:
            yield toast.warning(
                "Test still retrying",
                description=f"{row.name}: {delivery.error or 'no answer yet'}; the delivery log shows how it ends",
            )

    # --- rules (a draft until Save) ---------------------------------------------------------------------

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
            rule.param_value = _text(value)[:20]
            self._touch()
        return None

    async def _set_setting(self, name: str, value: Any) -> None:
        setattr(self, name, _text(value)[:20] if not isinstance(value, bool) else value)
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

    def _rules_payload(self) -> tuple[list[dict[str, Any]], dict[str, Any]] | str:
        """What Save sends, or what to tell the user first (a rule for chosen channels with none chosen)."""
        known = {row.id for row in self.channels}
        out = []
        for rule in self.rules:
            chosen = [cid for cid in rule.channel_ids if cid in known]
            if rule.scope == "chosen" and not chosen:
                return f"{rule.label}: choose at least one channel, or send to all channels"
            item: dict[str, Any] = {
                "kind": rule.kind,
                "enabled": rule.enabled,
                "channelIds": chosen if rule.scope == "chosen" else [],
            }
            if rule.param:
                value = rule.param_value.strip() if rule.param == "severity" else _number(rule.param_value)
                item["params"] = {rule.param: value}
            out.append(item)
        settings = {
            "reminderMinutes": _number(self.reminder_minutes),
            "recoverySeconds": _number(self.recovery_seconds),
            "quietEnabled": self.quiet_enabled,
            "quietStart": self.quiet_start.strip(),
            "quietEnd": self.quiet_end.strip(),
        }
        return out, settings

    @protected
    async def save_rules(self, user: UserPublic):
        payload = self._rules_payload()
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
