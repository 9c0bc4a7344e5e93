"""Dashboard state: what a signed-in user sees after loading and after live refreshes."""

from __future__ import annotations

import reflex as rx

import secdash.secdash  # noqa: F401
from secdash.state.dashboard import DashboardState
from secdash.state.dashboard_views import read_changes
from tests.factories import make_user, scan_job, sign_in


async def _dashboard(session, role="admin"):
    await make_user(session, "ops@example.com", role=role)
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(DashboardState.get_full_name().split("."))
    state.auth_token = await sign_in(session, "ops@example.com")
    return state


async def test_load_creates_default_sites_and_reads_everything(session):
    state = await _dashboard(session)
    await DashboardState.event_handlers["load"].fn(state)
    assert not state.loading and state.sites_count == 4
    assert [site.name for site in state.sites] == ["Stock", "Tour", "Gem", "Shares"]
    assert all(site.status_label == "CHECKING" for site in state.sites)  # not probed yet
    assert state.scan_status == "idle" and state.target_lines > 0


async def test_new_scan_stays_idle_when_a_refresh_reads_the_finished_job(session):
    """Regression: a periodic refresh put "Scan Complete" back after the user chose New scan."""
    state = await _dashboard(session)
    session.add(scan_job(scan_type="quick", status="done", total_lines=10, lines_scanned=10))
    await session.commit()
    state._apply_reads(await read_changes(set(), state._problem_filters()))
    assert state.scan_status == "complete"
    await DashboardState.event_handlers["new_scan"].fn(state)
    state._apply_reads(await read_changes(set(), state._problem_filters()))
    assert state.scan_status == "idle"


async def test_limited_user_cannot_add_sites_and_sees_why(session):
    state = await _dashboard(session, role="limited")
    await DashboardState.event_handlers["load"].fn(state)
    result = await DashboardState.event_handlers["save_site"].fn(state, {"name": "X", "url": "https://x.example.com"})
    assert "Only administrators may add sites" in str(result.args)
    assert state.sites_count == 4


async def test_each_change_reads_only_what_it_touches(session):
    assert set(await read_changes({"traffic"}, {})) == {"snapshot"}
    assert set(await read_changes({"events"}, {})) == {"alerts", "open_alerts", "threats_blocked", "problems"}
    assert {"sites", "activities", "alerts", "snapshot", "scan"} <= set(await read_changes(set(), {}))


def test_site_cards_tell_the_demo_sites_apart_while_domain_stays_the_host():
    from secdash.state.dashboard_views import site_view

    data = {"id": 1, "name": "Stock", "domain": "127.0.0.1:3000", "url": "http://127.0.0.1:3000/demo/stock/",
            "securityStatus": "secure", "responseTime": None, "tlsDaysLeft": None, "grade": None,
            "lastCheckedAt": None, "lastError": None, "findings": []}
    view = site_view(data, [])
    assert view.domain == "127.0.0.1:3000"
    assert view.address == "127.0.0.1:3000/demo/stock"


async def test_security_alerts_count_every_open_event_not_the_five_listed(session):
    from secdash.models import EventSeverity, EventType
    from secdash.services import events
    from secdash.services.unit import commit

    state = await _dashboard(session)
    for n in range(8):
        event = events.record(session, event_type=EventType.attack_detected, severity=EventSeverity.low,
                              description=f"event {n}")
        event.resolved = n < 2
    await commit(session)
    state._apply_reads(await read_changes({"events"}, state._problem_filters()))
    assert len(state.alerts) == 5 and state.active_alerts == 6
    assert state.threats_blocked == 0


async def test_a_stopped_scan_shows_what_was_scanned_and_never_a_full_bar(session):
    state = await _dashboard(session)
    session.add(scan_job(scan_type="full", status="stopped", total_lines=1250, lines_scanned=1249, total_files=11,
                         files_scanned=10))
    await session.commit()
    state._apply_reads(await read_changes({"scans"}, state._problem_filters()))
    assert state.scan_status == "stopped" and (state.scan_lines, state.scan_files) == (1249, 10)
    assert state.scan_percent == 99  # 99.92 %: a stopped scan never shows a full bar
    assert state.scan_outcome == "Stopped at 99%: 10 of 11 files, 1249 of 1250 lines scanned"
