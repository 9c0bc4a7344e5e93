"""Alert signals: what the monitor, the scanner, the drills and sign-in tell alerting, turned into deliveries.

`announce` makes one delivery (and its "notify" job, dispatched after the caller's commit) per channel the kind's
rule names (none named: every enabled channel); in quiet hours the delivery is logged as suppressed instead.

A site is followed probe by probe (`observe_site`), so one outage is one message, however it flaps:
- ok -> down (ALERT): "down" is sent; while it stays down, at most one reminder per `reminderMinutes`;
- ok -> degraded (CHECKING): "degraded" is sent when that rule is on;
- down or degraded -> SECURE: the site is "recovering"; the recovery is sent once it has stayed SECURE for
  `recoverySeconds`. Failing again before that is the same outage (no new "down"): a flapping site sends one
  "down" and one "recovered";
- a recovery is only announced for an outage that was announced.
A certificate expiring within the rule's days is announced once a day at most while it stays so. The bundled demo
sites are simulations (Shares fails one minute in five by design): their status never pages anyone.

A monitor round reads the alert state of all its sites at once (`load_site_states`: one query for the states, one
for the settings, one for the TLS rule) and hands it to observe_site/observe_tls, which then query nothing for a
site whose state does not move; a site with no stored state that stays SECURE (or whose certificate is not
expiring) gets no row at all. Only a state that changes is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import mark_changed
from secdash.jobs import runner
from secdash.models import Site, as_utc, utcnow
from secdash.models.alerting import (
    AlertingSettings,
    AlertKind,
    AlertState,
    DeliveryOutcome,
    NotificationChannel,
    NotificationDelivery,
    NotificationRule,
)
from secdash.services.alerting import deliver_job, rules  # noqa: F401  (deliver_job registers the "notify" kind)
from secdash.services.alerting.records import DELIVERY_KIND, TOPIC

SEVERITY_ORDER = {"low": 0, "medium": 1, "high": 2, "critical": 3}
TLS_REPEAT = timedelta(days=1)
MAX_BODY_CHARS = 4000
SUBJECTS_PER_QUERY = 500  # bound parameters of one IN list (SQLite and PostgreSQL both take far more)


@dataclass
class SiteStates:
    """The alert state of a batch of sites, read at once: rows by subject (a subject missing has no row yet), the
    alerting settings and the TLS rule. The states are rows of the caller's session, written at its commit."""

    rows: dict[str, AlertState] = field(default_factory=dict)
    settings: AlertingSettings | None = None
    tls_rule: NotificationRule | None = None


async def load_site_states(session: AsyncSession, site_ids: list[int]) -> SiteStates:
    """observe_site's and observe_tls's reads for these sites, in a few queries whatever their number."""
    subjects = [f"{kind}:{site_id}" for site_id in site_ids for kind in ("site", "tls")]
    rows: dict[str, AlertState] = {}
    for start in range(0, len(subjects), SUBJECTS_PER_QUERY):
        chunk = subjects[start : start + SUBJECTS_PER_QUERY]
        for row in await session.exec(select(AlertState).where(col(AlertState.subject).in_(chunk))):
            rows[row.subject] = row
    return SiteStates(rows, await rules.settings_row(session), await rules.rule_of(session, AlertKind.tls_expiring))


async def _channels(session: AsyncSession, wanted: list[int]) -> list[NotificationChannel]:
    query = select(NotificationChannel).where(NotificationChannel.enabled == True)  # noqa: E712
    if wanted:
        query = query.where(col(NotificationChannel.id).in_(wanted))
    return list(await session.exec(query.order_by(col(NotificationChannel.id))))


