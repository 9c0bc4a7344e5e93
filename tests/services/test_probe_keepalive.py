"""The monitor's probe clients keep connections across rounds (issue 26), and a probe says when it reused one:
its times then leave out connect and TLS. A fresh client (the monitor's periodic full measurement) opens its own."""

from __future__ import annotations

import pytest

from secdash.services.probe import POOL_KEY, ProbeClients, network, probe_site
from tests.support.web_servers import STRONG_HEADERS as STRONG
from tests.support.web_servers import LocalCA, LocalSite


@pytest.fixture
def ca(tmp_path):
    return LocalCA(tmp_path)


async def test_a_kept_connection_serves_the_next_probe_and_the_result_says_so():
    server = LocalSite({"/": (200, STRONG, b"ok", 0.0)}, keep_alive=True)
    POOL_KEY.set(7)  # the site's own pool, as the monitor's probes name it
    try:
        async with ProbeClients(keepalive_seconds=60) as clients:
            first = await probe_site(server.base + "/", client=clients.get(allow_private=True), allow_private=True)
            second = await probe_site(server.base + "/", client=clients.get(allow_private=True), allow_private=True)
            fresh = await probe_site(server.base + "/", client=clients.get(allow_private=True, fresh=True), allow_private=True)
    finally:
        server.close()
    assert first.status_code == second.status_code == fresh.status_code == 200
    assert not first.connection_reused and second.connection_reused and not fresh.connection_reused
    assert server.connections == 2  # the kept pool's one connection (GET and preflight, both probes) and the fresh one
    assert second.grade == first.grade and second.findings == first.findings


async def test_without_kept_connections_every_round_connects_and_the_cli_client_never_reuses():
    server = LocalSite({"/": (200, STRONG, b"ok", 0.0)})  # HTTP/1.0: the server closes each connection
    try:
        async with ProbeClients(keepalive_seconds=60) as clients:
            for _ in range(2):
                result = await probe_site(server.base + "/", client=clients.get(allow_private=True), allow_private=True)
                assert not result.connection_reused
        alone = await probe_site(server.base + "/", allow_private=True)
    finally:
        server.close()
    assert not alone.connection_reused


async def test_each_site_keeps_its_own_connection_up_to_a_bound_and_idle_pools_are_closed(monkeypatch):
    server = LocalSite({"/": (200, STRONG, b"ok", 0.0)}, keep_alive=True)
    monkeypatch.setattr(network, "kept_pools_limit", lambda: 2)
    monkeypatch.setattr(network, "SWEEP_SECONDS", 0.0)

    async def probe(key: int, clients: ProbeClients):
        POOL_KEY.set(key)
        return await probe_site(server.base + "/", client=clients.get(allow_private=True), allow_private=True)

    try:
        async with ProbeClients(keepalive_seconds=60) as clients:
            for _round in range(2):
                results = [await probe(key, clients) for key in (1, 2, 3)]
            pools = clients.get(allow_private=True)._transport._pool  # type: ignore[attr-defined]
            assert isinstance(pools, network.SitePools) and pools.kept == 2  # the third site: the shared pool
            assert all(result.connection_reused for result in results)
            assert server.connections == 3
            pools._expiry = 0.0  # every kept pool is now idle for too long: the next request closes them
            await probe(1, clients)
            assert pools.kept == 1
    finally:
        server.close()


async def test_a_reused_tls_connection_still_reports_the_certificate(ca):
    server = LocalSite({"/": (200, STRONG, b"ok", 0.0)}, tls=ca.server_context(days_valid=30, name="kept"), keep_alive=True)
    POOL_KEY.set(1)
    try:
        async with ProbeClients(keepalive_seconds=60, verify=ca.client_context()) as clients:
            first = await probe_site(server.base + "/", client=clients.get(allow_private=True), allow_private=True)
            second = await probe_site(server.base + "/", client=clients.get(allow_private=True), allow_private=True)
    finally:
        server.close()
    assert first.error is None and second.error is None and second.connection_reused
    assert second.tls_expires_at == first.tls_expires_at and second.tls_days_left is not None
