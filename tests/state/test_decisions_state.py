"""User Scan's decisions: an administrator sees the decisions in force, adds one (a bad address is a toast, nothing
stored) and lifts one; a limited user is shown none and every change is refused by the server."""

from __future__ import annotations

import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401
from secdash.models import TrafficDecision
from secdash.state.dashboard import DashboardState, UserScanTab
from tests.factories import make_user, sign_in


def _substate(root, cls):
    return root.get_substate(cls.get_full_name().split("."))


async def _users_tab(session, email: str, role: str):
    await make_user(session, email, role=role)
    root = rx.State(_reflex_internal_init=True)
    parent = _substate(root, DashboardState)
    parent.auth_token = await sign_in(session, email)
    await DashboardState.event_handlers["set_tab"].fn(parent, "users")
    return _substate(root, UserScanTab)


async def _call(state, name: str, *args):
    return await UserScanTab.event_handlers[name].fn(state, *args)


async def _rows(session) -> list[tuple[str, str, bool]]:
    session.expire_all()
    rows = await session.exec(select(TrafficDecision).order_by(TrafficDecision.id))
    return [(row.value, row.type.value, row.deleted_at is None) for row in rows]


async def test_an_admin_adds_and_lifts_a_decision_and_bad_input_changes_nothing(session):
    tab = await _users_tab(session, "root@example.com", "admin")
    assert tab.shows_decisions and tab.decisions == []

    await _call(tab, "set_decision_value", "203.0.113.300")
    refused = await _call(tab, "add_decision")
    assert "an IP address or a network in CIDR" in str(refused) and await _rows(session) == []
    assert tab.decision_value == "203.0.113.300"  # kept, to correct

    await _call(tab, "set_decision_value", " 203.0.113.0/24 ")
    await _call(tab, "set_decision_type", "throttle")
    await _call(tab, "set_decision_type", "<script>")  # not a choice: ignored
    await _call(tab, "set_decision_duration", "86400")
    await _call(tab, "set_decision_reason", "credential stuffing seen by the SOC")
    added = await _call(tab, "add_decision")
    assert "Decision added" in str(added) and "24 hours" in str(added)
    assert await _rows(session) == [("203.0.113.0/24", "throttle", True)]
    [shown] = tab.decisions
    assert (shown.value, shown.type, shown.origin) == ("203.0.113.0/24", "throttle", "operator")
    assert shown.why == "credential stuffing seen by the SOC" and shown.ends.startswith("ends in 23 h")
    assert tab.decision_value == "" and tab.decision_reason == ""

    lifted = await _call(tab, "lift_decision", shown.id)
    assert "Decision lifted" in str(lifted) and tab.decisions == []
    assert await _rows(session) == [("203.0.113.0/24", "throttle", False)]
    assert "Decision not found" in str(await _call(tab, "lift_decision", 999))


async def test_a_limited_user_is_shown_no_decision_and_cannot_change_any(session):
    admin_tab = await _users_tab(session, "root@example.com", "admin")
    await _call(admin_tab, "set_decision_value", "198.51.100.4")
    await _call(admin_tab, "add_decision")
    [decision] = admin_tab.decisions

    tab = await _users_tab(session, "viewer@example.com", "limited")
    assert not tab.shows_decisions and tab.decisions == []
    await _call(tab, "set_decision_value", "198.51.100.5")
    assert "administrators" in str(await _call(tab, "add_decision")).lower()
    assert "administrators" in str(await _call(tab, "lift_decision", decision.id)).lower()
    assert await _rows(session) == [("198.51.100.4", "ban", True)]


async def test_a_signed_out_tab_changes_nothing(session):
    root = rx.State(_reflex_internal_init=True)
    tab = _substate(root, UserScanTab)
    tab.decision_value = "198.51.100.6"
    await _call(tab, "add_decision")
    assert await _rows(session) == []
