"""Leaky-bucket detection over requests, an engine (no database), with CrowdSec's semantics.

Per scenario and per group (the client, or the client on one site), a bucket is a token bucket that starts full
with `capacity` tokens and refills one token per `leakspeed` on the requests' own clock (the log's timestamps, so
a replayed log gives the answers it gave live). A matching request takes a token; the request that finds less than
one token overflows the bucket: that is a detection, and the bucket is gone (the next request starts a new one).
With `distinct`, a value already counted in this bucket is ignored (no token, not counted, the bucket's life is
not extended). A bucket left alone for more than (capacity + 1) x leakspeed is gone too. After a detection, the
same scenario does not report the same group again for `blackhole` (the overflow still happens). A trigger
scenario reports its first matching request. These are the rules CrowdSec 1.4 applies in replay mode
(docs/features/traffic.md says where each was checked against the real binary).
"""

from __future__ import annotations

import ipaddress
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from secdash.services.traffic.fields import HttpFields, http_fields
from secdash.services.traffic.logformats import Request
from secdash.services.traffic.scenarios import Scenario

SAMPLES = 5  # the newest targets kept with a detection, to show what the client did
GC_EVERY = 5_000  # requests between two sweeps of refilled buckets (as CrowdSec's replay does)
MAX_BUCKETS = 500_000  # beyond this many live buckets, the least recently fed are dropped
# CrowdSec's default whitelist (crowdsecurity/whitelists): loopback and private networks are never reported.
DEFAULT_ALLOW = tuple(
    ipaddress.ip_network(net) for net in ("127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")
)


@dataclass(frozen=True)
class Detection:
    scenario: Scenario
    address: str  # the client whose request overflowed the bucket
    host: str  # the site (or logged host) for per-site scenarios, "" otherwise
    first_seen: datetime
    last_seen: datetime
    events: int
    samples: tuple[str, ...]  # the newest request targets counted, newest last

    def as_json(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "scenario": self.scenario.name,
            "family": self.scenario.family,
            "firstSeen": self.first_seen.isoformat().replace("+00:00", "Z"),
            "lastSeen": self.last_seen.isoformat().replace("+00:00", "Z"),
            "events": self.events,
            "host": self.host,
            "description": self.scenario.description,
            "decision": {"type": self.scenario.decision_type, "seconds": int(self.scenario.decision_seconds)},
            "samples": list(self.samples),
        }


@dataclass(slots=True)
class _Bucket:
    tokens: float
    refilled: float  # the time tokens were last brought up to date
    first: float
    last: float
    count: int = 0
    seen: set[str] | None = None
    samples: deque[str] = field(default_factory=lambda: deque(maxlen=SAMPLES))


