"""Dashboard state: what a signed-in user sees after loading and after live refreshes, tab by tab."""

from __future__ import annotations

import reflex as rx

import secdash.secdash  # noqa: F401
from secdash.core.config import get_settings
from secdash.services.monitoring import sites
from secdash.services.reads import page_reads
from secdash.state.dashboard import (
    TAB_PARTS,
    TAB_STATES,
    DashboardState,
    OverviewTab,
    ProblemsTab,
    ScanTab,
    parts_to_read,
)
from tests.factories import make_user, scan_job, sign_in


def _substate(root, cls):
    return root.get_substate(cls.get_full_name().split("."))


async def _dashboard(session, role="admin"):
    await make_user(session, "ops@example.com", role=role)
    root = rx.State(_reflex_internal_init=True)
    state = _substate(root, DashboardState)
    state.auth_token = await sign_in(session, "ops@example.com")
    return root, state


async def _refresh(state, cls, changed=None):
    """What the follow loop does for the open tab on a change (changed: topic -> sequence)."""
    parts = parts_to_read(next(name for name, c in TAB_STATES.items() if c is cls), changed)
    state._apply_reads(await page_reads.dashboard_reads(parts, state._read_filters()))


async def test_load_shows_the_demo_sites_seeded_at_start_up_and_reads_the_open_tab(session):
    root, state = await _dashboard(session)
    await sites.init_default_sites(session=session, settings=get_settings())  # as the server does when it starts
    follow_up = await DashboardState.event_handlers["load"].fn(state)
    assert follow_up is DashboardState.event_handlers["follow_changes"]
    overview = _substate(root, OverviewTab)
    assert not state.loading and overview.sites_count == 4
    assert [site.name for site in overview.sites] == ["Stock", "Tour", "Gem", "Shares"]
    assert all(site.status_label == "CHECKING" for site in overview.sites)  # not probed yet
    # Only the open tab was read: the scan tab learns its figures when it opens.
    scan = _substate(root, ScanTab)
    assert scan.target_lines == 0
    await DashboardState.event_handlers["set_tab"].fn(state, "scan")
    assert state.tab == "scan" and scan.scan_status == "idle" and scan.target_lines > 0


async def test_new_scan_stays_idle_when_a_refresh_reads_the_finished_job(session):
    """Regression: a periodic refresh put "Scan Complete" back after the user chose New scan."""
    root, _state = await _dashboard(session)
    scan = _substate(root, ScanTab)
    session.add(scan_job(scan_type="quick", status="done", total_lines=10, lines_scanned=10))
    await session.commit()
    await _refresh(scan, ScanTab)
    assert scan.scan_status == "complete"
    await ScanTab.event_handlers["new_scan"].fn(scan)
    await _refresh(scan, ScanTab)
    assert scan.scan_status == "idle"


async def test_loading_the_dashboard_writes_nothing_not_even_the_demo_sites(session):
    """The demo sites are seeded once at start-up; a page read never creates them (nor anything else)."""
    root, state = await _dashboard(session)
    await DashboardState.event_handlers["load"].fn(state)
    overview = _substate(root, OverviewTab)
    assert not state.loading and overview.sites_count == 0 and overview.sites == []
    assert await sites.list_sites(session=session) == []


async def test_limited_user_cannot_add_sites_and_sees_why(session):
    root, state = await _dashboard(session, role="limited")
    await sites.init_default_sites(session=session, settings=get_settings())
    await DashboardState.event_handlers["load"].fn(state)
    overview = _substate(root, OverviewTab)
    result = await OverviewTab.event_handlers["save_site"].fn(overview, {"name": "X", "url": "https://x.example.com"})
    assert "Only administrators may add sites" in str(result.args)
    assert overview.sites_count == 4


async def test_each_change_reads_only_what_the_open_tab_shows(session):
    every_part = set(page_reads.DASHBOARD_PARTS)
    assert page_reads.stale_parts(every_part, {"traffic": 7}) == {"snapshot"}  # a simulation tick
    assert page_reads.stale_parts(every_part, {"requests": 2}) == {"traffic_live", "user_scan"}  # logged requests
    assert page_reads.stale_parts(every_part, {"decisions": 1}) == {"decisions", "user_scan"}  # made or lifted
    # An event changes the site list's open-problem counts too.
    assert page_reads.stale_parts(every_part, {"events": 3}) == {"alerts", "problems", "site_list"}
    # A keyed topic: that site's card and its row
    assert page_reads.stale_parts(every_part, {"site:3": 1}) == {"sites", "site_list", "site_cards"}
    assert page_reads.stale_parts(every_part, {"sites": 1}) == {
        "sites",
        "site_list",
        "site_cards",
        "site_count",
        "agents",
        "alerts",
        "problems",
    }
    # A traffic tick costs the Problem Database nothing; the Live Traffic tab re-reads one row.
    assert parts_to_read("problems", {"traffic": 7}) == set()
    assert parts_to_read("traffic", {"traffic": 7}) == {"snapshot"}
    assert parts_to_read("problems", {"events": 1, "traffic": 7}) == {"problems"}
    # No change within the staleness bound: the open tab re-reads everything it shows, nothing else.
    assert parts_to_read("scan", {}) == {"scan"}
    assert set(await page_reads.dashboard_reads({"snapshot"})) == {"snapshot"}
    assert set(await page_reads.dashboard_reads({"traffic_live", "user_scan"})) == {"traffic_live", "user_scan"}
    assert set(await page_reads.dashboard_reads({"alerts"})) == {"alerts", "open_alerts", "threats_blocked"}
    assert set(TAB_PARTS) == set(TAB_STATES)


