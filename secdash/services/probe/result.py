"""What one probe found, the status it gives a site, and the JSON the CLI prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Hop:
    """One request of a probe: a redirect followed, or the final answer. Times from the probe's start."""

    url: str
    status_code: int
    first_byte_ms: float
    done_ms: float  # its body read (up to the cap)


@dataclass(frozen=True)
class ProbeResult:
    """One probe. Times run from the start of the first request (name lookup included) over every redirect
    hop, as `curl -L -w` counts them: `ttfb_ms` to the final answer's first byte (time_starttransfer),
    `response_ms` to the end of its body or the body cap (time_total). TLS: the certificate that runs
    out first on the way (a user's browser needs each of them), days to one decimal and the instant."""

    url: str
    checked_at: datetime
    status_code: int | None = None
    response_ms: float | None = None  # total time: every hop and the body
    error: str | None = None
    tls_days_left: float | None = None
    grade: str | None = None
    score: int | None = None
    findings: list[str] = field(default_factory=list)
    final_url: str = ""
    ttfb_ms: float | None = None
    redirects: int = 0
    tls_expires_at: datetime | None = None
    hops: tuple[Hop, ...] = ()
    header_tests: tuple = ()  # the header grade's tests (services/observatory TestResult), in the reference's order
    # Whether every request of the probe went over a connection already open (a kept-alive pool): its times then
    # leave out the name lookup, the TCP connect and the TLS handshake that curl's figures include.
    connection_reused: bool = False

    @property
    def total_ms(self) -> float | None:
        return self.response_ms

    @property
    def tls_expired(self) -> bool:
        return self.tls_expires_at is not None and self.tls_expires_at <= self.checked_at


# The header grade's share of the status (MDN HTTP Observatory letters): F is ALERT, C to D- (25-59) CHECKING.
CHECKING_GRADES = frozenset({"C", "C-", "D+", "D", "D-"})


def site_status(result: ProbeResult, *, slow_ms: float = 2000.0, tls_warning_days: int = 14) -> str:
    """secure, warning (CHECKING) or critical (ALERT), from one probe. Slow means the total time: what a
    user waits for, redirects and body included. A site that answered but whose body stalled, was cut off or
    was still arriving at the probe's budget is at least CHECKING."""
    error = result.error or ""
    if (
        result.status_code is None
        or result.status_code >= 500
        or "TLS certificate" in error
        or result.tls_expired
        or (result.tls_days_left is not None and result.tls_days_left < 0)
        or result.grade == "F"
    ):
        return "critical"
    if (
        (result.response_ms is not None and result.response_ms > slow_ms)
        or error  # an answer whose body failed
        or (result.tls_days_left is not None and result.tls_days_left < tls_warning_days)
        or result.grade in CHECKING_GRADES
        or 400 <= result.status_code < 500
    ):
        return "warning"
    return "secure"


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment is not None else None


def _ms(value: float | None) -> int | None:
    return round(value) if value is not None else None


def report(result: ProbeResult) -> dict[str, Any]:
    """The probe as one JSON object (camelCase, milliseconds as whole numbers, instants in ISO 8601 UTC)."""
    return {
        "url": result.url,
        "finalUrl": result.final_url,
        "checkedAt": _iso(result.checked_at),
        "status": result.status_code,
        "siteStatus": site_status(result),
        "ttfbMs": _ms(result.ttfb_ms),
        "totalMs": _ms(result.response_ms),
        "redirects": result.redirects,
        "hops": [
            {"url": hop.url, "status": hop.status_code, "firstByteMs": _ms(hop.first_byte_ms), "doneMs": _ms(hop.done_ms)}
            for hop in result.hops
        ],
        "tlsDaysLeft": result.tls_days_left,
        "tlsExpiresAt": _iso(result.tls_expires_at),
        "error": result.error,
        "connectionReused": result.connection_reused,
        "grade": result.grade,
        "score": result.score,
        "findings": list(result.findings),
    }
