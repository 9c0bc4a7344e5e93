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
# The Observatory's retriever also fetches an https site's http:// URL (the redirection test) and sends a CORS
# preflight with an Origin of its own (the CORS test): the probe makes both requests, with their own small limits.
CORS_ORIGIN = "https://monitor.secdash.invalid"  # the reference's CONFIG.retriever.corsOrigin, SecDash's own
SIDE_BODY_CAP = 64_000
SIDE_TIMEOUT = 5.0  # each connect and read of those requests (at most the probe's own timeout)
SIDE_MAX_REDIRECTS = 10  # the reference's MAX_REDIRECTS


class _Trace:
    """What a probe has seen so far: its clock, its hops and the certificate that runs out first."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.checked_at = datetime.now(UTC)
        self.started = time.perf_counter()
        self.hops: list[Hop] = []
        self.redirects = 0
        self.expires_at: datetime | None = None
        self.connected = False  # a connection was opened for the site's own requests (not all reused)

    async def on_network(self, event: str, _info: dict) -> None:
        """httpcore's trace: a connection opened (the request did not reuse one from the pool)."""
        if event == "connection.connect_tcp.started":
            self.connected = True

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
            connection_reused=bool(self.hops) and not self.connected,
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


class _SideFailed(Exception):
    """A request of the http chain or the preflight that got no answer (refused, blocked, timed out...)."""


async def _side_fetch(
    http: ProbeClient,
    method: str,
    url: str,
    headers: dict[str, str],
    *,
    timeout: float,
    deadline: float,
    record: list[tuple[str, int]] | None = None,
    own: tuple[str, dict[str, str]] | None = None,
) -> httpx.Headers:
    """One of the reference's extra requests: `method` to `url`, redirects followed by hand (each hop validated and
    sent through the probe's pinned, address-checked client), bodies read up to SIDE_BODY_CAP. Every answer's
    (url, status) goes into `record`; returns the last answer's headers, or raises _SideFailed. `own`: (the site's
    URL, headers) that go with requests to that URL's origin only."""
    current = url
    for _hop in range(SIDE_MAX_REDIRECTS + 1):
        try:
            current = validate_target(current)
            sent = headers | own[1] if own is not None and _same_origin(current, own[0]) else headers
            request = http.build_request(method, current, headers=sent, timeout=timeout)
            async with asyncio.timeout_at(deadline):
                response = await http.send(request, stream=True, follow_redirects=False)
                try:
                    body = bytearray()
                    async for chunk in response.aiter_bytes():
                        body += chunk[: SIDE_BODY_CAP - len(body)]
                        if len(body) >= SIDE_BODY_CAP:
                            break
                finally:
                    await response.aclose()
        except (ProbeRefused, TimeoutError, httpx.HTTPError, OSError, ssl.SSLError) as exc:
            raise _SideFailed(str(exc)) from exc
        if record is not None:
            record.append((current, response.status_code))
        location = response.headers.get("location") if response.is_redirect else None
        if location is None:
            return response.headers
        current = urljoin(current, location)
    return response.headers  # the reference stops following after its MAX_REDIRECTS and keeps the last answer


def _http_url(url: str, http_port: int | None) -> str:
    """The http:// URL the reference fetches for an https site: its host and path, on port 80 unless told."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = f":{http_port}" if http_port is not None else ""
    return f"http://{host}{port}{parts.path or '/'}"


async def _http_chain(
    http: ProbeClient, url: str, http_port: int | None, timeout: float, deadline: float
) -> tuple[tuple[tuple[str, int], ...] | None, bool]:
    """The redirect chain of the https site's http:// URL (final answer included) and whether it met only
    certificates it could verify. The chain is () when it did not answer or a hop could not be followed (the
    reference's session then has no response: "no http listener"); None when the probe's budget left no time for
    it (the redirection test then keeps its assumption). A certificate refused on the way is what the reference
    retries without verification and scores redirection-invalid-cert: (the chain so far, False)."""
    if asyncio.get_running_loop().time() >= deadline:
        return None, True
    chain: list[tuple[str, int]] = []
    try:
        await _side_fetch(
            http, "GET", _http_url(url, http_port), {"User-Agent": USER_AGENT}, timeout=timeout, deadline=deadline, record=chain
        )
    except _SideFailed as failed:
        cause = failed.__cause__
        if isinstance(cause, Exception) and _describe(cause, timeout).startswith("TLS certificate"):
            return tuple(chain), False
        return (), True
    return tuple(chain), True


async def _preflight(
    http: ProbeClient, url: str, own: tuple[str, dict[str, str]] | None, timeout: float, deadline: float
) -> httpx.Headers | None:
    """The reference's CORS preflight: OPTIONS to the final URL with an Origin and Access-Control-Request-Method;
    its answer's headers, empty when it got none (the reference then finds no CORS)."""
    if asyncio.get_running_loop().time() >= deadline:
        return None
    preflight = {"User-Agent": USER_AGENT, "Origin": CORS_ORIGIN, "Access-Control-Request-Method": "GET"}
    try:
        return await _side_fetch(http, "OPTIONS", url, preflight, timeout=timeout, deadline=deadline, own=own)
    except _SideFailed:
        return httpx.Headers()


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
    http_port: int | None = None,
) -> ProbeResult:
    """Fetch the URL (following redirects by hand, reading each body up to `max_bytes`) and report what a security
    monitor needs. `timeout` bounds each connect and read; `budget` the whole probe, every hop and the body (a body
    still arriving then ends the probe there: the status and times are kept, with the reason as its error).
    `own_headers` go with requests to the URL's own origin only (the monitor's mark for SecDash's demo sites).

    For the header grade it also makes the Observatory retriever's two other requests, within the same budget:
    for an https URL, a GET of its http:// URL (port 80, or `http_port`) whose redirect chain the redirection test
    reads; and a CORS preflight (OPTIONS with an Origin) to the final URL, whose answer the CORS test reads.

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
            request = http.build_request("GET", current, headers=headers, timeout=timeout, extensions={"trace": trace.on_network})
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
            side_timeout = min(timeout, SIDE_TIMEOUT)
            http_chain, http_verified = None, True
            if urlsplit(url).scheme.lower() == "https":
                http_chain, http_verified = await _http_chain(http, url, http_port, side_timeout, deadline)
            own = (url, own_headers) if own_headers else None  # as the site's own fetch: its origin only
            cors = await _preflight(http, current, own, side_timeout, deadline)
            graded = grade_headers(
                response.headers,
                is_https=current.startswith("https"),
                body=bytes(body),
                url=current,
                redirects=[(hop.url, hop.status_code) for hop in trace.hops],
                http_redirects=http_chain,
                http_verified=http_verified,
                cors_origin=CORS_ORIGIN if cors is not None else None,
                cors_headers=cors,
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
