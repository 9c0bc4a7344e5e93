"""Traffic: a site's access-log ingest (authenticated by the site's ingest token, not a user) and, for
administrators, the site's ingest tokens."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import Field

from secdash.api.deps import CurrentUser, DbSession
from secdash.api.schemas import COMMON_ERRORS, SIGNED_IN_ERRORS, MessageBody, PathId, RequestBody, errors
from secdash.core.config import get_settings
from secdash.models.public import PublicModel, UtcDateTime
from secdash.models.traffic_public import DecisionPublic
from secdash.services.errors import AuthFailed
from secdash.services.reads import read_models
from secdash.services.traffic import decisions, ingest, tokens
from secdash.services.traffic.logformats import FORMATS

router = APIRouter(prefix="/api", tags=["traffic"])
INGEST_PATH = re.compile(r"^/api/traffic/ingest/?$")


def body_caps() -> tuple[tuple[re.Pattern[str], int], ...]:
    """For api/middleware.RequestGuard: an ingest batch may be as large as SECDASH_TRAFFIC_INGEST_MAX_BYTES."""
    return ((INGEST_PATH, get_settings().TRAFFIC_INGEST_MAX_BYTES),)


class IngestPublic(PublicModel):
    lines: int
    accepted: int
    unreadable: int
    samples: list[str]
    message: str


class IngestTokenPublic(PublicModel):
    id: int
    site_id: int
    prefix: str
    created_at: UtcDateTime
    last_used_at: UtcDateTime | None
    revoked_at: UtcDateTime | None


class NewIngestTokenPublic(IngestTokenPublic):
    token: str  # shown once


LogFormat = Annotated[Literal[FORMATS], Query(description="the lines' format; auto tells JSON and text lines apart")]  # type: ignore[valid-type]


# The ingest token (`Authorization: Bearer sdi_...`, documented as OpenAPI `security`); without auto_error a
# missing or bad one is the route's 401 with a message, not the scheme's.
ingest_scheme = HTTPBearer(auto_error=False, scheme_name="IngestToken", description="A site's ingest token (sdi_...)")
IngestCredentials = Annotated[HTTPAuthorizationCredentials | None, Depends(ingest_scheme)]


@router.post(
    "/traffic/ingest",
    response_model=IngestPublic,
    responses={**COMMON_ERRORS, **errors(401, 415)},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }
    },
)
async def ingest_logs(
    request: Request,
    session: DbSession,
    format: LogFormat = "auto",  # noqa: A002
    token: IngestCredentials = None,
) -> IngestPublic:
    """Append access-log lines to the site the ingest token belongs to (`Authorization: Bearer sdi_...`).

    The body is the lines (nginx/Apache combined or common, Caddy JSON, NDJSON), plain or gzip (Content-Encoding:
    gzip). Lines that are not requests are counted and three are shown; the others are stored. A body in which no
    line is a request is refused (400), as is one over the size limit (413)."""
    site = await tokens.site_for_token(session, token.credentials if token else None)
    if site is None:
        raise AuthFailed("a valid ingest token is required (Authorization: Bearer sdi_...); it may have been revoked")
    lines = ingest.body_lines(
        await request.body(), request.headers.get("content-encoding", ""), get_settings().TRAFFIC_INGEST_MAX_BYTES
    )
    assert site.id is not None
    result = await ingest.ingest_lines(session, site.id, lines, format)
    return IngestPublic(
        lines=result.lines,
        accepted=result.accepted,
        unreadable=result.unreadable,
        samples=list(result.samples),
        message=result.message,
    )


def _public(token) -> IngestTokenPublic:
    return IngestTokenPublic.model_validate(token, from_attributes=True)


@router.get(
    "/sites/{site_id}/ingest-tokens",
    response_model=list[IngestTokenPublic],
    responses={**SIGNED_IN_ERRORS, **errors(403, 404)},
)
async def list_ingest_tokens(site_id: PathId, user: CurrentUser, session: DbSession) -> list[IngestTokenPublic]:
    """A site's ingest tokens, newest first (their first characters only; a token is shown once, when made)."""
    return [_public(token) for token in await tokens.list_tokens(session=session, actor=user, site_id=site_id)]


@router.post(
    "/sites/{site_id}/ingest-tokens",
    status_code=201,
    response_model=NewIngestTokenPublic,
    responses={**SIGNED_IN_ERRORS, **errors(403, 404, 409)},
)
async def create_ingest_token(site_id: PathId, user: CurrentUser, session: DbSession) -> NewIngestTokenPublic:
    """A new ingest token for the site; `token` is in this answer only. To rotate, create one and revoke the old."""
    made = await tokens.create_token(session=session, actor=user, site_id=site_id)
    return NewIngestTokenPublic(**_public(made.token).model_dump(), token=made.secret)