def allow_list(networks: Iterable[str]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """Networks (CIDR or single addresses) whose requests are never reported; ValueError names a bad entry."""
    parsed = []
    for text in networks:
        try:
            parsed.append(ipaddress.ip_network(text.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{text.strip()[:60]!r} is not an address or network") from None
    return tuple(parsed)


class Detector:
    """Feed requests in log order; each feed returns the detections that request completed."""

    def __init__(
        self,
        scenarios: Iterable[Scenario],
        *,
        allow: Iterable[ipaddress.IPv4Network | ipaddress.IPv6Network] = DEFAULT_ALLOW,
        site: str = "",
    ) -> None:
        self.scenarios = [s for s in scenarios if s.enabled]
        self.site = site  # the site every request belongs to (ingest), else the logged host
        self._allow = tuple(allow)
        self._allow_cache: dict[str, bool] = {}
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        self._blackhole: dict[tuple[str, str], float] = {}
        self._fed = 0
        self.requests = 0  # requests fed
        self.allowed = 0  # of them, from allowed addresses

    def _is_allowed(self, address: str) -> bool:
        known = self._allow_cache.get(address)
        if known is None:
            ip = ipaddress.ip_address(address)
            known = any(ip in network for network in self._allow)
            if len(self._allow_cache) > 100_000:
                self._allow_cache.clear()
            self._allow_cache[address] = known
        return known

    def feed(self, request: Request) -> list[Detection]:
        self.requests += 1
        if not request.method or self._is_allowed(request.address):  # not an HTTP request line: as CrowdSec
            self.allowed += bool(request.method)
            return []
        fields = http_fields(request)
        now = request.time.timestamp()
        host = self.site or request.host
        found = []
        for scenario in self.scenarios:
            if scenario.matches(request, fields):
                detection = self._pour(scenario, request, fields, now, host)
                if detection is not None:
                    found.append(detection)
        self._fed += 1
        if self._fed % GC_EVERY == 0:
            self._sweep(now)
        return found

    def _pour(self, scenario: Scenario, request: Request, fields: HttpFields, now: float, host: str) -> Detection | None:
        group = request.address if scenario.groupby == "address" else f"{request.address}/{host}"
        key = (scenario.name, group)
        if scenario.kind == "trigger":
            fired = _Bucket(tokens=0, refilled=now, first=now, last=now, count=1)
            fired.samples.append(request.target)
            return self._overflow(scenario, key, fired, request, host, now)
        bucket: _Bucket | None = self._buckets.get(key)
        if bucket is not None and now > bucket.last + (scenario.capacity + 1) * scenario.leakspeed:
            bucket = None  # left alone too long: gone
        if bucket is None:
            if len(self._buckets) >= MAX_BUCKETS:
                self._evict()
            bucket = _Bucket(
                tokens=float(scenario.capacity), refilled=now, first=now, last=now,
                seen=set() if scenario.distinct else None,
            )  # fmt: skip
            self._buckets[key] = bucket
        if bucket.seen is not None:
            value = getattr(fields, scenario.distinct or "path")
            if value in bucket.seen:
                return None
            bucket.seen.add(value)
        bucket.count += 1
        bucket.last = now
        bucket.samples.append(request.target)
        if now > bucket.refilled:
            bucket.tokens = min(float(scenario.capacity), bucket.tokens + (now - bucket.refilled) / scenario.leakspeed)
            bucket.refilled = now
        # Go's rate limiter (CrowdSec's bucket) lets a request through when the wait it would need rounds down to
        # 0 ns: a shortfall under one nanosecond's worth of leak is no shortfall (it absorbs float rounding).
        if bucket.tokens - 1 > -1e-9 / scenario.leakspeed:
            bucket.tokens -= 1
            return None
        del self._buckets[key]
        return self._overflow(scenario, key, bucket, request, host, now)

    def _overflow(
        self, scenario: Scenario, key: tuple[str, str], bucket: _Bucket, request: Request, host: str, now: float
    ) -> Detection | None:
        hidden_until = self._blackhole.get(key)
        if hidden_until is not None and hidden_until > now:
            return None
        if scenario.blackhole > 0:
            self._blackhole[key] = now + scenario.blackhole
        return Detection(
            scenario=scenario,
            address=request.address,
            host=host if scenario.groupby == "address_host" else "",
            first_seen=datetime.fromtimestamp(bucket.first, UTC),
            last_seen=datetime.fromtimestamp(now, UTC),
            events=bucket.count,
            samples=tuple(bucket.samples),
        )

    def _sweep(self, now: float) -> None:
        """Drop buckets that have refilled (as if never fed, but for their distinct values) and ended blackholes."""
        by_name = {scenario.name: scenario for scenario in self.scenarios}
        for key, bucket in list(self._buckets.items()):
            scenario = by_name[key[0]]
            if bucket.tokens + max(0.0, now - bucket.refilled) / scenario.leakspeed >= scenario.capacity:
                del self._buckets[key]
        self._blackhole = {key: until for key, until in self._blackhole.items() if until > now}

    def _evict(self) -> None:
        oldest = sorted(self._buckets.items(), key=lambda item: item[1].last)[: max(1, len(self._buckets) // 10)]
        for key, _bucket in oldest:
            del self._buckets[key]

    @property
    def live_buckets(self) -> int:
        return len(self._buckets)


def detect(requests: Iterable[Request], scenarios: Iterable[Scenario], **options: Any) -> list[Detection]:
    """Every detection in a sequence of requests (a replayed log)."""
    detector = Detector(scenarios, **options)
    found: list[Detection] = []
    for request in requests:
        found.extend(detector.feed(request))
    return found
