"""Status changes as problems: a recovery closes the outage it ends, a flapping site is one ongoing problem.

The monitor's status-change logic is driven by a sequence of probe results; time is the probe's
`checked_at`, injected here (no waiting).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlmodel import select

from secdash.core.unit import commit
from secdash.models import AiActivity, EventSeverity, EventType, SecurityEvent, Site
from secdash.services.monitoring import monitor, status_problems
from secdash.services.probe import ProbeResult
from secdash.services.problems import events, resolution

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
URL = "http://shares.example/"


def _result(at: datetime, kind: str) -> ProbeResult:
    if kind == "secure":
        return ProbeResult(url=URL, checked_at=at, status_code=200, response_ms=12.0, grade="A", score=95)
    if kind == "warning":
        return ProbeResult(url=URL, checked_at=at, status_code=200, response_ms=3500.0, grade="A", score=95)
    return ProbeResult(url=URL, checked_at=at, status_code=500, response_ms=9.0, grade="A", score=95)


async def _site(session, name="Shares") -> Site:
    site = Site(name=name, url=URL, domain="shares.example", is_demo=True)
    session.add(site)
    await session.commit()
    return site


async def _drive(session, site: Site, sequence: list[tuple[timedelta, str]]) -> None:
    for offset, kind in sequence:
        await session.refresh(site)  # as a monitor round reads the site afresh
        await monitor.apply_probe(session, site, _result(T0 + offset, kind))
        await commit(session)


async def _status_events(session, site: Site) -> list[SecurityEvent]:
    site_id = site.id
    session.expire_all()
    query = select(SecurityEvent).where(SecurityEvent.site_id == site_id).order_by(SecurityEvent.id)
    return list((await session.exec(query)).all())


async def test_a_recovery_closes_the_outage_and_is_no_open_alert(session):
    site = await _site(session)
    await _drive(session, site, [(timedelta(0), "secure"), (timedelta(minutes=1), "critical"), (timedelta(minutes=2), "secure")])
    rows = await _status_events(session, site)
    assert [(e.severity, e.resolved) for e in rows] == [("high", True)]  # no LOW "is now SECURE" alert
    outage = rows[0]
    assert outage.resolved_by == "monitor"
    assert outage.resolution_note.startswith("Recovered at 12:02:00 UTC")
    assert outage.resolved_at.replace(tzinfo=UTC) == T0 + timedelta(minutes=2)
    assert await events.count_open(session=session) == 0
    activity = (await session.exec(select(AiActivity).order_by(AiActivity.id))).all()
    assert "SECURE" in activity[-1].description and "recovered" in activity[-1].description


async def test_a_flapping_site_is_one_ongoing_problem(session):
    """Shares fails one minute in five: an hour of it is one event, reopened and counted, not 24 events."""
    site = await _site(session)
    sequence = [(timedelta(0), "secure")]
    for cycle in range(12):
        start = timedelta(minutes=5 * cycle)
        sequence += [
            (start + timedelta(seconds=5), "critical"),
            (start + timedelta(seconds=35), "critical"),
            (start + timedelta(minutes=1, seconds=5), "secure"),
            (start + timedelta(minutes=3), "secure"),
        ]
    await _drive(session, site, sequence)
    rows = await _status_events(session, site)
    assert len(rows) == 1
    problem = rows[0]
    assert problem.severity == "high" and problem.event_type == EventType.site_status_changed.value
    assert problem.details["occurrences"] == 12
    assert problem.details["firstSeenAt"] == "2026-11-22T12:00:05Z"
    assert problem.details["lastSeenAt"] == "2026-11-22T12:55:05Z"
    assert problem.resolved and problem.resolution_note.startswith("Recovered at 12:56:05 UTC")
    assert "12 times" in problem.description

    # While it is down, the same problem is open (not a new one) and says so.
    await _drive(session, site, [(timedelta(minutes=60, seconds=5), "critical")])
    rows = await _status_events(session, site)
    assert len(rows) == 1 and not rows[0].resolved and rows[0].details["occurrences"] == 13
    assert rows[0].resolved_by is None and rows[0].resolution_note is None
    assert await events.count_open(session=session) == 1


async def test_a_failure_after_the_reopen_window_is_a_new_problem(session):
    site = await _site(session)
    await _drive(
        session,
        site,
        [
            (timedelta(0), "secure"),
            (timedelta(minutes=1), "critical"),
            (timedelta(minutes=2), "secure"),
            (timedelta(minutes=40), "critical"),
        ],
    )
    rows = await _status_events(session, site)
    assert [(e.resolved, e.details["occurrences"]) for e in rows] == [(True, 1), (False, 1)]


async def test_each_kind_is_its_own_problem_and_the_site_has_one_open_at_a_time(session):
    site = await _site(session)
    await _drive(session, site, [(timedelta(0), "secure"), (timedelta(minutes=1), "warning"), (timedelta(minutes=2), "critical")])
    rows = await _status_events(session, site)
    assert [(e.severity, e.resolved) for e in rows] == [("medium", True), ("high", False)]
    assert "ALERT" in rows[0].resolution_note
    await _drive(session, site, [(timedelta(minutes=3), "warning"), (timedelta(minutes=4), "secure")])
    rows = await _status_events(session, site)
    assert [(e.severity, e.resolved) for e in rows] == [("medium", True), ("high", True)]
    assert rows[0].details["occurrences"] == 2  # the degradation came back once within the window


async def test_an_admin_resolved_problem_that_comes_back_is_reopened_with_its_history(session):
    from tests.factories import make_user

    admin = await make_user(session, "root@example.com", role="admin")
    site = await _site(session)
    await _drive(session, site, [(timedelta(0), "secure"), (timedelta(minutes=1), "critical"), (timedelta(minutes=2), "secure")])
    await _drive(session, site, [(timedelta(minutes=3), "critical")])
    [problem] = await _status_events(session, site)
    await resolution.resolve_event(session=session, actor=admin, event_id=problem.id, note="restarted the pod")
    await _drive(session, site, [(timedelta(minutes=4), "secure"), (timedelta(minutes=5), "critical")])
    [problem] = await _status_events(session, site)
    assert not problem.resolved and problem.details["occurrences"] == 3
    assert problem.details["lastResolution"]["by"] == "root@example.com"
    assert problem.details["lastResolution"]["note"] == "restarted the pod"


async def test_reconcile_closes_what_older_versions_left_open(session):
    """Recoveries recorded as open alerts, and outages a recovery should have closed, are closed once."""
    up = await _site(session, "Shares")
    down = Site(name="Gem", url="http://gem.example/", domain="gem.example", status="critical", last_checked_at=T0)
    up.status, up.last_checked_at = "secure", T0
    session.add_all([up, down])
    await session.commit()
    legacy = [
        events.record(
            session,
            event_type=EventType.site_status_changed,
            severity=EventSeverity(severity),
            site_id=site.id,
            description=f"{site.name} is now {status}",
            details={"status": status},
        )
        for site, status, severity in (
            (up, "critical", "high"),
            (up, "secure", "low"),
            (up, "critical", "high"),
            (up, "secure", "low"),
            (down, "critical", "high"),
            (down, "critical", "high"),
        )
    ]
    scanner = events.record(
        session,
        event_type=EventType.vulnerability_detected,
        severity=EventSeverity.high,
        description="secret in code",
        source="scanner",
    )
    await commit(session)
    legacy_ids, scanner_id, down_id = [e.id for e in legacy], scanner.id, down.id

    closed = await status_problems.reconcile_open_problems(session=session, now=T0)
    await commit(session)
    assert closed == 5
    session.expire_all()
    open_rows = (await session.exec(select(SecurityEvent).where(SecurityEvent.resolved == False))).all()  # noqa: E712
    assert {e.id for e in open_rows} == {scanner_id, legacy_ids[-1]}  # the newest outage of the site still down
    kept = next(e for e in open_rows if e.id == legacy_ids[-1])
    superseded = await session.get(SecurityEvent, legacy_ids[-2])
    assert superseded.resolved_by == "monitor" and "superseded" in superseded.resolution_note
    assert kept.fingerprint == status_problems.problem_fingerprint(down_id, "critical")
    assert await status_problems.reconcile_open_problems(session=session, now=T0) == 0
