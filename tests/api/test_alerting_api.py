"""Alerting over HTTP: channels added, listed, changed, tested (a local webhook and a local SMTP server receive the
test) and deleted; rules and settings read and written; the delivery log. Admins only: signed out 401, a limited
user 403 with nothing of the channels in the answer. Bad input is a 400 {"message"} that changes nothing, an
unknown channel 404, never a 500. The secret parts of channel URLs (passwords, tokens, keys) never appear in any
answer, in the History Logs or in what the server logs, and a failing channel's error has them cut."""

from __future__ import annotations

import logging

import pytest
from sqlmodel import select

from secdash.models.alerting import NotificationChannel
from secdash.services.alerting import deliver_job
from tests.api.conftest import signed_in
from tests.support.notify_receivers import SmtpReceiver, WebhookReceiver, free_port

CHANNELS = "/api/notification-channels"
RULES = "/api/notification-rules"
DELIVERIES = "/api/notification-deliveries"
ROUTES = [
    ("GET", CHANNELS, None),
    ("POST", CHANNELS, {"name": "Ops", "url": "json://hooks.example.com/alerts"}),
    ("PUT", f"{CHANNELS}/1", {"name": "Renamed"}),
    ("DELETE", f"{CHANNELS}/1", None),
    ("POST", f"{CHANNELS}/1/test", None),
    ("GET", RULES, None),
    ("PUT", RULES, {"settings": {"reminderMinutes": 30}}),
    ("GET", DELIVERIES, None),
]
SECRETS = ("Sup3rSecret", "T0kenSecret", "Pw0rdSecret", "N3wSecretPw", "HeaderSecret1")


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch):
    monkeypatch.setattr(deliver_job, "BACKOFF_SECONDS", 0.01)


@pytest.fixture
def webhook():
    receiver = WebhookReceiver()
    yield receiver
    receiver.close()


@pytest.fixture
def smtp():
    receiver = SmtpReceiver()
    yield receiver
    receiver.close()


@pytest.fixture
async def admin(client, session):
    return await signed_in(client, session, "root@example.com", "admin")


@pytest.fixture
async def limited(client, session):
    return await signed_in(client, session, "viewer@example.com", "limited")


def assert_refused(response, status: int, *words: str) -> None:
    assert response.status_code == status, (response.status_code, response.text)
    message = response.json()["message"]
    assert message and all(word in message for word in words), message


