"""Notification channels as admins manage them: list, add, change, delete (audited in the system category as
admin-only entries, with the masked URL only). A limited user is refused (403) and sees nothing of them, in History
Logs neither."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit, end_read, mark_changed
from secdash.models import LogCategory, UserPublic, utcnow
from secdash.models.alerting import NotificationChannel, NotificationRule
from secdash.models.alerting_public import ChannelPublic
from secdash.services import audit, ids
from secdash.services.alerting import secret_box, targets
from secdash.services.alerting.records import TOPIC
from secdash.services.errors import Invalid, NotFound
from secdash.services.identity.permissions import require_admin

MAX_CHANNELS = 50
MAX_NAME_CHARS = 100


def _name(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Invalid("name is required: a short label such as 'Ops webhook'")
    name = " ".join(value.split())
    if len(name) > MAX_NAME_CHARS:
        raise Invalid(f"name is too long ({len(name)} characters; the limit is {MAX_NAME_CHARS})")
    return name


def _flag(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise Invalid(f"{field} must be true or false")
    return value


async def owned(session: AsyncSession, channel_id: object) -> NotificationChannel:
    wanted = ids.parse_id(channel_id, "channelId")
    channel = await session.get(NotificationChannel, wanted)
    if channel is None:
        raise NotFound(f"Channel #{wanted} not found")
    return channel


async def list_channels(*, session: AsyncSession, viewer: UserPublic) -> list[ChannelPublic]:
    require_admin(viewer, "see notification channels")
    rows = await session.exec(select(NotificationChannel).order_by(col(NotificationChannel.id)))
    return [ChannelPublic.of(row) for row in rows]


async def create_channel(
    *, session: AsyncSession, actor: UserPublic, name: object, url: object, enabled: object = True, allow_private: object = False
) -> ChannelPublic:
    require_admin(actor, "add notification channels")
    label, allow = _name(name), _flag(allow_private, "allowPrivate")
    on = _flag(enabled, "enabled")
    target = targets.read_url(url)
    count = len(list(await session.exec(select(NotificationChannel.id))))
    if count >= MAX_CHANNELS:
        raise Invalid(f"There are {count} channels, the limit: delete one first")
    await end_read(session)  # no pooled connection held across the DNS lookup
    await targets.check_address(target, allow_private=allow)
    channel = NotificationChannel(
        name=label,
        service=target.service,
        url_encrypted=secret_box.seal(str(url).strip()),
        url_masked=target.masked,
        enabled=on,
        allow_private=allow,
        created_by_user_id=actor.id,
    )
    session.add(channel)
    await session.flush()
    audit.record(
        session,
        category=LogCategory.system,
        admin_only=True,
        action="Notification channel added",
        actor_user_id=actor.id,
        description=f"{actor.email} added the {target.service} channel '{label}' ({target.masked})",
        details={"channelId": channel.id, "service": target.service, "url": target.masked},
    )
    mark_changed(session, TOPIC)
    await commit(session)
    await session.refresh(channel)
    return ChannelPublic.of(channel)


async def update_channel(
    *, session: AsyncSession, actor: UserPublic, channel_id: object, changes: dict[str, Any]
) -> ChannelPublic:
    """Change a channel's name, URL (a new one replaces the old; leaving it out keeps it), enabled or
    allowPrivate."""
    require_admin(actor, "change notification channels")
    channel = await owned(session, channel_id)
    name = _name(changes["name"]) if "name" in changes else channel.name
    enabled = _flag(changes["enabled"], "enabled") if "enabled" in changes else channel.enabled
    allow = _flag(changes["allowPrivate"], "allowPrivate") if "allowPrivate" in changes else channel.allow_private
    url = changes.get("url")
    target = targets.read_url(url) if url not in (None, "") else None
    await end_read(session)  # the address checks below resolve names: no pooled connection held across them
    if target is not None:
        await targets.check_address(target, allow_private=allow)
    elif "allowPrivate" in changes and not allow:
        try:
            raw = secret_box.open_sealed(channel.url_encrypted)
        except secret_box.Unreadable as exc:
            raise Invalid(str(exc)) from None
        await targets.check_address(targets.read_url(raw), allow_private=False)
    said: list[str] = []
    if "name" in changes:
        channel.name = name
        said.append("name")
    if "enabled" in changes:
        channel.enabled = enabled
        said.append("enabled" if enabled else "disabled")
    if "allowPrivate" in changes:
        channel.allow_private = allow
        said.append("private addresses " + ("allowed" if allow else "refused"))
    if target is not None:
        channel.url_encrypted, channel.url_masked = secret_box.seal(str(url).strip()), target.masked
        channel.service = target.service
        said.append("URL")
    if not said:
        raise Invalid("Nothing to change: send name, url, enabled or allowPrivate")
    channel.updated_at = utcnow()
    session.add(channel)
    audit.record(
        session,
        category=LogCategory.system,
        admin_only=True,
        action="Notification channel changed",
        actor_user_id=actor.id,
        description=f"{actor.email} changed the channel '{channel.name}': {', '.join(said)} ({channel.url_masked})",
        details={"channelId": channel.id, "changed": said, "url": channel.url_masked},
    )
    mark_changed(session, TOPIC)
    await commit(session)
    await session.refresh(channel)
    return ChannelPublic.of(channel)


async def delete_channel(*, session: AsyncSession, actor: UserPublic, channel_id: object) -> None:
    require_admin(actor, "delete notification channels")
    channel = await owned(session, channel_id)
    switched_off = []
    for rule in await session.exec(select(NotificationRule)):  # rules forget it (they stay savable as read)
        if channel.id in (rule.channel_ids or []):
            rule.channel_ids = [cid for cid in rule.channel_ids if cid != channel.id]
            if not rule.channel_ids and rule.enabled:  # it named only deleted channels: off, not widened to all
                rule.enabled = False
                switched_off.append(rule.kind.value)
            rule.updated_at = utcnow()
            session.add(rule)
    off = f"; rules switched off (no channel left): {', '.join(switched_off)}" if switched_off else ""
    audit.record(
        session,
        category=LogCategory.system,
        admin_only=True,
        action="Notification channel deleted",
        actor_user_id=actor.id,
        description=f"{actor.email} deleted the channel '{channel.name}' ({channel.url_masked}){off}",
        details={"channelId": channel.id, "url": channel.url_masked, "rulesSwitchedOff": switched_off},
    )
    await session.delete(channel)
    mark_changed(session, TOPIC)
    await commit(session)
