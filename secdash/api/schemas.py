"""What the API documents: the error body and statuses, path ids, and the response shapes.

The response models mirror, field for field, the dicts the services build for the API and the UI
(services/dashboard.py, services/defense_chat.py): `response_model` documents them and checks them.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field

# Integer ids in paths: SQL integers (and SQLite's) overflow long before Python's do.
MAX_ID = 2**31 - 1
PathId = Annotated[int, Path(ge=1, le=MAX_ID, description="A positive id")]

MAX_FILTER_LENGTH = 200  # query-string filters and searches


class RequestBody(BaseModel):
    """A JSON request body: types as documented, no coercion ("yes" or 1 is not a boolean, 5 is not text)."""

    model_config = ConfigDict(strict=True)


class ErrorBody(BaseModel):
    """Every error the API returns: a status code and this body."""

    message: str


class MessageBody(BaseModel):
    message: str


ERROR_DESCRIPTIONS = {
    400: "Bad input: a field, query parameter or path id, malformed JSON, or text that is not valid Unicode",
    401: "Not signed in, or the token is invalid, expired or revoked",
    403: "The signed-in user's role may not do this",
    404: "No such item",
    409: "Conflicts with what exists",
    413: "Request body too large",
    429: "Too many requests; try again after Retry-After seconds",
    502: "The model server failed",
    503: "The model server is rate-limiting or unavailable; try again later",
    504: "The model server timed out",
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for these error statuses, each with the {"message": ...} body."""
    return {code: {"model": ErrorBody, "description": ERROR_DESCRIPTIONS[code]} for code in codes}


# Every route: bad query/path/body (400) and the body cap (413). Signed-in routes add 401.
COMMON_ERRORS = errors(400, 413)
SIGNED_IN_ERRORS = errors(400, 401, 413)
MODEL_ERRORS = errors(429, 502, 503, 504)


class SiteOut(BaseModel):
    id: int
    name: str
    domain: str
    url: str
    securityStatus: str  # noqa: N815
    responseTime: int | None  # noqa: N815
    statusCode: int | None  # noqa: N815
    tlsDaysLeft: int | None  # noqa: N815
    grade: str | None
    score: int | None
    findings: list[str]
    lastError: str | None  # noqa: N815
    lastCheckedAt: str | None  # noqa: N815
    isDemo: bool  # noqa: N815
    allowPrivate: bool  # noqa: N815


class SiteCheckOut(BaseModel):
    checkedAt: str | None  # noqa: N815
    responseTime: int | None  # noqa: N815
    status: str
    statusCode: int | None  # noqa: N815
    grade: str | None
    error: str | None


class EventOut(BaseModel):
    id: int
    createdAt: str | None  # noqa: N815
    siteId: int | None  # noqa: N815
    eventType: str  # noqa: N815
    severity: str
    description: str
    resolved: bool
    aiAction: str | None  # noqa: N815
    sourceIp: str | None  # noqa: N815
    userAgent: str | None  # noqa: N815
    site: str | None
    source: str
    details: dict[str, Any]
    resolvedBy: str | None  # noqa: N815
    resolvedAt: str | None  # noqa: N815
    resolutionNote: str | None  # noqa: N815


class ActivityOut(BaseModel):
    id: int
    activityType: str  # noqa: N815
    target: str
    description: str
    status: str
    createdAt: str | None  # noqa: N815
    simulated: bool


class TrafficOut(BaseModel):
    requestsPerMinute: int | float  # noqa: N815
    activeUsers: int | float  # noqa: N815
    bandwidth: int | float
    capacityPercent: int | float  # noqa: N815
    simulated: bool


class OverviewOut(BaseModel):
    sitesCount: int  # noqa: N815
    threatsBlocked: int  # noqa: N815
    sites: list[SiteOut]
    aiActivities: list[ActivityOut]  # noqa: N815
    trafficData: TrafficOut | None  # noqa: N815
    userStats: dict[str, Any] | None  # noqa: N815
    recentEvents: list[EventOut]  # noqa: N815


class ChatMessageOut(BaseModel):
    id: int
    role: str
    content: str
    timestamp: str
    agentId: str  # noqa: N815
    threatLevel: str | None  # noqa: N815
    provider: str | None


class WidgetReplyOut(BaseModel):
    id: int
    role: str
    content: str
    threatLevel: str  # noqa: N815
    provider: str


class DefenseReplyOut(BaseModel):
    response: str
    threatLevel: str  # noqa: N815


class AiReplyOut(BaseModel):
    response: str


class DefenseAgentOut(BaseModel):
    id: str
    agentName: str  # noqa: N815
    threatsBlocked: int  # noqa: N815


class AiAgentOut(DefenseAgentOut):
    status: str


def text(max_length: int, description: str = "", default: str = "") -> Any:
    """A capped text field of a request body."""
    return Field(default, max_length=max_length, description=description or None)
