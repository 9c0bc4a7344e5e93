"""The bundled demo sites are served by the console's own origin: every response carries a
`Content-Security-Policy: sandbox` of its own, so a demo page runs in an opaque origin and cannot
read the console's local storage (the sign-in token) or cookies. The monitor still grades each
demo site as its own posture deserves (the sandbox is the console's protection, not the site's)."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from secdash.demo_sites import routes as demo
from secdash.demo_sites import site_headers
from secdash.services.monitoring.header_grade import grade_headers
from secdash.services.probe import ProbeResult, site_status
from tests.support.api_app import shared_api
from tests.support.web_servers import STRONG_HEADERS

SANDBOX = "sandbox allow-scripts allow-forms"
STRONG_DEMO_CSP = site_headers.headers_of("stock")["Content-Security-Policy"]  # the policy stock's file sets


@pytest.fixture
async def client(monkeypatch):
    monkeypatch.setattr(demo, "GEM_DELAY_SECONDS", 0.0)
    transport = httpx.ASGITransport(app=shared_api())
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


def _policies(response: httpx.Response) -> list[str]:
    return [p.strip() for value in response.headers.get_list("content-security-policy") for p in value.split(",")]


@pytest.mark.parametrize(
    "path",
    [
        "/demo/stock/",
        "/demo/stock/app.js",
        "/demo/stock/style.css",
        "/demo/tour/",
        "/demo/tour/translate.js",
        "/demo/gem/",
        "/demo/shares/",
        "/demo/stock/missing.html",
        "/demo/unknown/",
        "/demo/gem/settings.py",
    ],
)
@pytest.mark.parametrize("shares_down", [False, True])
async def test_every_demo_response_is_sandboxed(client, monkeypatch, path, shares_down):
    monkeypatch.setattr(demo, "shares_failing", lambda now=None: shares_down)
    response = await client.get(path)
    assert SANDBOX in _policies(response), (response.status_code, response.headers)
    assert not any("allow-same-origin" in p for p in _policies(response))


async def test_the_sandbox_is_added_next_to_the_sites_own_policy(client):
    stock = await client.get("/demo/stock/")
    assert stock.status_code == 200
    assert sorted(_policies(stock)) == sorted([STRONG_DEMO_CSP, SANDBOX])
    tour = await client.get("/demo/tour/")
    assert _policies(tour) == [SANDBOX]  # Tour still sends no policy of its own


# The console's sandbox policy on every demo answer does not change a site's grade: the grade of its own headers,
# on plain http (the Observatory's rules: no HTTPS and no redirect to it cost 20 points each).
@pytest.mark.parametrize(("slug", "grade", "status"), [("stock", "C+", "secure"), ("tour", "F", "critical")])
async def test_monitor_grades_the_demo_sites_by_their_own_headers(client, slug, grade, status):
    response = await client.get(f"/demo/{slug}/")
    graded = grade_headers(response.headers, is_https=False)
    assert graded.grade == grade, graded.findings
    result = ProbeResult(
        url=str(response.url),
        checked_at=datetime.now(UTC),
        status_code=response.status_code,
        response_ms=10.0,
        grade=graded.grade,
        score=graded.score,
    )
    assert site_status(result) == status


def test_a_sandbox_only_policy_is_no_script_protection():
    only_sandbox = {k: v for k, v in STRONG_HEADERS.items() if k != "Content-Security-Policy"}
    only_sandbox["Content-Security-Policy"] = SANDBOX
    graded = grade_headers(only_sandbox, is_https=True)
    assert graded.score == 75 and any("Content-Security-Policy header missing" in f for f in graded.findings)


def test_several_policies_are_graded_together():
    strict = STRONG_HEADERS["Content-Security-Policy"]
    both = httpx.Headers([*[(k, v) for k, v in STRONG_HEADERS.items()], ("Content-Security-Policy", SANDBOX)])
    assert grade_headers(both, is_https=True).grade == "A+"
    # Every policy is enforced: a strict one next to a lax one still blocks inline scripts.
    lax = "script-src 'self' 'unsafe-inline'"
    strict_and_lax = httpx.Headers([*[(k, v) for k, v in STRONG_HEADERS.items()], ("Content-Security-Policy", lax)])
    strict_alone = grade_headers(STRONG_HEADERS, is_https=True).score
    assert grade_headers(strict_and_lax, is_https=True).score == strict_alone
    only_lax = STRONG_HEADERS | {"Content-Security-Policy": lax}
    lax_score = grade_headers(only_lax, is_https=True).score
    assert lax_score < strict_alone
    # Joined into one header line (as a proxy or httpx may do), the same policies grade the same.
    joined = STRONG_HEADERS | {"Content-Security-Policy": f"{strict}, {SANDBOX}"}
    assert grade_headers(joined, is_https=True).grade == "A+"
    assert grade_headers(STRONG_HEADERS | {"Content-Security-Policy": f"{SANDBOX}, {lax}"}, is_https=True).score == lax_score
