"""(a) Signed-in GET /api/dashboard/overview on a realistic database, next to a bare JSON endpoint.

The load comes from C/Go load generators (Debian's wrk and hey, installed with apt-get when missing) so
the client is not the bottleneck: wrk -c16 for the most requests per second, hey at a fixed 200 req/s
for the latency a steady load gets (p99). Figures are printed, never asserted.

Each measured round puts /api/health and the overview on the same server back to back, so their ratio holds on a
shared machine whose absolute figures move; SECDASH_OVERVIEW_ROUNDS rounds (default 3) give medians. The server is
measured with the 4 demo sites, then (SECDASH_OVERVIEW_SITES, default "4,1000") with more sites added while it is
stopped, each with a probe result as the monitor stores it (12 header tests, findings) and an hour of 30 s checks.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
import statistics
import subprocess
import threading
import time
from datetime import timedelta

from bench.common import ADMIN_EMAIL, ADMIN_PASSWORD, percentile, prepare_environment, server_overrides

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
    from secdash.core.db import dispose_engine, session_scope
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
    await dispose_engine()  # its connections belong to this event loop
    print(f"  seeded: 4 sites x {per_site} checks, {EVENTS} events")


EXTRA_SITE_CHECKS = 120  # an hour of 30 s checks per added site: the dashboard charts' window


async def add_sites(total: int) -> None:
    """Sites up to `total`, each as the monitor leaves a plain-http site after a probe (grade, findings, the
    12 header tests) with EXTRA_SITE_CHECKS checks. Run while no server is up (its cached views would not know)."""
    from sqlalchemy import func, insert, select

    from secdash.core.db import dispose_engine, session_scope
    from secdash.models import Site, SiteCheck, utcnow
    from secdash.services.monitoring.header_grade import grade_headers

    graded = grade_headers({"content-type": "text/html; charset=utf-8", "server": "nginx"}, is_https=False, body="<html></html>")
    tests = [
        {"name": t.name, "title": t.title, "result": t.result, "modifier": t.modifier, "pass": t.passed} for t in graded.tests
    ]
    rng = random.Random(2)
    async with session_scope() as session:
        have = (await session.exec(select(func.count()).select_from(Site))).scalar_one()
        now = utcnow()
        rows = [
            {
                "name": f"site {i:04d}",
                "domain": "127.0.0.1",
                "url": f"http://127.0.0.1:9/site{i:04d}",  # a save checks that the host resolves
                "status": rng.choice(["secure", "secure", "secure", "warning"]),
                "response_time_ms": rng.randint(5, 400),
                "ttfb_ms": rng.randint(2, 200),
                "redirects": 0,
                "status_code": 200,
                "grade": graded.grade,
                "score": graded.score,
                "findings": list(graded.findings),
                "header_tests": tests,
                "last_checked_at": now,
                "allow_private": True,
                "tags": ["bench"],
            }
            for i in range(have, total)
        ]
        for start in range(0, len(rows), 500):
            await session.exec(insert(Site).values(rows[start : start + 500]))
        ids = (await session.exec(select(Site.id).order_by(Site.id).offset(have))).scalars().all()
        checks = [
            {
                "site_id": site_id,
                "checked_at": now - timedelta(seconds=i * CHECK_INTERVAL_SECONDS),
                "status": "secure",
                "status_code": 200,
                "response_ms": rng.randint(5, 400),
                "grade": graded.grade,
            }
            for site_id in ids
            for i in range(EXTRA_SITE_CHECKS)
        ]
        for start in range(0, len(checks), 5000):
            await session.exec(insert(SiteCheck).values(checks[start : start + 5000]))
        await session.commit()
    await dispose_engine()  # its connections belong to this event loop
    print(f"  added {len(rows)} sites x {EXTRA_SITE_CHECKS} checks: {total} sites")


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


HEALTH, OVERVIEW = "/api/health", "/api/dashboard/overview"


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _save_every(base_url: str, headers: dict[str, str], seconds: float, stop: threading.Event) -> None:
    """Save (rename) the last site every `seconds` until stopped: each save changes the overview, as a monitor round
    does, so the next request finds it stale and the overview is read, serialised and compressed again."""
    import httpx

    site = httpx.get(base_url + "/api/sites", headers=headers, timeout=30).json()[-1]
    number = 0
    while not stop.wait(seconds):
        number += 1
        body = {"name": f"{site['name'][:60]} {number % 2}", "url": site["url"], "allowPrivate": True}
        httpx.put(f"{base_url}/api/sites/{site['id']}", json=body, headers=headers, timeout=30).raise_for_status()


def measure(
    base_url: str, headers: dict[str, str], rounds: int, have_wrk: bool, have_hey: bool, save_every: float = 0
) -> dict[str, float]:
    """`rounds` rounds of: wrk health, wrk overview, hey health, hey overview. Prints each round; returns medians.
    save_every > 0: a site is saved that often meanwhile (the overview changes)."""

    stop = threading.Event()
    if save_every > 0:
        threading.Thread(target=_save_every, args=(base_url, headers, save_every, stop), daemon=True).start()
    try:
        return _measure(base_url, headers, rounds, have_wrk, have_hey)
    finally:
        stop.set()


def _measure(base_url: str, headers: dict[str, str], rounds: int, have_wrk: bool, have_hey: bool) -> dict[str, float]:
    import httpx

    for path in (HEALTH, OVERVIEW):  # warm up: first requests build caches and connections
        for _ in range(20):
            httpx.get(base_url + path, headers=headers, timeout=30).raise_for_status()
    answer = httpx.get(base_url + OVERVIEW, headers=headers, timeout=30)
    size = int(answer.headers.get("content-length") or len(answer.content))
    print(f"    overview answer: {size / 1024:.1f} KB on the wire ({answer.headers.get('content-encoding', 'identity')})")
    seen: dict[str, list[float]] = {}
    for number in range(1, rounds + 1):
        line = [f"    round {number}:"]
        if have_wrk:
            health, _p50, _p99, bad_health = wrk(base_url + HEALTH, headers)
            overview, _p50, overview_p99, bad = wrk(base_url + OVERVIEW, headers)
        else:
            health = asyncio.run(hammer(base_url + HEALTH, headers))[0]
            overview, latencies = asyncio.run(hammer(base_url + OVERVIEW, headers))
            bad_health, bad, overview_p99 = 0, 0, percentile(latencies, 99)
        seen.setdefault("health", []).append(health)
        seen.setdefault("overview", []).append(overview)
        seen.setdefault("ratio", []).append(overview / health)
        line.append(
            f"{'wrk' if have_wrk else 'python'} health {health:7.1f} req/s, overview {overview:7.1f} req/s"
            f" (p99 {overview_p99:.1f} ms), ratio {overview / health:.2f}x"
            + (f" NON-2xx {bad_health}/{bad}" if bad_health or bad else "")
        )
        if have_hey:
            _rate, _p50, health_p99, _bad = hey_fixed_rate(base_url + HEALTH, headers)
            achieved, p50, p99, bad = hey_fixed_rate(base_url + OVERVIEW, headers)
            seen.setdefault("fixed_achieved", []).append(achieved)
            seen.setdefault("fixed_p50", []).append(p50)
            seen.setdefault("fixed_p99", []).append(p99)
            seen.setdefault("fixed_health_p99", []).append(health_p99)
            line.append(
                f"| hey {FIXED_RATE}/s overview achieved {achieved:.1f}, p50 {p50:.1f} ms, p99 {p99:.1f} ms"
                f" (health p99 {health_p99:.1f} ms)" + (f" NON-200 {bad}" if bad else "")
            )
        print(" ".join(line))
    medians = {key: _median(values) for key, values in seen.items()} | {"kb": size / 1024}
    if have_wrk:  # the same without Accept-Encoding: what a client that takes no gzip costs (one run)
        plain = {k: v for k, v in headers.items() if k.lower() != "accept-encoding"}
        rate, _p50, p99, _bad = wrk(base_url + OVERVIEW, plain)
        medians |= {
            "plain": rate,
            "plain_kb": len(httpx.get(base_url + OVERVIEW, headers=plain | {"Accept-Encoding": "identity"}).content) / 1024,
        }
        print(f"    without gzip: wrk overview {rate:7.1f} req/s (p99 {p99:.1f} ms), {medians['plain_kb']:.1f} KB")
    return medians


def run() -> None:
    import httpx

    print("(a) overview load")
    data_dir = prepare_environment(SECDASH_SIMULATION="off")
    asyncio.run(seed())
    from tests.support.live_server import server_env, start_server

    rounds = int(os.environ.get("SECDASH_OVERVIEW_ROUNDS", "3"))
    counts = [int(n) for n in os.environ.get("SECDASH_OVERVIEW_SITES", "4,1000").split(",") if n.strip()]
    have_wrk, have_hey = ensure_tool("wrk"), ensure_tool("hey")
    if not have_wrk:
        print("  wrk is not available: falling back to the Python client (it may be the bottleneck)")
    if not have_hey:
        print("  hey is not available: no fixed-rate figure")
    print(
        f"  each round: wrk -t2 -c{CONCURRENCY} -d{DURATION_SECONDS}s on /api/health then the overview (closed loop), then"
        f" hey at a fixed {FIXED_RATE} req/s ({RATE_WORKERS} workers x {FIXED_RATE / RATE_WORKERS:g} req/s; a worker waits"
        f" for its answer, so answers slower than {1000 * RATE_WORKERS / FIXED_RATE:.0f} ms lower the achieved rate)"
    )
    save_every = float(os.environ.get("SECDASH_OVERVIEW_SAVE_SECONDS", "5"))
    results: dict[str, dict[str, float]] = {}
    for count in counts:
        if count > 4:
            asyncio.run(add_sites(count))
        server = start_server(server_env(data_dir, **server_overrides(data_dir)), data_dir)
        try:
            token = httpx.post(
                f"{server.base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}
            ).json()["token"]
            # As browsers, httpx and hey ask (wrk sends only what it is given): the overview is served compressed.
            headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": "gzip"}
            print(f"  {count} sites, {rounds} rounds:")
            results[f"{count}"] = measure(server.base_url, headers, rounds, bool(have_wrk), bool(have_hey))
            if save_every > 0 and count == max(counts):
                print(f"  {count} sites, a site saved every {save_every:g} s meanwhile, {rounds} rounds:")
                results[f"{count}, saves"] = measure(
                    server.base_url, headers, rounds, bool(have_wrk), bool(have_hey), save_every=save_every
                )
        finally:
            server.stop()
    print(f"  medians of {rounds} rounds:")
    print(
        "           sites  answer KB  health req/s  overview req/s  ratio  | fixed 200/s: achieved  p50 ms  p99 ms  (health p99)"
        " | without gzip: KB, overview req/s"
    )
    for count, r in results.items():
        print(
            f"    {count:>12s}  {r['kb']:9.1f}  {r['health']:12.1f}  {r['overview']:14.1f}  {r['ratio']:5.2f}x"
            + (
                f" |  {r['fixed_achieved']:20.1f}  {r['fixed_p50']:6.1f}  {r['fixed_p99']:6.1f}  ({r['fixed_health_p99']:.1f})"
                if "fixed_p99" in r
                else ""
            )
            + (f" | {r['plain_kb']:.1f} KB, {r['plain']:.1f}" if "plain" in r else "")
        )
