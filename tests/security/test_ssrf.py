"""Server-side request forgery: which addresses the monitor may reach, DNS rebinding, the TLS-expiry
handshake, and the checks made when a site is saved.

Nothing here leaves the machine. `FakeNetwork` answers DNS for the test names (socket.getaddrinfo,
which every resolver in the process ends up calling) and stands in for the internet: a connection
to a public address reaches a local server routed for it, or fails at once; loopback connections
are real (the "internal" servers an attacker would like to reach).
"""

from __future__ import annotations

import asyncio
import http.server
import ipaddress
import socket
import ssl
import threading

import anyio
import httpcore
import pytest
from sqlalchemy import func
from sqlmodel import select

from secdash.models import Site
from secdash.services.errors import Invalid
from secdash.services.monitoring import sites
from secdash.services.probe import AddressRefused, PinnedBackend, ProbeClient, probe_site
from tests.factories import make_user
from tests.support.web_servers import STRONG_HEADERS, LocalCA

PUBLIC = "8.8.8.8"  # any global address: the fake internet routes it to a local server


class RecordingServer:
    """A local HTTP(S) server on 127.0.0.1 that counts connections (before any TLS handshake),
    and records requests and the TLS server names (SNI) clients asked for."""

    def __init__(self, routes: dict[str, tuple[int, dict[str, str]]] | None = None, tls: ssl.SSLContext | None = None) -> None:
        self.connections = 0
        self.requests: list[tuple[str, str | None]] = []
        self.sni: list[str | None] = []
        table = routes or {}
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                outer.requests.append((self.path, self.headers.get("Host")))
                status, headers = table.get(self.path, (200, STRONG_HEADERS))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def get_request(self):
                conn, address = self.socket.accept()
                outer.connections += 1
                if tls is not None:
                    conn.settimeout(5)
                    conn = tls.wrap_socket(conn, server_side=True)
                return conn, address

        if tls is not None:
            tls.sni_callback = lambda _sock, name, _ctx: outer.sni.append(name)
        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class FakeNetwork:
    """Fake DNS for chosen names and a fake internet for public addresses."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.answers: dict[str, list[list[str]]] = {}
        self.routes: dict[str, int] = {}  # public address -> port of the local server playing it
        self.lookups: list[str] = []
        self.connects: list[str] = []  # every address a TCP connection was opened to
        real_getaddrinfo = socket.getaddrinfo
        real_connect_tcp = anyio.connect_tcp

        def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):  # noqa: A002
            name = host.decode() if isinstance(host, bytes) else host
            if name not in self.answers:
                return real_getaddrinfo(host, port, family, type, proto, flags)
            self.lookups.append(name)
            queue = self.answers[name]
            addresses = queue.pop(0) if len(queue) > 1 else queue[0]
            if not addresses:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            number = int(port or 0)
            return [
                (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (a, number, 0, 0))
                if ":" in a
                else (socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, number))
                for a in addresses
            ]

        async def connect_tcp(remote_host, remote_port, **kwargs):
            host = str(remote_host)
            try:
                address = ipaddress.ip_address(host)
            except ValueError:  # a name: resolve it as anyio would, once
                infos = await anyio.to_thread.run_sync(socket.getaddrinfo, host, remote_port, 0, socket.SOCK_STREAM)
                address = ipaddress.ip_address(infos[0][4][0])
            self.connects.append(str(address))
            if str(address) in self.routes:
                return await real_connect_tcp("127.0.0.1", self.routes[str(address)], **kwargs)
            if address.is_loopback:
                return await real_connect_tcp(str(address), remote_port, **kwargs)
            raise OSError(f"network unreachable in tests: {address}")

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
        monkeypatch.setattr(anyio, "connect_tcp", connect_tcp)

    def answer(self, name: str, *lookups: list[str]) -> None:
        """Successive lookups of name get these answers; the last one repeats."""
        self.answers[name] = [list(answer) for answer in lookups]


@pytest.fixture
def net(monkeypatch):
    return FakeNetwork(monkeypatch)


@pytest.fixture
def internal():
    """An internal service on the loopback address that an attacker would like the monitor to reach."""
    server = RecordingServer()
    yield server
    server.close()


# --- address policy ---------------------------------------------------------------------------

NON_GLOBAL = [
    "100.64.0.1",  # carrier-grade NAT
    "100.127.255.254",
    "[2002:7f00:1::]",  # 6to4 around 127.0.0.1
    "[2002:a9fe:a9fe::1]",  # 6to4 around 169.254.169.254
    "[64:ff9b::7f00:1]",  # NAT64 around 127.0.0.1
    "[64:ff9b::a9fe:a9fe]",  # NAT64 around 169.254.169.254
    "[64:ff9b:1::a00:1]",  # local-use NAT64
    "[::ffff:127.0.0.1]",  # IPv4-mapped
    "[::ffff:a9fe:a9fe]",
    "[::127.0.0.1]",  # IPv4-compatible (deprecated)
    "[2001:0:4136:e378:8000:63bf:80ff:fffe]",  # Teredo
    "0.0.0.0",  # noqa: S104
    "[::]",
    "198.18.0.1",  # benchmarking
    "192.0.2.10",  # documentation
    "240.0.0.1",  # reserved
    "224.0.0.1",  # multicast
    "[ff02::1]",
    "[fd00::1]",
    "[fe80::1]",
]


@pytest.mark.parametrize("host", NON_GLOBAL)
async def test_non_global_addresses_are_blocked_before_any_connection(net, host):
    result = await probe_site(f"http://{host}/", timeout=1)
    assert result.error is not None and result.error.startswith("Blocked"), result.error
    assert result.status_code is None and net.connects == []


@pytest.mark.parametrize("host", ["2130706433", "0x7f.1", "0x7f000001", "0177.0.0.1", "127.1", "[::ffff:127.0.0.1]", "localhost"])
async def test_other_spellings_of_loopback_are_blocked(net, internal, host):
    result = await probe_site(f"http://{host}:{internal.port}/", timeout=1)
    assert result.error is not None and result.error.startswith("Blocked"), result.error
    assert internal.connections == 0 and "127.0.0.1" not in net.connects


# --- DNS rebinding -----------------------------------------------------------------------------


async def test_dns_rebinding_never_reaches_the_loopback_address(net, internal):
    """The name answers a public address first (what a check sees) and 127.0.0.1 afterwards."""
    net.answer("rebind.test", [PUBLIC], ["127.0.0.1"])
    result = await probe_site(f"http://rebind.test:{internal.port}/", timeout=1)
    assert internal.connections == 0 and internal.requests == []
    assert "127.0.0.1" not in net.connects
    assert result.status_code is None and result.error is not None


async def test_a_name_with_any_private_answer_is_blocked(net, internal):
    net.answer("mixed.test", [PUBLIC, "127.0.0.1"])
    result = await probe_site(f"http://mixed.test:{internal.port}/", timeout=1)
    assert result.error == "Blocked: private address 127.0.0.1"
    assert net.connects == [] and internal.connections == 0


async def test_redirect_to_a_carrier_grade_nat_address_is_blocked(net):
    public = RecordingServer({"/": (302, {"Location": "http://100.64.0.1/admin"})})
    net.routes[PUBLIC] = public.port
    try:
        result = await probe_site(f"http://{PUBLIC}/", timeout=1)
    finally:
        public.close()
    assert result.error == "Blocked: private address 100.64.0.1"
    assert net.connects == [PUBLIC] and result.final_url == "http://100.64.0.1/admin"


async def test_redirect_to_a_rebinding_name_is_blocked(net, internal):
    public = RecordingServer({"/": (302, {"Location": f"http://rebind.test:{internal.port}/"})})
    net.routes[PUBLIC] = public.port
    net.answer("rebind.test", [PUBLIC], ["127.0.0.1"])
    try:
        await probe_site(f"http://{PUBLIC}/", timeout=1)
    finally:
        public.close()
    assert internal.connections == 0 and "127.0.0.1" not in net.connects


async def test_tls_expiry_handshake_is_checked_and_pinned_too(net, internal, tmp_path):
    """A public site with an untrusted certificate makes the probe read the certificate again without
    verifying it; that second connection must not follow the name to 127.0.0.1 either."""
    tls = LocalCA(tmp_path).server_context(days_valid=30, name="public")
    public = RecordingServer(tls=tls)
    net.routes[PUBLIC] = public.port
    net.answer("shop.test", [PUBLIC], ["127.0.0.1"])
    try:
        result = await probe_site(f"https://shop.test:{internal.port}/", timeout=2)
    finally:
        public.close()
    assert internal.connections == 0 and "127.0.0.1" not in net.connects
    assert result.error == "TLS certificate not trusted"


# --- pinning: one lookup per connection, every address checked, the name kept for Host and SNI ---


async def test_the_checked_address_is_the_address_connected_to(internal):
    lookups: list[str] = []

    async def resolver(host: str, port: int) -> list[str]:
        lookups.append(host)
        return ["127.0.0.1"] if len(lookups) == 1 else ["10.255.255.1"]  # a second lookup would go elsewhere

    async with ProbeClient(allow_private=True, resolver=resolver) as client:
        result = await probe_site(f"http://pinned.test:{internal.port}/", client=client, allow_private=True, timeout=2)
    # The GET made one lookup and connected to the address it checked (a second lookup would have gone elsewhere).
    # The CORS preflight after it (the Observatory's) is a connection of its own: one lookup of its own, checked too.
    assert result.status_code == 200 and lookups == ["pinned.test", "pinned.test"]
    assert internal.requests == [("/", f"pinned.test:{internal.port}")]  # Host keeps the name


async def test_tls_keeps_the_name_for_sni_and_the_expiry_handshake_is_pinned(net, tmp_path):
    public = RecordingServer(tls=LocalCA(tmp_path).server_context(days_valid=30, name="public"))
    net.routes[PUBLIC] = public.port
    net.answer("shop.test", [PUBLIC])
    try:
        result = await probe_site(f"https://shop.test:{public.port}/", timeout=2)
    finally:
        public.close()
    assert result.error == "TLS certificate not trusted" and result.tls_days_left == 30
    assert public.sni == ["shop.test", "shop.test"]  # the request, then the unverified expiry read
    assert net.lookups == ["shop.test", "shop.test"] and net.connects == [PUBLIC, PUBLIC]


class RecordingNetwork(httpcore.AsyncNetworkBackend):
    """Stands in for the socket layer under PinnedBackend: records where it was asked to connect."""

    def __init__(self, unreachable: set[str]) -> None:
        self.unreachable, self.calls = unreachable, []

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        self.calls.append(host)
        if host in self.unreachable:
            raise httpcore.ConnectError(f"{host} unreachable")
        return httpcore.AsyncMockStream([])


async def test_every_resolved_address_is_checked_and_only_checked_ones_are_tried():
    async def resolver(host: str, port: int) -> list[str]:
        return {"mixed.test": [PUBLIC, "fd00::1"], "two.test": [PUBLIC, "1.1.1.1"]}[host]

    network = RecordingNetwork(unreachable={PUBLIC})
    backend = PinnedBackend(resolver=resolver, network=network)
    with pytest.raises(AddressRefused, match="private address fd00::1"):
        await backend.connect_tcp("mixed.test", 443)
    assert network.calls == []
    await backend.connect_tcp("two.test", 443)
    assert network.calls == [PUBLIC, "1.1.1.1"]  # the next checked address when the first is down
    with pytest.raises(AddressRefused):
        await backend.connect_unix_socket("/run/docker.sock")


async def test_a_resolver_that_never_answers_times_out_like_a_connection():
    async def resolver(host: str, port: int) -> list[str]:
        await asyncio.sleep(60)
        return [PUBLIC]

    async with ProbeClient(resolver=resolver) as client:
        result = await probe_site("http://slow-dns.test/", client=client, timeout=0.2)
    assert result.error == "Timed out after 0.2s" and result.status_code is None


async def test_proxies_from_the_environment_are_not_used(monkeypatch, internal):
    """A proxy would resolve and connect on its own, past every check."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    result = await probe_site(f"http://127.0.0.1:{internal.port}/", allow_private=True, timeout=2)
    assert result.status_code == 200 and internal.requests == [("/", f"127.0.0.1:{internal.port}")]


