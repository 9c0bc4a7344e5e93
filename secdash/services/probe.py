"""Probing one website as a security monitor does: status, response time, TLS and header grade.

Header grading follows the MDN HTTP Observatory in spirit (simplified): start at 100, subtract
    Content-Security-Policy missing -25 (present with 'unsafe-inline'/'unsafe-eval' in scripts -10)
    Strict-Transport-Security missing on https -20 (max-age under 180 days -10)
    X-Frame-Options missing (and no CSP frame-ancestors) -20
    X-Content-Type-Options not "nosniff" -5
    Referrer-Policy missing or unsafe -5
    cookies without Secure (https) -10, without HttpOnly -10, without SameSite -5 (each once)
then A+ (100 with CSP and HSTS), A >= 90, B >= 80, C >= 70, D >= 60, E >= 50, else F.

A policy that is only `sandbox` (what SecDash adds to its own demo sites) protects the console, not
the site's scripts: it counts as no policy. Several policies (several headers, or one joined with
", ") are all enforced, so unsafe scripts cost points only when every script policy allows them.

Outbound rules (ARCHITECTURE.md): http/https only, timeouts, a body-size cap, redirects followed
by hand with every hop re-checked, private and link-local targets refused unless allowed.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urljoin, urlsplit

import httpx

HSTS_MIN_AGE = 15552000
UNSAFE_REFERRER = {"unsafe-url", "no-referrer-when-downgrade"}
GRADES = ((90, "A"), (80, "B"), (70, "C"), (60, "D"), (50, "E"))


@dataclass(frozen=True)
class HeaderGrade:
    score: int
    grade: str
    findings: list[str]


@dataclass(frozen=True)
class ProbeResult:
    url: str
    checked_at: datetime
    status_code: int | None = None
    response_ms: float | None = None
    error: str | None = None
    tls_days_left: int | None = None
    grade: str | None = None
    score: int | None = None
    findings: list[str] = field(default_factory=list)
    final_url: str = ""


class ProbeRefused(ValueError):
    """The URL may not be probed (scheme, credentials, private address)."""


def _cookies(headers: Mapping[str, str] | httpx.Headers) -> list[str]:
    if isinstance(headers, httpx.Headers):
        return headers.get_list("set-cookie")
    value = {k.lower(): v for k, v in headers.items()}.get("set-cookie")
    return [value] if value else []


def _csp_policies(headers: Mapping[str, str] | httpx.Headers) -> list[str]:
    """Every policy sent, lower-cased, without those that are only a `sandbox` directive."""
    if isinstance(headers, httpx.Headers):
        values = headers.get_list("content-security-policy")
    else:
        values = [v for k, v in headers.items() if k.lower() == "content-security-policy"]
    policies = [p.strip().lower() for value in values for p in value.split(",") if p.strip()]
    names = [{d.split()[0] for d in p.split(";") if d.strip()} for p in policies]
    return [p for p, directives in zip(policies, names, strict=True) if directives and directives != {"sandbox"}]


def _script_rules(policy: str) -> list[str]:
    return [d.strip() for d in policy.split(";") if d.strip().startswith(("script-src", "default-src"))]


def grade_headers(headers: Mapping[str, str] | httpx.Headers, *, is_https: bool) -> HeaderGrade:
    """Score the security headers of one response."""
    lower = {k.lower(): v for k, v in headers.items()}
    findings: list[str] = []

    def penalty(points: int, text: str) -> None:
        findings.append(f"{text} (-{points})")

    policies = _csp_policies(headers)
    csp = ", ".join(policies)
    if not policies:
        penalty(25, "Content-Security-Policy header missing")
    else:
        script_policies = [rules for rules in (_script_rules(p) for p in policies) if rules]
        if script_policies and all(any("'unsafe-inline'" in d or "'unsafe-eval'" in d for d in rules)
                                   for rules in script_policies):
            penalty(10, "Content-Security-Policy allows unsafe-inline or unsafe-eval scripts")
    hsts = lower.get("strict-transport-security", "")
    if is_https:
        if not hsts:
            penalty(20, "Strict-Transport-Security header missing")
        else:
            age = next((d.split("=", 1)[1] for d in hsts.replace(" ", "").lower().split(";") if d.startswith("max-age=")), "0")
            if not age.isdigit() or int(age) < HSTS_MIN_AGE:
                penalty(10, "Strict-Transport-Security max-age under six months")
    if "x-frame-options" not in lower and "frame-ancestors" not in csp:
        penalty(20, "X-Frame-Options header missing")
    if lower.get("x-content-type-options", "").strip().lower() != "nosniff":
        penalty(5, "X-Content-Type-Options is not nosniff")
    referrer = lower.get("referrer-policy", "").strip().lower()
    if not referrer or referrer in UNSAFE_REFERRER:
        penalty(5, "Referrer-Policy missing or unsafe")
    cookies = [c.lower() for c in _cookies(headers)]
    if is_https and any("secure" not in [p.strip() for p in c.split(";")] for c in cookies):
        penalty(10, "Cookie without the Secure flag")
    if any("httponly" not in [p.strip() for p in c.split(";")] for c in cookies):
        penalty(10, "Cookie without the HttpOnly flag")
    if any("samesite" not in c for c in cookies):
        penalty(5, "Cookie without a SameSite attribute")
    score = max(0, 100 - sum(int(f.rsplit("(-", 1)[1].rstrip(")")) for f in findings))
    if score >= 100 and csp and hsts:
        grade = "A+"
    else:
        grade = next((letter for floor, letter in GRADES if score >= floor), "F")
    return HeaderGrade(score=score, grade=grade, findings=findings)


def validate_target(url: str) -> str:
    """Accept only absolute http(s) URLs with a host and no credentials; return it normalised."""
    parts = urlsplit((url or "").strip())
    if parts.scheme.lower() not in ("http", "https"):
        raise ProbeRefused("only http and https URLs can be monitored")
    if not parts.hostname:
        raise ProbeRefused("the URL has no host")
    if parts.username or parts.password:
        raise ProbeRefused("credentials in the URL are not allowed")
    return parts._replace(scheme=parts.scheme.lower(), path=parts.path or "/").geturl()


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return not (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_reserved
                or ip.is_unspecified)


async def _check_address(url: str, allow_private: bool) -> None:
    if allow_private:
        return
    host = urlsplit(url).hostname or ""
    port = urlsplit(url).port or (443 if url.startswith("https") else 80)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise ProbeRefused(f"cannot resolve {host}") from None
    for info in infos:
        address = info[4][0]
        if not _is_public(address):
            raise ProbeRefused(f"Blocked: private address {address}")


def _days_left(not_after: float) -> int:
    return int((not_after - time.time()) // 86400)


def _peer_days_left(response: httpx.Response) -> int | None:
    stream = response.extensions.get("network_stream")
    ssl_object = stream.get_extra_info("ssl_object") if stream else None
    cert = ssl_object.getpeercert() if ssl_object else None
    return _days_left(ssl.cert_time_to_seconds(cert["notAfter"])) if cert and "notAfter" in cert else None


async def _unverified_days_left(url: str, timeout: float) -> int | None:
    """The certificate's days left read without verifying it (for expired or untrusted ones)."""
    from cryptography import x509

    parts = urlsplit(url)
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        _reader, writer = await asyncio.wait_for(
            asyncio.open_connection(parts.hostname, parts.port or 443, ssl=context, server_hostname=parts.hostname), timeout
        )
    except (OSError, TimeoutError):
        return None
    try:
        der = writer.get_extra_info("ssl_object").getpeercert(binary_form=True)
        return _days_left(x509.load_der_x509_certificate(der).not_valid_after_utc.timestamp())
    finally:
        writer.close()


