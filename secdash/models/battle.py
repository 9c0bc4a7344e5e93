"""Battle Station's demo-site tables: each demo site's current defense and its request log."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, Index, Text
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


class AttackType(StrEnum):
    """Spec section 9: the six attack types a drill can run."""

    ddos = "ddos"
    sql_injection = "sql_injection"
    xss = "xss"
    malware = "malware"
    brute_force = "brute_force"
    phishing = "phishing"


class OperationStatus(StrEnum):
    """A drill's outcome. `defended` shows green; anything else yellow (spec section 4)."""

    running = "running"
    defended = "defended"  # a defense was deployed and scored at least DEFENDED_SCORE
    partial = "partial"  # deployed, but it scored lower
    failed = "failed"  # no defense was deployed (the agent's answer was refused, or the drill broke)
    stopped = "stopped"  # stopped before the re-run, or its worker died


class BattleOperation(SQLModel, table=True):
    """One drill: the attack corpus sent twice (before and after the agent's defense) and what the demo site logged.

    The counts are the demo site's own request log for each run (`drill-<id>-baseline`, `drill-<id>-after`);
    `effectiveness` is computed from the after-run's counts (services/battle/scoring.py), so it can be checked
    from the stored row.
    """

    __tablename__ = "battle_operations"
    __table_args__ = (Index("ix_battle_operations_started", "started_at"), Index("ix_battle_operations_site", "site", "status"))

    id: int | None = Field(default=None, primary_key=True)
    job_id: int | None = Field(default=None, foreign_key="jobs.id", ondelete="SET NULL")
    attack_type: AttackType = _enum(AttackType, name="ck_battle_operations_attack_type", length=16)
    site: str = Field(max_length=16)  # the demo site's slug
    agent_id: str | None = Field(default=None, max_length=16)
    attack_source: str = Field(default="", max_length=64)
    simulated: bool = False  # started by the threat simulation, not by a person
    status: OperationStatus = _enum(
        OperationStatus, name="ck_battle_operations_status", length=16, default=OperationStatus.running
    )
    effectiveness: int | None = None
    mitre_technique: str = Field(default="", max_length=16)
    baseline: dict[str, Any] = Field(default_factory=dict, sa_column=Column("baseline", JSON, nullable=False))
    after: dict[str, Any] = Field(default_factory=dict, sa_column=Column("after", JSON, nullable=False))
    defense_strategy: str = Field(default="", sa_type=Text)  # type: ignore[call-overload]
    defense_code: str = Field(default="", sa_type=Text)  # type: ignore[call-overload]
    defense_config: dict[str, Any] = Field(default_factory=dict, sa_column=Column("defense_config", JSON, nullable=False))
    defense_revision: int | None = None
    provider: str = Field(default="", max_length=32)
    model: str = Field(default="", max_length=100)
    error: str | None = Field(default=None, max_length=500)
    started_by: int | None = Field(default=None, foreign_key="users.id", ondelete="SET NULL")
    started_at: datetime = _ts(default_factory=utcnow)
    finished_at: datetime | None = _ts(default=None, nullable=True)
