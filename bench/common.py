"""Shared set-up for benchmarks: a throw-away data directory that the benchmark process and server share."""

from __future__ import annotations

import os
import secrets
import statistics
import tempfile
from pathlib import Path

ADMIN_EMAIL = "bench@secdash.test"
ADMIN_PASSWORD = "bench-password-" + secrets.token_hex(4)


def prepare_environment(**extra: str) -> Path:
    """Point this process's settings at a fresh data dir; call before importing secdash modules."""
    data_dir = Path(tempfile.mkdtemp(prefix="secdash-bench-"))
    os.environ.update(
        {
            "SECDASH_DATA_DIR": str(data_dir),
            "SECDASH_SECRET_KEY": secrets.token_urlsafe(48),
            "SECDASH_ADMIN_EMAIL": ADMIN_EMAIL,
            "SECDASH_ADMIN_PASSWORD": ADMIN_PASSWORD,
            "SECDASH_MONITOR": "off",
            **extra,
        }
    )
    os.environ.pop("SECDASH_DATABASE_URL", None)
    return data_dir


def server_overrides(data_dir: Path) -> dict[str, str]:
    keys = (
        "SECDASH_DATA_DIR",
        "SECDASH_SECRET_KEY",
        "SECDASH_ADMIN_EMAIL",
        "SECDASH_ADMIN_PASSWORD",
        "SECDASH_MONITOR",
        "SECDASH_SIMULATION",
        "REFLEX_REDIS_URL",
    )
    return {k: os.environ[k] for k in keys if k in os.environ}


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def summary(values: list[float]) -> str:
    return (
        f"n={len(values)} p50={percentile(values, 50):.1f} ms p99={percentile(values, 99):.1f} ms "
        f"mean={statistics.fmean(values):.1f} ms"
    )
