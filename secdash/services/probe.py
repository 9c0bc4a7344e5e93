"""Probing one website as a security monitor does: status, response time, TLS and header grade
(`header_grade.py` scores the headers).

Outbound rules (ARCHITECTURE.md): http/https only, timeouts, a body-size cap, redirects followed
by hand with every hop re-checked, non-global targets refused unless allowed. Every connection,
redirect hops and the TLS-expiry handshake included, goes through `PinnedBackend`: it resolves the
name once, checks every address it got, and connects to a checked address (no second lookup that
a rebinding DNS server could answer differently). TLS SNI and the Host header keep the name.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx

from secdash.services.header_grade import grade_headers

MAX_URL_LENGTH = 2048
MAX_ADDRESSES_TRIED = 3  # a name with many unreachable addresses must not multiply the connect timeout


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


def validate_target(url: str) -> str:
    """Accept only absolute http(s) URLs with a host and no credentials; return it normalised."""
    url = (url or "").strip()
    if len(url) > MAX_URL_LENGTH:
        raise ProbeRefused(f"the URL is longer than {MAX_URL_LENGTH:,} characters")
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise ProbeRefused("only http and https URLs can be monitored")
    if not parts.hostname:
        raise ProbeRefused("the URL has no host")
    if parts.username is not None or parts.password is not None:
        raise ProbeRefused("credentials in the URL are not allowed")
    try:
        parts.port  # noqa: B018 (raises on a port out of range)
    except ValueError:
        raise ProbeRefused("the URL has an invalid port") from None
    normalised = parts._replace(scheme=parts.scheme.lower(), path=parts.path or "/").geturl()
    try:
        httpx.URL(normalised)  # what the client will parse (it refuses e.g. 0177.0.0.1)
    except httpx.InvalidURL as exc:
        raise ProbeRefused(f"the URL is not valid ({exc})") from None
    return normalised


# --- address policy ---------------------------------------------------------------------------

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
CARRIER_GRADE_NAT = ipaddress.ip_network("100.64.0.0/10")
NAT64 = ipaddress.ip_network("64:ff9b::/96")              # well-known prefix: the low 32 bits are IPv4
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")      # RFC 8215 local-use: never global
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")           # deprecated IPv4-compatible IPv6 (and ::, ::1)


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (mapped, 6to4, Teredo, NAT64): they are checked too."""
    found = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
    if ip in NAT64 or ip in IPV4_COMPATIBLE:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return [v4 for v4 in found if v4 is not None]


def _kind(ip: Address) -> str | None:
    """Why an address may not be reached without permission ("a loopback address"), or None when it is global."""
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in CARRIER_GRADE_NAT:
        return "a carrier-grade NAT address"
    if ip.is_private:
        return "a private address"
    if not ip.is_global or ip.is_reserved or (isinstance(ip, ipaddress.IPv6Address) and ip in LOCAL_NAT64):
        return "a reserved address"
    return None


def address_problem(address: str) -> str | None:
    """None for an address the monitor may reach without "allow private"; else what it is, e.g.
    "a loopback address" or "a loopback address (it carries 127.0.0.1)" for 6to4, NAT64, mapped ones."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and not (ip.is_loopback or ip.is_unspecified):
        for v4 in _embedded_ipv4(ip):
            kind = _kind(v4)
            if kind is not None:
                return kind if ip.ipv4_mapped == v4 else f"{kind} (it carries {v4})"
        if ip in IPV4_COMPATIBLE:
            return "a reserved address"
        if ip in NAT64:  # a translated global IPv4 address (Python counts the prefix as reserved)
            return None
    return _kind(ip)


def is_public_address(address: str) -> bool:
    return address_problem(address) is None


Resolver = Callable[[str, int], Awaitable[list[str]]]


async def resolve(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for host (IP literals, and the decimal, hex and octal
    IPv4 spellings, come back as the address they stand for). Raises socket.gaierror."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class AddressRefused(ProbeRefused):
    """The target resolves to an address this probe may not reach."""


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that resolves the host itself, checks every address with the
    policy, and connects to a checked address literal: the address checked is the address used."""

    def __init__(self, *, allow_private: bool = False, resolver: Resolver | None = None,
                 network: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.allow_private = allow_private
        self._resolve = resolver or resolve
        self._network = network or httpcore.AnyIOBackend()

    async def checked_addresses(self, host: str, port: int) -> list[str]:
        """Resolve once; refuse (AddressRefused) when any address is not allowed."""
        try:
            addresses = await self._resolve(host, port)
        except (OSError, UnicodeError) as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}") from exc
        if not addresses:
            raise httpcore.ConnectError(f"cannot resolve {host}")
        if not self.allow_private:
            for address in addresses:
                if not is_public_address(address):
                    raise AddressRefused(f"Blocked: private address {address}")
        return addresses

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                addresses = await self.checked_addresses(host, port)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out") from None
        failure: Exception | None = None
        for address in addresses[:MAX_ADDRESSES_TRIED]:
            try:
                return await self._network.connect_tcp(address, port, timeout=timeout, local_address=local_address,
                                                       socket_options=socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        raise AddressRefused("Blocked: unix sockets are never probed")

    async def sleep(self, seconds: float) -> None:
        await self._network.sleep(seconds)


class ProbeClient(httpx.AsyncClient):
    """The HTTP client of the probes: every connection goes through a PinnedBackend with one address
    policy. Use one client per policy, so that a pooled connection opened for a site allowed to reach
    private addresses is never reused for one that is not. No proxies from the environment."""

    def __init__(self, *, allow_private: bool = False, verify: ssl.SSLContext | bool = True,
                 resolver: Resolver | None = None, network: httpcore.AsyncNetworkBackend | None = None,
                 limits: httpx.Limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)) -> None:
        self.allow_private = allow_private
        self.backend = PinnedBackend(allow_private=allow_private, resolver=resolver, network=network)
        context = httpx.create_ssl_context(verify=verify, trust_env=False)
        transport = httpx.AsyncHTTPTransport(verify=context, trust_env=False, limits=limits)
        # httpx 0.28 has no public network_backend parameter: give its transport a pool that has one.
        transport._pool = httpcore.AsyncConnectionPool(
            ssl_context=context, max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections, keepalive_expiry=limits.keepalive_expiry,
            network_backend=self.backend,
        )
        super().__init__(transport=transport, follow_redirects=False, trust_env=False)


