"""(e) Fan-out: what an open, idle, signed-in dashboard costs the server (CPU and memory per tab).

The simulation and the site monitor run as in production. Tabs are socket clients speaking Reflex's
/_event protocol (python-socketio), each with its own client token, opened with the handshake a real
Chromium sends when it opens /dashboard signed in (captured once per run), so each tab gets the
dashboard's state, its on_load and its follow loop, as a browser tab would. They then sit idle.

Server CPU is read from /proc (user + system time of every process of the server's process group)
over a quiet window, with no tab, with 20 and with 100 tabs; memory is the group's resident set size.
Per dashboard = (with N tabs - with none) / N. Figures are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from bench.common import ADMIN_EMAIL, ADMIN_PASSWORD, prepare_environment, server_overrides

WINDOW_SECONDS = float(os.environ.get("SECDASH_BENCH_FANOUT_WINDOW", "60"))
SETTLE_SECONDS = 15.0
STEPS = (20, 100)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def _group_processes(pgid: int) -> list[Path]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # field 5 (pgrp), counted after the ")" of the command name
            found.append(entry)
    return found


def cpu_seconds(pgid: int) -> float:
    total = 0
    for proc in _group_processes(pgid):
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLOCK_TICKS


def rss_mb(pgid: int) -> float:
    total = 0
    for proc in _group_processes(pgid):
        try:
            total += int((proc / "statm").read_text().split()[1])
        except OSError:
            continue
    return total * PAGE_SIZE / 1e6


def capture_handshake(base_url: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """What Chromium sends when it opens the signed-in dashboard: the socket.io CONNECT payload (its
    hydrate-and-load event) and the events the page sends as it mounts (the dashboard's load)."""
    from playwright.sync_api import sync_playwright

    from tests.support.live_server import CHROMIUM, CHROMIUM_ARGS

    connects: list[dict[str, Any]] = []
    mounts: list[dict[str, Any]] = []

    def keep(payload) -> None:
        text = payload if isinstance(payload, str) else payload.decode()
        if text.startswith("40/_event,"):
            connects.append(json.loads(text.removeprefix("40/_event,")))
            mounts.clear()
        elif text.startswith("42/_event,"):
            name, *args = json.loads(text.removeprefix("42/_event,"))
            if name == "event" and args:
                mounts.append(args[0])

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(base_url + "/login")
        page.get_by_label("Email").fill(ADMIN_EMAIL)
        page.locator("#password").fill(ADMIN_PASSWORD)
        page.get_by_role("button", name="Access System").click()
        page.get_by_text("Security Alerts").wait_for()
        page.on("websocket", lambda ws: ws.on("framesent", keep))
        page.reload()  # a fresh socket: its CONNECT carries the signed-in hydrate of the dashboard
        page.get_by_text("Security Alerts").wait_for()
        page.wait_for_timeout(2000)
        browser.close()
    if not connects:
        raise RuntimeError("the browser sent no socket handshake")
    print(
        f"  a browser tab sends: {connects[-1]['event']['name']} on connect, then "
        f"{', '.join(event['name'].rsplit('.', 2)[-2] + '.' + event['name'].rsplit('.', 1)[-1] for event in mounts)}"
    )
    return connects[-1], list(mounts)


class Tab:
    """One idle dashboard tab: a socket.io client with its own client token."""

    def __init__(self, base_url: str, handshake: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
        import socketio

        self.base_url, (self.handshake, self.mounts) = base_url, handshake
        self.frames = 0
        self.bytes = 0
        self.hydrated = asyncio.Event()
        self.client = socketio.AsyncClient(reconnection=False)
        self.client.on("event", self._received, namespace="/_event")

    def _received(self, data) -> None:
        self.frames += 1
        text = json.dumps(data)
        self.bytes += len(text)
        if '"is_hydrated_rx_state_": true' in text:
            self.hydrated.set()

    async def open(self) -> None:
        await self.client.connect(
            f"{self.base_url}?token={uuid.uuid4()}",
            namespaces=["/_event"],
            auth=self.handshake,
            socketio_path="/_event",
            transports=["websocket"],
            headers={"Origin": self.base_url},
            wait_timeout=20,
        )
        await asyncio.wait_for(self.hydrated.wait(), 30)  # the page mounts once hydrated
        for event in self.mounts:  # what the page sends as it mounts, as the browser sent it
            await self.client.emit("event", event, namespace="/_event")

    async def close(self) -> None:
        await self.client.disconnect()


def measure(pgid: int, label: str) -> tuple[float, float]:
    """Percent of one core and resident MB of the server over WINDOW_SECONDS."""
    start_cpu, start = cpu_seconds(pgid), time.monotonic()
    time.sleep(WINDOW_SECONDS)
    used = cpu_seconds(pgid) - start_cpu
    elapsed = time.monotonic() - start
    percent, memory = 100 * used / elapsed, rss_mb(pgid)
    print(f"  {label:10s} server CPU {percent:6.2f}% of a core   resident {memory:7.1f} MB   ({elapsed:.0f} s window)")
    return percent, memory


def run() -> None:
    print("(e) fan-out: idle signed-in dashboards (simulation and monitor on)")
    data_dir = prepare_environment(SECDASH_SIMULATION="on", SECDASH_MONITOR="on")
    from tests.support.live_server import server_env, start_server

    env = server_env(
        data_dir,
        **server_overrides(data_dir),
        GRANIAN_WORKERS="1",
        SECDASH_WS_CONNECTIONS_PER_CLIENT="1000",
        SECDASH_WS_CONNECTS_PER_MINUTE="5000",
    )
    server = start_server(env, data_dir)
    pgid = server.process.pid  # started in its own session: the whole server is this process group
    loop = asyncio.new_event_loop()  # the tabs live on their own loop thread (Playwright's sync API owns this one)
    threading.Thread(target=loop.run_forever, daemon=True).start()

    def on_loop(coro, timeout: float = 300):
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout=timeout)

    tabs: list[Tab] = []
    try:
        handshake = capture_handshake(server.base_url)
        time.sleep(SETTLE_SECONDS)  # the browser's own tab is gone; the monitor has started
        base_cpu, base_mem = measure(pgid, "no tab")
        for count in STEPS:
            new = [Tab(server.base_url, handshake) for _ in range(count - len(tabs))]
            for tab in new:  # one by one, as people open the page
                on_loop(tab.open())
            tabs += new
            time.sleep(SETTLE_SECONDS)
            frames_before = sum(t.frames for t in tabs)
            bytes_before = sum(t.bytes for t in tabs)
            cpu, mem = measure(pgid, f"{count} tabs")
            frames = (sum(t.frames for t in tabs) - frames_before) / count / WINDOW_SECONDS
            sent = (sum(t.bytes for t in tabs) - bytes_before) / count / WINDOW_SECONDS
            connected = sum(t.client.connected for t in tabs)
            print(
                f"  {count:3d} tabs: per dashboard {(cpu - base_cpu) / count:.3f}% of a core,"
                f" {(mem - base_mem) / count:.2f} MB; {frames:.2f} updates/s and {sent / 1000:.1f} KB/s pushed"
                f" to each tab; {connected}/{count} connected"
            )
    finally:
        for tab in tabs:
            try:
                on_loop(tab.close(), 10)
            except Exception:  # noqa: S110 - the server goes down next anyway
                pass
        loop.call_soon_threadsafe(loop.stop)
        server.stop()