# --- the check when a site is saved ----------------------------------------------------------


async def _site_count(session) -> int:
    return (await session.exec(select(func.count()).select_from(Site))).one()


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://192.168.1.1/", "192.168.1.1 is a private address"),
        ("http://10.0.0.5:8080/admin", "10.0.0.5 is a private address"),
        ("http://100.64.0.1/", "100.64.0.1 is a carrier-grade NAT address"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
        ("http://127.0.0.1:8000/", "127.0.0.1 is a loopback address"),
        ("http://2130706433/", "2130706433 resolves to 127.0.0.1, a loopback address"),
        ("http://0x7f.1/", "0x7f.1 resolves to 127.0.0.1, a loopback address"),
        ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1 is a loopback address"),
        ("http://[2002:7f00:1::]/", "2002:7f00:1:: is a loopback address"),
        ("http://[fd00::1]/", "fd00::1 is a private address"),
        ("http://0.0.0.0/", "0.0.0.0 is an unspecified address"),
    ],
)
async def test_saving_a_private_target_is_refused_with_a_clear_message(session, url, shown):
    admin = await make_user(session, "root@example.com", role="admin")
    with pytest.raises(Invalid) as refused:
        await sites.create_site(session=session, actor=admin, name="Internal", url=url)
    assert refused.value.message.startswith(f"url: {shown}")
    assert "tick 'Allow a private or local address' to monitor it" in refused.value.message
    assert await _site_count(session) == 0


