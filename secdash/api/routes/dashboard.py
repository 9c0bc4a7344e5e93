"""Sites, the overview and security events (spec section 7)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.routing import APIRoute
from pydantic import Field, TypeAdapter

from secdash.api.deps import AppSettings, CurrentUser, DbSession
from secdash.api.schemas import (
    MAX_FILTER_LENGTH,
    MAX_ID,
    SIGNED_IN_ERRORS,
    MessageBody,
    PathId,
    RequestBody,
    choice_text,
    errors,
    integer_text,
    text,
)
from secdash.models import EventSeverity
from secdash.models.public import EventPublic, OverviewPublic, SiteCheckPublic, SitePublic
from secdash.services.errors import Invalid
from secdash.services.monitoring import site_tags, sites
from secdash.services.monitoring.sites import MAX_NAME_LENGTH
from secdash.services.probe import MAX_URL_LENGTH
from secdash.services.problems import events, resolution
from secdash.services.reads import dashboard, read_models
from secdash.services.traffic import site_settings

router = APIRouter(prefix="/api", tags=["dashboard"], responses=SIGNED_IN_ERRORS)
SiteFilter = Annotated[str | None, Query(max_length=MAX_FILTER_LENGTH, description="Only this site's"), integer_text(1, MAX_ID)]
SeverityFilter = Annotated[
    str | None, Query(max_length=MAX_FILTER_LENGTH), choice_text(["", *(severity.value for severity in EventSeverity)])
]
ResolvedFilter = Annotated[str | None, Query(max_length=MAX_FILTER_LENGTH), choice_text(["", "true", "false"])]
StatusFilter = Annotated[
    str | None,
    Query(
        max_length=MAX_FILTER_LENGTH,
        description=("open, resolved (closed, however) or suppressed (closed as a false positive or an accepted risk)"),
    ),
    choice_text(["", *events.STATUSES]),
]
DrillsFilter = Annotated[
    str | None,
    Query(max_length=MAX_FILTER_LENGTH, description=("include (default) or exclude Battle Station's drill records")),
    choice_text(["", "include", "exclude"]),
]
LimitFilter = Annotated[
    str | None,
    Query(max_length=MAX_FILTER_LENGTH, description=f"How many (default {events.DEFAULT_LIMIT})"),
    integer_text(1, events.MAX_LIMIT),
]


class SiteIn(RequestBody):
    name: str = text(MAX_NAME_LENGTH, "Display name", required=True, not_blank=True)
    url: str = text(
        MAX_URL_LENGTH,
        "http(s) URL to monitor (its host must resolve; a private or local address needs allowPrivate)",
        required=True,
        not_blank=True,
    )
    allowPrivate: bool = False  # noqa: N815
    capacityRpm: Annotated[int, Field(ge=1, le=site_settings.MAX_CAPACITY_RPM)] | None = Field(  # noqa: N815
        default=None,
        description="requests per minute the site is built for (Live Traffic's capacity); null: not set. "
        "Left out of an update: unchanged",
    )
    signupRoute: str | None = Field(  # noqa: N815
        default=None,
        max_length=site_settings.MAX_ROUTE,
        description="the path signups are POSTed to (e.g. /account/create); null or empty: the usual routes. "
        "Left out of an update: unchanged",
    )
    tags: list[Annotated[str, Field(max_length=site_tags.MAX_TAG_LENGTH * 2)]] | None = Field(
        default=None,
        max_length=site_tags.MAX_TAGS * 2,
        description=f"labels the site list filters by: at most {site_tags.MAX_TAGS} of at most "
        f"{site_tags.MAX_TAG_LENGTH} characters of {site_tags.ALLOWED} (lower-cased, sorted, duplicates dropped). "
        "Left out of an update: unchanged",
    )

    def traffic(self, *, update: bool) -> site_settings.TrafficSettings | None:
        """The traffic settings sent, checked (None: an update that sends neither keeps the stored ones)."""
        if update and not {"capacityRpm", "signupRoute"} & self.model_fields_set:
            return None
        return site_settings.clean(self.capacityRpm, self.signupRoute)


class ResolveIn(RequestBody):
    note: str = text(events.MAX_NOTE_LENGTH, "Resolution note (the reason: required for an accepted risk)")
    disposition: Literal["fixed", "false_positive", "accepted_risk"] | None = Field(
        default=None,
        description="How it is closed (default fixed); a later scan keeps a false positive or an "
        "accepted risk closed while the flagged code is unchanged",
    )
    acceptedUntil: datetime | None = Field(  # noqa: N815
        default=None,
        strict=False,
        json_schema_extra={"format": "date-time"},
        description="An accepted risk's end (ISO 8601; UTC if no offset; within a year): the next scan after it reopens it",
    )
    falsePositive: bool = False  # noqa: N815  (older clients: the same as disposition false_positive)

    def decision(self) -> str:
        if self.falsePositive and self.disposition not in (None, "false_positive"):
            raise Invalid("falsePositive contradicts disposition")
        return self.disposition or ("false_positive" if self.falsePositive else "fixed")


@router.post("/init-sites", response_model=list[SitePublic], responses=errors(403))
async def init_sites(user: CurrentUser, session: DbSession, settings: AppSettings) -> list[SitePublic]:
    created = await sites.init_default_sites(session=session, settings=settings, actor=user)
    return [SitePublic.of(site) for site in created]


def _overview_json(value: dict[str, Any]) -> bytes:
    """The overview through the route's own response model (what FastAPI would send), once per change."""
    model = next(
        route.response_model for route in router.routes if isinstance(route, APIRoute) and route.endpoint is read_overview
    )
    adapter = TypeAdapter(model)
    return adapter.dump_json(adapter.validate_python(value), by_alias=True)


