"""Starting and stopping a real SecDash server (reflex prod, single port) for browser tests and benchmarks."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

PROJECT_ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
CHROMIUM = os.environ.get("SECDASH_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(data_dir: Path, **overrides: str) -> dict[str, str]:
    """The environment of a server whose data lives in data_dir (nothing inherited from SECDASH_*)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SECDASH_", "PYTEST_", "REFLEX_REDIS"))}
    env.update(
        {
            "PATH": f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
            "REFLEX_USE_NPM": "1",
            "REFLEX_USE_GRANIAN": "1",
            "REFLEX_TELEMETRY_ENABLED": "false",
            "SECDASH_DATA_DIR": str(data_dir),
        }
    )
    env.update(overrides)
    return env


def run_cli(env: dict[str, str], *args: str, stdin: str | None = None) -> None:
    subprocess.run(
        [str(VENV_BIN / "python"), "-m", "secdash", *args],
        cwd=PROJECT_ROOT,
        env=env,
        check=True,
        capture_output=True,
        input=stdin,
        text=True,
    )


@dataclass
class LiveServer:
    process: subprocess.Popen
    base_url: str
    log_path: Path
    killed: bool = False  # stop() had to SIGKILL it: SIGTERM did not stop it within the timeout

    def stop(self) -> str:
        """Stop the whole process group; return the server's log."""
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            self.killed = self.process.poll() is None
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return self.log_path.read_text()


def start_server(
    env: dict[str, str], data_dir: Path, timeout: float = 600, backend_only: bool = False, migrate: bool = True
) -> LiveServer:
    """Migrate, then start the server on a free port and wait until pages and /ping answer.

    backend_only: the API, /v1 and the lifespan tasks (detection, the monitor...) without the pages: Reflex builds
    no frontend, so the server is up in a few seconds and never writes the `.web/` the browser tests' server builds
    into (an in-process test can start one beside them). migrate=False: a second worker on a database already
    migrated."""
    port = free_port()
    env = env | {"PORT": str(port)}  # the default sites point at this server's own demo sites
    if migrate:
        run_cli(env, "init")
    log_path = data_dir / ("server.log" if migrate else f"server-{port}.log")
    mode = ["--backend-only"] if backend_only else ["--single-port"]
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [
                str(VENV_BIN / "reflex"),
                "run",
                "--env",
                "prod",
                *mode,
                "--backend-port",
                str(port),
                "--backend-host",
                "127.0.0.1",
            ],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = LiveServer(process, f"http://127.0.0.1:{port}", log_path)
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{log_path.read_text()[-4000:]}")
        try:
            ping = httpx.get(f"{server.base_url}/ping", timeout=2)
            if ping.status_code == 200 and (backend_only or httpx.get(server.base_url, timeout=5).status_code == 200):
                return server
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"server not ready after {timeout}s:\n{log_path.read_text()[-4000:]}")
        time.sleep(1)
