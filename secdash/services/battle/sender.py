"""Sends a drill corpus to a demo site on this machine and reads what each request really got.

Every request carries the signed drill marker (`X-SecDash-Drill`, request_log.drill_header) naming its
operation, whether it is attack or benign traffic, and the simulated client address it counts as (rate
limits are per client). The corpus's concurrency and rate are respected (a semaphore and a start-time
pacer); progress is reported every BATCH_SIZE requests and the run can be stopped between batches.

A request is "blocked" only when the site's defense refused it: the defense answers 403, 429 or 413 with
"Blocked by {slug}'s defense (<rule>)". A wrong password (401), a failing search (500) or the site's own
body cap are answers, not blocks; a network error is status 0, not blocked.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from secdash.core.config import get_settings
from secdash.services.battle.corpora import damage
from secdash.services.battle.request_log import DRILL_HEADER, drill_header
from secdash.services.battle.traffic import Corpus, DrillRequest

log = logging.getLogger(__name__)
BATCH_SIZE = 25
BLOCK_STATUSES = (403, 413, 429)
TIMEOUT = httpx.Timeout(15.0, connect=3.0)  # a gem page takes 2.5 s; a burst queues behind it
MAX_BODY_CHARS = 64 * 1024  # of an answer, read for its damage
# Simulated clients live in 100.64.0.0/10 (RFC 6598 shared address space: never a real visitor here):
# 16384 blocks of 256 addresses, one block per (operation, run).
_CLIENT_NET = int(ipaddress.IPv4Address("100.64.0.0"))
_BLOCKS = 1 << 14


@dataclass(frozen=True)
class Outcome:
    request: DrillRequest
    status: int  # 0: no answer (network error)
    blocked: bool
    rule: str | None
    damage: str | None


@dataclass(frozen=True)
class RunResult:
    outcomes: tuple[Outcome, ...]

    def _count(self, traffic: str, blocked: bool | None = None) -> int:
        return sum(1 for o in self.outcomes if o.request.traffic == traffic and (blocked is None or o.blocked == blocked))

    @property
    def attack_sent(self) -> int:
        return self._count("attack")

    @property
    def attack_blocked(self) -> int:
        return self._count("attack", True)

    @property
    def benign_sent(self) -> int:
        return self._count("benign")

    @property
    def benign_blocked(self) -> int:
        return self._count("benign", True)

    @property
    def damages(self) -> dict[str, int]:
        """What the attack requests that got through did, and how often."""
        return dict(Counter(o.damage for o in self.outcomes if o.damage))


def client_address(operation_id: str, run: int, client: int) -> str:
    """The simulated client's IPv4 address: stable for (operation, run, client), distinct across runs and
    clients of one operation (a re-run does not inherit the baseline's rate-limit history)."""
    if not 0 <= client < 255:
        raise ValueError("client: 0 to 254")
    if run < 0:
        raise ValueError("run: 0 or more")
    base = int.from_bytes(hashlib.sha256(operation_id.encode()).digest()[:4], "big")
    block = (base + run) % _BLOCKS
    return str(ipaddress.IPv4Address(_CLIENT_NET + block * 256 + client + 1))


def check_loopback(base_url: str) -> None:
    """ValueError unless `base_url` points at this machine (drills never leave it)."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise ValueError(f"drills only target the demo sites on this machine; {host or base_url[:80]!r} is not a loopback host")


def open_client() -> httpx.AsyncClient:
    """The HTTP client a drill sends with: the console's own demo sites, short timeouts, no redirects, no proxies."""
    base_url = get_settings().demo_base_url
    check_loopback(base_url)
    return httpx.AsyncClient(
        base_url=base_url,
        timeout=TIMEOUT,
        follow_redirects=False,
        trust_env=False,
        limits=httpx.Limits(max_connections=64, max_keepalive_connections=64),
    )


def blocked_rule(status: int, body: str, slug: str) -> str | None:
    """The defense rule that refused a request, read from its answer (None when it was not refused)."""
    prefix = f"Blocked by {slug}'s defense ("
    if status in BLOCK_STATUSES and body.startswith(prefix) and body.rstrip().endswith(")"):
        return body.rstrip()[len(prefix) : -1] or "unknown"
    return None


class _Pacer:
    """Starts at most `rate` requests per second (evenly spaced)."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.next_start = time.monotonic()

    async def wait(self) -> None:
        now = time.monotonic()
        start = max(now, self.next_start)
        self.next_start = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


async def _send_one(client: httpx.AsyncClient, slug: str, attack_type: str, request: DrillRequest, header: str) -> Outcome:
    kwargs: dict[str, object] = {"headers": {DRILL_HEADER: header}}
    if request.params:
        kwargs["params"] = list(request.params)
    if request.form:
        kwargs["data"] = dict(request.form)
    if request.upload is not None:
        kwargs["files"] = {"file": request.upload}
    try:
        response = await client.request(request.method, f"/demo/{slug}{request.path}", **kwargs)  # type: ignore[arg-type]
        status, body = response.status_code, response.text[:MAX_BODY_CHARS]
    except httpx.HTTPError as exc:
        log.info("drill request to %s %s failed: %s", slug, request.path, type(exc).__name__)
        status, body = 0, ""
    rule = blocked_rule(status, body, slug)
    hurt = damage(attack_type, request, status, body, slug) if rule is None else None
    return Outcome(request=request, status=status, blocked=rule is not None, rule=rule, damage=hurt)


async def send_corpus(
    client: httpx.AsyncClient,
    slug: str,
    corpus: Corpus,
    *,
    operation_id: str,
    run: int,
    on_batch: Callable[[int, int, RunResult], Awaitable[None]] | None = None,
    should_stop: Callable[[], Awaitable[bool]] | None = None,
) -> RunResult:
    """Send the corpus (concurrency and rate respected) and return each request's outcome in corpus order.

    `on_batch(done, total, partial)` is awaited once at least BATCH_SIZE more requests were answered, and once at the
    end (`done` is the number of outcomes in `partial`);
    `should_stop()` is asked before every batch is started: when true, no more requests are started, the
    ones under way finish, and the partial result is returned.
    """
    requests = corpus.requests
    total = len(requests)
    headers = [drill_header(operation_id, r.traffic, client_address(operation_id, run, r.client)) for r in requests]
    results: dict[int, Outcome] = {}
    slots = asyncio.Semaphore(max(1, corpus.concurrency))
    pacer = _Pacer(corpus.max_per_second)
    tasks: set[asyncio.Task[None]] = set()
    reported = 0

    def partial() -> RunResult:
        return RunResult(tuple(results[i] for i in sorted(results)))

    async def report(final: bool = False) -> None:
        nonlocal reported
        # Once per BATCH_SIZE answers or more: the count reported is what the partial result holds (answers go on
        # arriving while the loop waits for a slot, so a report may come a few answers after the boundary).
        if on_batch is not None and (len(results) - reported >= BATCH_SIZE or (final and len(results) > reported)):
            snapshot = partial()
            reported = len(snapshot.outcomes)
            await on_batch(reported, total, snapshot)

    async def run_one(index: int) -> None:
        try:
            results[index] = await _send_one(client, slug, corpus.attack_type, requests[index], headers[index])
        finally:
            slots.release()

    try:
        for index in range(total):
            if index % BATCH_SIZE == 0 and index and should_stop is not None and await should_stop():
                break
            await slots.acquire()
            await pacer.wait()
            task = asyncio.create_task(run_one(index))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            await report()
        if tasks:
            await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
    await report(final=True)
    return partial()