@router.delete(
    "/sites/{site_id}/ingest-tokens/{token_id}",
    response_model=MessageBody,
    responses={**SIGNED_IN_ERRORS, **errors(403, 404)},
)
async def revoke_ingest_token(site_id: PathId, token_id: PathId, user: CurrentUser, session: DbSession) -> MessageBody:
    """Revoke a token: the next batch sent with it is refused (401)."""
    token = await tokens.revoke_token(session=session, actor=user, site_id=site_id, token_id=token_id)
    return MessageBody(message=f"ingest token {token.prefix}… revoked")


class DecisionIn(RequestBody):
    value: Annotated[str, Field(min_length=1, max_length=49, description="an IP address or a CIDR network")]
    type: Literal["ban", "throttle"] = "ban"
    durationSeconds: Annotated[int, Field(ge=60, le=365 * 86400)] = 4 * 3600  # noqa: N815
    reason: Annotated[str, Field(max_length=300)] = ""


def _decision(row) -> DecisionPublic:
    return DecisionPublic.model_validate(row, from_attributes=True)


@router.get("/decisions", response_model=list[DecisionPublic], responses={**SIGNED_IN_ERRORS, **errors(403)})
async def list_decisions(
    user: CurrentUser,
    session: DbSession,
    all: Annotated[bool, Query(description="also the removed and ended ones")] = False,  # noqa: A002
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> list[DecisionPublic]:
    """Decisions newest first (admins): those in force, or every one kept with `all=true`."""
    rows = await decisions.list_decisions(session=session, actor=user, active_only=not all, limit=limit)
    return [_decision(row) for row in rows]


@router.post("/decisions", status_code=201, response_model=DecisionPublic, responses={**SIGNED_IN_ERRORS, **errors(403)})
async def add_decision(body: DecisionIn, user: CurrentUser, session: DbSession) -> DecisionPublic:
    """Ban or throttle an address or range (admins); bouncers get it on their next pull."""
    row = await decisions.add_decision(
        session=session, actor=user, value=body.value, type_=body.type, seconds=body.durationSeconds, reason=body.reason
    )
    return _decision(row)


@router.delete("/decisions/{decision_id}", response_model=DecisionPublic, responses={**SIGNED_IN_ERRORS, **errors(403, 404)})
async def remove_decision(decision_id: PathId, user: CurrentUser, session: DbSession) -> DecisionPublic:
    """Lift a decision now (admins); bouncers get the removal on their next pull."""
    return _decision(await decisions.remove_decision(session=session, actor=user, decision_id=decision_id))


class RequestEntryPublic(PublicModel):
    id: int
    time: str
    site: str
    client: str
    method: str
    path: str
    status: int
    size: int
    drill: bool


class MixPublic(PublicModel):
    requests: int
    status_2xx: int = Field(alias="status2xx")
    status_3xx: int = Field(alias="status3xx")
    status_4xx: int = Field(alias="status4xx")
    status_5xx: int = Field(alias="status5xx")
    blocked: int
    signups: int


class PathCountPublic(PublicModel):
    path: str
    requests: int


class SiteTrafficPublic(PublicModel):
    id: int
    name: str
    requests_per_minute: int
    capacity_rpm: int | None = None  # the site's setting (None: not set)
    capacity_percent: int | None = None  # the last minute's requests as a share of it
    bytes_per_second: int
    active_clients: int
    last_hour: MixPublic
    signups_today: int
    feed: list[RequestEntryPublic]


class LiveTrafficPublic(PublicModel):
    updated_at: str
    requests_per_minute: int
    capacity_percent: int | None = None  # the sites with a capacity, against the sum of their capacities
    bytes_per_second: int
    active_clients: int
    last_hour: MixPublic
    signups_today: int
    top_paths: list[PathCountPublic]
    feed: list[RequestEntryPublic]
    sites: list[SiteTrafficPublic]


class ClientPublic(PublicModel):
    client: str
    site: str
    verdict: Literal["clean", "suspicious", "blocked"]
    reason: str
    requests: int
    last_seen: str


class UserScanPublic(PublicModel):
    updated_at: str
    counts: dict[str, int]
    recent: list[ClientPublic]


@router.get("/traffic/live", response_model=LiveTrafficPublic, responses=SIGNED_IN_ERRORS)
async def live_traffic(user: CurrentUser) -> LiveTrafficPublic:
    """Live Traffic, from the requests the sites logged: the last minute's rate, active clients, the last hour's
    status mix, today's signups, top paths and the newest requests, overall and per site."""
    return LiveTrafficPublic.model_validate(await read_models.LIVE_TRAFFIC.get())


@router.get("/traffic/clients", response_model=UserScanPublic, responses=SIGNED_IN_ERRORS)
async def traffic_clients(user: CurrentUser) -> UserScanPublic:
    """User Scan: the clients logged in the last 24 h, counted as clean, suspicious or blocked, and the ten most
    recently seen with the reason."""
    return UserScanPublic.model_validate(await read_models.USER_SCAN.get())
