"""A code fix never rewrites a site's header configuration, and the demo sites never set a cookie (issue 21, item 13).

The attack: fix A adds `<script src="headers.json">` to a demo page; fix B, for another finding in that page, may
then change "the scripts the page loads", so it edits `headers.json` past the header allow-list of site fixes and
plants `Set-Cookie: secdash_session=...`, which the demo site sends from the console's origin, overwriting the
session cookie of whoever opens the page. Now a code fix may not change a headers file at all (only a site fix
does, checked against the allow-list), a headers file may set only the allowed security headers, and no response
of the content served on the console's origin (/demo/, /preview/) sets or clears a cookie.
"""

from __future__ import annotations

import json
import shutil

import httpx
import pytest

from secdash.demo_sites import routes as demo
from secdash.demo_sites import site_headers
from secdash.models import EventSeverity, EventSource, EventType, SecurityEvent
from secdash.models.fixes import Fix, FixKind, FixStatus
from secdash.services.diff import patch
from secdash.services.errors import Conflict
from secdash.services.fix import fixes, patches, scope
from secdash.services.monitoring import headers_file
from secdash.services.scanning import code_roots
from tests.factories import make_user
from tests.support.api_app import shared_api

PAGE = "tour/index.html"
HEADERS = "tour/headers.json"
PLANTED = "secdash_session=attacker-token; Path=/; SameSite=Lax"


@pytest.fixture
def workspace():
    """The demo sources' workspace (what the demo sites serve), with fix A applied: Tour's page loads its headers
    file as a script."""
    path = code_roots.workspace_for(code_roots.DEMO_SOURCES)
    assert not path.exists(), "a workspace of the demo sources was left behind by another test"
    shutil.copytree(code_roots.DEMO_SOURCES, path)
    page = path / PAGE
    page.write_text(page.read_text().replace("</body>", '  <script src="headers.json"></script>\n</body>'))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
async def client(session, settings, monkeypatch):
    monkeypatch.setattr(demo, "GEM_DELAY_SECONDS", 0.0)
    monkeypatch.setattr(settings, "DEMO_SHARES_OUTAGE", "up")
    transport = httpx.ASGITransport(app=shared_api())
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


def _cookie_diff(workspace) -> str:
    """Fix B: a diff of Tour's headers file that adds Set-Cookie (and nothing a site fix could not check)."""
    before = (workspace / HEADERS).read_text()
    after = headers_file.render_headers(json.loads(before) | {"Set-Cookie": PLANTED})
    return patch.unified_diff(HEADERS, before, after)


def test_a_code_fix_of_a_page_may_not_reach_the_headers_file_it_loads(workspace):
    allowed = scope.allowed_files(workspace, PAGE)
    assert PAGE in allowed and "tour/translate.js" in allowed  # a page's own scripts still may change
    assert HEADERS not in allowed
    with pytest.raises(patches.PatchRefused, match="may only change"):
        patches.validate_patch(_cookie_diff(workspace), workspace, allowed_files=allowed)


def test_a_code_fix_of_the_headers_file_itself_is_refused(workspace):
    with pytest.raises(patches.PatchRefused, match="header configuration"):
        scope.allowed_files(workspace, HEADERS)
    with pytest.raises(patches.PatchRefused, match="header configuration"):
        scope.allowed_files(workspace, "tour/HEADERS.JSON")
    assert scope.allowed_files(workspace, HEADERS, kind=FixKind.site) == {HEADERS}  # a site fix writes only it


async def test_a_stored_code_fix_that_edits_the_headers_file_is_not_applied(session, workspace):
    admin = await make_user(session, "root@example.com", role="admin")
    event = SecurityEvent(
        event_type=EventType.vulnerability_detected,
        severity=EventSeverity.medium,
        source=EventSource.scanner,
        description=f"Inline event handler ({PAGE}:12)",
        details={
            "file": PAGE,
            "line": 12,
            "rule": "html:inline-event-handler",
            "tool": "secdash-rules",
            "root": str(code_roots.DEMO_SOURCES),
        },
    )
    session.add(event)
    await session.flush()
    fix = Fix(
        event_id=event.id,
        kind=FixKind.code,
        status=FixStatus.proposed,
        agent_id="tour",
        root=str(code_roots.DEMO_SOURCES),
        file=PAGE,
        rule="html:inline-event-handler",
        diff=_cookie_diff(workspace),
        explanation="moves the handler",
        risk="none",
    )
    session.add(fix)
    await session.commit()
    before = (workspace / HEADERS).read_bytes()
    with pytest.raises(Conflict, match="may only change"):
        await fixes.apply(session=session, actor=admin, fix_id=fix.id)
    assert (workspace / HEADERS).read_bytes() == before


@pytest.mark.parametrize(
    "name",
    [
        "Set-Cookie",
        "set-cookie",
        "Set-Cookie2",
        "Clear-Site-Data",
        "Location",
        "Refresh",
        "Link",
        "NEL",
        "Report-To",
        "Alt-Svc",
        "Service-Worker-Allowed",
        "Access-Control-Allow-Origin",
        "Cache-Control",
        "X-Anything",
    ],
)
def test_a_headers_file_may_set_only_the_allowed_security_headers(name):
    with pytest.raises(ValueError, match="not a header a site may send"):
        site_headers.parse_headers(json.dumps({"X-Frame-Options": "DENY", name: "x"}))


async def test_a_planted_set_cookie_is_never_sent_and_the_site_keeps_serving(client, workspace):
    (workspace / HEADERS).write_text(headers_file.render_headers({"X-Frame-Options": "DENY", "Set-Cookie": PLANTED}))
    response = await client.get("/demo/tour/")
    assert response.status_code == 200 and "Tour AI" in response.text
    assert "set-cookie" not in response.headers


@pytest.mark.parametrize(
    "path",
    [
        "/demo/stock/",
        "/demo/stock/search?q=tea",
        "/demo/stock/no-such-page",
    ],
)
async def test_no_demo_response_sets_or_clears_a_cookie_whatever_its_handler_sends(client, monkeypatch, path):
    monkeypatch.setattr(site_headers, "headers_of", lambda slug: {"Set-Cookie": PLANTED, "Clear-Site-Data": '"*"'})
    response = await client.get(path)
    assert "set-cookie" not in response.headers and "clear-site-data" not in response.headers, response.headers