class ProbeClients:
    """One ProbeClient per address policy, made when first needed; close with aclose or `async with`."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._clients: dict[bool, ProbeClient] = {}

    def get(self, *, allow_private: bool) -> ProbeClient:
        if allow_private not in self._clients:
            self._clients[allow_private] = ProbeClient(allow_private=allow_private, **self._options)
        return self._clients[allow_private]

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()

    async def __aenter__(self) -> ProbeClients:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()


def _days_left(not_after: float) -> int:
    return int((not_after - time.time()) // 86400)


def _peer_days_left(response: httpx.Response) -> int | None:
    stream = response.extensions.get("network_stream")
    ssl_object = stream.get_extra_info("ssl_object") if stream else None
    cert = ssl_object.getpeercert() if ssl_object else None
    return _days_left(ssl.cert_time_to_seconds(cert["notAfter"])) if cert and "notAfter" in cert else None


async def _unverified_days_left(url: str, timeout: float, backend: PinnedBackend) -> int | None:
    """The certificate's days left read without verifying it (for expired or untrusted ones), over a
    connection made like every other: resolved once, checked, pinned, with the name as SNI."""
    from cryptography import x509

    parts = urlsplit(url)
    host = parts.hostname or ""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        stream = await backend.connect_tcp(host, parts.port or 443, timeout=timeout)
    except (httpcore.ConnectError, httpcore.ConnectTimeout, ProbeRefused):
        return None
    try:
        stream = await stream.start_tls(context, server_hostname=host, timeout=timeout)
    except (httpcore.NetworkError, httpcore.TimeoutException, OSError):
        return None  # start_tls closed the connection
    try:
        ssl_object = stream.get_extra_info("ssl_object")
        der = ssl_object.getpeercert(binary_form=True) if ssl_object else None
        return _days_left(x509.load_der_x509_certificate(der).not_valid_after_utc.timestamp()) if der else None
    except ValueError:
        return None
    finally:
        await stream.aclose()


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


def _blocked(exc: ProbeRefused) -> str:
    return str(exc) if str(exc).startswith("Blocked") else f"Blocked: {exc}"


def _same_origin(one: str, other: str) -> bool:
    a, b = urlsplit(one), urlsplit(other)
    return (a.scheme, a.hostname, a.port) == (b.scheme, b.hostname, b.port)


async def probe_site(
    url: str, *, client: ProbeClient | None = None, timeout: float = 10.0, max_bytes: int = 1_000_000,
    max_redirects: int = 5, allow_private: bool = False, own_headers: dict[str, str] | None = None,
) -> ProbeResult:
    """Fetch the URL (following redirects by hand) and report what a security monitor needs. `own_headers` go
    with requests to the URL's own origin only (the monitor's mark for SecDash's demo sites).

    A client, when given, must be a ProbeClient with the same address policy (ProbeClients.get)."""
    if client is not None and (not isinstance(client, ProbeClient) or client.allow_private != allow_private):
        raise ValueError("probe_site needs a ProbeClient whose allow_private matches the probe's")
    checked_at = datetime.now(UTC)
    own_client = client is None
    http = client or ProbeClient(allow_private=allow_private)
    current = url
    try:
        for _hop in range(max_redirects + 1):
            try:
                current = validate_target(current)
            except ProbeRefused as exc:
                return ProbeResult(url=url, checked_at=checked_at, error=_blocked(exc), final_url=current)
            started = time.perf_counter()
            try:
                headers = {"User-Agent": "SecDash-Monitor/1.0"}
                if own_headers and _same_origin(current, url):  # only to the site asked for, never a redirect's
                    headers |= own_headers
                async with http.stream("GET", current, timeout=timeout, follow_redirects=False,
                                       headers=headers) as response:
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
            except ProbeRefused as exc:  # raised by PinnedBackend when it refused the address
                return ProbeResult(url=url, checked_at=checked_at, error=_blocked(exc), final_url=current)
            except (httpx.HTTPError, OSError, ssl.SSLError) as exc:
                error = _describe(exc, timeout)
                days = await _unverified_days_left(current, timeout, http.backend) if error.startswith("TLS") else None
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
