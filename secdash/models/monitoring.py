"""Monitored sites, their probes and the producers' shared snapshots."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, Index, false
from sqlmodel import Field, SQLModel

from secdash.models.base import _enum, _ts, utcnow


class SiteStatus(StrEnum):
    secure = "secure"
    warning = "warning"
    critical = "critical"


class Site(SQLModel, table=True):
    """A monitored website and what its newest probe found."""

    __tablename__ = "sites"
    # A default site is created once: its slug ("stock", ...) is unique; sites an administrator adds have none.
    __table_args__ = (Index("uq_sites_default_slug", "default_slug", unique=True),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    domain: str = Field(max_length=253)
    url: str = Field(max_length=2048)
    status: SiteStatus = _enum(SiteStatus, name="ck_sites_status", length=16, default=SiteStatus.warning)
    response_time_ms: int | None = None  # total: every redirect hop and the body (up to the probe's cap)
    ttfb_ms: int | None = None  # to the final answer's first byte, every redirect hop included
    redirects: int | None = None
    status_code: int | None = None
    tls_days_left: float | None = None  # one decimal
    tls_expires_at: datetime | None = _ts(default=None, nullable=True)
    grade: str | None = Field(default=None, max_length=4)
    score: int | None = None
    last_error: str | None = Field(default=None, max_length=300)
    findings: list[str] = Field(default_factory=list, sa_column=Column(JSON))
    # every header test of the newest answer: {"name", "title", "result", "modifier", "pass"} (services/observatory)
    header_tests: list[dict] | None = Field(default=None, sa_column=Column(JSON))
    last_checked_at: datetime | None = _ts(default=None, nullable=True)
    # Saved (added or changed) at: the monitor probes at once a site saved since its last check.
    probe_requested_at: datetime | None = _ts(default=None, nullable=True)
    is_demo: bool = False
    allow_private: bool = False
    # Traffic settings (services/traffic/site_settings.py): the requests per minute it is built for, its signup path.
    capacity_rpm: int | None = None
    signup_route: str | None = Field(default=None, max_length=200)
    default_slug: str | None = Field(default=None, max_length=16)
    # Operator-chosen labels ("prod", "eu", "client-a"): the site list filters by them (lower-case, sorted, unique).
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]"))
    # A paused site keeps its history and problems but is not probed until it is resumed.
    paused: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    created_at: datetime = _ts(default_factory=utcnow)


class SiteCheck(SQLModel, table=True):
    """One probe of a site (history kept bounded per site)."""

    __tablename__ = "site_checks"
    __table_args__ = (Index("ix_site_checks_site_checked", "site_id", "checked_at"),)

    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="sites.id", ondelete="CASCADE")
    checked_at: datetime = _ts(default_factory=utcnow)
    status: SiteStatus = _enum(SiteStatus, name="ck_site_checks_status", length=16)
    status_code: int | None = None
    response_ms: int | None = None  # total time, as Site.response_time_ms
    ttfb_ms: int | None = None
    redirects: int | None = None
    tls_days_left: float | None = None
    grade: str | None = Field(default=None, max_length=4)
    error: str | None = Field(default=None, max_length=300)


class LiveSnapshot(SQLModel, table=True):
    """The newest figures of a producer (e.g. the traffic simulation), shared by every worker."""

    __tablename__ = "live_snapshots"

    name: str = Field(primary_key=True, max_length=32)
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    updated_at: datetime = _ts(default_factory=utcnow)