async def add(client, headers, name: str, url: str, **extra) -> dict:
    response = await client.post(CHANNELS, json={"name": name, "url": url, **extra}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


async def listed(client, headers) -> list[dict]:
    response = await client.get(CHANNELS, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def log_of(client, headers, query: str = "") -> list[dict]:
    response = await client.get(f"{DELIVERIES}{query}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_signed_out_callers_get_401(client, method, path, body):
    assert_refused(await client.request(method, path, json=body), 401)


async def test_a_limited_user_gets_403_on_every_route_and_nothing_of_the_channels(client, session, admin, limited, webhook):
    channel = await add(client, admin, "Night shift pager", webhook.url(), allowPrivate=True)
    own = f"{CHANNELS}/{channel['id']}"  # ids are not 1 on PostgreSQL (sequences outlive a test's rows)
    assert (await client.post(f"{own}/test", headers=admin)).json()["outcome"] == "sent"
    for method, path, body in ROUTES:
        path = path.replace(f"{CHANNELS}/1", own)
        response = await client.request(method, path, json=body, headers=limited)
        assert_refused(response, 403, "Only administrators")
        for trace in ("Night shift", str(webhook.port), "hooks.example.com", "SecDash test"):
            assert trace not in response.text, (method, path, response.text)
    # Nothing changed: the channel keeps its name, nothing new was sent.
    assert [c["name"] for c in await listed(client, admin)] == ["Night shift pager"]
    assert len(webhook.received) == 1 and len(await log_of(client, admin)) == 1


async def test_a_webhook_channel_is_added_changed_tested_logged_and_deleted(client, session, admin, webhook):
    created = await add(client, admin, "  Ops   webhook ", webhook.url(), allowPrivate=True)
    assert {k: created[k] for k in ("name", "service", "enabled", "allowPrivate", "lastTestAt", "lastTestOk")} == {
        "name": "Ops webhook",
        "service": "JSON",
        "enabled": True,
        "allowPrivate": True,
        "lastTestAt": None,
        "lastTestOk": None,
    }
    assert created["url"].startswith(f"json://127.0.0.1:{webhook.port}/****?")  # the host readable, the path not
    assert await listed(client, admin) == [created]

    # A partial change: the name and enabled change, the URL and allowPrivate stay.
    changed = await client.put(f"{CHANNELS}/{created['id']}", json={"name": "Ops", "enabled": False}, headers=admin)
    assert changed.status_code == 200, changed.text
    assert {k: changed.json()[k] for k in ("name", "enabled", "allowPrivate", "url")} == {
        "name": "Ops",
        "enabled": False,
        "allowPrivate": True,
        "url": created["url"],
    }

    # A test goes even to a disabled channel, answers the real result and is recorded on the channel.
    tested = await client.post(f"{CHANNELS}/{created['id']}/test", headers=admin)
    assert tested.status_code == 200, tested.text
    delivery = tested.json()
    assert {k: delivery[k] for k in ("channelId", "channelName", "kind", "outcome", "attempts", "error")} == {
        "channelId": created["id"],
        "channelName": "Ops",
        "kind": "test",
        "outcome": "sent",
        "attempts": 1,
        "error": None,
    }
    assert webhook.titles() == ["SecDash test notification"]
    assert "sent by root@example.com to the channel 'Ops'" in webhook.received[0][1]["message"]
    [channel] = await listed(client, admin)
    assert channel["lastTestOk"] is True and channel["lastTestAt"]

    other = await add(client, admin, "Second", webhook.url("other"), allowPrivate=True)
    await client.post(f"{CHANNELS}/{other['id']}/test", headers=admin)
    log = await log_of(client, admin)
    assert [(d["channelName"], d["outcome"]) for d in log] == [("Second", "sent"), ("Ops", "sent")]  # newest first
    assert [d["id"] for d in await log_of(client, admin, f"?channelId={created['id']}")] == [delivery["id"]]
    assert len(await log_of(client, admin, "?limit=1")) == 1

    deleted = await client.delete(f"{CHANNELS}/{created['id']}", headers=admin)
    assert deleted.status_code == 204 and deleted.content == b""
    assert [c["name"] for c in await listed(client, admin)] == ["Second"]
    assert_refused(await client.delete(f"{CHANNELS}/{created['id']}", headers=admin), 404, f"#{created['id']}")
    assert_refused(await client.get(f"{DELIVERIES}?channelId={created['id']}", headers=admin), 404)


async def test_an_email_channel_test_reaches_the_smtp_server(client, session, admin, smtp):
    created = await add(client, admin, "Ops mail", smtp.url("oncall@example.com"), allowPrivate=True)
    assert created["service"] == "E-Mail"
    tested = await client.post(f"{CHANNELS}/{created['id']}/test", headers=admin)
    assert tested.status_code == 200 and tested.json()["outcome"] == "sent", tested.text
    [message] = smtp.wait_for(1)
    assert message["subject"] == "SecDash test notification" and message["to"] == ["oncall@example.com"]
    assert "channel 'Ops mail'" in message["body"]


async def test_rules_have_the_issue_defaults_and_change_only_what_is_sent(client, session, admin, webhook):
    response = await client.get(RULES, headers=admin)
    assert response.status_code == 200, response.text
    before = response.json()
    rules = {r["kind"]: r for r in before["rules"]}
    assert {kind: (r["enabled"], r["params"]) for kind, r in rules.items()} == {
        "site_down": (True, {}),
        "site_checking": (False, {}),
        "site_recovered": (True, {}),
        "tls_expiring": (True, {"days": 14}),
        "finding": (True, {"severity": "high"}),
        "drill_weak": (False, {"threshold": 70}),
        "account_locked": (False, {}),
        "attack_detected": (True, {"severity": "high"}),
    }
    assert all(r["channelIds"] == [] and r["label"] for r in rules.values())

    channel = await add(client, admin, "Ops", webhook.url(), allowPrivate=True)
    body = {
        "rules": [
            {"kind": "finding", "params": {"severity": "medium"}, "channelIds": [channel["id"]]},
            {"kind": "drill_weak", "enabled": True},
        ],
        "settings": {"reminderMinutes": 45, "quietEnabled": True, "quietStart": "23:30", "quietEnd": "06:00"},
    }
    written = await client.put(RULES, json=body, headers=admin)
    assert written.status_code == 200, written.text
    after = written.json()
    assert after == (await client.get(RULES, headers=admin)).json()
    rules = {r["kind"]: r for r in after["rules"]}
    assert (rules["finding"]["params"], rules["finding"]["channelIds"], rules["finding"]["enabled"]) == (
        {"severity": "medium"},
        [channel["id"]],
        True,
    )
    assert (rules["drill_weak"]["enabled"], rules["drill_weak"]["params"]) == (True, {"threshold": 70})
    assert [r for r in after["rules"] if r["kind"] not in ("finding", "drill_weak")] == [
        r for r in before["rules"] if r["kind"] not in ("finding", "drill_weak")
    ]
    assert after["settings"] == {
        **before["settings"],
        "reminderMinutes": 45,
        "quietEnabled": True,
        "quietStart": "23:30",
        "quietEnd": "06:00",
    }
    history = (await client.get("/api/history-logs?category=system", headers=admin)).json()
    assert "Notification rules changed" in [h["action"] for h in history]


BAD_CHANNELS = [
    ({"name": "X", "url": "nosuch://thing"}, "apprise cannot read"),
    ({"name": "X", "url": "not a url"}, "apprise cannot read"),
    ({"name": "X", "url": "   "}, "url is required"),
    ({"name": "X"}, "url is required"),
    ({"name": "X", "url": "json://hooks.example.com/" + "a" * 2000}, "url is too long"),
    ({"name": "X", "url": "json://hooks.example.com/a\nb"}, "control characters"),
    # NUL is refused for every route by the API's request guard, before the channel rules.
    ({"name": "X", "url": "json://hooks.example.com/a\x00b"}, "NUL character"),
    ({"name": "X", "url": "json://127.0.0.1:9/x"}, "127.0.0.1 resolves to 127.0.0.1"),
    ({"name": "X", "url": "json://127.0.0.1:9/x", "allowPrivate": False}, "Allow a private"),
    ({"name": "X", "url": "mailto://10.0.0.5?from=alerts@example.com&to=a@example.com"}, "10.0.0.5"),
    ({"name": "", "url": "json://127.0.0.1:9/x", "allowPrivate": True}, "name is required"),
    ({"name": "n" * 101, "url": "json://127.0.0.1:9/x", "allowPrivate": True}, "name is too long"),
    ({"name": "X", "url": 5}, "url"),
    ({"name": "X", "url": "json://127.0.0.1:9/x", "allowPrivate": "yes"}, "allowPrivate"),
    ({"name": "X", "url": "json://127.0.0.1:9/x", "allowPrivate": True, "enabled": 1}, "enabled"),
    (["name", "url"], "request body"),
]


@pytest.mark.parametrize(("body", "words"), BAD_CHANNELS)
async def test_bad_channels_are_refused_with_a_clear_400(client, session, admin, body, words):
    assert_refused(await client.post(CHANNELS, json=body, headers=admin), 400, words)
    assert await listed(client, admin) == []
    assert (await session.exec(select(NotificationChannel))).all() == []


BAD_CHANGES = [
    ({}, "Nothing to change"),
    ({"url": "nosuch://thing"}, "apprise cannot read"),
    ({"url": "json://127.0.0.1:9/x"}, "Allow a private"),  # the channel refuses private addresses
    ({"name": "  "}, "name is required"),
    ({"enabled": "false"}, "enabled"),
    ({"name": None}, "name"),
    ({"url": "json://hooks.example.com/\x07"}, "control characters"),
]


@pytest.mark.parametrize(("body", "words"), BAD_CHANGES)
async def test_bad_channel_changes_are_refused_and_change_nothing(client, session, admin, body, words):
    # A public host by name: its address is not checked again when only the name or flags change.
    row = NotificationChannel(
        name="Ops", service="Slack", url_encrypted="", url_masked="slack://T...2/", enabled=True, allow_private=False
    )
    from secdash.services.alerting import secret_box

    row.url_encrypted = secret_box.seal("slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ")
    session.add(row)
    await session.commit()
    before = await listed(client, admin)
    assert_refused(await client.put(f"{CHANNELS}/{row.id}", json=body, headers=admin), 400, words)
    assert await listed(client, admin) == before


BAD_RULES = [
    ({"rules": [{"kind": "sunspots"}]}, "kind"),
    ({"rules": [{"kind": "test"}]}, "kind"),
    ({"rules": [{"enabled": True}]}, "kind"),
    ({"rules": {"kind": "finding"}}, "rules"),
    ({"rules": [{"kind": "finding", "params": {"severity": "extreme"}}]}, "severity must be one of low, medium, high"),
    ({"rules": [{"kind": "tls_expiring", "params": {"days": 0}}]}, "days must be a whole number from 1 to 365"),
    ({"rules": [{"kind": "tls_expiring", "params": {"days": "14"}}]}, "days"),
    ({"rules": [{"kind": "drill_weak", "params": {"threshold": 101}}]}, "threshold"),
    ({"rules": [{"kind": "drill_weak", "params": {"threshold": True}}]}, "threshold"),
    ({"rules": [{"kind": "finding", "params": "high"}]}, "params"),
    ({"rules": [{"kind": "finding", "enabled": "yes"}]}, "enabled"),
    ({"rules": [{"kind": "finding", "channelIds": [999]}]}, "no channel #999"),
    ({"rules": [{"kind": "finding", "channelIds": ["1"]}]}, "channelIds"),
    ({"rules": [{"kind": "finding", "channelIds": 1}]}, "channelIds"),
    ({"settings": {"quietStart": "25:00"}}, "quietStart must be a time HH:MM"),
    ({"settings": {"quietEnd": "7:00"}}, "quietEnd must be a time HH:MM"),
    ({"settings": {"quietStart": 2200}}, "quietStart"),
    ({"settings": {"reminderMinutes": -1}}, "reminderMinutes must be a whole number from 0 to 10080"),
    ({"settings": {"reminderMinutes": 10081}}, "reminderMinutes"),
    ({"settings": {"reminderMinutes": 1.5}}, "reminderMinutes"),
    ({"settings": {"recoverySeconds": 86401}}, "recoverySeconds must be a whole number from 0 to 86400"),
    ({"settings": {"recoverySeconds": True}}, "recoverySeconds"),
    ({"settings": {"quietEnabled": "on"}}, "quietEnabled"),
    ({"settings": [1]}, "settings"),
    # A good change next to a bad one: neither is made.
    ({"rules": [{"kind": "site_checking", "enabled": True}], "settings": {"reminderMinutes": -1}}, "reminderMinutes"),
]


@pytest.mark.parametrize(("body", "words"), BAD_RULES)
async def test_bad_rules_and_settings_are_refused_and_change_nothing(client, session, admin, body, words):
    before = (await client.get(RULES, headers=admin)).json()
    assert_refused(await client.put(RULES, json=body, headers=admin), 400, words)
    assert (await client.get(RULES, headers=admin)).json() == before


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("PUT", f"{CHANNELS}/0"),
        ("PUT", f"{CHANNELS}/abc"),
        ("DELETE", f"{CHANNELS}/-1"),
        ("DELETE", f"{CHANNELS}/99999999999999999999"),
        ("POST", f"{CHANNELS}/1.5/test"),
        ("POST", f"{CHANNELS}/%00/test"),
        ("GET", f"{DELIVERIES}?channelId=abc"),
        ("GET", f"{DELIVERIES}?channelId=0"),
        ("GET", f"{DELIVERIES}?limit=0"),
        ("GET", f"{DELIVERIES}?limit=501"),
        ("GET", f"{DELIVERIES}?limit=ten"),
        ("GET", f"{DELIVERIES}?limit=1234567"),
    ],
)
async def test_bad_ids_and_filters_are_400(client, session, admin, method, path):
    response = await client.request(method, path, json={"name": "X"} if method == "PUT" else None, headers=admin)
    assert_refused(response, 400)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("PUT", f"{CHANNELS}/4242", {"name": "X"}),
        ("DELETE", f"{CHANNELS}/4242", None),
        ("POST", f"{CHANNELS}/4242/test", None),
        ("GET", f"{DELIVERIES}?channelId=4242", None),
    ],
)
async def test_an_unknown_channel_is_404(client, session, admin, method, path, body):
    assert_refused(await client.request(method, path, json=body, headers=admin), 404, "Channel #4242 not found")


