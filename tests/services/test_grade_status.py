"""Issue 22, section 1: a site's SECURE / CHECKING / ALERT from its Observatory grade (docs/features/dashboard.md),
and every header test's result and modifier kept on the site for its card, outside the browser."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from secdash.models import Site
from secdash.models.public import SitePublic
from secdash.services.monitoring import monitor
from secdash.services.observatory import Exchange, grade
from secdash.services.observatory.scoring import TEST_ORDER
from secdash.services.probe import ProbeResult, site_status

T0 = datetime(2026, 11, 26, 6, 0, tzinfo=UTC)
URL = "https://shop.example/"


@pytest.mark.parametrize(
    ("letter", "expected"),
    [
        ("A+", "secure"),
        ("A", "secure"),
        ("A-", "secure"),
        ("B+", "secure"),
        ("B", "secure"),
        ("B-", "secure"),
        ("C+", "secure"),
        ("C", "warning"),
        ("C-", "warning"),
        ("D+", "warning"),
        ("D", "warning"),
        ("D-", "warning"),
        ("F", "critical"),
    ],
)
def test_a_healthy_answer_reads_secure_checking_or_alert_by_its_grade(letter, expected):
    answer = ProbeResult(url=URL, checked_at=T0, status_code=200, response_ms=40.0, ttfb_ms=20.0, grade=letter)
    assert site_status(answer) == expected


async def test_every_header_test_is_kept_on_the_site_with_its_result_modifier_and_pass(session):
    headers = (
        ("Content-Type", "text/html"),
        ("Content-Security-Policy", "default-src *"),
        ("Strict-Transport-Security", "max-age=31536000"),
        ("X-Frame-Options", "ALLOWALL"),
    )
    report = grade(Exchange(headers=headers, host="shop.example"))
    answer = ProbeResult(
        url=URL,
        checked_at=T0,
        status_code=200,
        response_ms=40.0,
        ttfb_ms=20.0,
        grade=report.grade,
        score=report.score,
        header_tests=report.tests,
    )
    site = Site(name="Shop", url=URL, domain="shop.example", allow_private=True)
    session.add(site)
    await session.commit()
    await monitor.apply_probe(session, site, answer)
    await session.commit()
    await session.refresh(site)

    stored = {test["name"]: test for test in site.header_tests}
    assert list(stored) == list(TEST_ORDER) and len(stored) == 12
    assert stored["content-security-policy"] == {
        "name": "content-security-policy",
        "title": report.test("content-security-policy").title,
        "result": "csp-implemented-with-unsafe-inline",
        "modifier": -20,
        "pass": False,
    }
    assert (stored["x-frame-options"]["result"], stored["x-frame-options"]["modifier"]) == ("x-frame-options-header-invalid", -20)
    assert stored["strict-transport-security"]["pass"] is True
    assert (site.grade, site.score) == (report.grade, report.score)
    assert site.status == site_status(answer)
    shown = SitePublic.of(site).model_dump(mode="json")
    assert [test["name"] for test in shown["headerTests"]] == list(TEST_ORDER)
