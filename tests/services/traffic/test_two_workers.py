"""Ingest and detection stay correct with 2 workers on PostgreSQL + Redis (issue 25): a client's requests split
across workers still fill one bucket.

Two SecDash servers (backend only, one granian worker each, on two ports) share one PostgreSQL database and Redis,
as two workers of a deployment do. An attacker's log lines are posted alternately to the two, each half below
http-probing's capacity (10 distinct missing pages; the 11th overflows): exactly one detection and one decision
follow, whichever worker leads detection, and a control client whose 10 lines are split the same way is not
flagged. Live Traffic and User Scan on either worker show the full counts.

PostgreSQL: the server of SECDASH_TEST_DATABASE_URL (CI) or the machine's (127.0.0.1:5432), in a database of the
test's own, dropped after; Redis: database 9. Skipped when either does not answer.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from tests.services.traffic.test_real_parts import wait_for
from tests.support.live_server import LiveServer, run_cli, server_env, start_server
from tests.support.redis_server import REDIS_URL, redis_or_skip

ADMIN_EMAIL = "admin@two-workers.test"
ADMIN_PASSWORD = "two-workers-" + secrets.token_hex(8)
ATTACKER = "203.0.113.50"  # documentation addresses: reported (not loopback or private)
CONTROL = "203.0.113.51"
LEADER_KEY = "secdash:leader:traffic-detection"
LEASE_SECONDS = 15


def _pg_urls() -> tuple[str, str, str]:
    """(the server's maintenance URL, the test database's URL, its name), on the configured or the local server."""
    from sqlalchemy.engine import make_url

    base = make_url(os.environ.get("SECDASH_TEST_DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/secdash")
    name = f"{base.database}_workers_{os.getpid()}"
    admin = base.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    return admin, base.set(drivername="postgresql", database=name).render_as_string(hide_password=False), name


@pytest.fixture
def database() -> Iterator[str]:
    import psycopg

    admin, url, name = _pg_urls()
    try:
        psycopg.connect(admin, connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable ({exc})")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def workers(database, tmp_path) -> Iterator[tuple[LiveServer, LiveServer, str, str]]:
    """Two servers on one database and one Redis; yields them, the database URL and an admin bearer token."""
    client = redis_or_skip()
    # The detection leader's lock is per Redis database: wait out a lease a stopped run may have left behind.
    deadline = time.monotonic() + LEASE_SECONDS + 5
    while client.exists(LEADER_KEY) and time.monotonic() < deadline:
        time.sleep(0.5)
    if client.exists(LEADER_KEY):
        pytest.skip(f"another SecDash deployment leads traffic detection on {REDIS_URL} ({LEADER_KEY} is held)")
    env = server_env(
        tmp_path,
        SECDASH_DATABASE_URL=database,
        REFLEX_REDIS_URL=REDIS_URL,
        GRANIAN_WORKERS="1",  # one worker per server: the test picks the worker by port
        SECDASH_SECRET_KEY=secrets.token_urlsafe(48),
        SECDASH_ADMIN_EMAIL=ADMIN_EMAIL,
        SECDASH_ADMIN_PASSWORD=ADMIN_PASSWORD,
        SECDASH_MONITOR="false",
        SECDASH_SIMULATION="off",
        SECDASH_THREAT_SIMULATION="off",
    )
    run_cli(env, "init")
    with ThreadPoolExecutor(2) as pool:
        starting = [pool.submit(start_server, env, tmp_path, timeout=120, backend_only=True, migrate=False) for _ in range(2)]
        servers = [future.result() for future in starting]
    try:
        login = httpx.post(f"{servers[0].base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
        assert login.status_code == 200, login.text
        yield servers[0], servers[1], database, login.json()["token"]
    finally:
        logs = [server.stop() for server in servers]
    assert not [server.base_url for server in servers if server.killed], "a worker did not stop on SIGTERM"
    for log_text in logs:
        assert "Traceback (most recent call last)" not in log_text, f"a worker logged an error:\n{log_text[-6000:]}"


def _line(address: str, path: str, status: int = 404) -> str:
    when = datetime.now(UTC).strftime("%d/%b/%Y:%H:%M:%S +0000")
    return f'{address} - - [{when}] "GET {path} HTTP/1.1" {status} 153 "-" "Mozilla/5.0 (X11; Linux x86_64)"'


def _rows(url: str, query: str, *params: Any) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(query, params).fetchall()


def test_a_client_split_across_two_workers_fills_one_bucket(workers):
    first, second, database, token = workers
    admin = {"Authorization": f"Bearer {token}"}
    apis = [httpx.Client(base_url=server.base_url, headers=admin, timeout=10) for server in (first, second)]
    site = apis[0].post("/api/sites", json={"name": "Shop", "url": "http://127.0.0.1:9/", "allowPrivate": True})
    assert site.status_code == 201, site.text
    site_id = site.json()["id"]
    made = apis[1].post(f"/api/sites/{site_id}/ingest-tokens")  # made on one worker, used on both
    assert made.status_code == 201, made.text
    ingest = {"Authorization": f"Bearer {made.json()['token']}", "Content-Type": "text/plain"}

    # 16 distinct missing pages from the attacker, one line a post, alternately to each worker (8 each: a worker
    # on its own would never see the 11 that overflow), and 10 from the control client, 5 each (10 never overflow).
    attacker = [(ATTACKER, f"/wp-admin/probe-{n}.php", n % 2) for n in range(16)]
    control = [(CONTROL, f"/old/page-{n}.php", (n + 1) % 2) for n in range(10)]
    sent = [line for pair in zip(attacker, control + [None] * 6, strict=True) for line in pair if line is not None]
    for address, path, worker in sent:
        answer = apis[worker].post("/api/traffic/ingest", content=_line(address, path), headers=ingest)
        assert answer.status_code == 200 and answer.json()["accepted"] == 1, answer.text
    for address in (ATTACKER, CONTROL):
        served = [worker for who, _path, worker in sent if who == address]
        assert served.count(0) == served.count(1) and served[:2] in ([0, 1], [1, 0]), (address, served)

    # The detector has read every stored request (its cursor is past the newest id) ...
    newest = _rows(database, "SELECT max(id) FROM traffic_requests")[0][0]

    def detector_caught_up() -> bool:
        cursor = _rows(database, "SELECT data FROM live_snapshots WHERE name = 'traffic-detection'")
        return bool(cursor) and int(cursor[0][0]["cursor"]) >= newest

    wait_for("the detector to read every request", detector_caught_up)
    # ... and found the attacker exactly once, with one decision; the control client not at all.
    found = _rows(database, "SELECT client, scenario, events, decision_id FROM traffic_detections ORDER BY id")
    assert [(client, scenario) for client, scenario, _events, _decision in found] == [(ATTACKER, "http-probing")], found
    assert found[0][2] == 11  # the 11th distinct page overflowed the bucket
    decisions = _rows(database, "SELECT id, value, scenario FROM traffic_decisions WHERE deleted_at IS NULL")
    assert decisions == [(found[0][3], ATTACKER, "http-probing")]

    # Either worker's API says the same: the decision, User Scan's verdicts and Live Traffic's full count.
    for api in apis:
        assert [(row["value"], row["scenario"]) for row in api.get("/api/decisions").json()] == [(ATTACKER, "http-probing")]

        def scan(api: httpx.Client = api) -> dict[str, Any] | None:
            clients = {item["client"]: item for item in api.get("/api/traffic/clients").json()["recent"]}
            return clients if clients.get(ATTACKER, {}).get("verdict") == "blocked" else None

        clients = wait_for(f"User Scan on {api.base_url}", scan, timeout=10)
        assert "http-probing" in clients[ATTACKER]["reason"] and clients[ATTACKER]["requests"] == 16
        assert clients[CONTROL]["verdict"] == "clean" and clients[CONTROL]["requests"] == 10

        def live(api: httpx.Client = api) -> dict[str, Any] | None:
            figures = api.get("/api/traffic/live").json()
            mine = next(part for part in figures["sites"] if part["id"] == site_id)
            return mine if mine["lastHour"]["requests"] == len(sent) else None

        mine = wait_for(f"Live Traffic on {api.base_url}", live, timeout=10)
        assert mine["lastHour"]["status4xx"] == len(sent) and mine["activeClients"] == 2
