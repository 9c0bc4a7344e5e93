"""The delivery log (admins only, newest first, bounded) and a channel's "Send test" with its real result."""

from __future__ import annotations

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit, mark_changed
from secdash.jobs import runner
from secdash.models import LogCategory, UserPublic, utcnow
from secdash.models.alerting import AlertKind, DeliveryOutcome, NotificationDelivery
from secdash.models.alerting_public import DeliveryPublic
from secdash.services import audit, ids
from secdash.services.alerting import channels, signals
from secdash.services.alerting.records import TOPIC
from secdash.services.errors import Invalid
from secdash.services.identity.permissions import require_admin

PAGE = 100
MAX_PAGE = 500
TEST_WAIT_SECONDS = 12.0  # a test send answers with its result if it ends within this; else as it stands


def _limit(value: object) -> int:
    if value in (None, ""):
        return PAGE
    text = str(value).strip()
    if not ids.is_digits(text) or not 1 <= int(text) <= MAX_PAGE:
        raise Invalid(f"limit must be a whole number from 1 to {MAX_PAGE}")
    return int(text)


async def list_deliveries(
    *, session: AsyncSession, viewer: UserPublic, limit: object = None, channel_id: object = None
) -> list[DeliveryPublic]:
    require_admin(viewer, "see notification deliveries")
    query = select(NotificationDelivery).order_by(col(NotificationDelivery.id).desc()).limit(_limit(limit))
    if channel_id not in (None, ""):
        query = query.where(NotificationDelivery.channel_id == (await channels.owned(session, channel_id)).id)
    return [DeliveryPublic.of(row) for row in await session.exec(query)]


async def send_test(*, session: AsyncSession, actor: UserPublic, channel_id: object) -> DeliveryPublic:
    """Send a test message to one channel (even a disabled one) and answer the delivery as it ended (or as it
    stands after TEST_WAIT_SECONDS: it goes on retrying and the log shows the end)."""
    require_admin(actor, "send test notifications")
    channel = await channels.owned(session, channel_id)
    delivery = await signals.queue(
        session,
        channel,
        AlertKind.test,
        subject=f"test:{channel.id}",
        title="SecDash test notification",
        body=f"This is a test from SecDash, sent by {actor.email} to the channel '{channel.name}'. If you read "
        "this, alerts will reach you here.",
    )
    audit.record(
        session,
        category=LogCategory.system,
        admin_only=True,
        action="Notification test sent",
        actor_user_id=actor.id,
        description=f"{actor.email} sent a test to the channel '{channel.name}' ({channel.url_masked})",
        details={"channelId": channel.id, "deliveryId": delivery.id},
    )
    delivery_id, job_id, wanted = delivery.id, delivery.job_id, channel.id
    await commit(session)
    if job_id is not None:
        try:
            await runner.wait_for(job_id, timeout=TEST_WAIT_SECONDS)
        except TimeoutError:
            pass
    session.expire_all()
    row = await session.get(NotificationDelivery, delivery_id)
    assert row is not None
    channel_row = await channels.owned(session, wanted)
    if row.outcome in (DeliveryOutcome.sent, DeliveryOutcome.failed):
        channel_row.last_test_at, channel_row.last_test_ok = utcnow(), row.outcome == DeliveryOutcome.sent
        session.add(channel_row)
        mark_changed(session, TOPIC)
        await commit(session)
    return DeliveryPublic.of(row)
