"""Settings: the delivery log (the newest deliveries, live: SettingsState's follow loop reads it with the channels,
whose last test comes from it)."""

from __future__ import annotations

from secdash.models.alerting_public import DeliveryPublic
from secdash.state.settings import SettingsState
from secdash.state.settings_view import DeliveryRow, delivery_row


class SettingsDeliveriesState(SettingsState):
    """The delivery log of /settings."""

    deliveries: list[DeliveryRow] = []

    def _apply(self, log: list[DeliveryPublic]) -> None:
        self.deliveries = [delivery_row(row) for row in log]

    def _clear_part(self) -> None:
        self.deliveries = []
