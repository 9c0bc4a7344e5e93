"""Alerting end to end in the service layer: channels (apprise URLs, encrypted, masked), the site outage state
machine driven by probe results with injected times (down, reminders, flapping, recovery), deliveries as jobs
to a local webhook and a local SMTP server, retries, quiet hours, roles and secrets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import col, select

from secdash.core.unit import commit
from secdash.jobs import runner
from secdash.models import HistoryLog, Site
from secdash.models.alerting import NotificationChannel, NotificationDelivery
from secdash.services.alerting import channels, deliver_job, rules, signals
from secdash.services.errors import Invalid, PermissionDenied
from secdash.services.monitoring import monitor
from secdash.services.probe import ProbeResult
from tests.factories import make_user
from tests.support.notify_receivers import SmtpReceiver, WebhookReceiver

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
URL = "http://shares.example/"


@pytest.fixture
def webhook():
    receiver = WebhookReceiver()
    yield receiver
    receiver.close()


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch):
    monkeypatch.setattr(deliver_job, "BACKOFF_SECONDS", 0.01)


def _result(at: datetime, kind: str) -> ProbeResult:
    code = {"secure": 200, "warning": 200, "critical": 500}[kind]
    ms = 3500.0 if kind == "warning" else 12.0
    return ProbeResult(url=URL, checked_at=at, status_code=code, response_ms=ms, grade="A", score=95)


async def _site(session, *, demo: bool = False) -> Site:
    site = Site(name="Shares", url=URL, domain="shares.example", is_demo=demo, allow_private=True)
    session.add(site)
    await session.commit()
    return site


async def _drive(session, site: Site, sequence: list[tuple[timedelta, str]]) -> None:
    for offset, kind in sequence:
        await session.refresh(site)
        await monitor.apply_probe(session, site, _result(T0 + offset, kind))
        await commit(session)


async def _deliveries(session) -> list[NotificationDelivery]:
    session.expire_all()
    rows = list(await session.exec(select(NotificationDelivery).order_by(col(NotificationDelivery.id))))
    for row in rows:
        if row.job_id:
            await runner.wait_for(row.job_id, timeout=30)
    session.expire_all()
    return list(await session.exec(select(NotificationDelivery).order_by(col(NotificationDelivery.id))))


async def _admin_with_channel(session, url: str, name: str = "Ops webhook"):
    admin = await make_user(session, "root@example.com", role="admin")
    channel = await channels.create_channel(session=session, actor=admin, name=name, url=url, allow_private=True)
    return admin, channel


async def test_a_site_going_down_and_coming_back_sends_exactly_two_messages(session, webhook):
    await _admin_with_channel(session, webhook.url())
    site = await _site(session)
    await _drive(
        session,
        site,
        [
            (timedelta(0), "secure"),
            (timedelta(minutes=1), "critical"),
            (timedelta(minutes=2), "critical"),
            (timedelta(minutes=3), "secure"),
            (timedelta(minutes=6), "secure"),
            (timedelta(minutes=9), "secure"),
        ],
    )
    rows = await _deliveries(session)
    assert [(row.kind, row.outcome) for row in rows] == [("site_down", "sent"), ("site_recovered", "sent")]
    titles = webhook.titles()
    assert titles == ["Shares is DOWN (ALERT)", "Shares has RECOVERED (SECURE)"]
    assert "HTTP 500" in webhook.received[0][1]["message"]
    # marked for services that colour or rank messages: a down is a failure, a recovery a success
    assert [body["type"] for _path, body in webhook.received] == ["failure", "success"]


async def test_the_bundled_demo_sites_never_page_anyone(session, webhook):
    """Shares fails one minute in five by design: about 24 messages an hour per channel on a fresh install."""
    await _admin_with_channel(session, webhook.url())
    site = await _site(session, demo=True)
    await _drive(
        session,
        site,
        [
            (timedelta(0), "secure"),
            (timedelta(minutes=1), "critical"),
            (timedelta(minutes=6), "secure"),
            (timedelta(minutes=9), "secure"),
        ],
    )
    assert await _deliveries(session) == []


async def test_a_flapping_site_sends_one_down_and_one_recovered(session, webhook):
    await _admin_with_channel(session, webhook.url())
    site = await _site(session)
    sequence = [(timedelta(0), "secure")]
    for cycle in range(6):  # down 30 s, up 30 s, six times: shorter than the 2-minute recovery period
        start = timedelta(minutes=cycle)
        sequence += [(start + timedelta(seconds=5), "critical"), (start + timedelta(seconds=35), "secure")]
    sequence += [(timedelta(minutes=6, seconds=35 + 125), "secure")]  # then it stays up
    await _drive(session, site, sequence)
    rows = await _deliveries(session)
    assert [row.kind for row in rows] == ["site_down", "site_recovered"]


async def test_a_long_outage_sends_at_most_one_reminder_per_interval(session, webhook):
    admin, _ = await _admin_with_channel(session, webhook.url())
    await rules.write(session=session, actor=admin, rules=None, settings={"reminderMinutes": 30})
    site = await _site(session)
    await _drive(
        session, site, [(timedelta(0), "secure")] + [(timedelta(minutes=minute), "critical") for minute in range(1, 80, 2)]
    )
    rows = await _deliveries(session)
    assert [row.title for row in rows] == [
        "Shares is DOWN (ALERT)",
        "Shares is still DOWN (ALERT)",
        "Shares is still DOWN (ALERT)",
    ]


async def test_a_failing_channel_is_retried_then_logged_failed_without_blocking_others(session, webhook):
    broken = WebhookReceiver(fail_times=100)
    try:
        admin, _ = await _admin_with_channel(session, broken.url(), name="Broken")
        await channels.create_channel(session=session, actor=admin, name="Good", url=webhook.url(), allow_private=True)
        site = await _site(session)
        await _drive(session, site, [(timedelta(0), "secure"), (timedelta(minutes=1), "critical")])
        rows = {row.channel_name: row for row in await _deliveries(session)}
        assert rows["Good"].outcome == "sent" and rows["Good"].attempts == 1
        assert rows["Broken"].outcome == "failed" and rows["Broken"].attempts == deliver_job.ATTEMPTS
        assert broken.attempts == deliver_job.ATTEMPTS
        assert rows["Broken"].error and "attempts failed" in rows["Broken"].error
        assert " - WARNING - " not in rows["Broken"].error  # apprise's words, not its log line format
    finally:
        broken.close()


async def test_an_email_channel_sends_to_a_local_smtp_server(session):
    smtp = SmtpReceiver()
    try:
        await _admin_with_channel(session, smtp.url(), name="Ops mail")
        site = await _site(session)
        await _drive(session, site, [(timedelta(0), "secure"), (timedelta(minutes=1), "critical")])
        rows = await _deliveries(session)
        assert [(row.kind, row.outcome) for row in rows] == [("site_down", "sent")]
        messages = smtp.wait_for(1)
        assert messages[0]["subject"] == "Shares is DOWN (ALERT)" and messages[0]["to"] == ["ops@example.com"]
    finally:
        smtp.close()


async def test_quiet_hours_log_the_delivery_as_suppressed(session, webhook):
    admin, _ = await _admin_with_channel(session, webhook.url())
    await rules.write(
        session=session, actor=admin, rules=None, settings={"quietEnabled": True, "quietStart": "00:00", "quietEnd": "23:59"}
    )
    site = await _site(session)
    await _drive(session, site, [(timedelta(0), "secure"), (timedelta(minutes=1), "critical")])
    rows = await _deliveries(session)
    assert [(row.outcome, row.error) for row in rows] == [("suppressed", "quiet hours")]
    assert webhook.received == []


async def test_channel_secrets_are_encrypted_masked_and_never_audited(session):
    admin = await make_user(session, "root@example.com", role="admin")
    url = "mailtos://alerts:Sup3rSecretPw@example.com?to=ops@example.com"
    public = await channels.create_channel(session=session, actor=admin, name="Mail", url=url, allow_private=True)
    assert "Sup3rSecretPw" not in public.model_dump_json() and "****" in public.url
    row = await session.get(NotificationChannel, public.id)
    assert "Sup3rSecretPw" not in row.url_encrypted and url not in row.url_encrypted
    trail = " ".join(f"{h.description} {h.details}" for h in (await session.exec(select(HistoryLog))).all())
    assert "Notification channel added" in " ".join(h.action for h in (await session.exec(select(HistoryLog))).all())
    assert "Sup3rSecretPw" not in trail


async def test_bad_urls_private_targets_and_limited_users_are_refused(session):
    admin = await make_user(session, "root@example.com", role="admin")
    limited = await make_user(session, "viewer@example.com")
    with pytest.raises(Invalid, match="apprise cannot read"):
        await channels.create_channel(session=session, actor=admin, name="X", url="nosuch://thing")
    with pytest.raises(Invalid, match="url is required"):
        await channels.create_channel(session=session, actor=admin, name="X", url="  ")
    with pytest.raises(Invalid, match="no valid e-mail recipient"):  # apprise drops it silently; every send fails
        await channels.create_channel(
            session=session,
            actor=admin,
            name="X",
            allow_private=True,
            url="mailto://127.0.0.1:2525?from=alerts@example.com&to=a@b.c",
        )
    with pytest.raises(Invalid, match="127.0.0.1 resolves to 127.0.0.1"):
        await channels.create_channel(session=session, actor=admin, name="X", url="json://127.0.0.1:9/hook")
    for call in (
        channels.list_channels(session=session, viewer=limited),
        channels.create_channel(session=session, actor=limited, name="X", url="json://example.com/x"),
        rules.read(session=session, viewer=limited),
    ):
        with pytest.raises(PermissionDenied):
            await call


async def test_new_high_findings_notify_by_default_and_medium_ones_do_not(session, webhook):
    await _admin_with_channel(session, webhook.url())
    await signals.new_finding(session, severity="high", rule_name="js:eval", where="gem/a.js:3", message="eval")
    await signals.new_finding(session, severity="medium", rule_name="js:x", where="gem/a.js:4", message="x")
    await commit(session)
    rows = await _deliveries(session)
    assert [row.title for row in rows] == ["New high finding: js:eval"]


async def test_send_test_answers_the_real_result_and_records_it_on_the_channel(session, webhook):
    from secdash.services.alerting import deliveries

    admin, channel = await _admin_with_channel(session, webhook.url())
    sent = await deliveries.send_test(session=session, actor=admin, channel_id=channel.id)
    assert (sent.kind, sent.outcome, sent.attempts) == ("test", "sent", 1)
    assert webhook.titles() == ["SecDash test notification"]
    refused = WebhookReceiver(fail_times=100)
    try:
        bad = await channels.create_channel(session=session, actor=admin, name="Down", url=refused.url(), allow_private=True)
        failed = await deliveries.send_test(session=session, actor=admin, channel_id=bad.id)
        assert failed.outcome == "failed" and "attempts failed" in failed.error
    finally:
        refused.close()
    listed = await channels.list_channels(session=session, viewer=admin)
    assert [(c.name, c.last_test_ok) for c in listed] == [("Ops webhook", True), ("Down", False)]
    log = await deliveries.list_deliveries(session=session, viewer=admin)
    assert [d.channel_name for d in log] == ["Down", "Ops webhook"]


async def test_the_delivery_log_keeps_the_newest(session, webhook, monkeypatch):
    from secdash.services.alerting import deliveries

    monkeypatch.setattr(deliver_job, "MAX_DELIVERIES", 3)
    admin, channel = await _admin_with_channel(session, webhook.url())
    for _ in range(5):
        await deliveries.send_test(session=session, actor=admin, channel_id=channel.id)
    log = await deliveries.list_deliveries(session=session, viewer=admin)
    assert len(log) == 3 and log[0].id > log[-1].id


async def test_deleting_a_channel_takes_it_out_of_the_rules_and_never_widens_a_rule_to_every_channel(session, webhook):
    """A rule naming a deleted channel made the rules unsavable as read ("no channel #N"); a rule that named only
    deleted channels sends nowhere, so it is switched off rather than widened to every channel."""
    admin, first = await _admin_with_channel(session, webhook.url("first"))
    second = await channels.create_channel(
        session=session, actor=admin, name="Second", url=webhook.url("second"), allow_private=True
    )
    await rules.write(
        session=session,
        actor=admin,
        settings=None,
        rules=[{"kind": "finding", "channelIds": [first.id]}, {"kind": "site_down", "channelIds": [first.id, second.id]}],
    )
    await channels.delete_channel(session=session, actor=admin, channel_id=first.id)
    read = await rules.read(session=session, viewer=admin)
    by_kind = {rule.kind: rule for rule in read.rules}
    assert by_kind["site_down"].channel_ids == [second.id] and by_kind["site_down"].enabled
    assert by_kind["finding"].channel_ids == [] and by_kind["finding"].enabled is False
    as_read = [{"kind": r.kind.value, "enabled": r.enabled, "channelIds": r.channel_ids, "params": r.params} for r in read.rules]
    await rules.write(session=session, actor=admin, rules=as_read, settings=None)  # saves as read


async def test_a_new_site_finding_notifies_when_the_rule_takes_its_severity(session, webhook):
    """A missing security header is a medium or low site finding: the default rule (high) stays quiet; a rule
    at medium sends it once (the open finding is not announced again by the next probe)."""
    from secdash.services.monitoring import site_findings

    admin, _ = await _admin_with_channel(session, webhook.url())
    site = await _site(session)
    finding = "Content-Security-Policy header missing (-25)"
    await site_findings.reconcile_site_findings(session, site, [finding], T0)
    await commit(session)
    assert await _deliveries(session) == []
    await rules.write(session=session, actor=admin, rules=[{"kind": "finding", "params": {"severity": "medium"}}], settings=None)
    other = Site(name="Blog", url="http://blog.example/", domain="blog.example", allow_private=True)
    session.add(other)
    await session.commit()
    for minute in (1, 2):
        await site_findings.reconcile_site_findings(session, other, [finding], T0 + timedelta(minutes=minute))
        await commit(session)
    rows = await _deliveries(session)
    assert [row.title for row in rows] == ["New medium finding: Content-Security-Policy header missing"]
