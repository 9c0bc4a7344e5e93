"""(q) 10,000 sites across workers (issue 26): every site probed once per 60-s round, CPU of each worker.

A real server (backend only: API, monitor, jobs) with BENCH_WORKERS granian workers (default 2) on PostgreSQL
(BENCH_PG_URL, default postgresql://postgres@127.0.0.1:5432/wt_scale, dropped and made again) and Redis
(BENCH_REDIS_URL, default redis://127.0.0.1:6379/14, emptied), or with BENCH_WORKERS=1 and BENCH_SQLITE=1 the
embedded set-up (one worker, SQLite, no Redis). BENCH_SITES sites (default 10,000) point at one local target (a
small asyncio HTTP server in its own process, keep-alive, the strong security headers), on BENCH_INTERVAL-s rounds
(default 60). After one warm-up round, each process's CPU is read from /proc over BENCH_ROUNDS rounds (default 2):
the granian supervisor and each worker (the target, PostgreSQL and Redis are printed apart). Coverage is read from the
database: how many sites were checked in the last round's interval, checks per site over the window, and the shard
jobs each worker ran. Figures are printed, never asserted.

    BENCH_SITES=10000 .venv/bin/python -m bench scale
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from bench.common import ADMIN_EMAIL, ADMIN_PASSWORD

SITES = int(os.environ.get("BENCH_SITES", "10000"))
WORKERS = int(os.environ.get("BENCH_WORKERS", "2"))
SQLITE = os.environ.get("BENCH_SQLITE") == "1"
INTERVAL = float(os.environ.get("BENCH_INTERVAL", "60"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "2"))
WARMUP = float(os.environ.get("BENCH_WARMUP", str(INTERVAL / 2)))  # after every site's first check
FIRST_CONTACT_LIMIT = 900.0
PG_URL = os.environ.get("BENCH_PG_URL", "postgresql://postgres@127.0.0.1:5432/wt_scale")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
TICK = os.sysconf("SC_CLK_TCK")

TARGET = r"""
import asyncio, sys
HEADERS = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n"
    b"Content-Security-Policy: default-src 'self'; frame-ancestors 'none'\r\nStrict-Transport-Security: max-age=63072000\r\n"
    b"X-Frame-Options: DENY\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n\r\nok")
