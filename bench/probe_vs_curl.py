"""SecDash's probe beside `curl -w` on local servers: what a user waits for, and TLS expiry.

Cases: three redirect hops of 0.3 s each; a body that trickles over 3 s; TLS certificates (made here with the
`cryptography` package) with 3.00 days left, expired 2.5 days ago, and expired 2.5 days ago from an untrusted CA.
Each case runs RUNS times with each tool (medians shown): SecDash's probe_site (as the monitor and
`python -m secdash probe` run it) and curl -L with the same CA file (time_starttransfer, time_total, num_redirects).
curl does not print a certificate's days left and stops at a refused one: it is run again with -k to read the
certificate's "Expire date", the reference for SecDash's tlsExpiresAt. Then: how long after a save a new site has
its first figures (the monitor's follower; before, the next round: up to SECDASH_MONITOR_INTERVAL, 30 s).

Figures are printed, never asserted. `python -m bench probe`.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bench.common import prepare_environment

RUNS = 3


@dataclass
class Case:
    name: str
    url: str
    expected: str  # what a user waits for / what the certificate says, from how the server was made


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def _curl(url: str, cafile: Path, *, insecure: bool = False) -> dict:
    command = [
        "curl",
        "-sS",
        "-o",
        "/dev/null",
        "-L",
        "--max-redirs",
        "5",
        "--max-time",
        "30",
        "--cacert",
        str(cafile),
        "-w",
        "%{json}",
        url,
    ]
    if insecure:
        command.insert(1, "-k")
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    return json.loads(done.stdout or "{}")


def _curl_expiry(report: dict) -> datetime | None:
    for line in (report.get("certs") or "").splitlines():
        if line.startswith("Expire date:"):
            return datetime.strptime(line.split(":", 1)[1].strip(), "%b %d %H:%M:%S %Y GMT").replace(tzinfo=UTC)
    return None


def _fmt(value: float | None, unit: str = " ms") -> str:
    return "-" if value is None else f"{value:,.0f}{unit}"


def _ratio(ours: float | None, theirs: float | None) -> str:
    return "-" if not ours or not theirs else f"{ours / theirs:.2f}"


async def _secdash(url: str, ca_context) -> list:
    from secdash.services.probe import ProbeClient, probe_site

    results = []
    for _ in range(RUNS):
        async with ProbeClient(allow_private=True, verify=ca_context) as client:  # a fresh client: no warm pool
            results.append(await probe_site(url, client=client, allow_private=True))
    return results


def _compare(case: Case, results: list, cafile: Path) -> None:
    curls = [_curl(case.url, cafile) for _ in range(RUNS)]
    insecure = _curl(case.url, cafile, insecure=True)
    last = results[-1]
    ttfb, total = _median([r.ttfb_ms for r in results]), _median([r.response_ms for r in results])
    c_ttfb = _median([c.get("time_starttransfer", 0) * 1000 if c.get("http_code") else None for c in curls])
    c_total = _median([c.get("time_total", 0) * 1000 if c.get("http_code") else None for c in curls])
    curl_expiry = _curl_expiry(insecure)
    print(f"\n{case.name}   ({case.expected})")
    print(f"  {'':10} {'status':>6} {'first byte':>11} {'total':>9} {'redirects':>9}  TLS")
    tls = (
        "-"
        if last.tls_days_left is None
        else (f"{last.tls_days_left:.1f} days, expires {last.tls_expires_at:%Y-%m-%d %H:%M:%S} UTC")
    )
    print(
        f"  {'SecDash':10} {last.status_code or '-':>6} {_fmt(ttfb):>11} {_fmt(total):>9} {last.redirects:>9}  "
        f"{tls}; error: {last.error}"
    )
    code = curls[-1].get("http_code") or "-"
    verify = curls[-1].get("ssl_verify_result")
    print(
        f"  {'curl':10} {code:>6} {_fmt(c_ttfb):>11} {_fmt(c_total):>9} {curls[-1].get('num_redirects', '-'):>9}  "
        + (f"expires {curl_expiry:%Y-%m-%d %H:%M:%S} UTC (-k); " if curl_expiry else "")
        + f"verify result {verify}; {curls[-1].get('errormsg') or 'no error'}"
    )
    print(
        f"  {'ratio':10} {'':>6} {_ratio(ttfb, c_ttfb):>11} {_ratio(total, c_total):>9}"
        + ("   expiry instants agree" if curl_expiry and last.tls_expires_at == curl_expiry else "")
    )


async def _probe_cases(directory: Path) -> None:
    from tests.support.probe_servers import Step, StepServer, UntrustedCA, chain, expiring_in, leaf_context
    from tests.support.web_servers import LocalCA

    ca = LocalCA(directory)
    stranger = UntrustedCA(directory / "untrusted")
    servers = [
        StepServer(chain(3, 0.3)),
        StepServer({"/": Step(body=b"x" * 30_000, trickle=3.0)}),
        StepServer({"/": Step()}, tls=leaf_context(ca, expiring_in(3.0), "three")),
        StepServer({"/": Step()}, tls=leaf_context(ca, expiring_in(-2.5), "expired")),
        StepServer({"/": Step()}, tls=leaf_context(stranger, expiring_in(-2.5), "untrusted")),
    ]
    cases = [
        Case("3 redirect hops of 0.3 s", servers[0].base + "/hop1", "a user waits about 0.9 s"),
        Case("body trickling over 3 s", servers[1].base + "/", "30 KB in 10 pieces: a user waits about 3 s"),
        Case("TLS certificate with 3.00 days left", servers[2].base + "/", "3.0 days"),
        Case("TLS certificate expired 2.5 days ago", servers[3].base + "/", "expired, -2.5 days"),
        Case("untrusted CA, expired 2.5 days ago", servers[4].base + "/", "expired, -2.5 days"),
    ]
    try:
        for case in cases:
            _compare(case, await _secdash(case.url, ca.client_context()), ca.ca_file)
    finally:
        for server in servers:
            server.close()


async def _probe_on_save() -> None:
    from secdash.cli import migrate
    from secdash.core.db import dispose_engine, session_scope
    from secdash.models import Site, UserPublic
    from secdash.services.identity import users
    from secdash.services.monitoring import monitor, sites
    from secdash.services.probe import ProbeClients
    from tests.support.probe_servers import Step, StepServer

    migrate()
    async with session_scope() as session:
        admin: UserPublic = await users.create_user(
            session=session, email="probe@bench.test", password="bench-password-probe", role="admin"
        )
    waits = []
    with StepServer({"/": Step()}) as server:
        async with ProbeClients() as clients:
            follower = asyncio.create_task(monitor.probe_on_request(clients))
            await asyncio.sleep(0.1)
            try:
                for i in range(5):
                    started = time.perf_counter()
                    async with session_scope() as session:
                        site = await sites.create_site(
                            session=session, actor=admin, name=f"Bench {i}", url=f"{server.base}/?site={i}", allow_private=True
                        )
                    saved = time.perf_counter() - started
                    while True:
                        async with session_scope() as session:
                            stored = await session.get(Site, site.id)
                            if stored.last_checked_at is not None:
                                break
                        await asyncio.sleep(0.005)
                    waits.append((saved * 1000, (time.perf_counter() - started) * 1000))
            finally:
                follower.cancel()
    await dispose_engine()
    print("\nA new site's first figures after its save (5 saves, local site):")
    print(
        f"  the save answered in {statistics.median(w[0] for w in waits):.0f} ms (median), the probe's figures were "
        f"stored {statistics.median(w[1] for w in waits):.0f} ms after the save started (median; before: the next "
        "monitor round, up to 30 s)"
    )


def run() -> None:
    if shutil.which("curl") is None:
        print("curl is not installed: nothing to compare with")
        return
    prepare_environment()
    print(f"SecDash's probe beside curl -w ({RUNS} runs each, medians; local servers on 127.0.0.1)")
    with tempfile.TemporaryDirectory(prefix="secdash-probe-bench-") as directory:
        asyncio.run(_probe_cases(Path(directory)))
    asyncio.run(_probe_on_save())


if __name__ == "__main__":
    run()
