"""Battle Station's demo-site tables: each demo site's current defense and its request log."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel

from secdash.models.base import _enum, _ts, utcnow


class DrillTraffic(StrEnum):
    """What a drill said a request was (X-SecDash-Drill); ordinary traffic has no marker."""

    attack = "attack"
    benign = "benign"


class DemoDefense(SQLModel, table=True):
    """The defense configuration a demo site enforces now (validated data, never code).

    No row: the weak default. A deploy replaces the config and bumps `revision`; a reset writes the
    weak default again.
    """

    __tablename__ = "demo_defenses"

    slug: str = Field(primary_key=True, max_length=16)
    config: dict[str, Any] = Field(default_factory=dict, sa_column=Column("config", JSON, nullable=False))
    revision: int = 1
    source: str = Field(default="default", max_length=32)  # default | reset | drill | admin
    operation_id: str | None = Field(default=None, max_length=64)
    updated_by: int | None = Field(default=None, foreign_key="users.id", ondelete="SET NULL")
    updated_at: datetime = _ts(default_factory=utcnow)


class DemoRequest(SQLModel, table=True):
    """One request a demo site answered (bounded: the newest ones per site are kept)."""

    __tablename__ = "demo_requests"
    __table_args__ = (
        Index("ix_demo_requests_site_id", "slug", "id"),
        Index("ix_demo_requests_site_client_at", "slug", "client", "at"),
        Index("ix_demo_requests_operation", "operation_id", "traffic", "blocked"),
    )

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(max_length=16)
    at: datetime = _ts(default_factory=utcnow)
    client: str = Field(max_length=64)
    method: str = Field(max_length=8)
    path: str = Field(max_length=200)
    endpoint: str = Field(max_length=16)  # pages | login | search | comment | upload | report
    status_code: int = 200
    operation_id: str | None = Field(default=None, max_length=64)
    traffic: DrillTraffic | None = _enum(DrillTraffic, name="ck_demo_requests_traffic", length=8, default=None, nullable=True)
    blocked: bool = False
    rule: str | None = Field(default=None, max_length=120)
