"""Real parts end to end (issue 25): Debian's nginx serves a small static site on 127.0.0.1 and writes a combined
access log; SecDash's own shipper (`python -m secdash ship`) follows that log into a live SecDash server; a visitor
and Debian's sqlmap send requests to nginx; Debian's crowdsec-custom-bouncer pulls SecDash's decisions as from a
CrowdSec Local API and runs a script that writes down what it was told.

Checked: Live Traffic's figures for the site equal counts made from nginx's log file itself, sqlmap's address is
flagged by http-scanner-user-agent (User Scan, decisions), and the bouncer receives the ban, then its removal when
the decision is deleted through the API. Nothing here is simulated: every request crosses nginx, every figure
crosses the shipper and the server.

The visitor connects from 127.0.0.2 and sqlmap from 127.0.0.1 (both loopback: Linux routes 127.0.0.0/8 to lo), so
the log holds two real clients. The detector skips loopback addresses unless SECDASH_TRAFFIC_REPORT_PRIVATE is set:
the server runs with it. The server is started backend-only (the API and the lifespan tasks, no pages), so it is
up in seconds and builds no frontend into `.web/`, where the browser tests' server builds beside this test in
`make test`.
"""

from __future__ import annotations

import getpass
import os
import re
import secrets
import shutil
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.live_server import PROJECT_ROOT, VENV_BIN, free_port, server_env, start_server

SBIN_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
NGINX = shutil.which("nginx", path=SBIN_PATH)
SQLMAP = shutil.which("sqlmap")
BOUNCER = shutil.which("crowdsec-custom-bouncer")
_missing = [name for name, found in (("nginx", NGINX), ("sqlmap", SQLMAP), ("crowdsec-custom-bouncer", BOUNCER)) if not found]
pytestmark = pytest.mark.skipif(
    bool(_missing), reason=f"Debian package(s) not installed: {', '.join(_missing)} (make test installs them)"
)

ADMIN_EMAIL = "admin@real-parts.test"
ADMIN_PASSWORD = "real-parts-" + secrets.token_hex(8)
VISITOR = "127.0.0.2"  # the visitor's source address; sqlmap connects from 127.0.0.1
SCANNER = "127.0.0.1"
WAIT_SECONDS = 60  # a bound on waiting for a busy 2-core machine, not a speed assertion

# nginx's combined format, read here on its own (not with SecDash's parser: this is the oracle).
COMBINED = re.compile(r'^(\S+) \S+ \S+ \[([^\]]+)\] "(\S+) (\S+) HTTP/[\d.]+" (\d{3}) (\d+|-) "[^"]*" "[^"]*"$')


def wait_for(what: str, check: Callable[[], Any], timeout: float = WAIT_SECONDS, every: float = 0.3) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(every)


def stop(process: subprocess.Popen) -> None:
    """Stop a process started in its own session, and everything it started."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=10)


def spawn(args: list[str], log: Path, **kwargs: Any) -> subprocess.Popen:
    with open(log, "w") as out:
        return subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **kwargs)


def nginx_config(root: Path, port: int) -> str:
    """A private nginx: its own prefix, pid, logs and temp paths under root, as the current user, in the foreground."""
    # As root, nginx's workers would switch to "nobody"; keep them as the current user (non-root ignores "user").
    user = f"user {getpass.getuser()};" if os.geteuid() == 0 else ""
    temp = "\n".join(f"  {kind}_temp_path {root}/tmp/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return f"""{user}
