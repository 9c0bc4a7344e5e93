"""The "notify" job: send one delivery to its channel through apprise, with retries and back-off (tenacity).

Every delivery is a job of its own, so a slow SMTP server never holds up the monitor or another channel, and a
delivery whose worker stopped is run again (requeue_on_interrupt; a queued job nobody took is re-queued by the
reaper). Before each attempt the channel's URL is decrypted and its hosts checked against the address rules; during
the send every connection is checked again at the socket and no redirect is followed (`outbound.py`). What apprise
logs during the send (at warning level and above) becomes the error, with the URL's secret parts cut.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from sqlalchemy import delete
from sqlmodel import col, select
from tenacity import AsyncRetrying, RetryError, stop_after_attempt, wait_exponential

from secdash.core.db import session_scope
from secdash.core.unit import commit, mark_changed
from secdash.jobs import JobContext, register
from secdash.models import utcnow
from secdash.models.alerting import AlertKind, DeliveryOutcome, NotificationChannel, NotificationDelivery
from secdash.services.alerting import outbound, secret_box, targets
from secdash.services.alerting.records import DELIVERY_KIND, MAX_DELIVERIES, TOPIC
from secdash.services.errors import Invalid

log = logging.getLogger(__name__)

ATTEMPTS = 3
BACKOFF_SECONDS = 2.0  # the first pause; then 4 s, 8 s ... (at most MAX_BACKOFF_SECONDS)
MAX_BACKOFF_SECONDS = 60.0
ORDER_WAIT_SECONDS = 120.0


class SendFailed(Exception):
    """One attempt failed; the message is safe to show (secrets cut)."""


class Undeliverable(Exception):
    """No attempt can succeed (the channel is gone, disabled, unreadable or refused by the address rules)."""


# How each kind of alert is marked for the services that colour or rank messages (Slack, Discord, Teams, ntfy...).
NOTIFY_TYPES = {
    AlertKind.site_down: "failure",
    AlertKind.site_checking: "warning",
    AlertKind.site_recovered: "success",
    AlertKind.tls_expiring: "warning",
    AlertKind.finding: "failure",
    AlertKind.drill_weak: "warning",
    AlertKind.account_locked: "warning",
    AlertKind.attack_detected: "failure",
    AlertKind.test: "info",
}


def _send(url: str, title: str, body: str, notify_type: str, allow_private: bool) -> tuple[bool, str, list[str]]:
    """Send with apprise (blocking: run in a thread); (ok, what apprise said went wrong in one line, the addresses
    the outbound guard refused). Every connection is checked by the guard; no redirect is followed."""
    apprise = targets._apprise()
    with outbound.guarded(allow_private=allow_private) as policy:
        notifier = apprise.Apprise(asset=targets.asset())
        if not notifier.add(url):
            return False, "apprise could not load the channel's URL", []
        with apprise.LogCapture(level=logging.WARNING, fmt="%(message)s") as logs:
            ok = bool(notifier.notify(title=title, body=body, notify_type=apprise.NotifyType(notify_type)))
            said = "; ".join(line.strip() for line in logs.getvalue().splitlines() if line.strip())
    return ok and not policy.blocked, said, policy.blocked


async def _update(delivery_id: int, **fields: Any) -> None:
    async with session_scope() as session:
        row = await session.get(NotificationDelivery, delivery_id)
        if row is None:
            return
        for name, value in fields.items():
            setattr(row, name, value)
        session.add(row)
        mark_changed(session, TOPIC)
        await commit(session)


async def _load(delivery_id: int) -> tuple[NotificationDelivery, str, targets.Target, bool]:
    async with session_scope() as session:
        delivery = await session.get(NotificationDelivery, delivery_id)
        if delivery is None:
            raise Undeliverable("the delivery no longer exists")
        channel = await session.get(NotificationChannel, delivery.channel_id) if delivery.channel_id else None
        if channel is None:
            raise Undeliverable("the channel was deleted")
        if not channel.enabled and delivery.kind != "test":
            raise Undeliverable("the channel is disabled")
        try:
            raw = secret_box.open_sealed(channel.url_encrypted)
        except secret_box.Unreadable as exc:
            raise Undeliverable(str(exc)) from None
        return delivery, raw, targets.read_url(raw), channel.allow_private


async def _after_earlier(delivery_id: int) -> None:
    """Wait (at most ORDER_WAIT_SECONDS) while an earlier delivery of the same subject to the same channel is still
    being sent, so "recovered" never arrives before its "down"."""
    deadline = asyncio.get_running_loop().time() + ORDER_WAIT_SECONDS
    while asyncio.get_running_loop().time() < deadline:
        async with session_scope() as session:
            row = await session.get(NotificationDelivery, delivery_id)
            if row is None:
                return
            earlier = (
                await session.exec(
                    select(NotificationDelivery.id)
                    .where(
                        NotificationDelivery.channel_id == row.channel_id,
                        NotificationDelivery.subject == row.subject,
                        col(NotificationDelivery.id) < delivery_id,
                        col(NotificationDelivery.outcome).in_([DeliveryOutcome.pending, DeliveryOutcome.retrying]),
                    )
                    .limit(1)
                )
            ).first()
        if earlier is None:
            return
        await asyncio.sleep(0.1)


async def deliver(ctx: JobContext | None, delivery_id: int) -> DeliveryOutcome:
    """Send the delivery (retrying), record how it ended and return that."""
    await _after_earlier(delivery_id)
    try:
        delivery, raw, target, allow_private = await _load(delivery_id)
    except (Undeliverable, Invalid) as exc:
        await _update(
            delivery_id,
            outcome=DeliveryOutcome.suppressed if "disabled" in str(exc) else DeliveryOutcome.failed,
            error=str(exc)[:1000],
            finished_at=utcnow(),
        )
        return DeliveryOutcome.failed
    attempts = 0

    async def attempt() -> None:
        nonlocal attempts
        attempts += 1
        await _update(delivery_id, attempts=attempts)
        try:
            await targets.check_address(target, allow_private=allow_private)
        except Invalid as exc:
            raise Undeliverable(exc.message) from None
        ok, said, blocked = await asyncio.to_thread(
            _send, raw, delivery.title, delivery.body, NOTIFY_TYPES.get(AlertKind(delivery.kind), "info"), allow_private
        )
        if blocked:  # the name answered differently at send time (DNS rebinding) or a plugin went elsewhere
            reason = f"Blocked: the send tried to reach {blocked[0]}; {targets.ALLOW_PRIVATE_HINT}"
            raise Undeliverable(targets.scrub(reason, raw, target.masked))
        if not ok:
            reason = targets.scrub(said or "the service refused the message", raw, target.masked)
            await _update(
                delivery_id,
                outcome=DeliveryOutcome.retrying if attempts < ATTEMPTS else DeliveryOutcome.failed,
                error=reason[-1000:],
            )
            raise SendFailed(reason)

    try:
        async for trying in AsyncRetrying(
            stop=stop_after_attempt(ATTEMPTS),
            reraise=False,
            wait=wait_exponential(multiplier=BACKOFF_SECONDS, max=MAX_BACKOFF_SECONDS),
            retry=_retryable,
        ):
            with trying:
                await attempt()
    except RetryError as exc:
        error = exc.last_attempt.exception()
        await _update(
            delivery_id,
            outcome=DeliveryOutcome.failed,
            finished_at=utcnow(),
            error=f"{attempts} attempts failed; the last: {error}"[:1000],
        )
        return DeliveryOutcome.failed
    except Undeliverable as exc:
        await _update(delivery_id, outcome=DeliveryOutcome.failed, error=str(exc)[:1000], finished_at=utcnow())
        return DeliveryOutcome.failed
    await _update(delivery_id, outcome=DeliveryOutcome.sent, error=None, finished_at=utcnow())
    return DeliveryOutcome.sent


def _retryable(state: Any) -> bool:
    outcome = state.outcome
    return outcome is not None and outcome.failed and isinstance(outcome.exception(), SendFailed)


async def trim() -> int:
    """Keep the newest MAX_DELIVERIES deliveries in the log; how many went."""
    async with session_scope() as session:
        oldest_kept = (
            await session.exec(
                select(NotificationDelivery.id).order_by(col(NotificationDelivery.id).desc()).offset(MAX_DELIVERIES - 1).limit(1)
            )
        ).first()
        if oldest_kept is None:
            return 0
        result = await session.exec(
            delete(NotificationDelivery).where(  # type: ignore[call-overload]
                col(NotificationDelivery.id) < oldest_kept
            )
        )
        await commit(session)
        return int(result.rowcount or 0)


@register(DELIVERY_KIND, topic=TOPIC, requeue_on_interrupt=True)
async def run_delivery(ctx: JobContext) -> dict[str, Any]:
    delivery_id = int(ctx.params["deliveryId"])
    try:
        outcome = await deliver(ctx, delivery_id)
    finally:
        await asyncio.shield(trim())
    return {"deliveryId": delivery_id, "outcome": outcome.value}