async def test_saving_a_name_that_resolves_to_a_private_address_is_refused(session, net):
    admin = await make_user(session, "root@example.com", role="admin")
    net.answer("intranet.test", [PUBLIC, "10.1.2.3"])
    with pytest.raises(Invalid, match=r"^url: intranet.test resolves to 10.1.2.3, a private address; tick"):
        await sites.create_site(session=session, actor=admin, name="Intranet", url="https://intranet.test/")
    assert await _site_count(session) == 0


async def test_saving_a_name_that_does_not_resolve_is_refused(session, net):
    admin = await make_user(session, "root@example.com", role="admin")
    net.answer("nowhere.test", [])
    with pytest.raises(Invalid, match=r"^url: nowhere.test does not resolve"):
        await sites.create_site(session=session, actor=admin, name="Nowhere", url="https://nowhere.test/")
    assert await _site_count(session) == 0


async def test_saving_waits_only_briefly_for_the_name_to_resolve(session, monkeypatch):
    admin = await make_user(session, "root@example.com", role="admin")

    async def never(host: str, port: int) -> list[str]:
        await asyncio.sleep(60)
        return [PUBLIC]

    monkeypatch.setattr(sites, "resolve", never)
    monkeypatch.setattr(sites, "RESOLVE_TIMEOUT_SECONDS", 0.1)
    with pytest.raises(Invalid, match=r"^url: slow-dns.test did not resolve within 0.1 s"):
        await sites.create_site(session=session, actor=admin, name="Slow", url="https://slow-dns.test/")
    assert await _site_count(session) == 0


