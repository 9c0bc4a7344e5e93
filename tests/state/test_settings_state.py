"""Settings state (alerting): an admin adds a channel (its secret never kept in the state, only the masked URL),
sends a test to a local webhook and sees "Sent" and the delivery, edits, toggles and deletes it (only after the
confirmation), saves rules and settings; a refused form keeps what was typed with the server's message as a toast;
a limited user loads nothing and is refused everywhere; a signed-out tab changes nothing."""

from __future__ import annotations

import json

import pytest
import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401  (registers every page and state)
from secdash.models.alerting import AlertKind, NotificationChannel, NotificationRule
from secdash.services.alerting import deliver_job
from secdash.state.settings import SettingsState
from secdash.state.settings_channels import SettingsChannelsState
from secdash.state.settings_deliveries import SettingsDeliveriesState
from secdash.state.settings_rules import SettingsRulesState
from tests.factories import make_user, sign_in
from tests.support.notify_receivers import WebhookReceiver

SECRET = "hunter2-very-secret"


@pytest.fixture
def webhook():
    receiver = WebhookReceiver()
    yield receiver
    receiver.close()


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch):
    monkeypatch.setattr(deliver_job, "BACKOFF_SECONDS", 0.01)


PARTS = (SettingsState, SettingsChannelsState, SettingsRulesState, SettingsDeliveriesState)


class _Page:
    """The /settings page's states of one tab as one object: a handler is called on the state that declares it,
    a var read from (and written to) the state that holds it."""

    def __init__(self, root: rx.State):
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "parts", [root.get_substate(cls.get_full_name().split(".")) for cls in PARTS])

    def _holder(self, name: str):
        for part in reversed(self.parts):  # the substates first: they see the page's vars too
            if name in type(part).vars:
                return part
        raise AttributeError(name)

    def __getattr__(self, name: str):
        return getattr(self._holder(name), name)

    def __setattr__(self, name: str, value) -> None:
        setattr(self._holder(name), name, value)

    def handler(self, name: str):
        for part in self.parts:
            if name in type(part).event_handlers:
                return part, type(part).event_handlers[name]
        raise KeyError(name)

    def dict(self):
        return self.parts[0].dict()


def _state(token: str = "") -> _Page:
    root = rx.State(_reflex_internal_init=True)
    page = _Page(root)
    page.auth_token = token
    return page


async def _call(state: _Page, name: str, **kwargs):
    part, handler = state.handler(name)
    result = handler.fn(part, **kwargs)
    if hasattr(result, "__aiter__"):
        return [item async for item in result]
    return await result


def _secret_url(receiver: WebhookReceiver) -> str:
    return f"json://ops:{SECRET}@127.0.0.1:{receiver.port}/hook"


def _vars(state: _Page) -> str:
    return json.dumps(state.dict(), default=str)


async def _admin_state(session) -> _Page:
    await make_user(session, "root@example.com", role="admin")
    state = _state(await sign_in(session, "root@example.com"))
    assert await _call(state, "load") == SettingsState.follow_changes
    return state


async def _channels(session) -> list[NotificationChannel]:
    return list((await session.exec(select(NotificationChannel).execution_options(populate_existing=True))).all())


async def test_an_admin_adds_a_channel_sends_a_test_and_sees_sent_in_the_channel_and_the_log(session, webhook):
    state = await _admin_state(session)
    assert not state.denied and not state.loading and state.channels == [] and state.deliveries == []
    assert [rule.kind for rule in state.rules][:3] == ["site_down", "site_checking", "site_recovered"]
    defaults = {rule.kind: (rule.enabled, rule.param_value) for rule in state.rules}
    assert defaults["site_down"] == (True, "") and defaults["tls_expiring"] == (True, "14")
    assert defaults["finding"] == (True, "high") and defaults["drill_weak"] == (False, "70")

    await _call(state, "set_add_private", value=True)
    key = state.add_key
    events = await _call(state, "add_channel", form={"name": "Ops webhook", "url": _secret_url(webhook)})
    assert "Channel added" in str(events) and SECRET not in str(events)
    assert state.add_key == key + 1 and state.add_private is False  # the form empties for the next channel
    [row] = state.channels
    assert row.name == "Ops webhook" and row.service == "JSON" and row.allow_private and row.enabled
    assert SECRET not in row.url and "127.0.0.1" in row.url and row.test_result == "Never tested"
    assert SECRET not in _vars(state)

    events = await _call(state, "send_test", channel_id=row.id)
    assert "Test sent" in str(events) and state.testing_id == 0
    assert webhook.wait_for(1) and webhook.titles() == ["SecDash test notification"]
    assert state.channels[0].test_state == "sent" and state.channels[0].test_result == "Sent"
    [delivery] = state.deliveries
    assert (delivery.channel, delivery.kind, delivery.outcome, delivery.attempts) == ("Ops webhook", "Test", "sent", 1)
    assert delivery.title == "SecDash test notification" and delivery.error == ""
    assert SECRET not in _vars(state)


