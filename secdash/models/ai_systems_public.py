"""GET /api/ai-systems and the AI Systems page: one shape (camelCase on the wire).

Measured figures sit at the top level of a platform; the figures with no real source (spec section 9's
agent figures and the stored platform profile) sit under `profile`, whose `source` is always "profile".
"""

from __future__ import annotations

from typing import Final, Literal

from secdash.models.ai_kinds import AgentStatus
from secdash.models.monitoring import SiteStatus
from secdash.models.public import ActivityPublic, PublicModel, UtcDateTime

PROFILE: Final = "profile"


class PlatformProfilePublic(PublicModel):
    """Display figures of a platform that nothing measures (never random: fixed per platform)."""

    source: Literal["profile"] = PROFILE
    specialization: str
    users: int
    data_size: str  # e.g. "3.2TB"
    data_tb: float
    models: int
    datasets: int
    accuracy: float  # percent
    memory_percent: int
    frameworks: list[str]
    training_samples: int
    training_features: int


class AgentCallsPublic(PublicModel):
    """The platform agent's model calls as recorded in ai_calls."""

    calls: int
    errors: int
    prompt_tokens: int
    completion_tokens: int
    calls_with_tokens: int  # the offline engine reports no token counts
    avg_latency_ms: int | None
    last_call_at: UtcDateTime | None


class PlatformPublic(PublicModel):
    id: str  # stock, tour, gem, shares
    name: str
    agent_name: str
    agent_status: AgentStatus
    site_id: int | None
    domain: str | None
    site_status: SiteStatus | None
    online: bool | None  # the newest check answered (None: not checked yet, or no site)
    response_time: int | None  # ms, the newest check
    last_checked_at: UtcDateTime | None
    checks: int  # stored checks (kept a week)
    uptime_percent: float | None
    uptime_hours: float | None  # since the newest failed check (or the oldest stored one)
    uptime_since: UtcDateTime | None = None  # the first check of the current streak of answered checks
    uptime_since_first_check: bool = False  # that check is the oldest stored one: no failure seen since
    code_lines: int | None  # counted in the site's stored code root; None: no root
    code_root: str | None
    threats_detected: int
    threats_blocked: int
    false_positives: int
    recent_activities: list[ActivityPublic]
    ai: AgentCallsPublic
    profile: PlatformProfilePublic


class SystemsStatusPublic(PublicModel):
    operational: bool
    label: str  # "All Systems Operational" or what is not
    down: list[str]
    degraded: list[str]
    unchecked: list[str]


class AiSummaryPublic(PublicModel):
    total_data_tb: float  # profile
    code_lines: int  # measured
    code_lines_millions: float
    ai_models: int
    active_users: int  # profile
    profile_fields: list[str]  # which of these figures come from the profiles


class TrainingRowPublic(PublicModel):
    platform: str
    specialization: str
    samples: int
    features: int
    storage: str
    source: Literal["profile"] = PROFILE


class AiSystemsPublic(PublicModel):
    generated_at: UtcDateTime
    summary: AiSummaryPublic
    status: SystemsStatusPublic
    platforms: list[PlatformPublic]
    training: list[TrainingRowPublic]