def _accepts_gzip(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding header takes gzip (named or `*`, with a q-value above 0)."""
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        coding, *params = (part.strip() for part in item.split(";"))
        weight = 1.0
        for param in params:
            name, _, number = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(number)
                except ValueError:
                    weight = 0.0
        if coding:
            weights[coding.lower()] = weight
    return weights.get("gzip", weights.get("x-gzip", weights.get("*", 0.0))) > 0


def _etags(if_none_match: str) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in if_none_match.split(",") if tag.strip()}


@router.get(
    "/dashboard/overview",
    response_model=OverviewPublic,
    responses={304: {"description": "Not modified: the overview is still the one whose ETag was sent in If-None-Match"}},
)
async def read_overview(request: Request, user: CurrentUser) -> Response:
    """The shared read model, serialised, compressed and hashed once per change per worker (not per request): gzip
    when the client accepts it (a 1,000-site overview is 2.2 MB of JSON, 36 KB compressed), 304 when If-None-Match
    names the current ETag."""
    answer = await read_models.overview_encoded(_overview_json)
    gzipped = _accepts_gzip(request.headers.get("accept-encoding", ""))
    etag = answer.etag[:-1] + '-gzip"' if gzipped else answer.etag  # a representation has its own strong validator
    headers = {"ETag": etag, "Vary": "Accept-Encoding", "Cache-Control": "private, no-cache"}
    if _etags(request.headers.get("if-none-match", "")) & {answer.etag, answer.etag[:-1] + '-gzip"', "*"}:
        return Response(status_code=304, headers=headers)
    if gzipped:
        return Response(answer.gzip, media_type="application/json", headers=headers | {"Content-Encoding": "gzip"})
    return Response(answer.body, media_type="application/json", headers=headers)


@router.get("/sites", response_model=list[SitePublic])
async def read_sites(user: CurrentUser, session: DbSession) -> list[SitePublic]:
    return [SitePublic.of(site) for site in await sites.list_sites(session=session)]


@router.post("/sites", status_code=201, response_model=SitePublic, responses=errors(403, 409))
async def create_site(body: SiteIn, user: CurrentUser, session: DbSession) -> SitePublic:
    site = await sites.create_site(
        session=session,
        actor=user,
        name=body.name,
        url=body.url,
        allow_private=body.allowPrivate,
        traffic=body.traffic(update=False),
        tags=body.tags,
    )
    return SitePublic.of(site)


@router.put("/sites/{site_id}", response_model=SitePublic, responses=errors(403, 404))
async def update_site(site_id: PathId, body: SiteIn, user: CurrentUser, session: DbSession) -> SitePublic:
    site = await sites.update_site(
        session=session,
        actor=user,
        site_id=site_id,
        name=body.name,
        url=body.url,
        allow_private=body.allowPrivate,
        traffic=body.traffic(update=True),
        tags=body.tags,
    )
    return SitePublic.of(site)


@router.delete("/sites/{site_id}", response_model=MessageBody, responses=errors(403, 404))
async def delete_site(site_id: PathId, user: CurrentUser, session: DbSession) -> MessageBody:
    await sites.delete_site(session=session, actor=user, site_id=site_id)
    return MessageBody(message="Site removed")


@router.get("/sites/{site_id}/checks", response_model=list[SiteCheckPublic], responses=errors(404))
async def read_site_checks(site_id: PathId, user: CurrentUser, session: DbSession) -> list[SiteCheckPublic]:
    await sites.get_site(session=session, site_id=site_id)
    return await dashboard.site_checks(session=session, site_id=site_id)


@router.get("/security-events", response_model=list[EventPublic])
async def read_security_events(
    user: CurrentUser,
    session: DbSession,
    siteId: SiteFilter = None,
    severity: SeverityFilter = None,  # noqa: N803
    resolved: ResolvedFilter = None,
    limit: LimitFilter = None,
    status: StatusFilter = None,
    drills: DrillsFilter = None,
) -> list[EventPublic]:
    filters = events.parse_filters(
        site_id=siteId, severity=severity, resolved=resolved, limit=limit, status=status, drills=drills
    )
    rows = await events.list_events(session=session, **filters)
    return [EventPublic.of(event, name) for event, name in rows]


@router.post("/security-events/{event_id}/resolve", response_model=EventPublic, responses=errors(403, 404))
async def resolve_security_event(event_id: PathId, body: ResolveIn, user: CurrentUser, session: DbSession) -> EventPublic:
    event = await resolution.resolve_event(
        session=session,
        actor=user,
        event_id=event_id,
        note=body.note,
        disposition=body.decision(),
        accepted_until=body.acceptedUntil,
    )
    site = await sites.get_site(session=session, site_id=event.site_id) if event.site_id else None
    return EventPublic.of(event, site.name if site else None)