async def test_a_failing_test_shows_failed_with_the_error(session, webhook):
    state = await _admin_state(session)
    webhook.fail_times = 10
    await _call(state, "set_add_private", value=True)
    await _call(state, "add_channel", form={"name": "Broken", "url": webhook.url()})
    events = await _call(state, "send_test", channel_id=state.channels[0].id)
    assert "Test failed" in str(events)
    row = state.channels[0]
    assert row.test_state == "failed" and row.test_result.startswith("Failed: ") and len(row.test_result) > 10
    assert state.deliveries[0].outcome == "failed" and state.deliveries[0].attempts == deliver_job.ATTEMPTS


async def test_a_refused_channel_is_a_toast_with_the_servers_message_and_the_form_is_kept(session, webhook):
    state = await _admin_state(session)
    key = state.add_key
    events = await _call(state, "add_channel", form={"name": "Ops", "url": "nosuchscheme://x"})
    assert "Channel not added" in str(events) and "apprise cannot read this URL" in str(events)
    assert state.add_key == key  # the form is not remounted: what was typed stays
    # A local receiver without "Allow a private or local address": the address rules refuse it.
    events = await _call(state, "add_channel", form={"name": "Ops", "url": webhook.url()})
    assert "Allow a private or local address" in str(events) and state.add_key == key
    assert await _channels(session) == [] and state.channels == []


async def test_edit_toggle_and_delete_only_after_the_confirmation(session, webhook):
    state = await _admin_state(session)
    await _call(state, "set_add_private", value=True)
    await _call(state, "add_channel", form={"name": "Ops", "url": webhook.url("first")})
    channel_id = state.channels[0].id

    await _call(state, "open_edit", channel_id=channel_id)
    assert state.edit_open and state.edit_name == "Ops" and state.edit_private
    assert f"127.0.0.1:{webhook.port}/****" in state.edit_url  # the masked URL, shown beside an empty field
    events = await _call(state, "save_channel", form={"name": "Ops renamed", "url": _secret_url(webhook)})
    assert "Channel saved" in str(events) and not state.edit_open
    assert state.channels[0].name == "Ops renamed" and state.channels[0].url.startswith("json://****:****@")
    assert SECRET not in _vars(state)
    await _call(state, "open_edit", channel_id=channel_id)
    events = await _call(state, "save_channel", form={"name": "", "url": ""})
    assert "Channel not saved" in str(events) and "name is required" in str(events) and state.edit_open
    await _call(state, "set_edit_open", value=False)

    events = await _call(state, "set_channel_enabled", channel_id=channel_id, value=False)
    assert "Channel disabled" in str(events) and state.channels[0].enabled is False
    # Refusing private addresses for a channel that points at one: the server says no, nothing changes.
    events = await _call(state, "set_channel_private", channel_id=channel_id, value=False)
    assert "Channel not changed" in str(events) and state.channels[0].allow_private is True

    assert await _call(state, "delete_channel") is None  # no confirmation asked: nothing happens
    assert len(await _channels(session)) == 1
    await _call(state, "ask_delete", channel_id=channel_id)
    assert state.delete_open and state.delete_name == "Ops renamed"
    await _call(state, "set_delete_open", value=False)  # "Keep channel"
    assert await _call(state, "delete_channel") is None and len(await _channels(session)) == 1
    await _call(state, "ask_delete", channel_id=channel_id)
    await _call(state, "set_rule_scope", kind="finding", value="chosen")
    await _call(state, "set_rule_channel", kind="finding", channel_id=channel_id, value=True)
    assert "Rules saved" in str(await _call(state, "save_rules"))
    events = await _call(state, "delete_channel")
    assert "Channel deleted" in str(events) and state.channels == [] and await _channels(session) == []
    finding = next(rule for rule in state.rules if rule.kind == "finding")
    # The rule named only the deleted channel: it is shown switched off, not widened to every channel.
    assert (finding.enabled, finding.channel_ids, finding.scope) == (False, [], "all")


