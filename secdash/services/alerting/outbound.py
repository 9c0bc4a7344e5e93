"""Every connection a delivery makes is checked at the socket, and HTTP redirects are never followed.

The address rules are checked when a channel is saved and before each send (`targets.check_address`), but apprise
then resolves the name again itself (a DNS rebinding server answers 127.0.0.1 to that second lookup) and its HTTP
plugins follow redirects (a 307 to an internal address). So, while `guarded()` is active in the delivery's thread:

- every `connect`, `connect_ex`, `sendto` and `sendmsg` of a Python socket (what requests/urllib3, smtplib, the
  IRC, syslog, XMPP, MQTT... clients all use) checks the address it is given against the same rules as the site
  monitor (`probe.address_problem`); a name given instead of an address is resolved once, checked, and the
  socket connects to that checked address. The address checked is the address used: a second lookup that answers
  differently reaches nothing the rules refuse;
- requests never follows a redirect, and reads no proxy or .netrc credentials from the server's environment.

The switch is a context variable: it is on only in the delivery's own context (the worker thread `_send` runs in,
and threads apprise starts from it with a copy of the context); every other thread and task of the process is
untouched. The patches are installed once, on first use, and do nothing when the switch is off.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from secdash.services.probe import address_problem


class AddressBlocked(ConnectionRefusedError):
    """A delivery tried to reach an address its channel may not reach (an OSError: libraries see a refusal)."""


@dataclass
class Policy:
    allow_private: bool
    blocked: list[str] = field(default_factory=list)  # "127.0.0.1, a loopback address"


_policy: ContextVar[Policy | None] = ContextVar("secdash_alerting_outbound", default=None)
_install_lock = threading.Lock()
_installed = False
# The socket operations as Python defines them (`socket.socket` inherits them from `_socket.socket`).
_raw_connect = socket.socket.connect
_raw_connect_ex = socket.socket.connect_ex
_raw_sendto = socket.socket.sendto
_raw_sendmsg = getattr(socket.socket, "sendmsg", None)

INET = (socket.AF_INET, socket.AF_INET6)


def _refuse(policy: Policy, what: str, problem: str) -> AddressBlocked:
    policy.blocked.append(f"{what}, {problem}")
    return AddressBlocked(f"Blocked: {what} is {problem}")


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def _checked(sock: socket.socket, address: Any) -> Any:
    """The address to use for this socket operation: `address` itself, or the checked address a name resolves to;
    AddressBlocked when the rules refuse it."""
    policy = _policy.get()
    if policy is None or policy.allow_private:
        return address
    if sock.family not in INET or not isinstance(address, tuple) or len(address) < 2:
        raise _refuse(policy, f"a {getattr(sock.family, 'name', sock.family)} socket", "not an internet address")
    host, port, *rest = address
    host = host.decode() if isinstance(host, bytes) else str(host)
    if _is_address(host):
        problem = address_problem(host)
        if problem is not None:
            raise _refuse(policy, host, problem)
        return address
    try:  # a name: resolve it once, check every answer, use the first (what the check saw is what is used)
        infos = socket.getaddrinfo(host, port, sock.family, sock.type)
    except (OSError, UnicodeError) as exc:
        raise socket.gaierror(f"cannot resolve {host}") from exc
    for info in infos:
        problem = address_problem(str(info[4][0]))
        if problem is not None:
            raise _refuse(policy, f"{host} ({info[4][0]})", problem)
    if not infos:
        raise socket.gaierror(f"cannot resolve {host}")
    return (infos[0][4][0], port, *rest) if sock.family == socket.AF_INET6 else (infos[0][4][0], port)


def _connect(self: socket.socket, address: Any) -> None:
    return _raw_connect(self, _checked(self, address))


def _connect_ex(self: socket.socket, address: Any) -> int:
    return _raw_connect_ex(self, _checked(self, address))


def _sendto(self: socket.socket, data: Any, *args: Any) -> int:
    if len(args) == 1:
        return _raw_sendto(self, data, _checked(self, args[0]))
    flags, address = args
    return _raw_sendto(self, data, flags, _checked(self, address))


def _sendmsg(self: socket.socket, buffers: Any, ancdata: Any = (), flags: int = 0, address: Any = None) -> int:
    assert _raw_sendmsg is not None
    if address is None:
        return _raw_sendmsg(self, buffers, ancdata, flags)
    return _raw_sendmsg(self, buffers, ancdata, flags, _checked(self, address))


def _install() -> None:
    global _installed
    with _install_lock:
        if _installed:
            return
        import requests

        raw_request, raw_send = requests.Session.request, requests.Session.send

        def request(self: requests.Session, method: Any, url: Any, *args: Any, **kwargs: Any) -> Any:
            if _policy.get() is not None:
                self.trust_env = False  # no proxy, no .netrc credentials taken from the server's environment
                kwargs["allow_redirects"] = False
            return raw_request(self, method, url, *args, **kwargs)

        def send(self: requests.Session, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
            if _policy.get() is not None:
                kwargs["allow_redirects"] = False
            return raw_send(self, request, **kwargs)

        requests.Session.request, requests.Session.send = request, send  # type: ignore[method-assign]
        socket.socket.connect, socket.socket.connect_ex = _connect, _connect_ex  # type: ignore[method-assign,assignment]
        socket.socket.sendto = _sendto  # type: ignore[method-assign,assignment]
        if _raw_sendmsg is not None:
            socket.socket.sendmsg = _sendmsg  # type: ignore[method-assign,assignment]
        _installed = True


@contextmanager
def guarded(*, allow_private: bool) -> Iterator[Policy]:
    """Within this block (in this context only), sockets obey the address rules of the channel and requests
    follows no redirect. The policy's `blocked` lists what was refused."""
    _install()
    policy = Policy(allow_private=allow_private)
    token = _policy.set(policy)
    try:
        yield policy
    finally:
        _policy.reset(token)
