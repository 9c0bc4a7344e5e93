"""History Logs page state: every entry reachable (older pages), a text filter, refreshes keep depth."""

from __future__ import annotations

import reflex as rx

import secdash.secdash  # noqa: F401
from secdash.core.unit import commit
from secdash.models import LogCategory
from secdash.services import audit
from secdash.state.history import HistoryState, read_tabs
from tests.factories import make_user, sign_in


async def _history_tab(session, entries: int = 141):
    admin = await make_user(session, "root@example.com", role="admin")
    for i in range(entries):
        audit.record(session, category=LogCategory.system, action="Probe", description=f"probe number {i}")
    await commit(session)
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(HistoryState.get_full_name().split("."))
    state.auth_token = await sign_in(session, "root@example.com")
    await HistoryState.event_handlers["load"].fn(state)
    return admin, state


async def test_older_entries_load_page_by_page_until_all_are_shown(session):
    _admin, state = await _history_tab(session)
    total = state.counts["all"]
    assert total > 141 and len(state.all_entries) == 100
    while len(state.all_entries) < total:
        before = len(state.all_entries)
        await HistoryState.event_handlers["load_more"].fn(state, "all")
        assert len(state.all_entries) > before
    assert len({e.id for e in state.all_entries}) == total


async def test_the_text_filter_narrows_every_tab_and_the_counts(session):
    _admin, state = await _history_tab(session)
    await HistoryState.event_handlers["set_search"].fn(state, "number 14")
    assert {e.description for e in state.all_entries} == {"probe number 14", "probe number 140"}
    assert state.counts["all"] == len(state.all_entries) == 2
    assert state.security_entries == []
    await HistoryState.event_handlers["set_search"].fn(state, "")
    assert len(state.all_entries) == 100


async def test_a_refresh_keeps_the_older_pages_the_user_opened(session):
    admin, state = await _history_tab(session)
    await HistoryState.event_handlers["load_more"].fn(state, "all")
    entries, _counts = await read_tabs(admin, "", state._depth())
    assert len(entries["all"]) == len(state.all_entries) > 100


async def test_an_over_long_filter_is_refused_with_the_apis_message(session):
    _admin, state = await _history_tab(session, entries=1)
    toast = await HistoryState.event_handlers["set_search"].fn(state, "x" * 201)
    assert "at most 200 characters" in str(toast)
    assert state.search == ""
