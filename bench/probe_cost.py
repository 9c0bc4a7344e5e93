"""Issue 26's probing figure: whole-process server CPU per probe, 1,000 sites on 30-s rounds.

A real server (`reflex run --env prod --single-port`, one worker, simulation off, the monitor on every
`SECDASH_BENCH_PROBE_INTERVAL` seconds, 30 by default) monitors 1,000 sites that point at one local HTTP/1.1 target
(keep-alive, as nginx and most servers answer; `allowPrivate`). The four demo sites are paused, so only the
1,000 count. After the first rounds (the sites' first checks open their header findings: a one-off cost), the
CPU of the server's process group is read from /proc over `SECDASH_BENCH_PROBE_WINDOW` seconds (300 by default)
and divided by the probes the target answered in that window (one GET per probe; the CORS preflight is counted
apart). Uptime Kuma's 5.74 ms was measured on the same machine (issue 26).

`SECDASH_BENCH_PROJECT=/path/to/a/checkout` runs the server of another checkout (its own `.venv`): the "before"
figure, e.g. a worktree at the commit before a change. Nothing is asserted.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx

from bench.common import prepare_environment, server_overrides
from bench.fanout import cpu_seconds, rss_mb

SITES = int(os.environ.get("SECDASH_BENCH_PROBE_SITES", "1000"))
INTERVAL = float(os.environ.get("SECDASH_BENCH_PROBE_INTERVAL", "30"))
# Five minutes: one full UNCHANGED_ROW_SECONDS, so the window holds each site's periodic check row and the fresh
# connection that measures it, in their steady-state share.
WINDOW = float(os.environ.get("SECDASH_BENCH_PROBE_WINDOW", "300"))
WARM_ROUNDS = 2  # rounds before the window: the first checks (findings opened) and one unchanged round
UPTIME_KUMA_MS = 5.74
UNCHANGED_ROW_SECONDS = 300.0  # monitor.UNCHANGED_CHECK_INTERVAL (a constant here: the "before" checkout has none)

# The target: an asyncio HTTP/1.1 server that keeps connections open (as nginx does), answers every GET with a
# small page and a few headers, and counts GETs and OPTIONS; GET /__count answers "gets options".
TARGET = textwrap.dedent(
    """
    import asyncio, sys
    counts = {"GET": 0, "OPTIONS": 0}
    BODY = b"<!doctype html><html><head><title>target</title></head><body>ok</body></html>"
    HEAD = (b"HTTP/1.1 200 OK\\r\\nContent-Type: text/html; charset=utf-8\\r\\nX-Content-Type-Options: nosniff\\r\\n"
            b"Content-Length: %d\\r\\n\\r\\n")
    async def serve(reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\\r\\n\\r\\n")
                method, path = head.split(b" ", 2)[:2]
                if path == b"/__count":
                    body = f"{counts['GET']} {counts['OPTIONS']}".encode()
                else:
                    counts[method.decode()] = counts.get(method.decode(), 0) + 1
                    body = BODY if method == b"GET" else b""
                writer.write(HEAD % len(body) + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()
    async def main():
        server = await asyncio.start_server(serve, "127.0.0.1", int(sys.argv[1]), backlog=1024)
        async with server:
            await server.serve_forever()
    asyncio.run(main())
    """
)

ADD_SITES = textwrap.dedent(
    """
    import sys
    from sqlmodel import Session, create_engine, update
    from secdash.core.config import get_settings
    from secdash.models import Site
    engine = create_engine(get_settings().database_url)
    count, port = int(sys.argv[1]), int(sys.argv[2])
    with Session(engine) as session:
        session.exec(update(Site).values(paused=True))
        for i in range(count):
            url = f"http://127.0.0.1:{port}/?target={i}"
            session.add(Site(name=f"target {i}", domain=f"127.0.0.1/{i}", url=url, allow_private=True))
        session.commit()
    """
)


def _counts(port: int) -> tuple[int, int]:
    gets, options = httpx.get(f"http://127.0.0.1:{port}/__count", timeout=10).text.split()
    return int(gets), int(options)


def _wait_for_gets(port: int, at_least: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while _counts(port)[0] < at_least:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the monitor did not reach {at_least} probes in {timeout:.0f}s: {_counts(port)}")
        time.sleep(1)


def _start_server(project: Path, env: dict[str, str], data_dir: Path, target_port: int):
    from tests.support.live_server import LiveServer, free_port

    venv = project / ".venv" / "bin"
    port = free_port()
    env = env | {"PORT": str(port), "PATH": f"{venv}{os.pathsep}{env.get('PATH', '')}"}
    for args in (["-m", "secdash", "init"], ["-c", ADD_SITES, str(SITES), str(target_port)]):
        subprocess.run([str(venv / "python"), *args], cwd=project, env=env, check=True, capture_output=True, text=True)
    log_path = data_dir / "server.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [str(venv / "reflex"), "run", "--env", "prod", "--single-port"]
            + ["--backend-port", str(port), "--backend-host", "127.0.0.1"],
            cwd=project,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = LiveServer(process, f"http://127.0.0.1:{port}", log_path)
    deadline = time.monotonic() + 600
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{log_path.read_text()[-4000:]}")
        try:
            if httpx.get(f"{server.base_url}/ping", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"server not ready:\n{log_path.read_text()[-4000:]}")
        time.sleep(1)


def _history_bytes(data_dir: Path) -> tuple[int, int]:
    """(rows, bytes) of site_checks and its indexes in the SQLite file (dbstat), after a checkpoint."""
    db = sqlite3.connect(data_dir / "secdash.db")
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rows = db.execute("SELECT count(*) FROM site_checks").fetchone()[0]
        names = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'site_checks'")]
        size = 0
        for name in names:
            size += db.execute("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = ?", (name,)).fetchone()[0]
        return rows, size
    except sqlite3.DatabaseError:
        return db.execute("SELECT count(*) FROM site_checks").fetchone()[0], 0
    finally:
        db.close()


def run() -> None:
    project = Path(os.environ.get("SECDASH_BENCH_PROJECT", Path(__file__).resolve().parents[1])).resolve()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=project, capture_output=True, text=True).stdout
    print(f"(k) probe cost: {SITES} sites on {INTERVAL:g}-s rounds, server of {project} at {commit.strip()}")
    data_dir = prepare_environment(SECDASH_MONITOR="on", SECDASH_SIMULATION="off")
    from tests.support.live_server import free_port, server_env

    target_port = free_port()
    target = subprocess.Popen([sys.executable, "-c", TARGET, str(target_port)], start_new_session=True)
    server = None
    try:
        time.sleep(0.5)
        env = server_env(data_dir, **server_overrides(data_dir), GRANIAN_WORKERS="1")
        env["SECDASH_MONITOR_INTERVAL"] = f"{INTERVAL:g}"
        env.pop("SECDASH_TRAFFIC_SIMULATION", None)
        server = _start_server(project, env, data_dir, target_port)
        pgid = server.process.pid
        _wait_for_gets(target_port, SITES * WARM_ROUNDS, timeout=INTERVAL * (WARM_ROUNDS + 2) + 120)
        time.sleep(INTERVAL / 2)  # between rounds
        rows_before, _ = _history_bytes(data_dir)
        gets_before, options_before = _counts(target_port)
        cpu_before, started = cpu_seconds(pgid), time.monotonic()
        time.sleep(WINDOW)
        cpu, wall = cpu_seconds(pgid) - cpu_before, time.monotonic() - started
        gets_after, options_after = _counts(target_port)
        gets, options = gets_after - gets_before, options_after - options_before
        rows_after, size = _history_bytes(data_dir)
        per_probe = cpu / gets * 1000 if gets else float("nan")
        print(
            f"  window {wall:.0f} s: {gets} probes ({options} preflights), server CPU {cpu:.2f} s "
            f"({cpu / wall * 100:.1f}% of a core), RSS {rss_mb(pgid):.0f} MB"
        )
        print(
            f"  whole-process server CPU per probe: {per_probe:.2f} ms "
            f"({per_probe / UPTIME_KUMA_MS:.2f}x Uptime Kuma's {UPTIME_KUMA_MS} ms)"
        )
        new_rows = rows_after - rows_before
        per_row = size / rows_after if rows_after else 0
        kept = new_rows / gets if gets else 0.0
        window_day = new_rows / SITES * 86400 / wall * per_row  # this window's rows per site, over a day
        every = 86400 / 20 * per_row  # a row per probe on 20-s rounds, a day
        print(
            f"  history: {new_rows} check rows written in the window ({kept * 100:.0f}% of probes); {rows_after} rows, "
            f"{size / 1e6:.1f} MB stored, {per_row:.0f} B a row with its indexes. Per site and day: "
            f"{window_day / 1e3:.0f} KB at this window's rate ({window_day * SITES / 1e9:.3f} GB a day at {SITES} sites); "
            f"a row per probe of 20-s rounds would be {every / 1e3:.0f} KB ({every * SITES / 1e9:.3f} GB)"
        )
    finally:
        if server is not None:
            server.stop()
        os.killpg(target.pid, 15)
        target.wait()
