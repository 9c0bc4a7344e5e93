"""The probe's connections: every one, redirect hops and the certificate re-read included, goes through
`PinnedBackend`. It resolves the name once, checks every address it got, and connects to a checked
address (no second lookup that a rebinding DNS server could answer differently). TLS SNI and the Host
header keep the name."""

from __future__ import annotations

import asyncio
import resource
import socket
import ssl
import time
from collections.abc import Awaitable, Callable, Hashable, Iterable
from contextvars import ContextVar
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


# The key of the connections a probe may keep (the monitor sets its site's id): see SitePools.
POOL_KEY: ContextVar[Hashable | None] = ContextVar("probe_pool_key", default=None)
SWEEP_SECONDS = 10.0  # how often SitePools closes the pools of sites no longer probed
SHARED_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)  # httpx's defaults (5-s idle expiry)


def kept_pools_limit(ceiling: int = 4000) -> int:
    """How many per-site pools a client keeps: a quarter of the process's open-file limit, at most `ceiling`."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return ceiling if soft == resource.RLIM_INFINITY else max(0, min(ceiling, soft // 4))


class SitePools:
    """The connection pool of a ProbeClient that keeps connections across monitor rounds: one small httpcore pool per
    (POOL_KEY, origin), idle connections kept `keepalive_expiry` seconds, at most `max_kept` such pools (a bound on
    open sockets); requests without a key, or beyond that bound, share one ordinary pool (httpx's limits and 5-s
    idle expiry). Why not one big pool: httpcore's pool looks at every connection it holds (a readability poll of
    each idle one) whenever a request starts or ends, so with hundreds kept that cost more CPU than the connects
    saved; a site's own pool holds one or two. Same interface as the pool httpx's transport calls."""

    def __init__(self, *, max_kept: int, keepalive_expiry: float, **options: Any) -> None:
        self._options = options
        self._expiry = keepalive_expiry
        self._max_kept = max_kept
        self._pools: dict[tuple[Hashable, bytes, bytes, int | None], tuple[httpcore.AsyncConnectionPool, float]] = {}
        self._shared = httpcore.AsyncConnectionPool(
            max_connections=SHARED_LIMITS.max_connections,
            max_keepalive_connections=SHARED_LIMITS.max_keepalive_connections,
            keepalive_expiry=SHARED_LIMITS.keepalive_expiry,
            **options,
        )
        self._swept = time.monotonic()

    def _pool(self, request: httpcore.Request) -> httpcore.AsyncConnectionPool:
        key = POOL_KEY.get()
        if key is None:
            return self._shared
        slot = (key, request.url.scheme, request.url.host, request.url.port)
        found = self._pools.get(slot)
        if found is not None:
            pool = found[0]
        elif len(self._pools) >= self._max_kept:
            return self._shared
        else:
            pool = httpcore.AsyncConnectionPool(
                max_connections=4, max_keepalive_connections=2, keepalive_expiry=self._expiry, **self._options
            )
        self._pools[slot] = (pool, time.monotonic())
        return pool

    async def _sweep(self) -> None:
        """Close the pools unused for longer than the idle expiry (a site removed, paused or moved), when idle."""
        now = time.monotonic()
        if now - self._swept < SWEEP_SECONDS:
            return
        self._swept = now
        for slot, (pool, used) in list(self._pools.items()):
            if now - used > self._expiry and all(connection.is_idle() for connection in pool.connections):
                del self._pools[slot]
                await pool.aclose()

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        await self._sweep()
        return await self._pool(request).handle_async_request(request)

    @property
    def kept(self) -> int:
        """How many per-site pools are open."""
        return len(self._pools)

    async def aclose(self) -> None:
        pools, self._pools = [pool for pool, _used in self._pools.values()], {}
        for pool in pools:
            await pool.aclose()
        await self._shared.aclose()

    async def __aenter__(self) -> SitePools:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()


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
        kept_pools: int | None = None,
    ) -> None:
        """kept_pools: keep connections per site (SitePools, at most that many pools, idle for up to
        limits.keepalive_expiry) instead of one pool for every request."""
        self.allow_private = allow_private
        self.backend = PinnedBackend(allow_private=allow_private, resolver=resolver, network=network)
        context = httpx.create_ssl_context(verify=verify, trust_env=False)
        transport = httpx.AsyncHTTPTransport(verify=context, trust_env=False, limits=limits)
        # httpx 0.28 has no public network_backend parameter: give its transport a pool that has one.
        if kept_pools is not None:
            transport._pool = SitePools(  # type: ignore[assignment]
                max_kept=kept_pools,
                ssl_context=context,
                keepalive_expiry=limits.keepalive_expiry or 0.0,
                network_backend=self.backend,
            )
        else:
            transport._pool = httpcore.AsyncConnectionPool(
                ssl_context=context,
                max_connections=limits.max_connections,
                max_keepalive_connections=limits.max_keepalive_connections,
                keepalive_expiry=limits.keepalive_expiry,
                network_backend=self.backend,
            )
        super().__init__(transport=transport, follow_redirects=False, trust_env=False)


class ProbeClients:
    """One ProbeClient per address policy, made when first needed; close with aclose or `async with`.

    `keepalive_seconds`: the clients keep idle connections that long, per site (SitePools: the caller names the site
    in POOL_KEY; the monitor gives a round's interval and a little more, so a site's connection serves its next
    round when the site keeps it open too); `get(fresh=True)`
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
            if self._keepalive is not None and fresh:
                options.setdefault("limits", SHARED_LIMITS)
            elif self._keepalive is not None:
                options.setdefault("limits", httpx.Limits(keepalive_expiry=self._keepalive))
                options.setdefault("kept_pools", kept_pools_limit())
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
