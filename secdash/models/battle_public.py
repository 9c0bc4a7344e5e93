"""Public shapes of Battle Station (spec section 3: battle/defense operation, active battle, defend reply)."""

from __future__ import annotations

from pydantic import Field

from secdash.models.battle import AttackType, OperationStatus
from secdash.models.public import PublicModel, UtcDateTime


class RunCounts(PublicModel):
    """One run of a drill's corpora, as the demo site logged it."""

    attack_sent: int = 0
    attack_blocked: int = 0
    benign_sent: int = 0
    benign_blocked: int = 0
    damage: dict[str, int] = {}  # what attack requests that got through really did, by kind


class MitreTechnique(PublicModel):
    id: str
    name: str
    url: str


class OperationPublic(PublicModel):
    """A drill (spec: id, attackType, status, effectiveness, defenseStrategy, defenseCode, attackSource, timestamp)."""

    id: int
    attack_type: AttackType
    label: str
    status: OperationStatus
    effectiveness: int | None
    defense_strategy: str
    defense_code: str
    attack_source: str
    timestamp: UtcDateTime
    finished_at: UtcDateTime | None
    site: str
    site_name: str
    agent_id: str | None
    simulated: bool
    mitre: MitreTechnique
    baseline: RunCounts
    after: RunCounts
    block_rate: float | None  # of the after-run
    benign_pass_rate: float | None
    provider: str
    model: str
    error: str | None
    job_id: int | None


class ActiveBattlePublic(PublicModel):
    """A running drill (spec: attackType, defenseCode, startTime, duration)."""

    id: int  # the operation
    operation_id: int
    job_id: int | None
    attack_type: AttackType
    label: str
    site: str
    defense_code: str
    start_time: UtcDateTime
    duration: int = Field(description="seconds: the page leaves DEFENDING after this, counted from startTime")
    phase: str
    percent: int
    simulated: bool


class DefendReplyPublic(PublicModel):
    """The defend reply: the spec's `defenseCode` or `code`, and `effectiveness`; plus the operation."""

    defense_code: str
    code: str
    effectiveness: int
    operation_id: int
    status: OperationStatus