def test_site_cards_tell_the_demo_sites_apart_while_domain_stays_the_host():
    from secdash.models.public import SitePublic
    from secdash.state.dashboard_views import site_view

    site = SitePublic(
        id=1,
        name="Stock",
        domain="127.0.0.1:3000",
        url="http://127.0.0.1:3000/demo/stock/",
        security_status="secure",
        response_time=None,
        status_code=None,
        tls_days_left=None,
        grade=None,
        score=None,
        findings=[],
        last_error=None,
        last_checked_at=None,
        is_demo=True,
        allow_private=False,
    )
    view = site_view(site, [])
    assert view.domain == "127.0.0.1:3000"
    assert view.address == "127.0.0.1:3000/demo/stock"
    assert (view.status, view.status_label, view.checked) == ("secure", "SECURE", "-")


async def test_security_alerts_count_every_open_event_not_the_five_listed(session):
    from secdash.core.unit import commit
    from secdash.models import EventSeverity, EventType
    from secdash.services.problems import events

    root, _state = await _dashboard(session)
    overview = _substate(root, OverviewTab)
    for n in range(8):
        event = events.record(session, event_type=EventType.attack_detected, severity=EventSeverity.low, description=f"event {n}")
        event.resolved = n < 2
    await commit(session)
    await _refresh(overview, OverviewTab, {"events": 1})
    assert len(overview.alerts) == 5 and overview.active_alerts == 6
    assert overview.threats_blocked == 0


async def test_the_problem_database_reads_under_its_filters(session):
    from secdash.core.unit import commit
    from secdash.models import EventSeverity, EventType
    from secdash.services.problems import events

    root, state = await _dashboard(session)
    problems = _substate(root, ProblemsTab)
    for severity in (EventSeverity.high, EventSeverity.low, EventSeverity.low):
        events.record(session, event_type=EventType.attack_detected, severity=severity, description=f"{severity} one")
    await commit(session)
    await DashboardState.event_handlers["set_tab"].fn(state, "problems")
    assert len(problems.problems) == 3 and not problems.problems_loading
    await ProblemsTab.event_handlers["set_filter_severity"].fn(problems, "low")
    assert {p.severity for p in problems.problems} == {"low"} and len(problems.problems) == 2
    await _refresh(problems, ProblemsTab, {"events": 2})  # a live refresh keeps the filter
    assert len(problems.problems) == 2


async def test_a_stopped_scan_shows_what_was_scanned_and_never_a_full_bar(session):
    root, _state = await _dashboard(session)
    scan = _substate(root, ScanTab)
    session.add(
        scan_job(scan_type="full", status="stopped", total_lines=1250, lines_scanned=1249, total_files=11, files_scanned=10)
    )
    await session.commit()
    await _refresh(scan, ScanTab, {"scans": 1})
    assert scan.scan_status == "stopped" and (scan.scan_lines, scan.scan_files) == (1249, 10)
    assert scan.scan_percent == 99  # 99.92 %: a stopped scan never shows a full bar
    assert scan.scan_outcome == "Stopped at 99%: 10 of 11 files, 1249 of 1250 lines scanned"


async def test_the_scan_log_is_read_from_the_last_line_the_tab_has(session, monkeypatch):
    from secdash.jobs import store
    from secdash.services.reads import page_reads as reads_module

    root, _state = await _dashboard(session)
    scan = _substate(root, ScanTab)
    job = scan_job(scan_type="full", status="running", total_lines=10, lines_scanned=2)
    session.add(job)
    await session.commit()
    for message in ("Full scan of 3 files", "gem/ui.js: 2 finding(s)"):
        await store.append_log(job.id, message, "warning" if "finding" in message else "info")
    asked: list[int] = []
    real_logs_since = store.logs_since

    async def logs_since(session, job_id, after=0, limit=500):
        asked.append(after)
        return await real_logs_since(session, job_id, after, limit)

    monkeypatch.setattr(reads_module.jobs_store, "logs_since", logs_since)
    await _refresh(scan, ScanTab)
    assert [(line.level, line.message) for line in scan.scan_log] == [
        ("info", "Full scan of 3 files"),
        ("warning", "gem/ui.js: 2 finding(s)"),
    ]
    await store.append_log(job.id, "Complete: 2 findings (1 high) in 3 files", "success")
    await _refresh(scan, ScanTab, {"scans": 3})
    assert asked == [0, 2]  # the second read starts after the last line the tab has
    assert [line.seq for line in scan.scan_log] == [1, 2, 3] and scan.scan_log[-1].level == "success"

    job.status = "done"
    session.add(job)
    another = scan_job(scan_type="quick", status="running")
    session.add(another)
    await session.commit()
    await store.append_log(another.id, "Quick scan of 3 files")
    await _refresh(scan, ScanTab, {"scans": 4})
    assert [line.message for line in scan.scan_log] == ["Quick scan of 3 files"]  # a new scan: its own log
