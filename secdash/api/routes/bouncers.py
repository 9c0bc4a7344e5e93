"""The CrowdSec Local API's bouncer endpoints (/v1/decisions, /v1/decisions/stream), so existing bouncers enforce
SecDash's decisions unchanged, and the administrators' bouncer registry (/api/bouncers)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse
from fastapi.security import APIKeyHeader
from pydantic import Field

from secdash.api.deps import CurrentUser, DbSession
from secdash.api.schemas import COMMON_ERRORS, SIGNED_IN_ERRORS, MessageBody, PathId, RequestBody, errors
from secdash.models.public import PublicModel, UtcDateTime
from secdash.services.traffic import bouncers

lapi = APIRouter(prefix="/v1", tags=["bouncers (CrowdSec Local API)"])
router = APIRouter(prefix="/api", tags=["bouncers"])

api_key_scheme = APIKeyHeader(name="X-Api-Key", auto_error=False, description="A bouncer's API key (sdb_...)")
ApiKey = Annotated[str | None, Depends(api_key_scheme)]
FORBIDDEN = {"message": "access forbidden"}  # what the Local API answers a missing, unknown or revoked key


class BouncerIn(RequestBody):
    name: Annotated[
        str,
        Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,79}$", description="unique"),
    ]


class BouncerPublic(PublicModel):
    id: int
    name: str
    prefix: str
    created_at: UtcDateTime
    last_pull_at: UtcDateTime | None
    revoked_at: UtcDateTime | None


class NewBouncerPublic(BouncerPublic):
    api_key: str  # shown once


def _forbidden() -> JSONResponse:
    return JSONResponse(FORBIDDEN, status_code=403)


@lapi.get("/decisions/stream", responses={**COMMON_ERRORS, **errors(403)})
async def decisions_stream(
    session: DbSession,
    key: ApiKey = None,
    startup: Annotated[bool, Query(description="true on the bouncer's first pull: everything in force")] = False,
    scopes: Annotated[str | None, Query(max_length=100, description="comma-separated: ip, range")] = None,
) -> Any:
    """{"new": [...], "deleted": [...]}: the decisions made and ended since this bouncer's previous pull."""
    bouncer = await bouncers.bouncer_for_key(session, key)
    if bouncer is None:
        return _forbidden()
    return await bouncers.stream(session, bouncer, startup=startup, scopes=scopes)


@lapi.head("/decisions", responses={**COMMON_ERRORS, **errors(403)})
async def check_key(session: DbSession, key: ApiKey = None) -> Any:
    """200 when the key is a registered bouncer's (bouncers check their key this way at start), else 403."""
    if await bouncers.bouncer_for_key(session, key) is None:
        return _forbidden()
    return JSONResponse(None, status_code=200)


@lapi.get("/decisions", responses={**COMMON_ERRORS, **errors(403)})
async def decisions(
    session: DbSession,
    key: ApiKey = None,
    ip: Annotated[str | None, Query(max_length=64)] = None,
    range: Annotated[str | None, Query(max_length=64)] = None,  # noqa: A002
    value: Annotated[str | None, Query(max_length=64)] = None,
    scope: Annotated[str | None, Query(max_length=16)] = None,
    type: Annotated[str | None, Query(max_length=16)] = None,  # noqa: A002
) -> Any:
    """The decisions in force covering an address or range; null when there is none (as the Local API answers)."""
    bouncer = await bouncers.bouncer_for_key(session, key)
    if bouncer is None:
        return _forbidden()
    found = await bouncers.query(session, ip=ip, range_=range, value=value, scope=scope, type_=type, bouncer=bouncer)
    return JSONResponse(found)


def _public(bouncer) -> BouncerPublic:
    return BouncerPublic.model_validate(bouncer, from_attributes=True)


@router.get("/bouncers", response_model=list[BouncerPublic], responses={**SIGNED_IN_ERRORS, **errors(403)})
async def list_bouncers(user: CurrentUser, session: DbSession) -> list[BouncerPublic]:
    """The registered bouncers, newest first (their keys' first characters only)."""
    return [_public(row) for row in await bouncers.list_bouncers(session=session, actor=user)]


@router.post("/bouncers", status_code=201, response_model=NewBouncerPublic, responses={**SIGNED_IN_ERRORS, **errors(403, 409)})
async def add_bouncer(body: BouncerIn, user: CurrentUser, session: DbSession) -> NewBouncerPublic:
    """Register a bouncer; `apiKey` is in this answer only (the bouncer's `api_key` setting)."""
    made = await bouncers.add_bouncer(session=session, actor=user, name=body.name)
    return NewBouncerPublic(**_public(made.bouncer).model_dump(), api_key=made.key)


@router.delete("/bouncers/{bouncer_id}", response_model=MessageBody, responses={**SIGNED_IN_ERRORS, **errors(403, 404)})
async def revoke_bouncer(bouncer_id: PathId, user: CurrentUser, session: DbSession) -> MessageBody:
    """Revoke a bouncer's key: its next pull is refused (403)."""
    bouncer = await bouncers.revoke_bouncer(session=session, actor=user, bouncer_id=bouncer_id)
    return MessageBody(message=f"bouncer {bouncer.name} revoked")