async def queue(
    session: AsyncSession,
    channel: NotificationChannel,
    kind: AlertKind,
    *,
    subject: str,
    title: str,
    body: str,
    suppressed: str | None = None,
) -> NotificationDelivery:
    """One delivery to one channel, with its job (dispatched after the caller's commit) unless suppressed."""
    delivery = NotificationDelivery(
        channel_id=channel.id,
        channel_name=channel.name,
        kind=kind,
        subject=subject[:200],
        title=title[:250],
        body=body[:MAX_BODY_CHARS],
    )
    if suppressed:
        delivery.outcome, delivery.error, delivery.finished_at = DeliveryOutcome.suppressed, suppressed, utcnow()
    session.add(delivery)
    await session.flush()
    if not suppressed:
        job = await runner.enqueue(
            session, kind=DELIVERY_KIND, params={"deliveryId": delivery.id}, progress={"channel": channel.name}
        )
        assert job.id is not None
        delivery.job_id = job.id
        session.add(delivery)
    mark_changed(session, TOPIC)
    return delivery


async def announce(session: AsyncSession, kind: AlertKind, *, subject: str, title: str, body: str) -> int:
    """Deliveries of one alert to the channels its rule names; how many were queued (caller commits)."""
    rule = await rules.rule_of(session, kind)
    if rule is None or not rule.enabled:
        return 0
    channels = await _channels(session, list(rule.channel_ids or []))
    if not channels:
        return 0
    quiet = rules.in_quiet_hours(await rules.settings_row(session), utcnow().time())
    for channel in channels:
        await queue(session, channel, kind, subject=subject, title=title, body=body, suppressed="quiet hours" if quiet else None)
    return 0 if quiet else len(channels)


async def _state(session: AsyncSession, subject: str) -> AlertState:
    row = (await session.exec(select(AlertState).where(AlertState.subject == subject))).first()
    if row is not None:
        return row
    row = AlertState(subject=subject)
    try:
        async with session.begin_nested():
            session.add(row)
    except IntegrityError:  # another writer (a fix's probe) made it first
        row = (await session.exec(select(AlertState).where(AlertState.subject == subject))).one()
    return row


def _ago(since: datetime, now: datetime) -> str:
    seconds = int((now - as_utc(since)).total_seconds())
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


async def observe_site(
    session: AsyncSession, site: Site, status: str, reason: str, now: datetime, known: SiteStates | None = None
) -> None:
    """One probe's status of a site through the outage state machine (see the module docstring). `known`: the
    round's states (load_site_states); without it the site's state is read here."""
    if site.is_demo:
        return  # the bundled demo sites are simulations (Shares fails one minute in five by design): no pages
    subject = f"site:{site.id}"
    if known is None:
        state = await _state(session, subject)
    else:
        found = known.rows.get(subject)
        if found is None and status == "secure":
            return  # no state yet means "ok": a SECURE probe leaves it so, with nothing to store
        state = found or await _state(session, subject)
        known.rows[subject] = state
    settings = known.settings if known is not None and known.settings is not None else await rules.settings_row(session)
    where = f"{site.name} ({site.url})"
    before = (state.state, state.notified, state.since, state.last_sent_at)

    async def send(kind: AlertKind, title: str, body: str) -> bool:
        """Whether the alert went to at least one channel."""
        return await announce(session, kind, subject=state.subject, title=title, body=body) > 0

    if status == "critical":
        if state.state != "down":
            state.state, state.since = "down", now
            if state.notified != "down" and await send(  # a relapse while recovering is the same outage
                AlertKind.site_down, f"{site.name} is DOWN (ALERT)", f"{where} is down: {reason}."
            ):
                state.notified, state.last_sent_at = "down", now
        elif (
            state.notified == "down"
            and settings.reminder_minutes > 0
            and state.last_sent_at is not None
            and now - as_utc(state.last_sent_at) >= timedelta(minutes=settings.reminder_minutes)
        ):
            await send(
                AlertKind.site_down,
                f"{site.name} is still DOWN (ALERT)",
                f"{where} has been down for {_ago(state.since, now)}: {reason}.",
            )
            state.last_sent_at = now
    elif status == "warning":
        if state.state in ("ok", "recovering", "down"):
            if (
                state.state == "ok"
                and not state.notified
                and await send(
                    AlertKind.site_checking, f"{site.name} is degraded (CHECKING)", f"{where} answers, but not well: {reason}."
                )
            ):
                state.notified, state.last_sent_at = "degraded", now
            state.state, state.since = "degraded", now
    else:  # secure
        if state.state in ("down", "degraded"):
            if state.notified:
                state.state, state.since = "recovering", now
            else:
                state.state, state.since = "ok", now
        if state.state == "recovering" and now - as_utc(state.since) >= timedelta(seconds=settings.recovery_seconds):
            await send(
                AlertKind.site_recovered,
                f"{site.name} has RECOVERED (SECURE)",
                f"{where} is SECURE again and has stayed so for {_ago(state.since, now)}.",
            )
            state.state, state.notified, state.since, state.last_sent_at = "ok", "", now, now
    if (state.state, state.notified, state.since, state.last_sent_at) != before:
        session.add(state)


