"""The public shapes: what the API answers and the UI shows (spec sections 3 and 7).

Pydantic models with snake_case fields and camelCase aliases: built by name in Python
(`SitePublic(security_status=...)`, or by alias), serialised by alias, so the JSON keeps the spec's
names. Status and type fields are the enums the tables use; times are timezone-aware datetimes
(UTC; SQLite's naive values are read as UTC) that serialise as ISO 8601 with a `Z`.

Each shape has a constructor from its row (`SitePublic.of(site)`), so the API routes and the Reflex
states share one definition and neither parses its own JSON back.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from secdash.models.ai import AgentRecord, DefenseChatMessage
from secdash.models.ai_kinds import AgentStatus, ChatRole, ThreatLevel
from secdash.models.audit import HistoryLog, LogCategory, LogSeverity
from secdash.models.auth import Role, User
from secdash.models.base import as_utc
from secdash.models.events import ActivityType, AiActivity, Disposition, EventSeverity, EventSource, EventType, SecurityEvent
from secdash.models.monitoring import Site, SiteCheck, SiteStatus

UtcDateTime = Annotated[datetime, AfterValidator(as_utc)]


class PublicModel(BaseModel):
    """camelCase on the wire, snake_case in Python."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, serialize_by_alias=True)


class HealthPublic(PublicModel):
    status: Literal["ok"] = "ok"


class UserPublic(PublicModel):
    """What the API and the UI may see of a user (spec section 3: email, role, firstName)."""

    id: int
    email: str
    role: Role
    first_name: str

    @classmethod
    def from_user(cls, user: User) -> UserPublic:
        assert user.id is not None
        return cls(id=user.id, email=user.email, role=user.role, first_name=user.first_name)


class LoginPublic(PublicModel):
    token: str
    user: UserPublic


class HistoryLogPublic(PublicModel):
    id: int
    category: LogCategory
    action: str
    severity: LogSeverity
    description: str
    metadata: dict[str, Any]
    timestamp: UtcDateTime

    @classmethod
    def from_log(cls, log: HistoryLog) -> HistoryLogPublic:
        assert log.id is not None
        return cls(
            id=log.id,
            category=log.category,
            action=log.action,
            severity=log.severity,
            description=log.description,
            metadata=log.details or {},
            timestamp=log.timestamp,
        )


class SitePublic(PublicModel):
    id: int
    name: str
    domain: str
    url: str
    security_status: SiteStatus
    response_time: int | None = Field(description="Total time in ms: every redirect hop and the body (up to the cap)")
    ttfb_ms: int | None = Field(None, description="Time to the final answer's first byte in ms, redirects included")
    redirects: int | None = None
    status_code: int | None
    tls_days_left: float | None = Field(description="Days until the TLS certificate expires, to one decimal")
    tls_expires_at: UtcDateTime | None = None
    grade: str | None
    score: int | None
    findings: list[str]
    header_tests: list[dict[str, Any]] = []  # every header test of the newest answer (services/observatory)
    last_error: str | None
    last_checked_at: UtcDateTime | None
    is_demo: bool
    allow_private: bool
    capacity_rpm: int | None = None  # requests per minute it is built for (Live Traffic's capacity figure)
    signup_route: str | None = None  # the path signups are POSTed to (None: the usual ones)
    tags: list[str] = []  # operator-chosen labels the site list filters by
    paused: bool = False  # monitoring paused: not probed until resumed

    @classmethod
    def of(cls, site: Site) -> SitePublic:
        assert site.id is not None
        return cls(
            id=site.id,
            name=site.name,
            domain=site.domain,
            url=site.url,
            security_status=site.status,
            response_time=site.response_time_ms,
            ttfb_ms=site.ttfb_ms,
            redirects=site.redirects,
            status_code=site.status_code,
            tls_days_left=site.tls_days_left,
            tls_expires_at=site.tls_expires_at,
            grade=site.grade,
            score=site.score,
            findings=site.findings or [],
            header_tests=site.header_tests or [],
            last_error=site.last_error,
            last_checked_at=site.last_checked_at,
            is_demo=site.is_demo,
            allow_private=site.allow_private,
            capacity_rpm=site.capacity_rpm,
            signup_route=site.signup_route,
            tags=list(site.tags or []),
            paused=site.paused,
        )


