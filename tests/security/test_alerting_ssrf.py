"""Alerting must not become a way into the internal network (issue 21, items 5 and 6).

Every apprise service whose URL names the host it connects to (kodi, hassio, rsyslog over UDP, irc over raw TCP,
e-mail's SMTP host...) has that host resolved and checked; a service SecDash cannot place is refused unless the
channel allows private addresses; a send never connects to an address the check would refuse (a name that
answers a public address to the check and 127.0.0.1 to apprise, the DNS rebinding of the report) and never
follows a redirect.

Nothing leaves the machine: the "internal" listeners are on 127.0.0.1, `FakeNetwork` (test_ssrf.py) answers DNS
for the test names, and the vendor services are only saved, never sent to.
"""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from secdash.models.alerting import NotificationChannel
from secdash.services.alerting import channels, deliver_job, deliveries, secret_box, targets
from secdash.services.errors import Invalid
from tests.factories import make_user
from tests.security.test_ssrf import PUBLIC, FakeNetwork
from tests.support.notify_receivers import WebhookReceiver


class TcpListener:
    """A TCP port on 127.0.0.1 that counts the connections made to it (the port-scan oracle of the report)."""

    def __init__(self) -> None:
        self.connections = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.sock.settimeout(0.2)
        self.running = True
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.running = False
        self.sock.close()


class UdpListener:
    """A UDP port on 127.0.0.1 (rsyslog sends datagrams: no connection to count, the packets are)."""

    def __init__(self) -> None:
        self.packets: list[bytes] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.running = True
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while self.running:
            try:
                self.packets.append(self.sock.recv(65535))
            except OSError:
                continue

    def close(self) -> None:
        self.running = False
        self.sock.close()


@pytest.fixture
def listener():
    server = TcpListener()
    yield server
    server.close()


@pytest.fixture
def udp():
    server = UdpListener()
    yield server
    server.close()


@pytest.fixture
def net(monkeypatch):
    return FakeNetwork(monkeypatch)


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch):
    monkeypatch.setattr(deliver_job, "BACKOFF_SECONDS", 0.01)


# Services that send to the host their URL names; the report found the first 13 accepted at 127.0.0.1.
LOOPBACK_URLS = [
    "kodi://127.0.0.1:{port}",
    "xbmc://127.0.0.1:{port}",
    "hassio://127.0.0.1:{port}/accesstoken1234",
    "emby://user:pw@127.0.0.1:{port}",
    "jellyfin://user:pw@127.0.0.1:{port}",
    "rsyslog://127.0.0.1:{port}",
    "irc://bot@127.0.0.1:{port}/%23ops",
    "mastodon://token1234@127.0.0.1:{port}",
    "bark://127.0.0.1:{port}/devkey123",
    "synology://127.0.0.1:{port}/token1234",
    "lametric://apikey1234567890@127.0.0.1:{port}",
    "gorush://127.0.0.1:{port}/devicetoken123",
    "enigma2://127.0.0.1:{port}",
    "misskey://token@127.0.0.1:{port}",
    "ncloud://user:pw@127.0.0.1:{port}/admin",
    "pjet://127.0.0.1:{port}/secret",
    "onebot://127.0.0.1:{port}/123456",
    "parsep://appid:masterkey@127.0.0.1:{port}",
    "smseagle://token1234@127.0.0.1:{port}/15551234567",
    "workflow://127.0.0.1:{port}/workflowid/signature",
    "goalert://127.0.0.1:{port}/target",
    "evolution://apikey@127.0.0.1:{port}/instance/15551234567",
    "flowtriq://apikey@127.0.0.1:{port}/path/",
    "pinglet://token@127.0.0.1:{port}/ns/topic",
    "xmatters://apikey@127.0.0.1:{port}/integration",
    "infobip://apikey@127.0.0.1:{port}/15551234567",
    "notica://127.0.0.1:{port}/token123",
    "notifico://127.0.0.1:{port}/1234/abcdefgh",
    "pushdeer://127.0.0.1:{port}/pushkey",
    # e-mail: the SMTP host named by ?smtp= is where it connects, whatever the address's domain
    "mailto://user:pw@example.com?smtp=127.0.0.1&to=ops@example.com",
]


@pytest.mark.parametrize("url", LOOPBACK_URLS, ids=lambda url: url.split(":", 1)[0])
async def test_every_service_that_names_its_host_is_refused_at_a_loopback_address(session, listener, url):
    admin = await make_user(session, "root@example.com", role="admin")
    with pytest.raises(Invalid, match="127.0.0.1 resolves to 127.0.0.1, a loopback address; tick 'Allow a private"):
        await channels.create_channel(session=session, actor=admin, name="X", url=url.format(port=listener.port))
    allowed = await channels.create_channel(
        session=session, actor=admin, name="Lab", allow_private=True, url=url.format(port=listener.port)
    )
    assert allowed.allow_private and listener.connections == 0


# Services SecDash cannot place (local desktop or system notifiers, relays and push endpoints chosen elsewhere).
UNKNOWN_URLS = ["syslog://", "syslog://local5"]


