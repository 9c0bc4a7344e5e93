"""Security headers on every response of the FastAPI that Reflex mounts (issue 7, item 6).

The app is graded with its own grader (services/header_grade.grade_headers): A+ over https (A over
plain http, where HSTS means nothing), since the CSP has no 'unsafe-eval'. The pages themselves are
graded against the live server in browser/test_framing.py.
"""

from __future__ import annotations

import base64
import hashlib
import os

import httpx
import pytest
from fastapi import FastAPI
from starlette.responses import PlainTextResponse
from starlette.staticfiles import StaticFiles

from secdash.api.main import create_api
from secdash.api.middleware import SecurityHeaders, content_security_policy
from secdash.services.monitoring.header_grade import grade_headers
from tests.support.api_app import shared_api

GOOD_GRADES = {"A", "A+"}


@pytest.fixture
async def http_client(session):
    transport = httpx.ASGITransport(app=shared_api(), client=("198.51.100.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


@pytest.fixture
async def https_client(session):
    transport = httpx.ASGITransport(app=shared_api(), client=("198.51.100.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        yield client


def _directives(csp: str) -> dict[str, str]:
    parts = (d.strip().split(None, 1) for d in csp.split(";") if d.strip())
    return {p[0]: (p[1] if len(p) > 1 else "") for p in parts}


@pytest.mark.parametrize("path", ["/api/auth/user", "/api/health", "/api/does-not-exist", "/", "/nope/"])
async def test_every_response_carries_the_app_headers(http_client, path):
    response = await http_client.get(path)
    headers = response.headers
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] in ("strict-origin-when-cross-origin", "no-referrer")
    csp = _directives(headers["content-security-policy"])
    assert csp["frame-ancestors"] == "'none'"
    assert csp["frame-src"] == "'self'" and csp["connect-src"] == "'self'"
    assert csp["object-src"] == "'none'" and csp["base-uri"] == "'none'"
    assert "'self'" in csp["script-src"].split()
    # No string is ever run as script: toasts and the sign-in hand-over are compiled into the bundle.
    assert "'unsafe-eval'" not in csp["script-src"] and "'unsafe-inline'" not in csp["script-src"]
    assert "'unsafe-eval'" not in headers["content-security-policy"]
    assert "strict-transport-security" not in headers  # plain http: HSTS means nothing and is not sent


async def test_hsts_only_over_https(https_client):
    response = await https_client.get("/api/auth/user")
    hsts = response.headers["strict-transport-security"]
    max_age = int(hsts.split("max-age=")[1].split(";")[0])
    assert max_age >= 365 * 24 * 3600


async def test_own_grader_gives_a_plus_over_https(https_client):
    """Nothing left to deduct: the CSP allows no unsafe script and HTTPS brings HSTS."""
    for path in ("/api/auth/user", "/", "/login/"):
        response = await https_client.get(path)
        grade = grade_headers(response.headers, is_https=True)
        assert (grade.grade, grade.findings) == ("A+", []), path


@pytest.mark.parametrize("scheme", ["http", "https"])
async def test_own_grader_gives_a_or_better_over_https(session, scheme):
    """Over https the console grades A or better; over plain http only the two HTTPS tests (HSTS, redirection to
    HTTPS) fail, as they must (the Observatory's rules grade plain http C+ at best)."""
    transport = httpx.ASGITransport(app=shared_api(), client=("198.51.100.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url=f"{scheme}://testserver") as client:
        for path in ("/api/auth/user", "/", "/login/"):
            response = await client.get(path)
            grade = grade_headers(response.headers, is_https=scheme == "https")
            if scheme == "https":
                assert grade.grade in GOOD_GRADES, (path, grade)
            else:
                failed = {test.name for test in grade.tests if not test.passed}
                assert failed <= {"strict-transport-security", "redirection"}, (path, failed)


async def test_login_response_with_its_cookie_grades_a(https_client, session, settings, monkeypatch):
    """Behind HTTPS (SECDASH_COOKIE_SECURE=true, as the README says) the sign-in answer with its session cookie
    grades A or better; without that setting the cookie has no Secure flag, which the grader charges (-40)."""
    from tests.factories import DEFAULT_PASSWORD, make_user

    await make_user(session, "ops@example.com", role="admin")
    monkeypatch.setattr(settings, "COOKIE_SECURE", True)
    response = await https_client.post("/api/auth/login", json={"email": "ops@example.com", "password": DEFAULT_PASSWORD})
    assert response.status_code == 200
    grade = grade_headers(response.headers, is_https=True)
    assert grade.grade in GOOD_GRADES, grade
    monkeypatch.setattr(settings, "COOKIE_SECURE", False)
    plain = await https_client.post("/api/auth/login", json={"email": "ops@example.com", "password": DEFAULT_PASSWORD})
    cookies = next(test for test in grade_headers(plain.headers, is_https=True).tests if test.name == "cookies")
    assert not cookies.passed and cookies.modifier < 0


def _bare_app() -> FastAPI:
    """Routes that set their own headers, behind the middleware alone (create_api's routers would answer first)."""
    app = FastAPI()

    @app.get("/demo/probe/")
    async def demo_page():
        return PlainTextResponse("demo", headers={"Content-Security-Policy": "sandbox allow-scripts"})

    @app.get("/preview/1/index.html")
    async def preview_page():
        return PlainTextResponse("preview")

    @app.get("/framed-on-purpose")
    async def own_headers():
        return PlainTextResponse("x", headers={"X-Frame-Options": "SAMEORIGIN", "Referrer-Policy": "no-referrer"})

    return app


async def test_demo_and_preview_paths_keep_their_own_posture():
    transport = httpx.ASGITransport(app=SecurityHeaders(_bare_app()))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        demo = await client.get("/demo/probe/")
        preview = await client.get("/preview/1/index.html")
    assert demo.headers["content-security-policy"] == "sandbox allow-scripts"
    assert "x-frame-options" not in demo.headers
    assert "content-security-policy" not in preview.headers and "x-frame-options" not in preview.headers
    assert demo.headers["x-content-type-options"] == "nosniff" == preview.headers["x-content-type-options"]


async def test_the_bundled_demo_sites_do_not_get_the_app_policy(http_client):
    response = await http_client.get("/demo/tour/")
    assert "frame-ancestors 'none'" not in response.headers.get("content-security-policy", "")
    assert "x-frame-options" not in response.headers


async def test_headers_a_route_sets_win():
    transport = httpx.ASGITransport(app=SecurityHeaders(_bare_app()))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        response = await client.get("/framed-on-purpose")
    assert response.headers.get_list("x-frame-options") == ["SAMEORIGIN"]
    assert response.headers.get_list("referrer-policy") == ["no-referrer"]
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


async def test_hsts_from_a_trusted_proxy_only():
    import ipaddress

    app = SecurityHeaders(_bare_app(), trusted_proxies=(ipaddress.ip_network("10.0.0.0/8"),))
    for client_address, expected in ((("10.1.2.3", 1234), True), (("198.51.100.7", 1234), False)):
        transport = httpx.ASGITransport(app=app, client=client_address)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            response = await client.get("/framed-on-purpose", headers={"X-Forwarded-Proto": "https"})
        assert ("strict-transport-security" in response.headers) is expected, client_address


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


async def test_script_hashes_come_from_the_build_and_follow_a_rebuild(tmp_path):
    """Inline scripts of the prerendered pages are allowed by hash, nothing else; a rebuild is picked up."""
    client_dir = tmp_path / "build" / "client"
    (client_dir / "login").mkdir(parents=True)
    (client_dir / "index.html").write_text("<html><script>window.a=1</script><script src='/x.js'></script></html>")
    (client_dir / "login" / "index.html").write_text('<script type="module">import "/m.js"</script>')
    inner = FastAPI()
    inner.mount("/", StaticFiles(directory=client_dir, html=True))
    app = SecurityHeaders(inner, build_dir=client_dir, recheck_seconds=0)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        first = _directives((await client.get("/")).headers["content-security-policy"])["script-src"].split()
        assert _sha("window.a=1") in first and _sha('import "/m.js"') in first
        assert len([s for s in first if s.startswith("'sha256-")]) == 2
        page = client_dir / "index.html"
        page.write_text("<script>window.b=2</script>")
        stat = page.stat()
        os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
        second = _directives((await client.get("/")).headers["content-security-policy"])["script-src"].split()
    assert _sha("window.b=2") in second and _sha("window.a=1") not in second


def test_no_build_directory_still_sends_a_policy(tmp_path):
    csp = _directives(content_security_policy(tmp_path / "missing"))
    assert csp["script-src"] == "'self'"
    assert csp["frame-ancestors"] == "'none'" and csp["default-src"] == "'self'"


async def test_hsts_and_grade_behind_the_configured_trusted_proxy(session, settings, monkeypatch):
    monkeypatch.setattr(settings, "TRUSTED_PROXIES", "10.0.0.0/8")
    transport = httpx.ASGITransport(app=create_api(), client=("10.0.0.5", 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        proxied = await client.get("/api/auth/user", headers={"X-Forwarded-Proto": "https"})
        plain = await client.get("/api/auth/user", headers={"X-Forwarded-Proto": "http"})
    assert "strict-transport-security" in proxied.headers and "strict-transport-security" not in plain.headers
    assert grade_headers(proxied.headers, is_https=True).grade in GOOD_GRADES
