"""(g) Battle Station drills: what one drill costs, and whether the dashboard stays responsive while one runs.

1. Each of the six attack types runs one drill through the API (POST /api/battle-station/defend, offline engine)
   against the demo site that specialises in it (its attack module's specialist; DDoS on Stock, whose pages answer at
   once, and once more on Gem, whose pages take 2.5 s, as a separate row). Each drill starts from the site's
   weak default defense (reset first), so the figures do not depend on the order. Per drill: wall time of the
   defend request end to end, the server's CPU seconds during it (user + system time of the server's process
   group from /proc: the API, the drill job, the sender and the demo site answering it all live there) and the
   requests sent per run (baseline and re-run, from the operation's counts).
2. The overview's latency at a fixed rate (hey, as bench.overview_load) idle, then while DDoS drills run back to
   back on Stock for the whole window, so every request of the window meets a running drill.

Figures are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass

import httpx

from bench.common import ADMIN_EMAIL, ADMIN_PASSWORD, prepare_environment, server_overrides
from bench.fanout import cpu_seconds
from bench.overview_load import DURATION_SECONDS, FIXED_RATE, RATE_WORKERS, ensure_tool, hey_fixed_rate, seed

DRILL_TIMEOUT_SECONDS = 300  # operations.DURATION_SECONDS: the server answers 503 after it
OVERVIEW = "/api/dashboard/overview"
EXTRA_DRILLS = (("ddos", "gem"),)  # reported separately: gem's pages take 2.5 s each


@dataclass(frozen=True)
class DrillFigures:
    attack_type: str
    site: str
    wall_seconds: float
    cpu_seconds: float
    baseline_requests: int
    after_requests: int
    effectiveness: int
    status: str


class DrillError(RuntimeError):
    """A defend request did not answer with a measured drill (the server's reason is in the message)."""


def _reset(base_url: str, headers: dict[str, str], site: str) -> None:
    """The site's weak default defense back, so a drill's baseline meets the same defense whatever ran before."""
    httpx.post(f"{base_url}/api/battle-station/defenses/{site}/reset", headers=headers, timeout=30).raise_for_status()


def _defend(base_url: str, headers: dict[str, str], attack_type: str, site: str) -> dict:
    response = httpx.post(
        f"{base_url}/api/battle-station/defend",
        headers=headers,
        json={"attackType": attack_type, "aiAgentId": site},
        timeout=DRILL_TIMEOUT_SECONDS + 30,
    )
    if response.status_code != 200:
        raise DrillError(f"{attack_type} drill on {site}: HTTP {response.status_code} {response.text[:300]}")
    return response.json()


def timed_drill(base_url: str, headers: dict[str, str], pgid: int, attack_type: str, site: str) -> DrillFigures:
    """One drill from a reset defense: wall time and server CPU of the defend request, and its operation's counts."""
    _reset(base_url, headers, site)
    cpu_before, started = cpu_seconds(pgid), time.perf_counter()
    reply = _defend(base_url, headers, attack_type, site)
    wall, cpu = time.perf_counter() - started, cpu_seconds(pgid) - cpu_before
    op = httpx.get(f"{base_url}/api/battle-station/operations/{reply['operationId']}", headers=headers, timeout=30)
    op.raise_for_status()
    operation = op.json()

    def sent(run: dict) -> int:
        return int(run["attackSent"]) + int(run["benignSent"])

    return DrillFigures(
        attack_type,
        site,
        wall,
        cpu,
        sent(operation["baseline"]),
        sent(operation["after"]),
        int(reply["effectiveness"]),
        str(reply["status"]),
    )


class BackToBackDrills(threading.Thread):
    """DDoS drills on one site, one after another until stopped, so a load window always meets a running drill."""

    def __init__(self, base_url: str, headers: dict[str, str], site: str) -> None:
        super().__init__(daemon=True)
        self.base_url, self.headers, self.site = base_url, headers, site
        self.stop_requested = threading.Event()
        self.walls: list[float] = []
        self.error: Exception | None = None

    def run(self) -> None:
        try:
            while not self.stop_requested.is_set():
                _reset(self.base_url, self.headers, self.site)
                started = time.perf_counter()
                _defend(self.base_url, self.headers, "ddos", self.site)
                self.walls.append(time.perf_counter() - started)
        except Exception as exc:  # shown by the caller: the window's figure then says so
            self.error = exc


def _wait_until_running(base_url: str, headers: dict[str, str], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not httpx.get(f"{base_url}/api/battle-station/active", headers=headers, timeout=10).json():
        if time.monotonic() > deadline:
            raise DrillError(f"no drill was running {timeout:.0f} s after the defend request")
        time.sleep(0.05)


def _print_rate(label: str, figures: tuple[float, float, float, int]) -> None:
    rate, p50, p99, bad = figures
    print(f"    {label:28s} achieved {rate:6.1f} req/s  p50={p50:.1f} ms p99={p99:.1f} ms" + (f"  NON-200: {bad}" if bad else ""))


def run() -> None:
    print("(g) Battle Station drills")
    data_dir = prepare_environment(SECDASH_SIMULATION="off")
    asyncio.run(seed())
    from secdash.services.battle import attacks
    from tests.support.live_server import server_env, start_server

    have_hey = ensure_tool("hey")
    env = server_env(data_dir, **server_overrides(data_dir), SECDASH_THREAT_SIMULATION="off", SECDASH_DEMO_SHARES_OUTAGE="up")
    server = start_server(env, data_dir)
    pgid = server.process.pid  # started in its own session: the whole server is this process group
    try:
        login = httpx.post(f"{server.base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
        headers = {"Authorization": f"Bearer {login.json()['token']}"}
        for _ in range(20):  # warm up: first requests build caches and connections
            httpx.get(server.base_url + OVERVIEW, headers=headers, timeout=30).raise_for_status()

        print("  one drill per attack type (offline engine, from the site's default defense):")
        print(
            f"    {'attack':14s} {'site':6s} {'wall s':>7s} {'server CPU s':>12s} {'requests/run':>13s}"
            f" {'effectiveness':>13s}  status"
        )
        for attack_type, site in [*((a.id, a.specialist) for a in attacks.ATTACKS), *EXTRA_DRILLS]:
            f = timed_drill(server.base_url, headers, pgid, attack_type, site)
            runs = (
                str(f.baseline_requests)
                if f.baseline_requests == f.after_requests
                else (f"{f.baseline_requests}+{f.after_requests}")
            )
            print(
                f"    {f.attack_type:14s} {f.site:6s} {f.wall_seconds:7.2f} {f.cpu_seconds:12.2f} {runs:>13s}"
                f" {f.effectiveness:12d}%  {f.status}"
            )

        if not have_hey:
            print("  hey is not available: no overview latency figure")
            return
        print(f"  overview at a fixed {FIXED_RATE} req/s ({RATE_WORKERS} hey workers, {DURATION_SECONDS} s each):")
        _print_rate("idle", hey_fixed_rate(server.base_url + OVERVIEW, headers))
        site = attacks.BY_ID["ddos"].specialist
        drills = BackToBackDrills(server.base_url, headers, site)
        cpu_before, drills_started = cpu_seconds(pgid), time.monotonic()
        drills.start()
        _wait_until_running(server.base_url, headers)
        started = time.monotonic()
        loaded = hey_fixed_rate(server.base_url + OVERVIEW, headers)
        window = time.monotonic() - started
        drills.stop_requested.set()
        drills.join(timeout=DRILL_TIMEOUT_SECONDS + 60)
        cpu, span = cpu_seconds(pgid) - cpu_before, time.monotonic() - drills_started
        _print_rate(f"DDoS drills on {site}", loaded)
        if drills.error:
            print(f"    the drills stopped with an error, the figure above is not under load: {drills.error}")
        else:
            walls = ", ".join(f"{w:.1f}" for w in drills.walls)
            print(f"    drills back to back during the {window:.0f} s window: {len(drills.walls)} ({walls} s each)")
            print(
                f"    server CPU from the first drill's start to the last one's end ({span:.0f} s, with the overview "
                f"load): {cpu:.1f} s ({100 * cpu / span:.0f}% of a core)"
            )
    finally:
        server.stop()


if __name__ == "__main__":
    run()
