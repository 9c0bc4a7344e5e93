"""Shared column helpers: UTC timestamps."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import DateTime
from sqlalchemy import Enum as SAEnum
from sqlmodel import Field


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """SQLite returns naive datetimes; everything stored here is UTC."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _ts(**kwargs: Any) -> Any:
    """A timezone-aware timestamp column."""
    return Field(sa_type=DateTime(timezone=True), **kwargs)  # type: ignore[call-overload]


def enum_values(enum: type[StrEnum]) -> list[str]:
    return [member.value for member in enum]


def _enum(enum: type[StrEnum], *, name: str, length: int, **kwargs: Any) -> Any:
    """A status or type column typed with a StrEnum: VARCHAR(length) holding the values, limited to them by
    the CHECK constraint `name` (ck_<table>_<column>, made by the migrations), on SQLite and PostgreSQL alike.

    Python refuses an unknown value before it reaches the database (validate_strings); rows are read
    back as the enum's members (equal to their text). kwargs go to Field (default, index, nullable...).
    """
    column_type = SAEnum(
        enum,
        name=name,
        native_enum=False,
        create_constraint=True,
        validate_strings=True,
        length=length,
        values_callable=enum_values,
    )
    return Field(sa_type=column_type, **kwargs)  # type: ignore[call-overload]
