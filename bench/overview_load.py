"""(a) Signed-in GET /api/dashboard/overview on a realistic database, next to a bare JSON endpoint.

The load comes from C/Go load generators (Debian's wrk and hey, installed with apt-get when missing) so
the client is not the bottleneck: wrk -c16 for the most requests per second, hey at a fixed 200 req/s
for the latency a steady load gets (p99). Figures are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
import subprocess
import time
from datetime import timedelta

from bench.common import ADMIN_EMAIL, ADMIN_PASSWORD, prepare_environment, server_overrides, summary

CONCURRENCY = 16
DURATION_SECONDS = 10
FIXED_RATE = 200
RATE_WORKERS = 8  # hey -q limits each worker: 8 x 25 req/s
CHECK_INTERVAL_SECONDS = 30
EVENTS = 10_000


async def seed() -> None:
    """4 sites with a week of probe history (30 s interval) and 10,000 security events."""
    from sqlalchemy import insert

    from secdash.cli import migrate
    from secdash.core.config import get_settings
    from secdash.core.db import session_scope
    from secdash.models import SecurityEvent, SiteCheck, utcnow
    from secdash.services.monitoring import sites

    migrate()
    rng = random.Random(1)
    async with session_scope() as session:
        created = await sites.init_default_sites(session=session, settings=get_settings())
        now = utcnow()
        per_site = int(timedelta(days=7).total_seconds() // CHECK_INTERVAL_SECONDS)
        for site in created:
            rows = [
                {
                    "site_id": site.id,
                    "checked_at": now - timedelta(seconds=i * CHECK_INTERVAL_SECONDS),
                    "status": "secure",
                    "status_code": 200,
                    "response_ms": rng.randint(5, 400),
                    "grade": "A",
                }
                for i in range(per_site)
            ]
            for start in range(0, len(rows), 5000):
                await session.exec(insert(SiteCheck).values(rows[start : start + 5000]))
        events = [
            {
                "created_at": now - timedelta(seconds=i * 60),
                "event_type": "attack_detected",
                "severity": rng.choice(["high", "medium", "low"]),
                "description": f"bench event {i}",
                "resolved": rng.random() < 0.7,
                "source": "monitor",
                "details": {},
                "site_id": rng.choice(created).id,
            }
            for i in range(EVENTS)
        ]
        for start in range(0, len(events), 5000):
            await session.exec(insert(SecurityEvent).values(events[start : start + 5000]))
        await session.commit()
    print(f"  seeded: 4 sites x {per_site} checks, {EVENTS} events")


def ensure_tool(name: str) -> str | None:
    """The Debian load generator `name` (wrk, hey), installed with apt-get if missing; None if that fails."""
    path = shutil.which(name)
    if path:
        return path
    print(f"  installing {name} (Debian package) ...")
    apt = ["apt-get", "install", "-y", "-qq", name]
    if os.geteuid() != 0:
        apt = ["sudo", "-n", *apt]
    result = subprocess.run(apt, capture_output=True, text=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    if result.returncode != 0:
        print(f"  could not install {name}: {(result.stderr or result.stdout).strip().splitlines()[-1:]}")
    return shutil.which(name)


def _ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk(url: str, headers: dict[str, str]) -> tuple[float, float, float, int]:
    """Closed loop, CONCURRENCY connections for DURATION_SECONDS: req/s, p50 ms, p99 ms, non-2xx responses."""
    args = ["wrk", "-t2", f"-c{CONCURRENCY}", f"-d{DURATION_SECONDS}s", "--latency", "--timeout", "10s"]
    for key, value in headers.items():
        args += ["-H", f"{key}: {value}"]
    out = subprocess.run([*args, url], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = _ms(*re.search(r"^\s+50%\s+([\d.]+)(us|ms|s|m)\s*$", out, re.M).groups())
    p99 = _ms(*re.search(r"^\s+99%\s+([\d.]+)(us|ms|s|m)\s*$", out, re.M).groups())
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return rate, p50, p99, int(bad.group(1)) if bad else 0


def hey_fixed_rate(url: str, headers: dict[str, str]) -> tuple[float, float, float, int]:
    """FIXED_RATE requests/s for DURATION_SECONDS: hey's -q is per worker, so RATE_WORKERS workers at
    FIXED_RATE / RATE_WORKERS each. Returns achieved req/s, p50 ms, p99 ms and non-200 responses."""
    per_worker = FIXED_RATE / RATE_WORKERS
    args = ["hey", "-z", f"{DURATION_SECONDS}s", "-c", str(RATE_WORKERS), "-q", f"{per_worker:g}"]
    for key, value in headers.items():
        args += ["-H", f"{key}: {value}"]
    out = subprocess.run([*args, url], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = float(re.search(r"50%+ in ([\d.]+) secs", out).group(1)) * 1000
    p99 = float(re.search(r"99%+ in ([\d.]+) secs", out).group(1)) * 1000
    codes = dict(re.findall(r"\[(\d{3})\]\s+(\d+) responses", out))
    return rate, p50, p99, sum(int(n) for code, n in codes.items() if code != "200")


async def hammer(url: str, headers: dict[str, str]) -> tuple[float, list[float]]:
    """Fallback when wrk cannot be installed: a Python client (it, not the server, may be the limit)."""
    import httpx

    latencies: list[float] = []
    deadline = time.monotonic() + DURATION_SECONDS

    async def worker(client: httpx.AsyncClient) -> None:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            response = await client.get(url, headers=headers)
            response.raise_for_status()
            latencies.append((time.perf_counter() - started) * 1000)

    limits = httpx.Limits(max_connections=CONCURRENCY)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:
        started = time.monotonic()
        await asyncio.gather(*(worker(client) for _ in range(CONCURRENCY)))
        elapsed = time.monotonic() - started
    return len(latencies) / elapsed, latencies


PATHS = (("bare JSON /api/health", "/api/health"), ("overview", "/api/dashboard/overview"))


def run() -> None:
    import httpx

    print("(a) overview load")
    data_dir = prepare_environment(SECDASH_SIMULATION="off")
    asyncio.run(seed())
    from tests.support.live_server import server_env, start_server

    have_wrk, have_hey = ensure_tool("wrk"), ensure_tool("hey")
    server = start_server(server_env(data_dir, **server_overrides(data_dir)), data_dir)
    try:
        token = httpx.post(f"{server.base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}).json()[
            "token"
        ]
        headers = {"Authorization": f"Bearer {token}"}
        for _name, path in PATHS:  # warm up: first requests build caches and connections
            for _ in range(20):
                httpx.get(server.base_url + path, headers=headers, timeout=30).raise_for_status()
        rates: dict[str, float] = {}
        if have_wrk:
            print(f"  wrk -t2 -c{CONCURRENCY} -d{DURATION_SECONDS}s (closed loop, as fast as the server answers):")
            for name, path in PATHS:
                rate, p50, p99, bad = wrk(server.base_url + path, headers)
                rates[name] = rate
                print(
                    f"    {name:24s} {rate:8.1f} req/s  p50={p50:.1f} ms p99={p99:.1f} ms" + (f"  NON-2xx: {bad}" if bad else "")
                )
        else:
            print("  wrk is not available: falling back to the Python client (it may be the bottleneck)")
            for name, path in PATHS:
                rate, latencies = asyncio.run(hammer(server.base_url + path, headers))
                rates[name] = rate
                print(f"    {name:24s} {rate:8.1f} req/s  {summary(latencies)}")
        print(f"    overview / bare ratio    {rates['overview'] / rates['bare JSON /api/health']:.2f}x")
        if have_hey:
            print(
                f"  hey at a fixed {FIXED_RATE} req/s ({RATE_WORKERS} workers x {FIXED_RATE / RATE_WORKERS:g} req/s,"
                f" {DURATION_SECONDS}s; a worker waits for its answer, so if answers take longer than"
                f" {1000 * RATE_WORKERS / FIXED_RATE:.0f} ms the achieved rate drops below {FIXED_RATE}):"
            )
            for name, path in PATHS:
                rate, p50, p99, bad = hey_fixed_rate(server.base_url + path, headers)
                print(
                    f"    {name:24s} achieved {rate:6.1f} req/s  p50={p50:.1f} ms p99={p99:.1f} ms"
                    + (f"  NON-200: {bad}" if bad else "")
                )
        else:
            print("  hey is not available: no fixed-rate figure")
    finally:
        server.stop()
