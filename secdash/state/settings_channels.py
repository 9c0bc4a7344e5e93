"""Settings: the notification channels: the add form, the edit dialog (a new URL only when one is typed), enable
and allow-private switches, the delete confirmation and Send test with its real result. The channel list itself
is SettingsState's (the rules choose from it); the typed URL goes to the service once and is never kept here."""

from __future__ import annotations

from typing import Any

from secdash.models import UserPublic
from secdash.services.alerting import channels as channel_service
from secdash.services.alerting import deliveries as delivery_service
from secdash.services.alerting import rules as rule_service
from secdash.services.errors import DomainError, PermissionDenied
from secdash.services.scoped import in_session
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.settings import SettingsState
from secdash.state.settings_rules import SettingsRulesState
from secdash.state.settings_view import ENDED, field_text


class SettingsChannelsState(SettingsState):
    """The channel forms and actions of /settings."""

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

    def _clear_part(self) -> None:
        self.edit_open = self.delete_open = False

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
                name=field_text(form.get("name")),
                url=field_text(form.get("url")),
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
        changes: dict[str, Any] = {"name": field_text(form.get("name")), "allowPrivate": self.edit_private}
        url = field_text(form.get("url")).strip()
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
        rules = await self.get_state(SettingsRulesState)
        if rules.rules_dirty:  # the draft forgets the channel; the rest of it stays as typed
            for rule in rules.rules:
                rule.channel_ids = [cid for cid in rule.channel_ids if cid != deleted]
            rules.rules = list(rules.rules)
        else:  # rules that named it changed on the server (one left with no channel is switched off)
            rules._apply_rules(await in_session(rule_service.read, viewer=user))
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
