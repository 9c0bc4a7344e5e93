"""(b) The monitor probing 1,000 local targets: CPU per round and memory, in-process (the monitor's own share; the
whole server's is `python -m bench probe_cost`). The target keeps connections open (HTTP/1.1) and the rounds share
one set of probe clients that keeps them, as the monitor's rounds do. Round 1 is every site's first check (rows
stored, header findings opened); later rounds change nothing. SQL statements per round are counted on the engine."""

from __future__ import annotations

import asyncio
import resource
import subprocess
import sys
import time

from bench.common import prepare_environment
from bench.probe_cost import TARGET

TARGETS = 1000
ROUNDS = 3


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def _run(port: int) -> None:
    from sqlalchemy import event

    from secdash.cli import migrate
    from secdash.core.db import get_engine, session_scope
    from secdash.models import Site
    from secdash.services.monitoring import monitor
    from secdash.services.probe import ProbeClients

    migrate()
    async with session_scope() as session:
        for i in range(TARGETS):
            url = f"http://127.0.0.1:{port}/?target={i}"
            session.add(Site(name=f"target {i}", domain=f"127.0.0.1/{i}", url=url, allow_private=True))
        await session.commit()
    print(f"  {TARGETS} sites against one local HTTP server; RSS before: {_rss_mb():.0f} MB")
    statements = [0]

    def count(*_args) -> None:
        statements[0] += 1

    event.listen(get_engine().sync_engine, "before_cursor_execute", count)
    async with ProbeClients(keepalive_seconds=60) as clients:
        for round_number in range(1, ROUNDS + 1):
            statements[0] = 0
            cpu_before = resource.getrusage(resource.RUSAGE_SELF)
            started = time.perf_counter()
            statuses = await monitor.probe_all(clients=clients)
            wall = time.perf_counter() - started
            cpu_after = resource.getrusage(resource.RUSAGE_SELF)
            cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
            print(
                f"  round {round_number}: {len(statuses)} probes, wall {wall:.2f}s, CPU {cpu:.2f}s "
                f"({cpu / len(statuses) * 1000:.2f} ms/probe), {statements[0]} SQL statements, RSS {_rss_mb():.0f} MB "
                f"(fits a 30 s interval: {'yes' if wall < 30 else 'no'})"
            )


def run() -> None:
    print("(b) monitor load")
    prepare_environment()
    from tests.support.live_server import free_port

    port = free_port()
    target = subprocess.Popen([sys.executable, "-c", TARGET, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        asyncio.run(_run(port))
    finally:
        target.terminate()
        target.wait()