class Answer(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.buffer = transport, b""
    def data_received(self, data):
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            _head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            self.transport.write(HEADERS)
async def main():
    server = await asyncio.get_running_loop().create_server(Answer, "127.0.0.1", int(sys.argv[1]), backlog=1024)
    async with server:
        await server.serve_forever()
asyncio.run(main())
"""


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (FileNotFoundError, ProcessLookupError, ValueError):
                continue
    return sorted(found)


def _pids_named(name: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm") as comm:
                    if comm.read().strip().startswith(name):
                        found.append(int(entry))
            except (FileNotFoundError, ProcessLookupError):
                continue
    return found


def _database(url: str) -> None:
    import psycopg
    from sqlalchemy.engine import make_url

    target = make_url(url)
    admin = target.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{target.database}"')


def _add_sites(database_url: str, port: int) -> None:
    from sqlalchemy import create_engine
    from sqlmodel import Session

    from secdash.models import Site

    engine = create_engine(database_url)
    with Session(engine) as session:
        for start in range(0, SITES, 1000):
            session.add_all(
                Site(name=f"target {n}", url=f"http://127.0.0.1:{port}/s{n}", domain="127.0.0.1", allow_private=True)
                for n in range(start, min(SITES, start + 1000))
            )
            session.commit()
    engine.dispose()


def _first_contact(database_url: str, started_at: float) -> float:
    """Wait until every site has been checked once (or FIRST_CONTACT_LIMIT); seconds taken."""
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url)
    try:
        while time.monotonic() - started_at < FIRST_CONTACT_LIMIT:
            with engine.connect() as conn:
                left = conn.execute(text("SELECT count(*) FROM sites WHERE last_checked_at IS NULL")).scalar_one()
            if not left:
                break
            time.sleep(5)
        else:
            print(f"  {left} sites still never checked after {FIRST_CONTACT_LIMIT:.0f} s; measuring anyway")
    finally:
        engine.dispose()
    return time.monotonic() - started_at


def _coverage(database_url: str, since_epoch: float, until_epoch: float) -> tuple[str, int]:
    from datetime import UTC, datetime

    from sqlalchemy import create_engine, text

    engine = create_engine(database_url)
    since = datetime.fromtimestamp(since_epoch, UTC)
    until = datetime.fromtimestamp(until_epoch, UTC)
    last_round = datetime.fromtimestamp(until_epoch - INTERVAL, UTC)
    with engine.connect() as conn:
        total = conn.execute(text("SELECT count(*) FROM sites WHERE NOT paused")).scalar_one()
        fresh = conn.execute(
            text("SELECT count(*) FROM sites WHERE NOT paused AND last_checked_at >= :t"), {"t": last_round}
        ).scalar_one()
        per_site = Counter(
            count
            for (count,) in conn.execute(
                text(
                    "SELECT count(c.id) FROM sites s LEFT JOIN site_checks c ON c.site_id = s.id "
                    "AND c.checked_at >= :a AND c.checked_at < :b WHERE NOT s.paused GROUP BY s.id"
                ),
                {"a": since, "b": until},
            )
        )
        shards = conn.execute(
            text("SELECT worker, status, result FROM jobs WHERE kind = 'probe-shard' AND started_at >= :a AND started_at < :b"),
            {"a": since, "b": until},
        ).all()
    engine.dispose()
    lines = [
        f"  sites checked in the last {INTERVAL:.0f} s of the window: {fresh} of {total}",
        f"  checks per site over the {until_epoch - since_epoch:.0f}-s window ({ROUNDS} rounds): "
        + ", ".join(f"{k}: {v} sites" for k, v in sorted(per_site.items())),
    ]
    if shards:
        by_worker = Counter(worker for worker, _status, _result in shards)
        skipped = sum(1 for _w, _s, result in shards if (result or {}).get("skipped"))
        took = sorted(float((result or {}).get("seconds", 0)) for _w, status, result in shards if status == "done")
        median = took[len(took) // 2] if took else 0.0
        lines.append(
            f"  shard jobs: {len(shards)} ({skipped} skipped late), by worker {dict(by_worker)}, "
            f"median {median:.1f} s, longest {took[-1] if took else 0:.1f} s"
        )
    return "\n".join(lines), sum(count * sites for count, sites in per_site.items())


def run() -> None:
    import tempfile

    from tests.support.live_server import free_port, run_cli, server_env, start_server

    mode = "1 worker, SQLite, no Redis" if SQLITE else f"{WORKERS} workers, PostgreSQL + Redis"
    print(f"(q) {SITES} sites on {INTERVAL:.0f}-s rounds, {mode}")
    data_dir = Path(tempfile.mkdtemp(prefix="secdash-bench-scale-"))
    overrides = {
        "SECDASH_SECRET_KEY": secrets.token_urlsafe(48),
        "SECDASH_ADMIN_EMAIL": ADMIN_EMAIL,
        "SECDASH_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "SECDASH_MONITOR_INTERVAL": str(INTERVAL),
        "SECDASH_SIMULATION": "off",
        "SECDASH_THREAT_SIMULATION": "off",
        "SECDASH_DEMO_SHARES_OUTAGE": "up",
        "GRANIAN_WORKERS": str(WORKERS),
    }
    if SQLITE:
        database_url = f"sqlite:///{data_dir / 'secdash.db'}"
    else:
        import redis

        _database(PG_URL)
        redis.Redis.from_url(REDIS_URL).flushdb()
        database_url = PG_URL
        overrides |= {"SECDASH_DATABASE_URL": PG_URL, "REFLEX_REDIS_URL": REDIS_URL}
    env = server_env(data_dir, **overrides)
    port = free_port()
    target = subprocess.Popen([sys.executable, "-c", TARGET, str(port)])
    server = None
    try:
        run_cli(env, "init")
        started = time.monotonic()
        _add_sites(database_url, port)
        print(f"  {SITES} sites added in {time.monotonic() - started:.1f} s")
        server = start_server(env, data_dir, timeout=180, backend_only=True, migrate=False)
        supervisor = server.process.pid
        time.sleep(5)
        workers = _children(supervisor)
        print(f"  server up: supervisor {supervisor}, workers {workers}")
        first = _first_contact(database_url, started_at=time.monotonic())
        print(f"  every site checked once (its first contact: findings and problems opened) after {first:.0f} s")
        time.sleep(WARMUP)
        watched = {"supervisor": [supervisor]} | {f"worker {pid}": [pid] for pid in workers}
        watched |= {"target": [target.pid], "postgres": _pids_named("postgres"), "redis": _pids_named("redis-server")}
        if SQLITE:
            watched.pop("postgres")
            watched.pop("redis")
        before = {name: {pid: _cpu_seconds(pid) for pid in pids} for name, pids in watched.items()}
        window_start, wall_start = time.time(), time.monotonic()
        time.sleep(ROUNDS * INTERVAL)
        wall = time.monotonic() - wall_start
        after = {name: {pid: _cpu_seconds(pid) for pid in pids} for name, pids in watched.items()}
        window_end = time.time()
        now_workers = _children(supervisor)
        print(f"  CPU over {wall:.0f} s ({ROUNDS} rounds), share of one core:")
        used_by = {  # processes alive at both readings (a PostgreSQL backend may come and go)
            name: sum(after[name][pid] - before[name][pid] for pid in before[name] if after[name].get(pid)) for name in watched
        }
        for name in watched:
            used = used_by[name]
            print(f"    {name:<22} {used:7.1f} s  {used / wall * 100:5.1f} %")
        server_cpu = sum(used_by[n] for n in watched if n == "supervisor" or n.startswith("worker"))
        probes = SITES * ROUNDS
        print(f"    whole server {server_cpu:.1f} s: {server_cpu / probes * 1000:.2f} ms per probe ({probes} probes due)")
        if now_workers != workers:
            print(f"  note: the workers changed during the window: {workers} -> {now_workers}")
        text, checks = _coverage(database_url, window_start, window_end)
        print(text)
        if checks:
            print(f"  whole server CPU per check recorded: {server_cpu / checks * 1000:.2f} ms ({checks} checks)")
        load = os.getloadavg()
        print(f"  machine load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)")
    finally:
        if server is not None:
            log_text = server.stop()
            errors = log_text.count("Traceback (most recent call last)")
            if errors:
                print(f"  the server logged {errors} tracebacks; the last:\n{log_text[-3000:]}")
        target.terminate()
        target.wait()
