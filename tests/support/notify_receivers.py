"""Local receivers for alerting tests: a webhook (JSON POST) server and an SMTP server (aiosmtpd), each in a
thread of its own, recording what arrives. A webhook receiver can be told to fail (HTTP 500) a number of times."""

from __future__ import annotations

import json
import socket
import threading
import time
from email import message_from_bytes
from email.policy import default as default_policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WebhookReceiver:
    """POSTs to http://127.0.0.1:<port>/<path> are recorded as (path, JSON body)."""

    def __init__(self, fail_times: int = 0) -> None:
        self.received: list[tuple[str, dict[str, Any]]] = []
        self.fail_times = fail_times
        self.attempts = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                receiver.attempts += 1
                if receiver.fail_times > 0:
                    receiver.fail_times -= 1
                    self.send_response(500)
                    self.end_headers()
                    return
                try:
                    receiver.received.append((self.path, json.loads(body or b"{}")))
                except ValueError:
                    receiver.received.append((self.path, {"raw": body.decode(errors="replace")}))
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "hook") -> str:
        return f"json://127.0.0.1:{self.port}/{path}"

    def titles(self) -> list[str]:
        return [body.get("title", "") for _path, body in self.received]

    def wait_for(self, count: int, timeout: float = 20.0) -> list[tuple[str, dict[str, Any]]]:
        deadline = time.monotonic() + timeout
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.received

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class SmtpReceiver:
    """An SMTP server on 127.0.0.1 (aiosmtpd) keeping each message (subject, body, recipients)."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        self.messages: list[dict[str, Any]] = []
        receiver = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
                message = message_from_bytes(envelope.content, policy=default_policy)
                body = message.get_body(("plain", "html"))
                receiver.messages.append(
                    {
                        "subject": str(message["subject"] or ""),
                        "to": list(envelope.rcpt_tos),
                        "from": envelope.mail_from,
                        "body": body.get_content() if body is not None else "",
                    }
                )
                return "250 Message accepted for delivery"

        self.port = free_port()
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def url(self, to: str = "ops@example.com") -> str:
        return f"mailto://127.0.0.1:{self.port}?from=alerts@example.com&to={to}"

    def wait_for(self, count: int, timeout: float = 20.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.messages

    def close(self) -> None:
        self.controller.stop()