async def test_private_targets_are_saved_when_allowed_and_public_ones_always(session, net):
    admin = await make_user(session, "root@example.com", role="admin")
    net.answer("shop.test", [PUBLIC])
    lan = await sites.create_site(session=session, actor=admin, name="NAS", url="http://192.168.1.1/", allow_private=True)
    shop = await sites.create_site(session=session, actor=admin, name="Shop", url="https://shop.test/")
    assert (lan.allow_private, shop.allow_private) == (True, False)
    assert await _site_count(session) == 2


async def test_update_checks_a_new_url_and_turning_allow_private_off(session, settings):
    admin = await make_user(session, "root@example.com", role="admin")
    lan = await sites.create_site(session=session, actor=admin, name="NAS", url="http://192.168.1.1/", allow_private=True)
    with pytest.raises(Invalid, match="192.168.1.1 is a private address"):
        await sites.update_site(session=session, actor=admin, site_id=lan.id, name="NAS", url="http://192.168.1.1/")
    public = await sites.create_site(session=session, actor=admin, name="Public", url=f"http://{PUBLIC}/")
    with pytest.raises(Invalid, match="169.254.169.254 is a link-local address"):
        await sites.update_site(
            session=session, actor=admin, site_id=public.id, name="Public", url="http://169.254.169.254/latest/meta-data/"
        )
    await session.refresh(lan)
    await session.refresh(public)
    assert lan.allow_private and public.url == f"http://{PUBLIC}/"


async def test_demo_sites_are_exempt(session, settings):
    """The bundled demo sites live on this server (a loopback address): renaming one keeps working."""
    admin = await make_user(session, "root@example.com", role="admin")
    stock = (await sites.init_default_sites(session=session, settings=settings, actor=admin))[0]
    renamed = await sites.update_site(session=session, actor=admin, site_id=stock.id, name="Stock 2", url=stock.url)
    assert renamed.name == "Stock 2" and renamed.is_demo


async def test_url_length_is_capped_at_2048_characters(session):
    admin = await make_user(session, "root@example.com", role="admin")
    base = f"https://{PUBLIC}/"
    longest = base + "a" * (2048 - len(base))
    saved = await sites.create_site(session=session, actor=admin, name="Long", url=longest)
    assert len(saved.url) == 2048
    with pytest.raises(Invalid, match=r"^url must be at most 2,048 characters"):
        await sites.create_site(session=session, actor=admin, name="Longer", url=longest + "a")
    with pytest.raises(Invalid, match=r"^url must be at most 2,048 characters"):
        await sites.update_site(session=session, actor=admin, site_id=saved.id, name="Long", url=longest + "a")
    with pytest.raises(Invalid, match=r"^name must be at most 80 characters"):
        await sites.create_site(session=session, actor=admin, name="n" * 81, url=base)
    assert await _site_count(session) == 1


@pytest.mark.parametrize(
    ("url", "domain"),
    [
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("https://shop.test:8443/a/b?c=d#e", "shop.test:8443"),
        ("http://[fd00::1]:8080/x", "[fd00::1]:8080"),
        ("HTTPS://Shop.Test/", "shop.test"),
    ],
)
async def test_domain_is_the_host_and_port_only(session, net, url, domain):
    admin = await make_user(session, "root@example.com", role="admin")
    net.answer("shop.test", [PUBLIC])
    site = await sites.create_site(session=session, actor=admin, name="Site", url=url, allow_private=True)
    assert site.domain == domain