def _causes(exc: BaseException):
    while exc is not None:
        yield exc
        exc = exc.__cause__ or exc.__context__


def _describe(exc: Exception, timeout: float) -> str:
    text = " ".join(str(e) for e in _causes(exc))
    if isinstance(exc, httpx.TimeoutException):
        return f"Timed out after {timeout:g}s"
    if "CERTIFICATE_VERIFY_FAILED" in text or isinstance(exc, ssl.SSLCertVerificationError):
        return "TLS certificate expired" if "expired" in text else "TLS certificate not trusted"
    if "refused" in text.lower() or any(isinstance(e, ConnectionRefusedError) for e in _causes(exc)):
        return "Connection refused"
    if isinstance(exc, httpx.ConnectError):
        return f"Connection failed: {str(exc)[:120] or type(exc).__name__}"
    return f"{type(exc).__name__}: {str(exc)[:120]}"


async def probe_site(
    url: str, *, client: httpx.AsyncClient | None = None, timeout: float = 10.0, max_bytes: int = 1_000_000,
    max_redirects: int = 5, allow_private: bool = False,
) -> ProbeResult:
    """Fetch the URL (following redirects by hand) and report what a security monitor needs."""
    checked_at = datetime.now(UTC)
    own_client = client is None
    http = client or httpx.AsyncClient(follow_redirects=False)
    current = url
    try:
        for _hop in range(max_redirects + 1):
            try:
                current = validate_target(current)
                await _check_address(current, allow_private)
            except ProbeRefused as exc:
                return ProbeResult(url=url, checked_at=checked_at, error=str(exc) if str(exc).startswith("Blocked")
                                   else f"Blocked: {exc}", final_url=current)
            started = time.perf_counter()
            try:
                async with http.stream("GET", current, timeout=timeout, follow_redirects=False,
                                       headers={"User-Agent": "SecDash-Monitor/1.0"}) as response:
                    elapsed_ms = (time.perf_counter() - started) * 1000
                    tls_days = _peer_days_left(response) if current.startswith("https") else None
                    if response.is_redirect and "location" in response.headers:
                        current = urljoin(current, response.headers["location"])
                        continue
                    read = 0
                    async for chunk in response.aiter_bytes():
                        read += len(chunk)
                        if read >= max_bytes:
                            break
                    graded = grade_headers(response.headers, is_https=current.startswith("https"))
                    return ProbeResult(
                        url=url, checked_at=checked_at, status_code=response.status_code, response_ms=elapsed_ms,
                        tls_days_left=tls_days, grade=graded.grade, score=graded.score, findings=graded.findings,
                        final_url=current,
                    )
            except (httpx.HTTPError, OSError, ssl.SSLError) as exc:
                error = _describe(exc, timeout)
                days = await _unverified_days_left(current, timeout) if error.startswith("TLS") else None
                return ProbeResult(url=url, checked_at=checked_at, error=error, tls_days_left=days, final_url=current)
        return ProbeResult(url=url, checked_at=checked_at, error=f"Too many redirects (over {max_redirects})",
                           final_url=current)
    finally:
        if own_client:
            await http.aclose()


def site_status(result: ProbeResult, *, slow_ms: float = 2000.0, tls_warning_days: int = 14) -> str:
    """secure, warning (CHECKING) or critical (ALERT), from one probe."""
    error = result.error or ""
    if (result.status_code is None or result.status_code >= 500 or "TLS certificate" in error
            or (result.tls_days_left is not None and result.tls_days_left < 0) or result.grade == "F"):
        return "critical"
    if ((result.response_ms is not None and result.response_ms > slow_ms)
            or (result.tls_days_left is not None and result.tls_days_left < tls_warning_days)
            or result.grade in ("D", "E") or 400 <= result.status_code < 500):
        return "warning"
    return "secure"
