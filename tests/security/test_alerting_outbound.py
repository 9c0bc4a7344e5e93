"""The outbound guard of deliveries (issue 21, item 6), on its own: inside `guarded()` every socket connection and
datagram is checked against the address rules, a name is resolved once and the socket uses the checked address,
requests follows no redirect; outside it (other threads, other tasks) nothing changes.

Nothing leaves the machine: the one "public" address is routed, after the guard's check, to a local server.
"""

from __future__ import annotations

import socket
import threading

import pytest
import requests

from secdash.services.alerting import outbound
from tests.security.test_alerting_ssrf import Redirector, TcpListener, UdpListener
from tests.security.test_ssrf import PUBLIC, FakeNetwork
from tests.support.notify_receivers import WebhookReceiver


@pytest.fixture
def net(monkeypatch):
    return FakeNetwork(monkeypatch)


@pytest.fixture
def internet(monkeypatch):
    """Routes the public test address to a local listener once the guard has let it through (as FakeNetwork does
    for the monitor); anything else that is not loopback fails at once."""
    routes: dict[str, int] = {}
    raw = outbound._raw_connect

    def connect(sock, address):
        host, port = address[0], address[1]
        if host in routes:
            return raw(sock, ("127.0.0.1", routes[host]))
        if host not in ("127.0.0.1", "::1"):
            raise OSError(f"network unreachable in tests: {host}")
        return raw(sock, (host, port))

    monkeypatch.setattr(outbound, "_raw_connect", connect)
    return routes


@pytest.fixture
def listener():
    server = TcpListener()
    yield server
    server.close()


def test_inside_the_guard_loopback_connections_and_datagrams_are_refused(listener):
    udp = UdpListener()
    try:
        with outbound.guarded(allow_private=False) as policy:
            for target in (("127.0.0.1", listener.port), ("localhost", listener.port)):
                with pytest.raises(outbound.AddressBlocked, match="a loopback address"):
                    socket.create_connection(target, timeout=1)
            with (
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock,
                pytest.raises(outbound.AddressBlocked, match="127.0.0.1 is a loopback address"),
            ):
                sock.sendto(b"<13>hello", ("127.0.0.1", udp.port))
            with pytest.raises(requests.ConnectionError):
                requests.post(f"http://127.0.0.1:{listener.port}/hook", json={}, timeout=2)
        assert len(policy.blocked) >= 4  # localhost may answer ::1 and 127.0.0.1: each is refused
        assert listener.connections == 0 and udp.packets == []
        with outbound.guarded(allow_private=True):  # a channel allowed private addresses reaches them
            socket.create_connection(("127.0.0.1", listener.port), timeout=1).close()
        socket.create_connection(("127.0.0.1", listener.port), timeout=1).close()  # and outside the guard, as ever
    finally:
        udp.close()
    assert _eventually(lambda: listener.connections == 2)


def _eventually(check, seconds: float = 3.0) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.02)
    return check()


def test_the_guard_holds_only_in_its_own_thread(listener):
    """A delivery's guard must not refuse what another thread of the server does at the same moment (the monitor,
    a sign-in), nor may another thread's lack of a guard open a hole in the delivery's."""
    inside, outside = threading.Barrier(2, timeout=5), []

    def delivery() -> None:
        with outbound.guarded(allow_private=False):
            inside.wait()
            try:
                socket.create_connection(("127.0.0.1", listener.port), timeout=1).close()
                outside.append("delivery connected")
            except outbound.AddressBlocked:
                outside.append("delivery refused")
            inside.wait()

    def other() -> None:
        inside.wait()
        socket.create_connection(("127.0.0.1", listener.port), timeout=1).close()
        outside.append("other connected")
        inside.wait()

    threads = [threading.Thread(target=delivery), threading.Thread(target=other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(outside) == ["delivery refused", "other connected"]
    assert _eventually(lambda: listener.connections == 1)


def test_a_name_is_resolved_once_and_the_checked_address_is_the_one_used(net, internet):
    public = TcpListener()
    internet[PUBLIC] = public.port
    try:
        net.answer("twice.test", [PUBLIC], ["127.0.0.1"])  # a second lookup would answer the loopback address
        with outbound.guarded(allow_private=False) as policy:
            socket.create_connection(("twice.test", 80), timeout=1).close()
        assert net.lookups == ["twice.test"] and policy.blocked == []
        assert _eventually(lambda: public.connections == 1)
    finally:
        public.close()


def test_a_public_server_redirecting_to_an_internal_one_is_not_followed(net, internet):
    internal = WebhookReceiver()
    public = Redirector(f"http://127.0.0.1:{internal.port}/admin")
    internet[PUBLIC] = public.port
    try:
        net.answer("hooks.test", [PUBLIC])
        with outbound.guarded(allow_private=False):
            response = requests.post("http://hooks.test/hook", json={}, timeout=2, allow_redirects=True)
        assert response.status_code == 307 and public.hits == 1
        assert internal.attempts == 0
    finally:
        public.close()
        internal.close()
