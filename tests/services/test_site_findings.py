"""Each security-header finding of a probe is a problem of its own: opened once, closed (and recorded as fixed)
when a probe no longer sees it; a probe that got no answer changes nothing. Driven through the monitor's
apply_probe with probe results as the real grader makes them; time is the probe's `checked_at`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
from sqlmodel import select

from secdash.core.unit import commit
from secdash.demo_sites import routes as demo
from secdash.models import EventSeverity, EventType, SecurityEvent, Site
from secdash.services.monitoring import monitor, site_findings
from secdash.services.monitoring.header_grade import grade_headers
from secdash.services.probe import ProbeResult
from secdash.services.problems import events
from tests.support.api_app import shared_api

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
URL = "https://tour.example/"
# An https site that has everything but a Content-Security-Policy and X-Frame-Options: grade C (55), CHECKING.
TOUR_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Strict-Transport-Security": "max-age=63072000",
}
FIXED_HEADERS = TOUR_HEADERS | {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; object-src 'none'",
    "X-Frame-Options": "DENY",
}


def _answer(at: datetime, headers: dict[str, str], status_code: int = 200) -> ProbeResult:
    graded = grade_headers(headers, is_https=True)
    return ProbeResult(
        url=URL,
        checked_at=at,
        status_code=status_code,
        response_ms=12.0,
        grade=graded.grade,
        score=graded.score,
        findings=graded.findings,
    )


async def _site(session, name="Tour") -> Site:
    site = Site(name=name, url=URL, domain="tour.example", is_demo=True)
    session.add(site)
    await session.commit()
    return site


async def _probe(session, site: Site, result: ProbeResult) -> None:
    await session.refresh(site)  # as a monitor round reads the site afresh
    await monitor.apply_probe(session, site, result)
    await commit(session)


async def _rows(session, site: Site, event_type: EventType) -> list[SecurityEvent]:
    await session.refresh(site)  # (read here, never lazily: an async session cannot)
    site_id = site.id
    session.expire_all()
    await session.refresh(site)
    query = select(SecurityEvent).where(SecurityEvent.site_id == site_id, SecurityEvent.event_type == event_type.value)
    return list((await session.exec(query.order_by(SecurityEvent.id))).all())


async def test_a_tour_like_probe_opens_one_problem_per_header_finding(session):
    site = await _site(session)
    result = _answer(T0, TOUR_HEADERS)
    assert result.findings == ["Content-Security-Policy header missing (-25)", "X-Frame-Options header missing (-20)"]
    await _probe(session, site, result)

    rows = await _rows(session, site, EventType.vulnerability_detected)
    assert [(e.description, e.severity, e.source, e.resolved) for e in rows] == [
        ("Tour: Content-Security-Policy header missing", "medium", "monitor", False),
        ("Tour: X-Frame-Options header missing", "medium", "monitor", False),
    ]
    assert [e.fingerprint for e in rows] == [
        f"site-finding:{site.id}:content-security-policy-header-missing",
        f"site-finding:{site.id}:x-frame-options-header-missing",
    ]
    assert rows[0].details == {"kind": "site", "finding": "Content-Security-Policy header missing", "points": 25, "url": URL}
    assert rows[1].details["points"] == 20
    # The grade C also turned the site CHECKING: that status problem is recorded beside them, as before.
    status_events = await _rows(session, site, EventType.site_status_changed)
    assert [e.details["status"] for e in status_events] == ["warning"]


async def test_small_penalties_are_low_problems(session):
    site = await _site(session, name="Blog")
    headers = FIXED_HEADERS | {"Referrer-Policy": "unsafe-url", "X-Content-Type-Options": "sniff"}
    await _probe(session, site, _answer(T0, headers))
    rows = await _rows(session, site, EventType.vulnerability_detected)
    assert [(e.details["finding"], e.severity, e.details["points"]) for e in rows] == [
        ("Referrer-Policy set unsafely to origin, origin-when-cross-origin, unsafe-url or no-referrer-when-downgrade", "low", 5),
        ("X-Content-Type-Options is not nosniff", "low", 5),
    ]


async def test_the_same_findings_again_open_nothing_new(session):
    site = await _site(session)
    await _probe(session, site, _answer(T0, TOUR_HEADERS))
    await _probe(session, site, _answer(T0 + timedelta(minutes=1), TOUR_HEADERS))
    await _probe(session, site, _answer(T0 + timedelta(minutes=2), TOUR_HEADERS, status_code=500))
    rows = await _rows(session, site, EventType.vulnerability_detected)
    assert len(rows) == 2 and not any(e.resolved for e in rows)
    assert await events.count_open(session=session) == 3  # the two findings and the site's status problem


async def test_a_probe_without_the_finding_closes_it_and_records_the_fix(session):
    site = await _site(session)
    await _probe(session, site, _answer(T0, TOUR_HEADERS))
    later = T0 + timedelta(minutes=5, seconds=7)
    only_frames = TOUR_HEADERS | {"X-Frame-Options": "DENY"}  # the X-Frame-Options finding is fixed, not the CSP
    await _probe(session, site, _answer(later, only_frames))

    csp, frames = await _rows(session, site, EventType.vulnerability_detected)
    frames_id = frames.id
    assert not csp.resolved
    assert frames.resolved and frames.resolved_by == "monitor"
    assert frames.resolution_note == "Fixed: the probe at 12:05:07 UTC no longer sees it"
    assert frames.resolved_at.replace(tzinfo=UTC) == later
    [fixed] = await _rows(session, site, EventType.vulnerability_fixed)
    assert fixed.description == "Tour: X-Frame-Options header missing is fixed (probe at 12:05:07 UTC)"
    assert (fixed.severity, fixed.source, fixed.resolved) == ("medium", "monitor", True)
    assert fixed.details == {"kind": "site", "eventId": frames_id, "finding": "X-Frame-Options header missing"}

    await _probe(session, site, _answer(later + timedelta(minutes=1), FIXED_HEADERS))
    rows = await _rows(session, site, EventType.vulnerability_detected)
    assert all(e.resolved for e in rows) and len(rows) == 2
    assert len(await _rows(session, site, EventType.vulnerability_fixed)) == 2
    # The finding coming back is a new problem (the fixed one stays closed, with its history).
    await _probe(session, site, _answer(later + timedelta(minutes=2), only_frames))
    rows = await _rows(session, site, EventType.vulnerability_detected)
    assert [(e.details["finding"], e.resolved) for e in rows] == [
        ("Content-Security-Policy header missing", True),
        ("X-Frame-Options header missing", True),
        ("Content-Security-Policy header missing", False),
    ]


async def test_a_failed_probe_changes_no_finding(session):
    site = await _site(session)
    await _probe(session, site, _answer(T0, TOUR_HEADERS))
    refused = ProbeResult(url=URL, checked_at=T0 + timedelta(minutes=1), error="Connection refused")
    await _probe(session, site, refused)
    rows = await _rows(session, site, EventType.vulnerability_detected)
    assert len(rows) == 2 and not any(e.resolved for e in rows)
    assert await _rows(session, site, EventType.vulnerability_fixed) == []
    # and a failed first probe opens none
    other = await _site(session, name="Down")
    await _probe(session, other, ProbeResult(url=URL, checked_at=T0, error="Timed out after 10 s"))
    assert await _rows(session, other, EventType.vulnerability_detected) == []


async def test_findings_are_per_site_and_leave_scanner_findings_alone(session):
    tour, blog = await _site(session), await _site(session, name="Blog")
    scanner = events.record(
        session,
        event_type=EventType.vulnerability_detected,
        severity=EventSeverity.high,
        description="eval in translate.js",
        site_id=tour.id,
        source="scanner",
        fingerprint="scan:tour:eval",
        details={"file": "translate.js", "rule": "js-eval"},
    )
    await session.commit()
    await _probe(session, tour, _answer(T0, TOUR_HEADERS))
    await _probe(session, blog, _answer(T0, TOUR_HEADERS))
    await _probe(session, tour, _answer(T0 + timedelta(minutes=1), FIXED_HEADERS))  # tour's headers are fixed
    await session.refresh(scanner)
    assert not scanner.resolved
    assert all(e.resolved for e in await _rows(session, tour, EventType.vulnerability_detected) if e.source == "monitor")
    assert not any(e.resolved for e in await _rows(session, blog, EventType.vulnerability_detected))


async def test_reconcile_reports_what_it_opened_and_closed(session):
    site = await _site(session)
    findings = _answer(T0, TOUR_HEADERS).findings
    assert await site_findings.reconcile_site_findings(session, site, findings, T0) == (2, 0)
    assert await site_findings.reconcile_site_findings(session, site, findings, T0) == (0, 0)
    assert await site_findings.reconcile_site_findings(session, site, findings[:1], T0) == (0, 1)
    assert await site_findings.reconcile_site_findings(session, site, [], T0) == (0, 1)
    await commit(session)
    assert await events.count_open(session=session) == 0


def test_a_long_finding_keeps_its_fingerprint_within_128_characters():
    text = "Cookie " + "without a very long attribute name " * 10 + "(-10)"
    fingerprint = site_findings.finding_fingerprint(123456, text)
    assert len(fingerprint) == 128 and fingerprint.startswith("site-finding:123456:cookie-without-a-very-long")
    assert site_findings.split_finding("X-Frame-Options header missing (-20)") == ("X-Frame-Options header missing", 20)


async def test_the_demo_tour_site_as_served_opens_its_two_header_problems(session, settings, monkeypatch):
    """The real Tour page, graded as the monitor grades it, gives the two problems Fix Mode will fix, and the two a
    plain-http site has as the reference grades it (no HTTPS, no redirect to it)."""
    monkeypatch.setattr(demo, "GEM_DELAY_SECONDS", 0.0)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=shared_api()), base_url="http://testserver") as http:
        response = await http.get("/demo/tour/")
    graded = grade_headers(response.headers, is_https=False)
    site = await _site(session)
    await _probe(
        session,
        site,
        ProbeResult(
            url=URL,
            checked_at=T0,
            status_code=response.status_code,
            response_ms=5.0,
            grade=graded.grade,
            score=graded.score,
            findings=graded.findings,
        ),
    )
    rows = await _rows(session, site, EventType.vulnerability_detected)
    assert [e.details["finding"] for e in rows] == [
        "Content-Security-Policy header missing",
        "Does not redirect to an HTTPS site",
        "No HTTPS: Strict-Transport-Security cannot apply to a site not served over HTTPS",
        "X-Frame-Options header missing",
    ]


async def test_a_probe_older_than_the_last_one_applied_is_ignored(session):
    """A fix's probe (started later, answered first) and a monitor round's probe (started before the fix was
    written, answered after): the older answer must not reopen what the newer one saw fixed."""
    site = await _site(session)
    await _probe(session, site, _answer(T0, TOUR_HEADERS))
    await _probe(session, site, _answer(T0 + timedelta(seconds=10), FIXED_HEADERS))
    await _probe(session, site, _answer(T0 + timedelta(seconds=9), TOUR_HEADERS))  # stale: started earlier
    rows = await _rows(session, site, EventType.vulnerability_detected)
    assert len(rows) == 2 and all(e.resolved for e in rows)
    assert site.grade == "A+" and site.last_checked_at.replace(tzinfo=UTC) == T0 + timedelta(seconds=10)
