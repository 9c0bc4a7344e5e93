"""Real traffic: the sites' access logs as requests, per-minute figures, detections and decisions.

Raw requests are kept for a day by default (TRAFFIC_RAW_HOURS), per-minute figures for 30 days
(TRAFFIC_MINUTE_DAYS); addresses can be stored truncated (SECDASH_TRAFFIC_TRUNCATE_ADDRESSES).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import JSON, BigInteger, Column, Index, Integer, UniqueConstraint
from sqlmodel import Field, SQLModel

from secdash.models.base import _enum, _ts, utcnow


class DecisionType(StrEnum):
    ban = "ban"
    throttle = "throttle"  # CrowdSec's "captcha" remediation: bouncers answer with a challenge or slow down


class DecisionOrigin(StrEnum):
    scenario = "scenario"  # a detection scenario fired
    operator = "operator"  # an administrator added it
    drill = "drill"  # a Battle Station drill's defense


class IngestToken(SQLModel, table=True):
    """A site's log-ingest token: shown once, stored as its SHA-256, revocable; it can only append that site's logs."""

    __tablename__ = "ingest_tokens"

    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="sites.id", ondelete="CASCADE", index=True)
    token_hash: str = Field(max_length=64, unique=True)
    prefix: str = Field(max_length=16)  # the first characters, to tell tokens apart in the list
    created_by_user_id: int | None = Field(default=None, foreign_key="users.id", ondelete="SET NULL")
    created_at: datetime = _ts(default_factory=utcnow)
    last_used_at: datetime | None = _ts(default=None, nullable=True)
    revoked_at: datetime | None = _ts(default=None, nullable=True)


class TrafficRequest(SQLModel, table=True):
    """One request a site's server logged (kept TRAFFIC_RAW_HOURS)."""

    __tablename__ = "traffic_requests"
    __table_args__ = (
        Index("ix_traffic_requests_site_id", "site_id", "id"),  # a site's newest requests (Live Traffic)
        Index("ix_traffic_requests_time", "time"),
        Index("ix_traffic_requests_client_time", "client", "time"),
    )

    # BIGINT on PostgreSQL (a busy site logs billions of requests over time); SQLite's rowid is 64-bit already.
    id: int | None = Field(default=None, sa_column=Column(BigInteger().with_variant(Integer(), "sqlite"), primary_key=True))
    site_id: int = Field(foreign_key="sites.id", ondelete="CASCADE")
    time: datetime = _ts()
    address: str = Field(max_length=45)  # as stored: whole, or truncated when the setting says so
    client: str = Field(max_length=45)  # who it counts as: the IPv4 address, or the IPv6 /64
    method: str = Field(max_length=16)
    target: str = Field(max_length=1024)
    status: int
    size: int = Field(sa_type=BigInteger)
    user_agent: str = Field(max_length=512)
    referer: str = Field(max_length=512)
    operation_id: str | None = Field(default=None, max_length=64)  # a Battle Station drill's request (demo sites)


class TrafficMinute(SQLModel, table=True):
    """A site's requests in one minute: counts by status class, bytes, blocked answers (403/429)."""

    __tablename__ = "traffic_minutes"
    __table_args__ = (UniqueConstraint("site_id", "minute", name="uq_traffic_minutes_site_minute"),)

    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="sites.id", ondelete="CASCADE")
    minute: datetime = _ts(index=True)
    requests: int = 0
    bytes: int = Field(default=0, sa_type=BigInteger)
    status_2xx: int = 0
    status_3xx: int = 0
    status_4xx: int = 0
    status_5xx: int = 0
    blocked: int = 0  # answered 403 or 429
    signups: int = 0  # requests to the site's signup route answered 2xx/3xx


class TrafficDetection(SQLModel, table=True):
    """A scenario that fired for a client on a site: what it saw, and the decision it opened."""

    __tablename__ = "traffic_detections"
    __table_args__ = (Index("ix_traffic_detections_site_created", "site_id", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="sites.id", ondelete="CASCADE")
    scenario: str = Field(max_length=81)
    family: str = Field(max_length=40)
    description: str = Field(max_length=300)
    address: str = Field(max_length=45)
    client: str = Field(max_length=45)
    first_seen: datetime = _ts()
    last_seen: datetime = _ts()
    events: int
    samples: list[str] = Field(default_factory=list, sa_column=Column(JSON))
    severity: str = Field(default="medium", max_length=8)
    raised_because: str | None = Field(default=None, max_length=300)  # an open finding or weak header it maps to
    decision_id: int | None = Field(default=None, foreign_key="traffic_decisions.id", ondelete="SET NULL")
    operation_id: str | None = Field(default=None, max_length=64)  # set when a drill's request completed it
    created_at: datetime = _ts(default_factory=utcnow)


class TrafficDecision(SQLModel, table=True):
    """A ban or throttle of an address or range, until a time; bouncers fetch them (deleted ones as deltas)."""

    __tablename__ = "traffic_decisions"
    __table_args__ = (Index("ix_traffic_decisions_until", "until"), Index("ix_traffic_decisions_value", "value"))

    id: int | None = Field(default=None, primary_key=True)
    scope: str = Field(max_length=8)  # "ip" or "range"
    value: str = Field(max_length=49)  # the address, or the network in CIDR
    type: DecisionType = _enum(DecisionType, name="ck_traffic_decisions_type", length=8, default=DecisionType.ban)
    origin: DecisionOrigin = _enum(DecisionOrigin, name="ck_traffic_decisions_origin", length=8)
    scenario: str = Field(default="", max_length=81)
    reason: str = Field(default="", max_length=300)
    site_id: int | None = Field(default=None, foreign_key="sites.id", ondelete="SET NULL")
    created_by_user_id: int | None = Field(default=None, foreign_key="users.id", ondelete="SET NULL")
    created_at: datetime = _ts(default_factory=utcnow)
    until: datetime = _ts()
    deleted_at: datetime | None = _ts(default=None, nullable=True)
    # The Threats Blocked record counting the requests the site answered 403/429 because of this decision.
    blocked_event_id: int | None = Field(default=None, foreign_key="security_events.id", ondelete="SET NULL")


class Bouncer(SQLModel, table=True):
    """An enforcement agent (a CrowdSec bouncer) that fetches decisions with its API key (stored as SHA-256)."""

    __tablename__ = "bouncers"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80, unique=True)
    key_hash: str = Field(max_length=64, unique=True)
    prefix: str = Field(max_length=16)
    created_by_user_id: int | None = Field(default=None, foreign_key="users.id", ondelete="SET NULL")
    created_at: datetime = _ts(default_factory=utcnow)
    last_pull_at: datetime | None = _ts(default=None, nullable=True)  # the stream's deltas start here
    revoked_at: datetime | None = _ts(default=None, nullable=True)