class SiteCheckPublic(PublicModel):
    checked_at: UtcDateTime
    response_time: int | None
    ttfb_ms: int | None = None
    redirects: int | None = None
    status: SiteStatus
    status_code: int | None
    grade: str | None
    error: str | None

    @classmethod
    def of(cls, check: SiteCheck) -> SiteCheckPublic:
        return cls(
            checked_at=check.checked_at,
            response_time=check.response_ms,
            ttfb_ms=check.ttfb_ms,
            redirects=check.redirects,
            status=check.status,
            status_code=check.status_code,
            grade=check.grade,
            error=check.error,
        )


class EventPublic(PublicModel):
    id: int
    created_at: UtcDateTime
    site_id: int | None
    event_type: EventType
    severity: EventSeverity
    description: str
    resolved: bool
    ai_action: str | None
    source_ip: str | None
    user_agent: str | None
    site: str | None
    source: EventSource
    details: dict[str, Any]
    resolved_by: str | None
    resolved_at: UtcDateTime | None
    resolution_note: str | None
    false_positive: bool = False
    disposition: Disposition | None = None  # how an admin closed it: fixed, false_positive, accepted_risk
    accepted_until: UtcDateTime | None = None

    @classmethod
    def of(cls, event: SecurityEvent, site_name: str | None) -> EventPublic:
        assert event.id is not None
        return cls(
            id=event.id,
            created_at=event.created_at,
            site_id=event.site_id,
            event_type=event.event_type,
            severity=event.severity,
            description=event.description,
            resolved=event.resolved,
            ai_action=event.ai_action,
            source_ip=event.source_ip,
            user_agent=event.user_agent,
            site=site_name,
            source=event.source,
            details=event.details or {},
            resolved_by=event.resolved_by,
            resolved_at=event.resolved_at,
            resolution_note=event.resolution_note,
            false_positive=event.false_positive,
            disposition=event.disposition,
            accepted_until=event.accepted_until,
        )


class ActivityPublic(PublicModel):
    id: int
    activity_type: ActivityType
    target: str
    description: str
    status: str  # completed, stopped, simulated, or the site status a probe found
    created_at: UtcDateTime
    simulated: bool

    @classmethod
    def of(cls, activity: AiActivity) -> ActivityPublic:
        assert activity.id is not None
        return cls(
            id=activity.id,
            activity_type=activity.activity_type,
            target=activity.target,
            description=activity.description,
            status=activity.status,
            created_at=activity.created_at,
            simulated=activity.simulated,
        )


class TrafficPublic(PublicModel):
    """The simulated traffic figures (always marked simulated)."""

    requests_per_minute: int | float
    active_users: int | float
    bandwidth: int | float
    capacity_percent: int | float
    simulated: bool


class UserStatsPublic(PublicModel):
    """Simulated visitor verdicts (spec: clean, suspicious, blocked)."""

    clean: int
    suspicious: int
    blocked: int
    simulated: bool


class OverviewPublic(PublicModel):
    sites_count: int
    threats_blocked: int
    sites: list[SitePublic]
    ai_activities: list[ActivityPublic]
    traffic_data: TrafficPublic | None
    user_stats: UserStatsPublic | None
    recent_events: list[EventPublic]


class ChatMessagePublic(PublicModel):
    id: int
    role: ChatRole
    content: str
    timestamp: UtcDateTime
    agent_id: str
    threat_level: ThreatLevel | None
    provider: str | None

    @classmethod
    def of(cls, message: DefenseChatMessage) -> ChatMessagePublic:
        assert message.id is not None
        return cls(
            id=message.id,
            role=message.role,
            content=message.content,
            timestamp=message.created_at,
            agent_id=message.agent_id,
            threat_level=message.threat_level,
            provider=message.provider,
        )


class WidgetReplyPublic(PublicModel):
    id: int
    role: ChatRole
    content: str
    threat_level: ThreatLevel
    provider: str


class DefenseReplyPublic(PublicModel):
    response: str
    threat_level: ThreatLevel


class AiReplyPublic(PublicModel):
    response: str


class DefenseAgentPublic(PublicModel):
    id: str
    agent_name: str
    threats_blocked: int

    @classmethod
    def of(cls, agent: AgentRecord, threats_blocked: int) -> DefenseAgentPublic:
        return cls(id=agent.id, agent_name=agent.agent_name, threats_blocked=threats_blocked)


class AiAgentPublic(DefenseAgentPublic):
    status: AgentStatus

    @classmethod
    def of(cls, agent: AgentRecord, threats_blocked: int) -> AiAgentPublic:
        return cls(id=agent.id, agent_name=agent.agent_name, threats_blocked=threats_blocked, status=agent.status)
