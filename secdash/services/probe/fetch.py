"""Probing one website as a security monitor does: what a user waits for (time to first byte and total
time over every redirect hop and the body), TLS expiry, status and the header grade (`header_grade`).

Outbound rules (ARCHITECTURE.md): http/https only, per-operation timeouts and a budget for the whole
probe, a body-size cap, redirects followed by hand with every hop re-checked, non-global targets
refused unless allowed. Every connection goes through `network.PinnedBackend` (see there).
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import urljoin, urlsplit

import httpx

from secdash.services.monitoring.header_grade import grade_headers
from secdash.services.probe.addresses import ProbeRefused, validate_target
from secdash.services.probe.certificates import days_left, peer_expiry, unverified_expiry
from secdash.services.probe.network import ProbeClient
from secdash.services.probe.result import Hop, ProbeResult

REDIRECT_BODY_CAP = 64_000  # a redirect's body is read (as curl does) so its connection can serve the next hop
USER_AGENT = "SecDash-Monitor/1.0"


class _Trace:
    """What a probe has seen so far: its clock, its hops and the certificate that runs out first."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.checked_at = datetime.now(UTC)
        self.started = time.perf_counter()
        self.hops: list[Hop] = []
        self.redirects = 0
        self.expires_at: datetime | None = None

    def ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000

    def saw_certificate(self, expires_at: datetime | None) -> None:
        if expires_at is not None and (self.expires_at is None or expires_at < self.expires_at):
            self.expires_at = expires_at

    def result(self, final_url: str, **found) -> ProbeResult:
        return ProbeResult(
            url=self.url,
            checked_at=self.checked_at,
            final_url=final_url,
            hops=tuple(self.hops),
            redirects=self.redirects,
            tls_expires_at=self.expires_at,
            tls_days_left=days_left(self.expires_at, self.checked_at) if self.expires_at is not None else None,
            **found,
        )


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """The exception, then its cause or context, and so on down the chain."""
    current: BaseException | None = exc
    while current is not None:
        yield current
        current = current.__cause__ or current.__context__


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


def _blocked(exc: ProbeRefused) -> str:
    return str(exc) if str(exc).startswith("Blocked") else f"Blocked: {exc}"


def _same_origin(one: str, other: str) -> bool:
    a, b = urlsplit(one), urlsplit(other)
    return (a.scheme, a.hostname, a.port) == (b.scheme, b.hostname, b.port)


async def _read_body(
    response: httpx.Response, cap: int, deadline: float, timeout: float, budget: float, into: bytearray
) -> str | None:
    """Read the body into `into` until its end, the cap or the deadline; None, or why it stopped early."""
    try:
        async with asyncio.timeout_at(deadline):
            async for chunk in response.aiter_bytes():
                into += chunk[: cap - len(into)]
                if len(into) >= cap:
                    break
    except TimeoutError:
        return f"The body was still arriving after {budget:g}s"
    except httpx.TimeoutException:
        return f"Timed out after {timeout:g}s reading the body"
    except (httpx.HTTPError, OSError, ssl.SSLError) as exc:
        return f"The body was cut off ({_describe(exc, timeout)})"
    return None


async def _tls_failure(error: str, url: str, timeout: float, client: ProbeClient, trace: _Trace) -> str:
    """A refused certificate is read again without verifying it: its expiry is reported, and an expired one reads
    "expired" whatever else is wrong with it (OpenSSL names the untrusted issuer first)."""
    expires_at = await unverified_expiry(url, timeout, client.backend)
    trace.saw_certificate(expires_at)
    if expires_at is not None and expires_at <= datetime.now(UTC):
        return "TLS certificate expired"
    return error


async def probe_site(
    url: str,
    *,
    client: ProbeClient | None = None,
    timeout: float = 10.0,
    max_bytes: int = 1_000_000,
    max_redirects: int = 5,
    allow_private: bool = False,
    own_headers: dict[str, str] | None = None,
    budget: float = 30.0,
) -> ProbeResult:
    """Fetch the URL (following redirects by hand, reading each body up to `max_bytes`) and report what a security
    monitor needs. `timeout` bounds each connect and read; `budget` the whole probe, every hop and the body (a body
    still arriving then ends the probe there: the status and times are kept, with the reason as its error).
    `own_headers` go with requests to the URL's own origin only (the monitor's mark for SecDash's demo sites).

    A client, when given, must be a ProbeClient with the same address policy (ProbeClients.get)."""
    if client is not None and (not isinstance(client, ProbeClient) or client.allow_private != allow_private):
        raise ValueError("probe_site needs a ProbeClient whose allow_private matches the probe's")
    trace = _Trace(url)
    deadline = asyncio.get_running_loop().time() + budget
    http = client or ProbeClient(allow_private=allow_private)
    try:
        current = url
        for _hop in range(max_redirects + 1):
            try:
                current = validate_target(current)
            except ProbeRefused as exc:
                return trace.result(current, error=_blocked(exc))
            headers = {"User-Agent": USER_AGENT}
            if own_headers and _same_origin(current, url):  # only to the site asked for, never a redirect's
                headers |= own_headers
            request = http.build_request("GET", current, headers=headers, timeout=timeout)
            try:
                async with asyncio.timeout_at(deadline):
                    response = await http.send(request, stream=True, follow_redirects=False)
            except TimeoutError:
                return trace.result(current, error=f"Timed out after {budget:g}s")
            except ProbeRefused as exc:  # raised by PinnedBackend when it refused the address
                return trace.result(current, error=_blocked(exc))
            except (httpx.HTTPError, OSError, ssl.SSLError) as exc:
                error = _describe(exc, timeout)
                if error.startswith("TLS"):
                    error = await _tls_failure(error, current, timeout, http, trace)
                return trace.result(current, error=error)
            try:
                first_byte_ms = trace.ms()
                if current.startswith("https"):
                    trace.saw_certificate(peer_expiry(response))
                location = response.headers.get("location") if response.is_redirect else None
                body = bytearray()
                stopped = await _read_body(
                    response, REDIRECT_BODY_CAP if location else max_bytes, deadline, timeout, budget, body
                )
                budget_spent = asyncio.get_running_loop().time() >= deadline
            finally:
                await response.aclose()
            trace.hops.append(Hop(current, response.status_code, first_byte_ms, trace.ms()))
            if location is not None:
                if stopped is not None:  # a redirect is only followed once it has been read
                    return trace.result(current, error=f"Timed out after {budget:g}s" if budget_spent else stopped)
                current = urljoin(current, location)
                trace.redirects += 1
                continue
            graded = grade_headers(
                response.headers,
                is_https=current.startswith("https"),
                body=bytes(body),
                url=current,
                redirects=[(hop.url, hop.status_code) for hop in trace.hops],
            )
            return trace.result(
                current,
                status_code=response.status_code,
                ttfb_ms=first_byte_ms,
                response_ms=trace.hops[-1].done_ms,
                grade=graded.grade,
                score=graded.score,
                findings=graded.findings,
                error=stopped,
                header_tests=graded.tests,
            )
        return trace.result(current, error=f"Too many redirects (over {max_redirects})")
    finally:
        if client is None:
            await http.aclose()
