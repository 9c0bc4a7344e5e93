"""Websocket events whose payload does not fit the named SecDash handler are dropped before they run."""

from __future__ import annotations

import pytest
import reflex as rx
from reflex.event import Event

import secdash.secdash  # noqa: F401
from secdash.state.dashboard import DashboardState, OverviewTab, ProblemsTab, ScanTab
from secdash.state.defense_command import DefenseCenterState
from secdash.state.event_guard import EventShapeGuard


def _event(state_cls, handler: str, **payload) -> Event:
    return Event(name=f"{state_cls.get_full_name()}.{handler}", payload=payload)


@pytest.mark.parametrize(
    ("state_cls", "handler", "payload"),
    [
        (DashboardState, "follow_changes", {"generation": 10**9}),  # a client-chosen loop id
        (ScanTab, "start_scan", {"scan_type": {"$ne": None}}),  # an object where a string goes
        (ScanTab, "start_scan", {}),  # a missing argument
        (ProblemsTab, "open_resolve", {"event_id": 2**64}),  # beyond any stored id
        (ProblemsTab, "open_resolve", {"event_id": "²"}),  # a digit to str.isdigit(), not to int()
        (DefenseCenterState, "select", {"agent_id": ["stock"]}),
    ],
)
async def test_misfit_payloads_are_dropped(state_cls, handler, payload):
    root = rx.State(_reflex_internal_init=True)
    update = await EventShapeGuard().preprocess(None, root, _event(state_cls, handler, **payload))
    assert update is not None and not update.delta and not update.events


@pytest.mark.parametrize(
    ("state_cls", "handler", "payload"),
    [
        (ScanTab, "start_scan", {"scan_type": "quick"}),
        (ProblemsTab, "open_resolve", {"event_id": "12"}),  # the browser may send ids as strings
        (OverviewTab, "save_site", {"form": {"name": "x", "url": "https://x"}}),
        (DefenseCenterState, "send", {}),
    ],
)
async def test_fitting_payloads_pass(state_cls, handler, payload):
    root = rx.State(_reflex_internal_init=True)
    assert await EventShapeGuard().preprocess(None, root, _event(state_cls, handler, **payload)) is None


async def test_reflex_internal_events_pass():
    root = rx.State(_reflex_internal_init=True)
    event = Event(name="reflex___state____state.hydrate", payload={"anything": 1})
    assert await EventShapeGuard().preprocess(None, root, event) is None
