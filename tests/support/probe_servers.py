"""Local servers for measuring the probe: slow redirect chains, bodies that trickle, certificates that
expire at an exact instant. Used by the probe tests and by `bench/probe_vs_curl.py`.

A route is a `Step`: wait `delay` seconds, send the status line and headers, then send the body in
`chunks` pieces spread over `trickle` seconds (Content-Length is sent, so a client knows the body's end).
"""

from __future__ import annotations

import datetime as dt
import http.server
import ipaddress
import ssl
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.support.web_servers import STRONG_HEADERS, LocalCA


@dataclass(frozen=True)
class Step:
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: dict(STRONG_HEADERS))
    body: bytes = b"ok"
    delay: float = 0.0  # before the status line (the server "thinking")
    trickle: float = 0.0  # the body is sent over this many seconds
    chunks: int = 10


def redirect(location: str, delay: float = 0.0) -> Step:
    return Step(302, {"Location": location}, b"", delay)


class StepServer:
    """A threaded HTTP(S) server on 127.0.0.1 answering GETs from a table of Steps (404 otherwise)."""

    def __init__(self, routes: dict[str, Step], tls: ssl.SSLContext | None = None) -> None:
        table = routes

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: a redirect to the same server may reuse the connection

            def do_GET(self):  # noqa: N802
                step = table.get(self.path.split("?", 1)[0], Step(404, {}, b"missing"))
                if step.delay:
                    time.sleep(step.delay)
                self.send_response(step.status)
                for name, value in step.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(step.body)))
                self.end_headers()
                try:
                    self.wfile.flush()
                    if not step.trickle or not step.body:
                        self.wfile.write(step.body)
                        return
                    size = -(-len(step.body) // step.chunks)
                    pieces = [step.body[i : i + size] for i in range(0, len(step.body), size)]
                    for piece in pieces:
                        time.sleep(step.trickle / len(pieces))
                        self.wfile.write(piece)
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                    self.close_connection = True

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def get_request(self):
                conn, address = self.socket.accept()
                if tls is not None:
                    conn.settimeout(10)
                    conn = tls.wrap_socket(conn, server_side=True, do_handshake_on_connect=False)
                return conn, address

            def handle_error(self, request, client_address):
                pass  # a client that gave up (the probe at its body cap, a refused certificate) is not news

        self.httpd = Server(("127.0.0.1", 0), Handler)
        scheme = "https" if tls else "http"
        self.base = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> StepServer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def chain(hops: int, delay: float, final: Step | None = None) -> dict[str, Step]:
    """/hop1 -> /hop2 -> ... -> /final, each redirect answered after `delay` seconds."""
    routes = {f"/hop{i}": redirect(f"/hop{i + 1}" if i < hops else "/final", delay) for i in range(1, hops + 1)}
    return routes | {"/final": final or Step()}


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


class UntrustedCA:
    """A certificate authority no client is told to trust, with a name of its own (a client looking for the
    issuer must not find the trusted test CA under the same name)."""

    def __init__(self, directory: Path, common_name: str = "Nobody's Test CA") -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = dt.datetime.now(dt.UTC)
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(_name(common_name))
            .issuer_name(_name(common_name))
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=400))
            .not_valid_after(now + dt.timedelta(days=400))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(self.key, hashes.SHA256())
        )


def leaf_context(ca: LocalCA | UntrustedCA, not_after: dt.datetime, name: str) -> ssl.SSLContext:
    """A server context for 127.0.0.1 whose certificate, issued by `ca`, expires exactly at `not_after`."""
    key = ec.generate_private_key(ec.SECP256R1())
    not_after = not_after.replace(microsecond=0)  # certificates carry whole seconds
    leaf = (
        x509.CertificateBuilder()
        .subject_name(_name("127.0.0.1"))
        .issuer_name(ca.cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(min(dt.datetime.now(dt.UTC), not_after) - dt.timedelta(days=30))
        .not_valid_after(not_after)
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .sign(ca.key, hashes.SHA256())
    )
    cert_file, key_file = ca.directory / f"{name}.pem", ca.directory / f"{name}.key"
    cert_file.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return context


def expiring_in(days: float) -> dt.datetime:
    """The instant `days` from now (negative: that long ago), to whole seconds."""
    return (dt.datetime.now(dt.UTC) + dt.timedelta(days=days)).replace(microsecond=0)