@pytest.mark.parametrize("url", UNKNOWN_URLS)
async def test_a_service_whose_destination_cannot_be_told_needs_allow_private(session, url):
    admin = await make_user(session, "root@example.com", role="admin")
    with pytest.raises(Invalid, match="cannot tell where a syslog:// channel connects.*tick 'Allow a private"):
        await channels.create_channel(session=session, actor=admin, name="X", url=url)
    assert (await channels.create_channel(session=session, actor=admin, name="X", url=url, allow_private=True)).id


VENDOR_URLS = [
    "slack://T1AAAAAAA/B1BBBBBBB/C1CCCCCCCCCCCCCCCCCCC",
    "discord://1234567890/webhooktokenwebhooktoken",
    "tgram://123456789:abcdefg_hijklmnop/12345",
    "ntfys://mytopic",
    "pover://userkeyuserkeyuserkeyuserkey@tokentokentokentokentokentokent",
]


@pytest.mark.parametrize("url", VENDOR_URLS, ids=lambda url: url.split(":", 1)[0])
async def test_services_with_a_fixed_vendor_endpoint_are_accepted_without_a_lookup(session, monkeypatch, url):
    looked_up: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        looked_up.append(host)
        return [PUBLIC]

    monkeypatch.setattr(targets, "resolve", resolve)
    admin = await make_user(session, "root@example.com", role="admin")
    assert (await channels.create_channel(session=session, actor=admin, name="Vendor", url=url)).id
    assert looked_up == []  # the host part of these URLs is a token, not where the message goes


async def _old_channel(session, url: str) -> NotificationChannel:
    """A channel as a version without the rule saved it (no check then): the send must still refuse."""
    target = targets.read_url(url)
    row = NotificationChannel(
        name="Old",
        service=target.service,
        url_encrypted=secret_box.seal(url),
        url_masked=target.masked,
        enabled=True,
        allow_private=False,
    )
    session.add(row)
    await session.commit()
    return row


async def test_a_loopback_channel_saved_before_the_rule_never_reaches_its_tcp_listener(session, listener):
    admin = await make_user(session, "root@example.com", role="admin")
    for url in (f"kodi://127.0.0.1:{listener.port}", f"irc://bot@127.0.0.1:{listener.port}/%23ops"):
        row = await _old_channel(session, url)
        sent = await deliveries.send_test(session=session, actor=admin, channel_id=row.id)
        assert sent.outcome == "failed" and "a loopback address" in (sent.error or ""), sent.error
    assert listener.connections == 0


async def test_a_loopback_rsyslog_channel_sends_no_udp_datagram(session, udp):
    admin = await make_user(session, "root@example.com", role="admin")
    row = await _old_channel(session, f"rsyslog://127.0.0.1:{udp.port}")
    sent = await deliveries.send_test(session=session, actor=admin, channel_id=row.id)
    assert sent.outcome == "failed" and "a loopback address" in (sent.error or ""), sent.error
    assert udp.packets == []


async def test_dns_rebinding_between_the_check_and_the_send_never_reaches_the_loopback_address(session, net):
    """The name answers a public address to the save and to the check before the send, then 127.0.0.1 to the
    lookup apprise makes: the send must not connect to 127.0.0.1."""
    internal = WebhookReceiver()
    try:
        net.answer("rebind.test", [PUBLIC], [PUBLIC], ["127.0.0.1"])
        admin = await make_user(session, "root@example.com", role="admin")
        channel = await channels.create_channel(
            session=session, actor=admin, name="Rebind", url=f"json://rebind.test:{internal.port}/hook"
        )
        sent = await deliveries.send_test(session=session, actor=admin, channel_id=channel.id)
        assert internal.attempts == 0 and internal.received == []
        assert sent.outcome == "failed" and "127.0.0.1" in (sent.error or "") and "loopback" in sent.error
    finally:
        internal.close()


class Redirector:
    """An HTTP server on 127.0.0.1 that answers every POST with a 307 to `location`."""

    def __init__(self, location: str) -> None:
        self.hits = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                outer.hits += 1
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send_response(307)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("query", ["", "?redirect=yes"])
async def test_a_delivery_never_follows_a_redirect(session, query):
    """Even on a channel allowed to reach private addresses, a 307 elsewhere is not followed (the report's 307 to
    127.0.0.1 reached the internal service)."""
    internal = WebhookReceiver()
    redirector = Redirector(f"http://127.0.0.1:{internal.port}/internal")
    try:
        admin = await make_user(session, "root@example.com", role="admin")
        channel = await channels.create_channel(
            session=session, actor=admin, name="Hop", allow_private=True, url=f"json://127.0.0.1:{redirector.port}/hook{query}"
        )
        sent = await deliveries.send_test(session=session, actor=admin, channel_id=channel.id)
        assert redirector.hits >= 1
        assert internal.attempts == 0 and internal.received == []
        assert sent.outcome == "failed"
    finally:
        redirector.close()
        internal.close()
