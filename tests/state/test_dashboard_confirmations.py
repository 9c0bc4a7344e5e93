"""Dashboard state: removing a site needs the confirmation step; the AI Defense Mode tab lists the agents."""

from __future__ import annotations

import reflex as rx

import secdash.secdash  # noqa: F401
from secdash.core.config import get_settings
from secdash.services.monitoring import sites
from secdash.state.dashboard import DashboardState, DefenseTab, OverviewTab
from tests.factories import make_user, sign_in


async def _dashboard(session, tab: type[DashboardState] = OverviewTab):
    await make_user(session, "ops@example.com", role="admin")
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(DashboardState.get_full_name().split("."))
    state.auth_token = await sign_in(session, "ops@example.com")
    await sites.init_default_sites(session=session, settings=get_settings())  # as the server does when it starts
    await DashboardState.event_handlers["load"].fn(state)
    if tab is DefenseTab:
        await DashboardState.event_handlers["set_tab"].fn(state, "defense")
    return root.get_substate(tab.get_full_name().split("."))


def _handler(name: str):
    return OverviewTab.event_handlers[name].fn


async def test_remove_asks_first_and_only_the_confirmation_removes(session):
    state = await _dashboard(session)
    tour = next(site for site in state.sites if site.name == "Tour")
    await _handler("open_site_dialog")(state, tour.id)
    # A removal that skips the question does nothing.
    await _handler("delete_site")(state, tour.id)
    assert state.sites_count == 4
    await _handler("ask_remove_site")(state)
    assert state.confirm_remove
    await _handler("keep_site")(state)
    assert not state.confirm_remove and state.sites_count == 4
    await _handler("ask_remove_site")(state)
    await _handler("delete_site")(state, tour.id)
    assert state.sites_count == 3 and not state.confirm_remove and not state.site_dialog_open
    # The next dialog starts without the question.
    await _handler("open_site_dialog")(state, state.sites[0].id)
    assert not state.confirm_remove


async def test_adding_a_site_never_asks_to_remove(session):
    state = await _dashboard(session)
    await _handler("open_site_dialog")(state, 0)
    await _handler("ask_remove_site")(state)
    assert not state.confirm_remove


async def test_ai_defense_mode_lists_the_four_agents_with_status(session):
    state = await _dashboard(session, DefenseTab)
    assert [agent["name"] for agent in state.defense_agents] == [
        "Stock Defense AI",
        "Tour Defense AI",
        "Gem Defense AI",
        "Shares Defense AI",
    ]
    assert {agent["status"] for agent in state.defense_agents} <= {"monitoring", "fighting", "analyzing", "secured"}
    assert all(agent["blocked"].isdigit() for agent in state.defense_agents)
