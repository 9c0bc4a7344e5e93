"""Probing sites: header grades, status rules and outbound safety, against local servers."""

from __future__ import annotations

import socket

import httpx
import pytest

from secdash.services.probe import ProbeClient, ProbeRefused, fetch, probe_site, site_status, validate_target
from tests.support.web_servers import STRONG_HEADERS, LocalCA, LocalSite

STRONG = STRONG_HEADERS


# The header grade's own rules are tested in test_header_grade.py (the MDN HTTP Observatory's scoring).


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/",
        "javascript:alert(1)",
        "http://user:pw@example.com/",
        "http:///x",
        "http://@example.com/",
        "http://example.com:99999/",
        "http://0177.0.0.1/",
        "https://example.com/" + "a" * 2048,
    ],
)
def test_validate_target_refuses(url):
    with pytest.raises(ProbeRefused):
        validate_target(url)


@pytest.fixture
def site():
    server = LocalSite(
        {
            "/": (200, STRONG, b"hello", 0.0),
            "/slow": (200, STRONG, b"slow", 0.3),
            "/error": (500, STRONG, b"boom", 0.0),
            "/big": (200, STRONG, b"x" * 3_000_000, 0.0),
            "/hang": (200, STRONG, b"late", 2.0),
            "/hop": (302, {"Location": "/"}, b"", 0.0),
            "/loop": (302, {"Location": "/loop"}, b"", 0.0),
            "/to-ftp": (302, {"Location": "ftp://example.com/"}, b"", 0.0),
            "/bare": (200, {}, b"no headers", 0.0),
        }
    )
    yield server
    server.close()


async def test_up_site_is_secure_with_response_time_and_grade(site):
    result = await probe_site(site.base + "/", allow_private=True)
    assert result.status_code == 200 and result.error is None
    assert result.response_ms is not None and result.response_ms > 0
    # plain http: graded as a site without HTTPS (-20) that does not redirect to it (-20), as the reference does
    assert result.grade == "C+" and result.score == 60 and site_status(result) == "secure"
    assert {test.name: test.result for test in result.header_tests}["redirection"] == "redirection-missing"


async def test_slow_site_is_a_warning_and_5xx_is_critical(site):
    slow = await probe_site(site.base + "/slow", allow_private=True)
    assert site_status(slow, slow_ms=100) == "warning"
    error = await probe_site(site.base + "/error", allow_private=True)
    assert error.status_code == 500 and site_status(error) == "critical"
    bare = await probe_site(site.base + "/bare", allow_private=True)
    assert bare.grade == "F" and site_status(bare) == "critical"


async def test_connection_refused_is_critical():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = await probe_site(f"http://127.0.0.1:{port}/", allow_private=True)
    assert result.status_code is None and result.error == "Connection refused"
    assert site_status(result) == "critical"


async def test_timeout_and_size_cap(site, monkeypatch):
    late = await probe_site(site.base + "/hang", timeout=0.5, allow_private=True)
    assert late.error == "Timed out after 0.5s"
    graded_bodies: list[int] = []
    real_grade = fetch.grade_headers

    def grade_headers(*args, **kwargs):
        graded_bodies.append(len(kwargs["body"]))
        return real_grade(*args, **kwargs)

    monkeypatch.setattr(fetch, "grade_headers", grade_headers)
    big = await probe_site(site.base + "/big", max_bytes=10_000, allow_private=True)
    assert big.status_code == 200 and big.error is None
    assert graded_bodies == [10_000]  # 3 MB were on offer: the probe read (and graded) its cap, no more


async def test_redirects_are_followed_and_rechecked(site):
    hop = await probe_site(site.base + "/hop", allow_private=True)
    assert hop.status_code == 200 and hop.final_url == site.base + "/"
    loop = await probe_site(site.base + "/loop", max_redirects=3, allow_private=True)
    assert loop.error == "Too many redirects (over 3)"
    ftp = await probe_site(site.base + "/to-ftp", allow_private=True)
    assert ftp.error.startswith("Blocked") and ftp.status_code is None


async def test_own_headers_go_to_the_sites_origin_only_never_to_a_redirects(site):
    """The monitor's mark for SecDash's demo sites must not leak to wherever a redirect points."""
    other = LocalSite({"/": (200, STRONG, b"elsewhere", 0.0)})
    try:
        away = LocalSite({"/away": (302, {"Location": other.base + "/"}, b"", 0.0)})
        try:
            result = await probe_site(away.base + "/away", allow_private=True, own_headers={"x-mark": "secret"})
        finally:
            away.close()
        assert result.status_code == 200 and result.final_url == other.base + "/"
        assert away.requests[0][1].get("x-mark") == "secret"
        assert "x-mark" not in other.requests[0][1]
    finally:
        other.close()


async def test_private_targets_are_refused_unless_allowed(site):
    refused = await probe_site(site.base + "/")
    assert refused.error == "Blocked: private address 127.0.0.1"
    assert site_status(refused) == "critical"


async def test_tls_days_left_and_expired_certificate(tmp_path):
    ca = LocalCA(tmp_path)
    valid = LocalSite({"/": (200, STRONG, b"ok", 0.0)}, tls=ca.server_context(days_valid=30, name="valid"))
    expired = LocalSite({"/": (200, STRONG, b"ok", 0.0)}, tls=ca.server_context(days_valid=-3, name="expired"))
    try:
        async with ProbeClient(allow_private=True, verify=ca.client_context()) as client:
            good = await probe_site(valid.base + "/", client=client, allow_private=True)
            assert good.status_code == 200 and good.tls_days_left == 30
            assert good.grade == "A+" and site_status(good) == "secure"
            assert site_status(good, tls_warning_days=60) == "warning"
            bad = await probe_site(expired.base + "/", client=client, allow_private=True)
        assert bad.error == "TLS certificate expired"
        assert bad.tls_days_left is not None and bad.tls_days_left < 0
        assert site_status(bad) == "critical"
    finally:
        valid.close()
        expired.close()


async def test_a_client_must_carry_the_probes_address_policy(site):
    async with ProbeClient(allow_private=False) as strict, httpx.AsyncClient() as plain:
        with pytest.raises(ValueError, match="ProbeClient"):
            await probe_site(site.base + "/", client=strict, allow_private=True)
        with pytest.raises(ValueError, match="ProbeClient"):
            await probe_site(site.base + "/", client=plain, allow_private=True)  # type: ignore[arg-type]
