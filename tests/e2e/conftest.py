"""A real SecDash server (reflex prod, single port) on a free port, driven by Debian's Chromium."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
CHROMIUM = os.environ.get("SECDASH_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic",
]
ADMIN_EMAIL = "admin@e2e.test"
ADMIN_PASSWORD = "e2e-admin-password-" + secrets.token_hex(4)
LIMITED_EMAIL = "viewer@e2e.test"
LIMITED_PASSWORD = "e2e-viewer-password-" + secrets.token_hex(4)
STARTUP_TIMEOUT = float(os.environ.get("SECDASH_E2E_STARTUP_TIMEOUT", "600"))


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _server_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SECDASH_", "PYTEST_"))}
    env.update({
        "PATH": f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
        "REFLEX_USE_NPM": "1",
        "REFLEX_USE_GRANIAN": "1",
        "REFLEX_TELEMETRY_ENABLED": "false",
        "SECDASH_DATA_DIR": str(data_dir),
        "SECDASH_SECRET_KEY": secrets.token_urlsafe(48),
        "SECDASH_ADMIN_EMAIL": ADMIN_EMAIL,
        "SECDASH_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "SECDASH_MONITOR_INTERVAL": "2",
    })
    if os.environ.get("SECDASH_E2E_DATABASE_URL"):
        env["SECDASH_DATABASE_URL"] = os.environ["SECDASH_E2E_DATABASE_URL"]
    if os.environ.get("SECDASH_E2E_REDIS_URL"):
        env["REFLEX_REDIS_URL"] = os.environ["SECDASH_E2E_REDIS_URL"]
        env["GRANIAN_WORKERS"] = os.environ.get("SECDASH_E2E_WORKERS", "2")
    return env


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """Migrate, seed the admin and a limited user through the CLI, start the server, wait for /ping."""
    data_dir = tmp_path_factory.mktemp("e2e-data")
    env = _server_env(data_dir)
    python = str(VENV_BIN / "python")
    subprocess.run([python, "-m", "secdash", "init"], cwd=PROJECT_ROOT, env=env, check=True, capture_output=True)
    subprocess.run(
        [python, "-m", "secdash", "users", "create", LIMITED_EMAIL, "--role", "limited"],
        cwd=PROJECT_ROOT, env=env, check=True, capture_output=True, input=f"{LIMITED_PASSWORD}\n", text=True,
    )
    port = _free_port()
    env["PORT"] = str(port)  # the default sites point at this server's own demo sites
    log_path = data_dir / "server.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [str(VENV_BIN / "reflex"), "run", "--env", "prod", "--single-port",
             "--backend-port", str(port), "--backend-host", "127.0.0.1"],
            cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_TIMEOUT
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"server exited early:\n{log_path.read_text()[-4000:]}")
            try:
                ping = httpx.get(f"{base_url}/ping", timeout=2)
                if ping.status_code == 200 and httpx.get(base_url, timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"server not ready after {STARTUP_TIMEOUT}s:\n{log_path.read_text()[-4000:]}")
            time.sleep(1)
        yield base_url
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(process.pid, signal.SIGKILL)
    log_text = log_path.read_text()
    assert "Traceback (most recent call last)" not in log_text, f"the server logged an error:\n{log_text[-6000:]}"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def base_url(server):
    return server


class SiteServer:
    """A small local website with good security headers that a test can take down."""

    HEADERS = {
        "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'",
        "Strict-Transport-Security": "max-age=63072000",
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }

    def __init__(self) -> None:
        import http.server
        import threading

        headers = self.HEADERS

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                self.send_response(200)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<h1>test site</h1>")

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.running = True

    def stop(self) -> None:
        if self.running:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.running = False


@pytest.fixture
def site_server():
    server = SiteServer()
    yield server
    server.stop()
