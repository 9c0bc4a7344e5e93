"""Triage that sticks (issue 23 item 1): an admin's decision on a finding survives later scans and probes.

open -> fixed / false positive / accepted risk (a reason, who, when, optional expiry). A scan never reopens a
false positive or an accepted risk while the code it flags is unchanged; when that code changes, or an
acceptance expires, the same problem reopens and says why."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from secdash.core.unit import commit
from secdash.jobs import runner
from secdash.models import HistoryLog, SecurityEvent, Site
from secdash.services.errors import Invalid
from secdash.services.monitoring import monitor
from secdash.services.monitoring.header_grade import grade_headers
from secdash.services.probe import ProbeResult
from secdash.services.problems import events, resolution
from secdash.services.scanning import scans
from tests.factories import make_user


@pytest.fixture
def code_dir(tmp_path, settings, monkeypatch):
    (tmp_path / "gem").mkdir()
    (tmp_path / "gem" / "ui.js").write_text("el.innerHTML = x;\neval(y);\n")
    monkeypatch.setattr(settings, "SCAN_PATHS", str(tmp_path))
    return tmp_path


async def _scan(session, admin):
    job = await scans.start_scan(session=session, actor=admin, scan_type="full")
    await runner.wait_for(job.id, timeout=60)
    session.expire_all()


async def _findings(session, rule: str) -> list[SecurityEvent]:
    query = select(SecurityEvent).where(SecurityEvent.source == "scanner", SecurityEvent.event_type == "vulnerability_detected")
    return [e for e in (await session.exec(query.order_by(SecurityEvent.id))).all() if e.details.get("rule") == rule]


async def test_a_false_positive_stays_closed_on_the_next_scan(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    await _scan(session, admin)
    [finding] = await _findings(session, "js:eval")
    await resolution.resolve_event(
        session=session, actor=admin, event_id=finding.id, disposition="false_positive", note="y is a constant expression"
    )
    open_before = await events.count_open(session=session)
    await _scan(session, admin)
    evals = await _findings(session, "js:eval")
    assert [(e.id, e.resolved, e.disposition) for e in evals] == [(finding.id, True, "false_positive")]
    assert await events.count_open(session=session) == open_before


async def test_a_false_positive_reopens_when_its_code_changes_and_says_why(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    await _scan(session, admin)
    [finding] = await _findings(session, "js:eval")
    await resolution.resolve_event(session=session, actor=admin, event_id=finding.id, disposition="false_positive")
    (code_dir / "gem" / "ui.js").write_text("el.innerHTML = x;\neval(request.query.y);\n")
    await _scan(session, admin)
    [again] = await _findings(session, "js:eval")
    assert again.id == finding.id and not again.resolved and again.disposition is None
    reason = again.details["reopened"]["reason"]
    assert "code changed" in reason and "false positive" in reason and "root@example.com" in reason
    assert again.details["lastResolution"]["by"] == "root@example.com"


async def test_an_accepted_risk_needs_a_reason_and_holds_until_it_expires(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    await _scan(session, admin)
    [finding] = await _findings(session, "js:innerHTML")
    with pytest.raises(Invalid, match="reason"):
        await resolution.resolve_event(session=session, actor=admin, event_id=finding.id, disposition="accepted_risk")
    with pytest.raises(Invalid, match="future"):
        await resolution.resolve_event(
            session=session,
            actor=admin,
            event_id=finding.id,
            disposition="accepted_risk",
            note="internal page",
            accepted_until=datetime(2020, 1, 1, tzinfo=UTC),
        )
    until = datetime.now(UTC) + timedelta(days=30)
    accepted = await resolution.resolve_event(
        session=session, actor=admin, event_id=finding.id, disposition="accepted_risk", note="internal page", accepted_until=until
    )
    assert accepted.disposition == "accepted_risk" and accepted.accepted_until is not None
    await _scan(session, admin)
    [still] = await _findings(session, "js:innerHTML")
    assert still.resolved
    # the acceptance runs out: the next scan reopens the same problem and says so
    still.accepted_until = datetime.now(UTC) - timedelta(minutes=1)
    session.add(still)
    await commit(session)
    await _scan(session, admin)
    [reopened] = await _findings(session, "js:innerHTML")
    assert reopened.id == finding.id and not reopened.resolved
    assert "expired" in reopened.details["reopened"]["reason"]


async def test_the_decision_is_audited_with_who_when_and_why(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    await _scan(session, admin)
    [finding] = await _findings(session, "js:eval")
    await resolution.resolve_event(
        session=session, actor=admin, event_id=finding.id, disposition="accepted_risk", note="sandboxed worker"
    )
    logs = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Security event resolved"))).all()
    assert "accepted risk" in logs[-1].description and logs[-1].details["disposition"] == "accepted_risk"
    assert logs[-1].details["note"] == "sandboxed worker"


async def test_an_unknown_disposition_is_refused(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    await _scan(session, admin)
    [finding] = await _findings(session, "js:eval")
    with pytest.raises(Invalid, match="disposition"):
        await resolution.resolve_event(session=session, actor=admin, event_id=finding.id, disposition="ignore")


async def test_suppressed_problems_are_listed_only_when_asked_for(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    await _scan(session, admin)
    [finding] = await _findings(session, "js:eval")
    await resolution.resolve_event(session=session, actor=admin, event_id=finding.id, disposition="false_positive")
    suppressed = await events.list_events(session=session, status="suppressed")
    assert [e.id for e, _ in suppressed] == [finding.id]
    assert finding.id not in [e.id for e, _ in await events.list_events(session=session, status="open")]


# A probe's header finding resolved as a false positive stays closed while the probe reports the same finding.


async def test_a_site_finding_marked_false_positive_is_not_reopened_by_the_next_probe(session):
    admin = await make_user(session, "root@example.com", role="admin")
    site = Site(name="Tour", url="https://tour.example/", domain="tour.example", is_demo=True)
    session.add(site)
    await session.commit()
    headers = {
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Strict-Transport-Security": "max-age=63072000",
    }
    graded = grade_headers(headers, is_https=True)

    async def probe(at: datetime) -> None:
        await session.refresh(site)
        await monitor.apply_probe(
            session,
            site,
            ProbeResult(
                url=site.url,
                checked_at=at,
                status_code=200,
                response_ms=10.0,
                grade=graded.grade,
                score=graded.score,
                findings=graded.findings,
            ),
        )
        await commit(session)

    t0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    await probe(t0)
    problems = [e for e, _ in await events.list_events(session=session, status="open")]
    assert problems
    for problem in problems:
        await resolution.resolve_event(session=session, actor=admin, event_id=problem.id, disposition="false_positive")
    await probe(t0 + timedelta(minutes=1))
    assert [e for e, _ in await events.list_events(session=session, status="open")] == []
