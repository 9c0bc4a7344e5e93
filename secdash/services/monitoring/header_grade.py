"""The header grade of one probed response: the MDN HTTP Observatory's tests and scoring (services/observatory).

`grade_headers` is what the probe calls. It returns the letter, the score, every test's result/modifier/pass, and
the findings the monitor turns into problems: one per test whose result costs points, its text followed by
"(-N)" (services/monitoring/site_findings.py keys a problem on the text, Fix Mode's header recipes on its start).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from secdash.services.observatory import Exchange, Hop, TestResult, grade, headers_from

# The policy SecDash itself adds to every answer of its demo sites (secdash/demo_sites/routes.py SANDBOX_POLICY) to
# protect the console: it is the console's, not the site's, so it is left out of the site's grade.
DEMO_SANDBOX_POLICY = "sandbox allow-scripts allow-forms"

# Finding texts kept from the grader before (the same problem keeps its fingerprint across the upgrade).
FINDING_TEXTS = {
    "csp-not-implemented": "Content-Security-Policy header missing",
    "hsts-not-implemented": "Strict-Transport-Security header missing",
    "hsts-implemented-max-age-less-than-six-months": "Strict-Transport-Security max-age under six months",
    "x-frame-options-not-implemented": "X-Frame-Options header missing",
    "x-content-type-options-not-implemented": "X-Content-Type-Options is not nosniff",
    "x-content-type-options-header-invalid": "X-Content-Type-Options is not nosniff",
    # not a header a fix can add: the site needs HTTPS first
    "hsts-not-implemented-no-https": "No HTTPS: Strict-Transport-Security cannot apply to a site not served over HTTPS",
}


@dataclass(frozen=True)
class HeaderGrade:
    score: int
    grade: str
    findings: list[str]
    tests: tuple[TestResult, ...] = ()


def finding_text(test: TestResult) -> str:
    """The problem a costly test result stands for, e.g. "X-Frame-Options header missing (-20)"."""
    return f"{FINDING_TEXTS.get(test.result, test.description)} ({test.modifier})"


def _decode(body: bytes | str | None) -> str | None:
    if body is None or isinstance(body, str):
        return body
    return body.decode("utf-8", errors="replace")


def grade_headers(
    headers: Mapping[str, str] | Iterable[tuple[str, str]] | object,
    *,
    is_https: bool,
    body: bytes | str | None = None,
    url: str | None = None,
    redirects: Sequence[tuple[str, int]] | None = None,
    certificate_valid: bool = True,
    http_redirects: Sequence[tuple[str, int]] | None = None,
    http_verified: bool = True,
    cors_origin: str | None = None,
    cors_headers: Mapping[str, str] | Iterable[tuple[str, str]] | object | None = None,
) -> HeaderGrade:
    """Grade the final response of a probe.

    headers: the final response's headers (an httpx.Headers keeps repeated Set-Cookie; a mapping or pairs work too).
    is_https: the final response came over HTTPS. A site answering over plain http is graded as one without HTTPS
        (HSTS cannot apply, the missing redirect to HTTPS costs points), as the reference grades it.
    body: the final response's body as read (up to the probe's cap), for `<meta http-equiv>` policies and scripts.
    url: the final URL (its host and path: cookie domains, script origins).
    redirects: (url, status) of every request of the fetch, the final answer included. Used as the http->https
        redirection chain when it starts at an http:// URL; otherwise (None, or a fetch that began at https://) and
        without `http_redirects`, the site is taken to redirect http to https on its own host when it is on HTTPS.
    certificate_valid: False when the HTTPS answer was only had with certificate checks off.
    http_redirects: the chain of a separate fetch of an https site's http:// URL, as the reference makes it
        ((url, status) of every request, its final answer included); () when http:// did not answer (the
        reference's "no http listener"). Takes the place of `redirects` for the redirection test.
    http_verified: False when that fetch met a certificate it could not verify on the way (the reference's
        session goes on without verification and the redirection test reads redirection-invalid-cert).
    cors_origin, cors_headers: the Origin a CORS preflight (OPTIONS) sent and its answer's headers (() when it was
        not answered), which the CORS test reads as the reference does; None: the CORS test reads `headers`.
    """
    parts = urlsplit(url) if url else None
    chain = None
    if http_redirects is not None:
        chain = tuple(Hop(hop_url, status) for hop_url, status in http_redirects)
    elif redirects and urlsplit(redirects[0][0]).scheme.lower() == "http":
        chain = tuple(Hop(hop_url, status) for hop_url, status in redirects)
    pairs = tuple(
        (name, value)
        for name, value in headers_from(headers)
        if not (name.lower() == "content-security-policy" and value.strip() == DEMO_SANDBOX_POLICY)
    )
    exchange = Exchange(
        headers=pairs,
        scheme="https" if is_https else "http",
        body=_decode(body),
        host=parts.hostname if parts else None,
        path=(parts.path or "/") if parts else "/",
        http_redirects=chain,
        http_verified=http_verified,
        origin_sent=cors_origin,
        cors_headers=None if cors_headers is None else headers_from(cors_headers),
        certificate_valid=certificate_valid,
    )
    report = grade(exchange)
    findings = [finding_text(test) for test in report.tests if test.modifier < 0]
    return HeaderGrade(score=report.score, grade=report.grade, findings=findings, tests=report.tests)