async def test_channel_secrets_never_appear_in_answers_history_or_logs(client, session, admin, webhook, caplog):
    caplog.set_level(logging.DEBUG)
    answers: list[str] = []

    async def call(method: str, path: str, body=None, status: int = 200):
        response = await client.request(method, path, json=body, headers=admin)
        assert response.status_code == status, response.text
        answers.append(response.text)
        return response.json() if response.content else None

    closed_port = free_port()  # nothing listens: every attempt fails at once
    mail = await call(
        "POST",
        CHANNELS,
        {"name": "Mail", "url": "mailtos://alerts:Sup3rSecret@example.com?to=ops@example.com", "allowPrivate": True},
        201,
    )
    hook = await call("POST", CHANNELS, {"name": "Hook", "url": webhook.url() + "?token=T0kenSecret", "allowPrivate": True}, 201)
    header = await call(
        "POST", CHANNELS, {"name": "Header", "url": webhook.url("h") + "?+X-Api-Key=HeaderSecret1", "allowPrivate": True}, 201
    )
    broken = await call(
        "POST",
        CHANNELS,
        {"name": "Broken", "url": f"json://ops:Pw0rdSecret@127.0.0.1:{closed_port}/hook?token=T0kenSecret", "allowPrivate": True},
        201,
    )
    # the host stays readable, the user name and the password do not (issue 21, item 8)
    assert mail["url"].startswith("mailtos://****:****@example.com/") and "alerts" not in mail["url"]
    await call("PUT", f"{CHANNELS}/{mail['id']}", {"url": "mailtos://alerts:N3wSecretPw@example.com?to=ops@example.com"})
    await call("PUT", f"{CHANNELS}/{mail['id']}", {"name": "Mail (new password)", "enabled": False})

    sent = await call("POST", f"{CHANNELS}/{hook['id']}/test")
    assert sent["outcome"] == "sent"
    assert (await call("POST", f"{CHANNELS}/{header['id']}/test"))["outcome"] == "sent"
    failed = await call("POST", f"{CHANNELS}/{broken['id']}/test")
    assert failed["outcome"] == "failed" and failed["attempts"] == deliver_job.ATTEMPTS
    assert "attempts failed" in failed["error"] and "127.0.0.1" in failed["error"]

    await call("GET", CHANNELS)
    await call("GET", DELIVERIES)
    await call("GET", f"{DELIVERIES}?channelId={broken['id']}")
    await call("GET", RULES)
    history = await call("GET", "/api/history-logs?category=system")
    assert {"Notification channel added", "Notification channel changed", "Notification test sent"} <= {
        h["action"] for h in history
    }
    await call("DELETE", f"{CHANNELS}/{broken['id']}", status=204)
    await call("GET", "/api/history-logs")

    logged = "\n".join(f"{record.name} {record.getMessage()} {record.exc_text or ''}" for record in caplog.records)
    assert "apprise" in logged  # the sends were logged (at debug level): what is checked is there
    for secret in SECRETS:
        for answer in answers:
            assert secret not in answer, (secret, answer)
        assert secret not in logged, (secret, [line for line in logged.splitlines() if secret in line])
    # The secrets are stored, only encrypted.
    row = await session.get(NotificationChannel, mail["id"])
    assert row is not None and "N3wSecretPw" not in row.url_encrypted and "Sup3rSecret" not in row.url_encrypted


async def test_a_failing_mail_channel_error_has_its_password_cut(client, session, admin, smtp):
    # The local SMTP server offers no AUTH: a login with the password fails, and apprise says why.
    channel = await add(
        client,
        admin,
        "Mail",
        f"mailto://ops:Pw0rdSecret@127.0.0.1:{smtp.port}?to=a@example.com&from=alerts@example.com",
        allowPrivate=True,
    )
    failed = await client.post(f"{CHANNELS}/{channel['id']}/test", headers=admin)
    assert failed.status_code == 200, failed.text
    delivery = failed.json()
    assert delivery["outcome"] == "failed" and delivery["error"], delivery
    assert "Pw0rdSecret" not in failed.text
    assert "Pw0rdSecret" not in (await client.get(DELIVERIES, headers=admin)).text
