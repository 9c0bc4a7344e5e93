"""The probe's connections: every one, redirect hops and the certificate re-read included, goes through
`PinnedBackend`. It resolves the name once, checks every address it got, and connects to a checked
address (no second lookup that a rebinding DNS server could answer differently). TLS SNI and the Host
header keep the name."""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpcore
import httpx

from secdash.services.probe.addresses import AddressRefused, is_public_address

MAX_ADDRESSES_TRIED = 3  # a name with many unreachable addresses must not multiply the connect timeout

Resolver = Callable[[str, int], Awaitable[list[str]]]


async def resolve(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for host (IP literals, and the decimal, hex and octal
    IPv4 spellings, come back as the address they stand for). Raises socket.gaierror."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that resolves the host itself, checks every address with the
    policy, and connects to a checked address literal: the address checked is the address used."""

    def __init__(
        self,
        *,
        allow_private: bool = False,
        resolver: Resolver | None = None,
        network: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
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

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                addresses = await self.checked_addresses(host, port)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out") from None
        failure: Exception | None = None
        for address in addresses[:MAX_ADDRESSES_TRIED]:
            try:
                return await self._network.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise AddressRefused("Blocked: unix sockets are never probed")

    async def sleep(self, seconds: float) -> None:
        await self._network.sleep(seconds)


class ProbeClient(httpx.AsyncClient):
    """The HTTP client of the probes: every connection goes through a PinnedBackend with one address
    policy. Use one client per policy, so that a pooled connection opened for a site allowed to reach
    private addresses is never reused for one that is not. No proxies from the environment."""

    def __init__(
        self,
        *,
        allow_private: bool = False,
        verify: ssl.SSLContext | bool = True,
        resolver: Resolver | None = None,
        network: httpcore.AsyncNetworkBackend | None = None,
        limits: httpx.Limits = httpx.Limits(max_connections=100, max_keepalive_connections=20),
    ) -> None:
        self.allow_private = allow_private
        self.backend = PinnedBackend(allow_private=allow_private, resolver=resolver, network=network)
        context = httpx.create_ssl_context(verify=verify, trust_env=False)
        transport = httpx.AsyncHTTPTransport(verify=context, trust_env=False, limits=limits)
        # httpx 0.28 has no public network_backend parameter: give its transport a pool that has one.
        transport._pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=self.backend,
        )
        super().__init__(transport=transport, follow_redirects=False, trust_env=False)


# The monitor's pools keep connections open across its rounds (a connection stays idle for up to a round's
# interval): KEEPALIVE_CONNECTIONS idle ones at most per address policy, each closed after `keepalive_seconds` idle.
KEEPALIVE_CONNECTIONS = 200
FRESH_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)  # httpx's 5-s idle expiry


def keepalive_limits(keepalive_seconds: float) -> httpx.Limits:
    return httpx.Limits(max_connections=100, max_keepalive_connections=KEEPALIVE_CONNECTIONS, keepalive_expiry=keepalive_seconds)


class ProbeClients:
    """One ProbeClient per address policy, made when first needed; close with aclose or `async with`.

    `keepalive_seconds`: the clients keep idle connections that long (the monitor gives a round's interval and a
    little more, so a site's connection serves its next round when the site keeps it open too); `get(fresh=True)`
    then gives a second client per policy whose pool is apart (httpx's 5-s idle expiry), for a probe that must
    open its own connection and measure connect and TLS as curl does."""

    def __init__(self, *, keepalive_seconds: float | None = None, **options: Any) -> None:
        self._options = options
        self._keepalive = keepalive_seconds
        self._clients: dict[tuple[bool, bool], ProbeClient] = {}

    def get(self, *, allow_private: bool, fresh: bool = False) -> ProbeClient:
        fresh = fresh and self._keepalive is not None  # without kept connections every client is the fresh kind
        key = (allow_private, fresh)
        if key not in self._clients:
            options = dict(self._options)
            if self._keepalive is not None:
                options.setdefault("limits", FRESH_LIMITS if fresh else keepalive_limits(self._keepalive))
            self._clients[key] = ProbeClient(allow_private=allow_private, **options)
        return self._clients[key]

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()

    async def __aenter__(self) -> ProbeClients:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()
