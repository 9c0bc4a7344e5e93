"""What alerting's parts share: the job kind of a delivery and the change topic of channels, rules and deliveries."""

from __future__ import annotations

DELIVERY_KIND = "notify"
TOPIC = "alerting"
MAX_DELIVERIES = 1000  # the delivery log keeps the newest