async def observe_tls(
    session: AsyncSession, site: Site, days_left: float | None, now: datetime, known: SiteStates | None = None
) -> None:
    if site.is_demo:
        return
    rule = known.tls_rule if known is not None else await rules.rule_of(session, AlertKind.tls_expiring)
    if rule is None or not rule.enabled:
        return
    limit = int((rule.params or {}).get("days", 14))
    expiring = days_left is not None and days_left < limit
    subject = f"tls:{site.id}"
    if known is not None:
        existing = known.rows.get(subject)
    else:
        existing = (await session.exec(select(AlertState).where(AlertState.subject == subject))).first()
    if not expiring:
        if existing is not None and existing.state != "ok":
            existing.state, existing.since = "ok", now
            session.add(existing)
        return
    state = existing or await _state(session, subject)
    if known is not None:
        known.rows[subject] = state
    if state.state == "expiring" and state.last_sent_at is not None and now - as_utc(state.last_sent_at) < TLS_REPEAT:
        return
    await announce(
        session,
        AlertKind.tls_expiring,
        subject=subject,
        title=f"{site.name}: TLS certificate expires in {days_left} days",
        body=f"The certificate of {site.url} expires in {days_left} days (the rule warns under {limit}).",
    )
    state.state, state.last_sent_at = "expiring", now
    session.add(state)


async def new_finding(session: AsyncSession, *, severity: str, rule_name: str, where: str, message: str) -> None:
    """A finding recorded for the first time (the scanner's or a site's)."""
    rule = await rules.rule_of(session, AlertKind.finding)
    if rule is None or not rule.enabled:
        return
    floor = str((rule.params or {}).get("severity", "high"))
    if SEVERITY_ORDER.get(severity, 0) < SEVERITY_ORDER.get(floor, 2):
        return
    await announce(
        session,
        AlertKind.finding,
        subject=f"finding:{rule_name}:{where}"[:200],
        title=f"New {severity} finding: {rule_name}",
        body=f"{message} ({where}).",
    )


async def drill_result(session: AsyncSession, *, site: str, attack: str, effectiveness: int, operation_id: int) -> None:
    rule = await rules.rule_of(session, AlertKind.drill_weak)
    if rule is None or not rule.enabled:
        return
    threshold = int((rule.params or {}).get("threshold", 70))
    if effectiveness >= threshold:
        return
    await announce(
        session,
        AlertKind.drill_weak,
        subject=f"drill:{operation_id}",
        title=f"Weak defense: {attack} drill on {site} at {effectiveness}%",
        body=f"Drill #{operation_id} ({attack} on {site}) ended at {effectiveness}% effectiveness, under "
        f"the rule's {threshold}%. Open the Battle Station to strengthen the defense.",
    )


async def attack_detected(session: AsyncSession, *, severity: str, subject: str, title: str, body: str) -> None:
    """A new attack problem on a site (services/traffic/attacks.py), at or above the rule's severity."""
    rule = await rules.rule_of(session, AlertKind.attack_detected)
    if rule is None or not rule.enabled:
        return
    floor = str((rule.params or {}).get("severity", "high"))
    if SEVERITY_ORDER.get(severity, 0) < SEVERITY_ORDER.get(floor, 2):
        return
    await announce(session, AlertKind.attack_detected, subject=subject[:200], title=title, body=body)


async def account_locked(session: AsyncSession, description: str) -> None:
    await announce(session, AlertKind.account_locked, subject="sign-in", title="Sign-in lockout", body=description)