async def test_rules_and_settings_are_saved_and_a_refusal_keeps_the_draft(session, webhook):
    state = await _admin_state(session)
    await _call(state, "set_add_private", value=True)
    await _call(state, "add_channel", form={"name": "Ops", "url": webhook.url()})
    channel_id = state.channels[0].id

    await _call(state, "set_rule_enabled", kind="site_checking", value=True)
    await _call(state, "set_rule_param", kind="tls_expiring", value="30")
    await _call(state, "set_rule_param", kind="finding", value="medium")
    await _call(state, "set_rule_scope", kind="finding", value="chosen")
    assert state.rules_dirty
    events = await _call(state, "save_rules")  # chosen, but no channel ticked: asked first, nothing sent
    assert "choose at least one channel" in str(events)
    await _call(state, "set_rule_channel", kind="finding", channel_id=channel_id, value=True)
    await _call(state, "set_reminder_minutes", value="15")
    await _call(state, "set_quiet_enabled", value=True)
    await _call(state, "set_quiet_start", value="23:30")
    events = await _call(state, "save_rules")
    assert "Rules saved" in str(events) and not state.rules_dirty

    stored = {
        row.kind: row for row in (await session.exec(select(NotificationRule).execution_options(populate_existing=True))).all()
    }
    assert stored[AlertKind.site_checking].enabled is True
    assert stored[AlertKind.tls_expiring].params == {"days": 30}
    assert stored[AlertKind.finding].params == {"severity": "medium"}
    assert stored[AlertKind.finding].channel_ids == [channel_id] and stored[AlertKind.site_down].channel_ids == []
    assert (state.reminder_minutes, state.quiet_enabled, state.quiet_start) == ("15", True, "23:30")

    await _call(state, "set_reminder_minutes", value="soon")
    await _call(state, "set_quiet_end", value="25:00")
    events = await _call(state, "save_rules")
    assert "Rules not saved" in str(events) and "reminderMinutes must be a whole number" in str(events)
    assert state.reminder_minutes == "soon" and state.quiet_end == "25:00" and state.rules_dirty  # kept as typed
    await _call(state, "discard_rules")
    assert state.reminder_minutes == "15" and state.quiet_end == "07:00" and not state.rules_dirty


async def test_a_limited_user_loads_nothing_and_is_refused_everywhere(session, webhook):
    admin_state = await _admin_state(session)
    await _call(admin_state, "set_add_private", value=True)
    await _call(admin_state, "add_channel", form={"name": "Ops", "url": webhook.url()})
    channel_id = admin_state.channels[0].id

    await make_user(session, "viewer@example.com", role="limited")
    state = _state(await sign_in(session, "viewer@example.com"))
    assert await _call(state, "load") is None
    assert state.denied and state.channels == [] and state.rules == [] and state.deliveries == []
    state.channels = list(admin_state.channels)  # even a tab that somehow lists the channel is refused
    state.rules = list(admin_state.rules)
    state.delete_open, state.delete_id, state.edit_id = True, channel_id, channel_id
    for name, kwargs in (
        ("add_channel", {"form": {"name": "Mine", "url": webhook.url()}}),
        ("save_channel", {"form": {"name": "Mine", "url": ""}}),
        ("set_channel_enabled", {"channel_id": channel_id, "value": False}),
        ("delete_channel", {}),
        ("send_test", {"channel_id": channel_id}),
        ("save_rules", {}),
    ):
        events = await _call(state, name, **kwargs)
        assert "Access denied" in str(events) and "Only administrators" in str(events), name
    assert [(row.name, row.enabled) for row in await _channels(session)] == [("Ops", True)]
    assert webhook.received == []


async def test_a_signed_out_tab_changes_nothing(session, webhook):
    await make_user(session, "root@example.com", role="admin")
    state = _state("")
    for name, kwargs in (
        ("load", {}),
        ("add_channel", {"form": {"name": "Ops", "url": webhook.url()}}),
        ("save_rules", {}),
        ("send_test", {"channel_id": 1}),
    ):
        events = await _call(state, name, **kwargs)
        assert "Unauthorized" in str(events), name
    assert await _channels(session) == [] and state.channels == []