daemon off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/logs/error.log warn;
events {{ worker_connections 64; }}
http {{
  access_log {root}/logs/access.log combined;
{temp}
  types {{ text/html html; text/css css; }}
  default_type application/octet-stream;
  server {{
    listen 127.0.0.1:{port};
    root {root}/site;
    location / {{ try_files $uri $uri/ =404; }}
    location = /admin.html {{ return 403; }}
  }}
}}
"""


def start_nginx(root: Path) -> tuple[subprocess.Popen, str]:
    (root / "site").mkdir(parents=True)
    (root / "logs").mkdir()
    (root / "tmp").mkdir()
    (root / "site" / "index.html").write_text(
        '<h1>Shop</h1><a href="/about.html">About</a> <a href="/products.html?id=1">Products</a>'
    )
    (root / "site" / "about.html").write_text("<p>About the shop</p>")
    (root / "site" / "products.html").write_text("<p>Products</p>")
    (root / "site" / "style.css").write_text("h1 { color: teal; }")
    port = free_port()
    (root / "nginx.conf").write_text(nginx_config(root, port))
    assert NGINX is not None
    process = spawn(
        [NGINX, "-p", f"{root}/", "-c", str(root / "nginx.conf"), "-e", str(root / "logs" / "error.log")], root / "nginx.out"
    )
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"nginx exited: {(root / 'nginx.out').read_text()}{(root / 'logs' / 'error.log').read_text()}")
        try:
            return httpx.get(f"{base}/style.css", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    wait_for("nginx", up, timeout=10, every=0.1)
    # The probe above is in the log like any request: empty the log so it holds only the test's requests (nginx
    # appends, O_APPEND, so it goes on from the start of the emptied file).
    (root / "logs" / "access.log").write_text("")
    return process, base


def log_requests(path: Path) -> list[dict[str, Any]]:
    rows = []
    for line in path.read_text().splitlines():
        match = COMBINED.match(line)
        assert match, f"not a combined line: {line!r}"
        address, when, method, target, status, size = match.groups()
        rows.append(
            {
                "address": address,
                "time": datetime.strptime(when, "%d/%b/%Y:%H:%M:%S %z"),
                "method": method,
                "target": target,
                "status": int(status),
            }
        )
    return rows


def figures_from_log(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What Live Traffic should say, counted from the log: the hour's status mix and the top 5 paths."""
    classes = Counter(row["status"] // 100 for row in rows)
    paths = Counter(row["target"].split("?", 1)[0] or "/" for row in rows)
    return {
        "mix": {
            "requests": len(rows),
            "status2xx": classes[2],
            "status3xx": classes[3],
            "status4xx": classes[4],
            "status5xx": classes[5],
            "blocked": sum(row["status"] in (403, 429) for row in rows),
            "signups": 0,
        },
        "topPaths": [
            {"path": path, "requests": hits} for path, hits in sorted(paths.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        ],
        "clients": len({row["address"] for row in rows}),
    }


@pytest.fixture
def secdash(tmp_path) -> Iterator[tuple[str, dict[str, str], dict[str, str]]]:
    """A live SecDash (backend only, SQLite) that reports loopback clients; yields its URL, env and admin headers."""
    data_dir = tmp_path / "secdash"
    data_dir.mkdir()
    env = server_env(
        data_dir,
        SECDASH_SECRET_KEY=secrets.token_urlsafe(48),
        SECDASH_ADMIN_EMAIL=ADMIN_EMAIL,
        SECDASH_ADMIN_PASSWORD=ADMIN_PASSWORD,
        SECDASH_TRAFFIC_REPORT_PRIVATE="true",  # the scanner is on 127.0.0.1
        SECDASH_MONITOR="false",  # nothing but the test's requests in the figures
        SECDASH_SIMULATION="off",
        SECDASH_THREAT_SIMULATION="off",
    )
    server = start_server(env, data_dir, timeout=120, backend_only=True)
    try:
        login = httpx.post(f"{server.base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
        assert login.status_code == 200, login.text
        yield server.base_url, env, {"Authorization": f"Bearer {login.json()['token']}"}
    finally:
        log_text = server.stop()
    assert "Traceback (most recent call last)" not in log_text, f"the server logged an error:\n{log_text[-6000:]}"


def bouncer_config(root: Path, api_url: str, api_key: str, script: Path) -> Path:
    config = root / "crowdsec-custom-bouncer.yaml"
    config.write_text(
        f"""bin_path: {script}
feed_via_stdin: false
total_retries: 0
scenarios_containing: []
scenarios_not_containing: []
origins: []
piddir: {root}/
update_frequency: 1s
cache_retention_duration: 10s
daemonize: false
log_mode: file
log_dir: {root}/
log_level: info
log_compression: false
api_url: {api_url}/
api_key: {api_key}
prometheus:
  enabled: false
  listen_addr: 127.0.0.1
  listen_port: {free_port()}
"""
    )
    return config


def test_nginx_log_shipped_to_secdash_flags_sqlmap_and_the_bouncer_gets_the_ban_and_its_removal(secdash, tmp_path):
    base_url, env, admin = secdash
    nginx, site_url = start_nginx(tmp_path / "nginx")
    access_log = tmp_path / "nginx" / "logs" / "access.log"
    processes = [nginx]
    try:
        api = httpx.Client(base_url=base_url, headers=admin, timeout=10)
        site = api.post("/api/sites", json={"name": "Shop", "url": site_url + "/", "allowPrivate": True})
        assert site.status_code == 201, site.text
        site_id = site.json()["id"]
        token = api.post(f"/api/sites/{site_id}/ingest-tokens")
        assert token.status_code == 201, token.text
        token_file = tmp_path / "shop.token"
        token_file.write_text(token.json()["token"] + "\n")
        token_file.chmod(0o600)
        made = api.post("/api/bouncers", json={"name": "custom-1"})
        assert made.status_code == 201, made.text

        # The shipper, following nginx's log as it grows (its state under the test's folder).
        processes.append(
            spawn(
                [str(VENV_BIN / "python"), "-m", "secdash", "ship", "--site", "shop", "--token-file", str(token_file),
                 "--url", base_url, "--state-dir", str(tmp_path / "ship-state"), str(access_log)],
                tmp_path / "ship.out", cwd=PROJECT_ROOT, env=env,
            )
        )  # fmt: skip
        # Debian's custom bouncer with SecDash as its Local API; its script writes down each call's arguments.
        calls = tmp_path / "bouncer-calls.txt"
        calls.touch()
        script = tmp_path / "bouncer-script.sh"
        script.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
        script.chmod(0o700)
        bouncer_root = tmp_path / "bouncer"
        bouncer_root.mkdir()
        assert BOUNCER is not None
        config = bouncer_config(bouncer_root, base_url, made.json()["apiKey"], script)
        processes.append(spawn([BOUNCER, "-c", str(config)], bouncer_root / "bouncer.out"))

        # A visitor from 127.0.0.2: pages, a stylesheet, a page that is not there, one nginx refuses (403) and a
        # revalidation nginx answers 304.
        with httpx.Client(base_url=site_url, transport=httpx.HTTPTransport(local_address=VISITOR), timeout=5) as visitor:
            statuses = [visitor.get(path).status_code for path in ("/", "/about.html", "/style.css", "/", "/products.html?id=2")]
            statuses.append(visitor.get("/missing.html").status_code)
            statuses.append(visitor.get("/admin.html").status_code)
            modified = visitor.get("/about.html").headers["last-modified"]
            statuses.append(visitor.get("/about.html", headers={"If-Modified-Since": modified}).status_code)
        assert statuses == [200, 200, 200, 200, 200, 404, 403, 304]

        # sqlmap against the local nginx only: boolean-blind, level and risk 1, heuristics first (--smart): a few
        # requests, about a second.
        assert SQLMAP is not None
        scan = subprocess.run(
            [SQLMAP, "-u", f"{site_url}/products.html?id=1", "--batch", "--level", "1", "--risk", "1", "--technique=B",
             "--smart", "--disable-coloring", "--output-dir", str(tmp_path / "sqlmap")],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert "testing connection to the target URL" in scan.stdout, scan.stdout + scan.stderr

        # (a) Live Traffic for the site equals what nginx's log says, once the shipper has sent every line.
        rows = log_requests(access_log)
        expected = figures_from_log(rows)
        assert {row["address"] for row in rows} == {VISITOR, SCANNER}
        scanner_requests = sum(row["address"] == SCANNER for row in rows)
        assert scanner_requests >= 3, f"sqlmap sent {scanner_requests} requests:\n{scan.stdout}"

        def shipped() -> dict[str, Any] | None:
            live = api.get("/api/traffic/live").json()
            mine = next(part for part in live["sites"] if part["id"] == site_id)
            return live if mine["lastHour"]["requests"] >= len(rows) else None

        live = wait_for("the shipper to send every line", shipped)
        mine = next(part for part in live["sites"] if part["id"] == site_id)
        assert mine["lastHour"] == expected["mix"]
        assert live["lastHour"] == expected["mix"]  # nothing else was counted
        assert live["topPaths"] == expected["topPaths"]
        assert mine["activeClients"] == expected["clients"] == 2
        updated = datetime.fromisoformat(live["updatedAt"])
        if all(updated - row["time"] < timedelta(seconds=55) for row in rows):  # the whole log is in the last minute
            assert mine["requestsPerMinute"] == len(rows)

        # (b) sqlmap's address is blocked by http-scanner-user-agent; the visitor is clean.
        def scanner_verdict() -> dict[str, Any] | None:
            recent = api.get("/api/traffic/clients").json()["recent"]
            return next((item for item in recent if item["client"] == SCANNER and item["verdict"] == "blocked"), None)

        verdict = wait_for("User Scan to block the scanner", scanner_verdict)
        assert "http-scanner-user-agent" in verdict["reason"] and verdict["site"] == "Shop"
        assert verdict["requests"] == scanner_requests
        clients = {item["client"]: item for item in api.get("/api/traffic/clients").json()["recent"]}
        assert clients[VISITOR]["verdict"] == "clean", clients[VISITOR]
        in_force = [row for row in api.get("/api/decisions").json() if row["value"] == SCANNER]
        assert len(in_force) == 1 and in_force[0]["scenario"] == "http-scanner-user-agent", in_force
        assert not [row for row in api.get("/api/decisions").json() if row["value"] == VISITOR]

        # (c) The bouncer runs its script with the ban, then with its removal once the decision is deleted.
        def bouncer_lines(action: str) -> list[str]:
            return [line for line in calls.read_text().splitlines() if line.split(" ")[:2] == [action, SCANNER]]

        added = wait_for("the bouncer's add", lambda: bouncer_lines("add"))
        assert "http-scanner-user-agent" in added[0], added
        removed = api.delete(f"/api/decisions/{in_force[0]['id']}")
        assert removed.status_code == 200, removed.text
        deleted = wait_for("the bouncer's del", lambda: bouncer_lines("del"))
        assert len(added) == 1 and len(deleted) == 1, calls.read_text()
        wait_for("User Scan to lift the block", lambda: api.get("/api/traffic/clients").json()["counts"]["blocked"] == 0)
    finally:
        for process in reversed(processes):
            stop(process)
    for name in ("ship.out",):
        assert "Traceback" not in (tmp_path / name).read_text(), (tmp_path / name).read_text()
