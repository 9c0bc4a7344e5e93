"""The probe collects what the MDN HTTP Observatory's retriever collects for its grade (issue 22, section 1): the
chain of an https site's http:// URL for the redirection test, and a CORS preflight sent with an Origin."""

from __future__ import annotations

import http.server
import socket
import threading

import pytest

from secdash.services.probe import ProbeClient, probe_site
from secdash.services.probe.fetch import CORS_ORIGIN
from tests.support.probe_servers import Step, StepServer, UntrustedCA, expiring_in, leaf_context, redirect
from tests.support.web_servers import STRONG_HEADERS, LocalCA


@pytest.fixture
def ca(tmp_path):
    return LocalCA(tmp_path)


async def _probe(url: str, ca: LocalCA, **options):
    async with ProbeClient(allow_private=True, verify=ca.client_context()) as client:
        return await probe_site(url, client=client, allow_private=True, **options)


def _test(result, name: str):
    return next(test for test in result.header_tests if test.name == name)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def https_site(ca):
    with StepServer({"/": Step()}, tls=ca.server_context(days_valid=60, name="site")) as server:
        yield server


async def _with_http(routes, https_site, ca):
    with StepServer(routes) as plain:
        port = int(plain.base.rsplit(":", 1)[1])
        return await _probe(https_site.base + "/", ca, http_port=port)


async def test_an_http_url_redirecting_to_https_on_its_host_passes(https_site, ca):
    result = await _with_http({"/": redirect(https_site.base + "/")}, https_site, ca)
    assert result.error is None and result.status_code == 200
    test = _test(result, "redirection")
    assert (test.result, test.modifier, test.passed) == ("redirection-to-https", 0, True)
    assert result.final_url == https_site.base + "/" and result.redirects == 0  # the site's own fetch is unchanged


async def test_an_http_url_that_answers_without_redirecting_fails(https_site, ca):
    result = await _with_http({"/": Step()}, https_site, ca)
    test = _test(result, "redirection")
    assert (test.result, test.modifier, test.passed) == ("redirection-missing", -20, False)
    assert result.score == 80 and any(finding.endswith("(-20)") for finding in result.findings)


async def test_an_http_url_that_stays_on_http_fails(https_site, ca):
    routes = {"/": redirect("/next"), "/next": Step()}
    result = await _with_http(routes, https_site, ca)
    assert _test(result, "redirection").result == "redirection-not-to-https"


async def test_an_http_hop_before_https_fails(https_site, ca):
    routes = {"/": redirect("/next"), "/next": redirect(https_site.base + "/")}
    result = await _with_http(routes, https_site, ca)
    assert _test(result, "redirection").result == "redirection-not-to-https-on-initial-redirection"


async def test_no_http_listener_is_no_redirection_needed(https_site, ca):
    result = await _probe(https_site.base + "/", ca, http_port=_closed_port())
    test = _test(result, "redirection")
    assert (test.result, test.modifier, test.passed) == ("redirection-not-needed-no-http", 0, True)


async def test_an_http_chain_that_fails_on_the_way_counts_as_no_http_answer(https_site, ca):
    """As the reference's session: a redirect it could not follow leaves it without an http response at all."""
    result = await _with_http({"/": redirect(f"http://127.0.0.1:{_closed_port()}/")}, https_site, ca)
    assert result.error is None
    assert _test(result, "redirection").result == "redirection-not-needed-no-http"


async def test_an_http_chain_through_a_certificate_it_cannot_verify_is_invalid_cert(https_site, ca, tmp_path):
    """The reference's session retries without certificate checks and scores the redirection invalid-cert."""
    untrusted = leaf_context(UntrustedCA(tmp_path / "other"), expiring_in(60), "stranger")
    with StepServer({"/": Step()}, tls=untrusted) as stranger:
        result = await _with_http({"/": redirect(stranger.base + "/")}, https_site, ca)
    assert result.error is None and result.status_code == 200  # the site's own answer is unaffected
    test = _test(result, "redirection")
    assert (test.result, test.modifier, test.passed) == ("redirection-invalid-cert", -20, False)


async def test_the_http_chain_is_not_fetched_for_a_site_probed_over_http(ca):
    with StepServer({"/": Step()}) as plain, StepServer({"/": redirect(plain.base + "/")}) as other:
        port = int(other.base.rsplit(":", 1)[1])
        result = await _probe(plain.base + "/", ca, http_port=port)
    test = _test(result, "redirection")
    assert (test.result, test.modifier) == ("redirection-missing", -20)  # its own fetch is the http chain


class CorsSite:
    """An HTTPS site that answers GETs and a CORS preflight; `echo` makes the preflight echo any Origin with
    credentials allowed. Records every request's method and headers."""

    def __init__(self, ca: LocalCA, *, echo: bool) -> None:
        seen: list[tuple[str, dict[str, str]]] = []
        self.requests = seen

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self, extra: dict[str, str]) -> None:
                seen.append((self.command, {name.lower(): value for name, value in self.headers.items()}))
                self.send_response(200)
                for name, value in (STRONG_HEADERS | extra).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def do_GET(self):  # noqa: N802
                self._answer({})

            def do_OPTIONS(self):  # noqa: N802
                origin = self.headers.get("Origin")
                extra = {"Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": "true"}
                self._answer(extra if echo and origin else {})

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.socket = ca.server_context(days_valid=60, name="cors").wrap_socket(self.httpd.socket, server_side=True)
        self.base = f"https://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


async def test_a_preflight_echoing_any_origin_with_credentials_is_universal_access(ca):
    site = CorsSite(ca, echo=True)
    try:
        result = await _probe(site.base + "/", ca, http_port=_closed_port())
    finally:
        site.close()
    test = _test(result, "cross-origin-resource-sharing")
    assert (test.result, test.modifier, test.passed) == (
        "cross-origin-resource-sharing-implemented-with-universal-access",
        -50,
        False,
    )
    assert result.score == 50 and any(finding.endswith("(-50)") for finding in result.findings)
    preflights = [headers for method, headers in site.requests if method == "OPTIONS"]
    assert len(preflights) == 1
    assert preflights[0]["origin"] == CORS_ORIGIN and preflights[0]["access-control-request-method"] == "GET"
    assert all("origin" not in headers for method, headers in site.requests if method == "GET")  # as the reference


async def test_a_preflight_that_grants_nothing_is_not_implemented(ca):
    site = CorsSite(ca, echo=False)
    try:
        result = await _probe(site.base + "/", ca, http_port=_closed_port())
    finally:
        site.close()
    assert _test(result, "cross-origin-resource-sharing").result == "cross-origin-resource-sharing-not-implemented"
    assert result.score == 115  # every test passed: the reference adds its extra credit
