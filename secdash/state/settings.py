"""Settings (/settings): alerting for administrators: notification channels, the rules and their settings, and
the delivery log.

Everything is read and changed through services/alerting/ (channels, rules, deliveries), which check the role: a
limited user's page loads nothing (the services refuse; the page says so) and every handler gets the refusal.
Channel URLs are never held here: the add and edit forms send the typed URL once, on submit, and only the masked
form the service answers comes back. The page follows the "alerting" topic, so the delivery log and the channels'
test results update live. The rules form is a draft: changes stay in this tab until Save.

The page's state is SettingsState (this module: loading, the refusal, the channel list every part shows, the
page's load and follow loop) with three substates: SettingsChannelsState (settings_channels.py: the add form and
the edit, delete and test of a channel), SettingsRulesState (settings_rules.py: the rules draft and its Save) and
SettingsDeliveriesState (settings_deliveries.py: the delivery log). The display rows are made in settings_view.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from secdash.core import notify
from secdash.models import UserPublic
from secdash.models.alerting_public import ChannelPublic, DeliveryPublic
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
from secdash.state.followed_page import FollowedPage
from secdash.state.settings_view import ChannelRow, channel_row

if TYPE_CHECKING:
    from secdash.state.settings_deliveries import SettingsDeliveriesState
    from secdash.state.settings_rules import SettingsRulesState

PAGE = "settings"
MAX_STALENESS_SECONDS = 15.0
LOG_ROWS = 100


class SettingsState(FollowedPage, AuthState):
    """State of /settings (administrators): what every part of the page shares."""

    _follow_page: ClassVar[str] = PAGE

    loading: bool = True
    denied: bool = False  # the server refused this user (limited): nothing is loaded
    channels: list[ChannelRow] = []

    # --- the parts (substates; imported here late: they import this module) ------------------------------

    async def _rules_part(self) -> SettingsRulesState:
        from secdash.state.settings_rules import SettingsRulesState

        return await self.get_state(SettingsRulesState)

    async def _deliveries_part(self) -> SettingsDeliveriesState:
        from secdash.state.settings_deliveries import SettingsDeliveriesState

        return await self.get_state(SettingsDeliveriesState)

    async def _parts(self) -> list[Any]:
        from secdash.state.settings_channels import SettingsChannelsState

        return [await self.get_state(SettingsChannelsState), await self._rules_part(), await self._deliveries_part()]

    # --- reads ------------------------------------------------------------------------------------------

    @staticmethod
    async def _read_log(user: UserPublic) -> tuple[list[ChannelPublic], list[DeliveryPublic]]:
        found = await in_session(channel_service.list_channels, viewer=user)
        log = await in_session(delivery_service.list_deliveries, viewer=user, limit=LOG_ROWS)
        return found, log

    async def _apply_log(self, found: list[ChannelPublic], log: list[DeliveryPublic]) -> None:
        self.channels = [channel_row(row, log) for row in found]
        (await self._deliveries_part())._apply(log)

    async def _clear(self) -> None:
        self.channels = []
        for part in await self._parts():
            part._clear_part()

    async def _reload(self, user: UserPublic) -> None:
        await self._apply_log(*await self._read_log(user))

    def _channel(self, channel_id: Any) -> ChannelRow | None:
        try:
            wanted = int(channel_id)
        except (TypeError, ValueError):
            return None
        return next((row for row in self.channels if row.id == wanted), None)

    # --- page -------------------------------------------------------------------------------------------

    @protected(reads_only=True)
    async def load(self, user: UserPublic):
        try:
            found, log = await self._read_log(user)
            data = await in_session(rule_service.read, viewer=user)
        except PermissionDenied:  # a limited user: the page says administrators only, and holds nothing
            await self._clear()
            self.denied, self.loading = True, False
            return None
        except DomainError as exc:
            self.loading = False
            return toast.error("Error", description=exc.message)
        self.denied = False
        await self._apply_log(found, log)
        (await self._rules_part())._apply_rules(data)
        self.loading = False
        return SettingsState.follow_changes

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
                await self._clear()
                self.denied = True
            raise follow.StopFollowing from None
        async with self:
            await self._apply_log(found, log)
