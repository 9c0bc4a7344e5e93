"""Fix Mode's table: one row per proposed fix for one open problem (a scanner finding or a site finding)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, Index, Text
from sqlmodel import Field, SQLModel

from secdash.models.base import _enum, _ts, utcnow


class FixKind(StrEnum):
    code = "code"  # a unified diff against files under a code root
    site = "site"  # a change to a site's response headers


class FixStatus(StrEnum):
    """A fix's life: proposing -> proposed -> applied -> verified | not_verified; or rejected, failed, reverted."""

    proposing = "proposing"  # the agent is writing it (a job runs)
    proposed = "proposed"  # waiting for an admin's review
    applied = "applied"  # written to the workspace; verification runs
    verified = "verified"  # the re-scan or re-probe no longer sees the problem
    not_verified = "not_verified"  # applied, but the problem is still seen
    rejected = "rejected"  # an admin turned it down
    failed = "failed"  # no valid fix could be written (the reason is in `error`)
    reverted = "reverted"  # applied, then the previous bytes were written back


ACTIVE_STATUSES = (FixStatus.proposing, FixStatus.proposed, FixStatus.applied)


class Fix(SQLModel, table=True):
    """A fix as proposed, reviewed, applied and verified.

    `previous` keeps every changed file's bytes before the fix (base64) and `applied` the SHA-256 of what the fix
    wrote, so a revert writes back exactly the old bytes and refuses when the file changed since.
    """

    __tablename__ = "fixes"
    __table_args__ = (Index("ix_fixes_event", "event_id", "id"), Index("ix_fixes_status", "status"))

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="security_events.id", ondelete="CASCADE")
    site_id: int | None = Field(default=None, foreign_key="sites.id", ondelete="SET NULL")
    kind: FixKind = _enum(FixKind, name="ck_fixes_kind", length=8)
    status: FixStatus = _enum(FixStatus, name="ck_fixes_status", length=16, default=FixStatus.proposing)
    job_id: int | None = Field(default=None, foreign_key="jobs.id", ondelete="SET NULL")
    agent_id: str = Field(default="", max_length=16)
    provider: str = Field(default="", max_length=32)
    model: str = Field(default="", max_length=100)
    root: str = Field(default="", max_length=1000)  # the code root the diff's paths are relative to
    file: str = Field(default="", max_length=1000)  # the finding's file (code) or the site's headers file (site)
    rule: str = Field(default="", max_length=200)  # the scanner rule, or the header finding
    diff: str = Field(default="", sa_type=Text)  # type: ignore[call-overload]
    change: dict[str, Any] = Field(default_factory=dict, sa_column=Column("change", JSON, nullable=False))
    explanation: str = Field(default="", max_length=2000)
    risk: str = Field(default="", max_length=2000)
    error: str | None = Field(default=None, max_length=1000)
    previous: dict[str, Any] = Field(default_factory=dict, sa_column=Column("previous", JSON, nullable=False))
    applied: dict[str, Any] = Field(default_factory=dict, sa_column=Column("applied", JSON, nullable=False))
    verification: dict[str, Any] = Field(default_factory=dict, sa_column=Column("verification", JSON, nullable=False))
    proposed_by: int | None = Field(default=None, foreign_key="users.id", ondelete="SET NULL")
    decided_by: int | None = Field(default=None, foreign_key="users.id", ondelete="SET NULL")
    created_at: datetime = _ts(default_factory=utcnow)
    updated_at: datetime = _ts(default_factory=utcnow)
    applied_at: datetime | None = _ts(default=None, nullable=True)
    verified_at: datetime | None = _ts(default=None, nullable=True)
