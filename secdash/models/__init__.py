"""Every database table, plus the public shapes where they differ; one module per area."""

from secdash.models.ai import AgentRecord, AiCall, AiCallOutcome, DefenseChatMessage
from secdash.models.ai_kinds import AgentStatus, ChatRole, ChatSurface, ThreatLevel
from secdash.models.alerting import (
    AlertingSettings,
    AlertKind,
    AlertState,
    DeliveryOutcome,
    NotificationChannel,
    NotificationDelivery,
    NotificationRule,
)
from secdash.models.artifacts import Artifact, ArtifactStatus, ArtifactVersion, VersionSource
from secdash.models.audit import HistoryLog, LogCategory, LogSeverity
from secdash.models.auth import AuthSession, LoginAttempt, Role, User
from secdash.models.base import as_utc, utcnow
from secdash.models.battle import AttackType, BattleOperation, DemoDefense, DemoRequest, DrillTraffic, OperationStatus
from secdash.models.builder import BuildLogType, CodeProject, FileChange, ProjectFile, ProjectStatus
from secdash.models.events import (
    ActivityType,
    AiActivity,
    Disposition,
    EventSeverity,
    EventSource,
    EventType,
    SecurityEvent,
)
from secdash.models.fixes import Fix, FixKind, FixStatus
from secdash.models.jobs import Job, JobLevel, JobLog, JobStatus
from secdash.models.monitoring import LiveSnapshot, Site, SiteCheck, SiteStatus
from secdash.models.public import HistoryLogPublic, UserPublic
from secdash.models.scans import ScanView
from secdash.models.traffic import (
    Bouncer,
    DecisionOrigin,
    DecisionType,
    IngestToken,
    TrafficDecision,
    TrafficDetection,
    TrafficMinute,
    TrafficRequest,
)

__all__ = [
    "Bouncer",
    "DecisionOrigin",
    "DecisionType",
    "IngestToken",
    "TrafficDecision",
    "TrafficDetection",
    "TrafficMinute",
    "TrafficRequest",
    "AlertingSettings",
    "AlertKind",
    "AlertState",
    "DeliveryOutcome",
    "NotificationChannel",
    "NotificationDelivery",
    "NotificationRule",
    "Artifact",
    "ArtifactStatus",
    "ArtifactVersion",
    "VersionSource",
    "utcnow",
    "as_utc",
    "Role",
    "User",
    "UserPublic",
    "AuthSession",
    "LoginAttempt",
    "LogCategory",
    "LogSeverity",
    "HistoryLog",
    "HistoryLogPublic",
    "SiteStatus",
    "Site",
    "SiteCheck",
    "LiveSnapshot",
    "EventType",
    "EventSeverity",
    "SecurityEvent",
    "AiActivity",
    "ActivityType",
    "Disposition",
    "EventSource",
    "AgentStatus",
    "ChatRole",
    "ChatSurface",
    "ThreatLevel",
    "ScanView",
    "Job",
    "JobLevel",
    "JobLog",
    "JobStatus",
    "DefenseChatMessage",
    "AgentRecord",
    "AiCall",
    "AiCallOutcome",
    "DemoDefense",
    "DemoRequest",
    "DrillTraffic",
    "AttackType",
    "BattleOperation",
    "OperationStatus",
    "Fix",
    "FixKind",
    "FixStatus",
    "CodeProject",
    "ProjectFile",
    "ProjectStatus",
    "BuildLogType",
    "FileChange",
]
