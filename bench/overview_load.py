"""(a) Signed-in GET /api/dashboard/overview on a realistic database, next to a bare JSON endpoint."""

from __future__ import annotations

import asyncio
import random
import time
from datetime import timedelta

from bench.common import ADMIN_EMAIL, ADMIN_PASSWORD, prepare_environment, server_overrides, summary

CONCURRENCY = 16
DURATION_SECONDS = 10
CHECK_INTERVAL_SECONDS = 30
EVENTS = 10_000


async def seed() -> None:
    """4 sites with a week of probe history (30 s interval) and 10,000 security events."""
    from sqlalchemy import insert

    from secdash.cli import migrate
    from secdash.core.config import get_settings
    from secdash.core.db import session_scope
    from secdash.models import SecurityEvent, SiteCheck, utcnow
    from secdash.services import sites

    migrate()
    rng = random.Random(1)
    async with session_scope() as session:
        created = await sites.init_default_sites(session=session, settings=get_settings())
        now = utcnow()
        per_site = int(timedelta(days=7).total_seconds() // CHECK_INTERVAL_SECONDS)
        for site in created:
            rows = [
                {"site_id": site.id, "checked_at": now - timedelta(seconds=i * CHECK_INTERVAL_SECONDS), "status": "secure",
                 "status_code": 200, "response_ms": rng.randint(5, 400), "grade": "A"}
                for i in range(per_site)
            ]
            for start in range(0, len(rows), 5000):
                await session.exec(insert(SiteCheck).values(rows[start:start + 5000]))
        events = [
            {"created_at": now - timedelta(seconds=i * 60), "event_type": "attack_detected", "severity": rng.choice(
                ["high", "medium", "low"]), "description": f"bench event {i}", "resolved": rng.random() < 0.7,
             "source": "monitor", "details": {}, "site_id": rng.choice(created).id}
            for i in range(EVENTS)
        ]
        for start in range(0, len(events), 5000):
            await session.exec(insert(SecurityEvent).values(events[start:start + 5000]))
        await session.commit()
    print(f"  seeded: 4 sites x {per_site} checks, {EVENTS} events")


async def hammer(url: str, headers: dict[str, str]) -> tuple[float, list[float]]:
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


def run() -> None:
    import httpx

    print("(a) overview load")
    data_dir = prepare_environment(SECDASH_SIMULATION="off")
    asyncio.run(seed())
    from tests.support.live_server import server_env, start_server

    server = start_server(server_env(data_dir, **server_overrides(data_dir)), data_dir)
    try:
        token = httpx.post(f"{server.base_url}/api/auth/login",
                           json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        for name, path in (("bare JSON /api/health", "/api/health"), ("overview", "/api/dashboard/overview")):
            rate, latencies = asyncio.run(hammer(server.base_url + path, headers))
            print(f"  {name:24s} {rate:7.1f} req/s  {summary(latencies)}  (concurrency {CONCURRENCY}, {DURATION_SECONDS}s)")
    finally:
        server.stop()
