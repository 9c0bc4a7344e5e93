"""The Unauthorized toast follows one rule on every route."""

from __future__ import annotations

import pytest
import reflex as rx
from reflex.istate.data import RouterData

import secdash.secdash  # noqa: F401
from secdash import routes
from secdash.state.auth import AuthState

PROTECTED = [
    routes.HISTORY_ROUTE,
    routes.DEFENSE_COMMAND_ROUTE,
    routes.DEFENSE_CENTER_ROUTE,
    routes.AI_SYSTEMS_ROUTE,
    routes.BATTLE_STATION_ROUTE,
    routes.FIX_MODE_ROUTE,
    routes.CODE_MODE_ROUTE,
    routes.CODE_ARTIFACTS_ROUTE,
]


async def _check(path: str, token: str = "") -> str:
    root = rx.State(_reflex_internal_init=True)
    root.router = RouterData.from_router_data({"pathname": path + "/", "asPath": path + "/", "query": {}})
    state = root.get_substate(AuthState.get_full_name().split("."))
    state.auth_token = token
    events = await AuthState.event_handlers["check_auth"].fn(state) or []
    return " ".join(str(e) for e in events)


@pytest.mark.parametrize("path", PROTECTED)
async def test_a_signed_out_visit_to_a_protected_route_says_unauthorized_and_leaves(session, path):
    events = await _check(path)
    assert "Unauthorized" in events and "_redirect" in events


@pytest.mark.parametrize("path", PROTECTED + [routes.LANDING_ROUTE, routes.LOGIN_ROUTE])
async def test_a_dead_token_says_unauthorized_everywhere(session, path):
    assert "Unauthorized" in await _check(path, token="dead.token.value")


@pytest.mark.parametrize("path", [routes.LANDING_ROUTE, routes.LOGIN_ROUTE])
async def test_a_signed_out_visit_to_a_public_page_is_quiet(session, path):
    assert await _check(path) == ""
