"""(c) From a new security event to its appearance on an open dashboard in the browser."""

from __future__ import annotations

import asyncio
import os
import threading
import time

from bench.common import ADMIN_EMAIL, ADMIN_PASSWORD, prepare_environment, server_overrides, summary

SAMPLES = 10
REDIS_URL = os.environ.get("SECDASH_BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")


async def _record(description: str) -> None:
    from secdash.core.db import session_scope
    from secdash.core.unit import commit
    from secdash.models import EventSeverity, EventType
    from secdash.services.problems import events

    async with session_scope() as session:
        events.record(session, event_type=EventType.attack_detected, severity=EventSeverity.high, description=description)
        await commit(session)


def run() -> None:
    print("(c) event to browser latency")
    try:
        import redis

        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except Exception as exc:  # the benchmark process and the server share events through Redis
        print(f"  skipped: needs Redis at {REDIS_URL} ({type(exc).__name__})")
        return
    data_dir = prepare_environment(REFLEX_REDIS_URL=REDIS_URL, SECDASH_SIMULATION="off")
    from playwright.sync_api import sync_playwright

    from tests.support.live_server import CHROMIUM, CHROMIUM_ARGS, server_env, start_server

    server = start_server(server_env(data_dir, **server_overrides(data_dir), GRANIAN_WORKERS="1"), data_dir)
    latencies: list[float] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(server.base_url + "/login")
            page.get_by_label("Email").fill(ADMIN_EMAIL)
            page.locator("#password").fill(ADMIN_PASSWORD)
            page.get_by_role("button", name="Access System").click()
            page.get_by_text("Security Alerts").wait_for()
            # The recording side runs on its own event loop thread (Playwright's sync API owns this one).
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, daemon=True).start()
            for i in range(SAMPLES):
                marker = f"bench latency marker {i} {time.time_ns()}"
                started = time.perf_counter()
                asyncio.run_coroutine_threadsafe(_record(marker), loop).result(timeout=10)
                page.get_by_text(marker).wait_for(timeout=15000)
                latencies.append((time.perf_counter() - started) * 1000)
                time.sleep(0.5)
            browser.close()
        print(f"  {summary(latencies)}")
    finally:
        server.stop()
