"""Shared column helpers: UTC timestamps."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime
from sqlmodel import Field


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """SQLite returns naive datetimes; everything stored here is UTC."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _ts(**kwargs: Any) -> Any:
    """A timezone-aware timestamp column."""
    return Field(sa_type=DateTime(timezone=True), **kwargs)  # type: ignore[call-overload]
