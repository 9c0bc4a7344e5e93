"""Many sites at once (issue 26), for administrators: import from a CSV or JSON file with a report per row, export in
the same columns, and pause, resume or remove a chosen set."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from pydantic import Field
from starlette.datastructures import UploadFile

from secdash.api.deps import CurrentUser, DbSession
from secdash.api.schemas import MAX_FILTER_LENGTH, SIGNED_IN_ERRORS, RequestBody, choice_text, errors, json_errors
from secdash.models.site_import_public import BulkOutcomePublic, SiteImportPublic
from secdash.services.errors import Invalid, Unsupported
from secdash.services.ids import MAX_ID
from secdash.services.monitoring import site_bulk, site_export, site_import, site_tags
from secdash.services.monitoring.site_bulk import MAX_BULK, BulkOutcome
from secdash.services.monitoring.site_import_file import MAX_FILE_BYTES, MAX_ROWS, Kind
from secdash.services.monitoring.sites import MAX_NAME_LENGTH
from secdash.services.probe import MAX_URL_LENGTH
from secdash.services.traffic import site_settings

router = APIRouter(prefix="/api/sites", tags=["sites in bulk"], responses=SIGNED_IN_ERRORS)

IMPORT_PATH = re.compile(r"^/api/sites/import/?$")
# The file (up to MAX_FILE_BYTES) and a multipart form's own lines: larger bodies are the request guard's 413.
IMPORT_MAX_BODY_BYTES = MAX_FILE_BYTES + 64 * 1024
# The Dashboard's Import / export dialog uploads the same file through Reflex's /_upload (rx.upload), which reads
# any size to disk before a handler can check anything: the guard caps it as this route.
UPLOAD_PATH = re.compile(r"^/_upload/?$")
BODY_CAPS = ((IMPORT_PATH, IMPORT_MAX_BODY_BYTES), (UPLOAD_PATH, IMPORT_MAX_BODY_BYTES))  # for api/middleware.RequestGuard

FlagText = Annotated[str | None, Query(max_length=MAX_FILTER_LENGTH), choice_text(["", "true", "false"])]
FormatText = Annotated[
    str | None, Query(max_length=MAX_FILTER_LENGTH, description="csv (default) or json"), choice_text(["", "csv", "json"])
]
SiteIds = Annotated[
    list[Annotated[int, Field(ge=1, le=MAX_ID)]] | None,
    Query(max_length=MAX_BULK, description="Only these sites (repeat the parameter); all but the demo sites if none"),
]

_ROW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "url"],
    "properties": {
        "name": {"type": "string", "maxLength": MAX_NAME_LENGTH},
        "url": {"type": "string", "maxLength": MAX_URL_LENGTH, "description": "http(s) URL to monitor"},
        "allowPrivate": {"type": "boolean"},
        "tags": {
            "type": "array",
            "maxItems": site_tags.MAX_TAGS,
            "items": {"type": "string", "maxLength": site_tags.MAX_TAG_LENGTH, "pattern": "^[a-z0-9\\-_.:]+$"},
        },
        "capacityRpm": {"type": ["integer", "null"], "minimum": 1, "maximum": site_settings.MAX_CAPACITY_RPM},
        "signupRoute": {"type": ["string", "null"], "maxLength": site_settings.MAX_ROUTE},
    },
}
IMPORT_BODY = {
    "required": True,
    "description": f"A CSV or JSON file of at most {MAX_FILE_BYTES // 1024 // 1024} MB and {MAX_ROWS:,} sites: "
    "uploaded as the form field `file`, or sent as the body (JSON: a list of sites; CSV: text/csv with a header row "
    "naming name, url and optionally allowPrivate, tags (; separated), capacityRpm, signupRoute)",
    "content": {
        "multipart/form-data": {
            "schema": {"type": "object", "required": ["file"], "properties": {"file": {"type": "string", "format": "binary"}}}
        },
        # Any objects: each row is checked by the rules and one that breaks them is refused in the report (a 200).
        "application/json": {
            "schema": {
                "type": "array",
                "maxItems": MAX_ROWS,
                "items": {"description": "a site: name, url, allowPrivate, tags (a list), capacityRpm, signupRoute"},
            }
        },
        "text/csv": {"schema": {"type": "string"}},
    },
}


class SiteIdsIn(RequestBody):
    ids: list[Annotated[int, Field(ge=1, le=MAX_ID)]] = Field(
        max_length=MAX_BULK, description="The chosen sites' ids", json_schema_extra={"minItems": 1}
    )


def _flag(value: str | None, name: str) -> bool:
    if value in (None, "", "false"):
        return False
    if value == "true":
        return True
    raise Invalid(f"{name} must be true or false")


def _kind_of(filename: str | None) -> Kind | None:
    name = (filename or "").lower()
    return "json" if name.endswith(".json") else "csv" if name.endswith((".csv", ".txt", ".tsv")) else None


async def _file(request: Request) -> tuple[bytes, Kind | None]:
    """The file sent: a multipart upload (field `file`), a JSON body or a CSV body."""
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media == "multipart/form-data":
        async with request.form(max_files=1, max_fields=10) as form:
            upload = form.get("file")
            if not isinstance(upload, UploadFile):
                raise Invalid("send the file as the form field 'file'")
            return await upload.read(MAX_FILE_BYTES + 1), _kind_of(upload.filename)
    if media in ("", "application/json"):
        return await request.body(), "json"
    if media in ("text/csv", "text/plain", "text/tab-separated-values"):
        return await request.body(), "csv"
    raise Unsupported("send the file as multipart/form-data (field 'file'), application/json or text/csv")


@router.post(
    "/import",
    response_model=SiteImportPublic,
    responses=errors(403, 413, 415),
    openapi_extra={"requestBody": IMPORT_BODY},
)
async def import_sites(request: Request, user: CurrentUser, session: DbSession, dryRun: FlagText = None) -> SiteImportPublic:  # noqa: N803
    """Create the sites of a CSV or JSON file, each row checked as the single-site form checks it (its host must
    resolve, to a public address unless allowPrivate); the answer names each row's result, and why a refused row was
    refused. `dryRun=true` checks and creates nothing. A file that cannot be read is refused whole (400)."""
    dry_run = _flag(dryRun, "dryRun")
    data, kind = await _file(request)
    report = await site_import.import_sites(session=session, actor=user, data=data, kind=kind, dry_run=dry_run)
    return SiteImportPublic.model_validate(report, from_attributes=True)


@router.get(
    "/export",
    response_model=bytes,
    response_class=Response,
    responses={
        200: {
            "description": "The sites in the import's columns, as an attachment",
            "content": {
                "application/json": {"schema": {"type": "array", "items": _ROW_SCHEMA}},
                "text/csv": {"schema": {"type": "string"}},
            },
        },
        **json_errors(403),
    },
)
async def export_sites(user: CurrentUser, session: DbSession, format: FormatText = None, ids: SiteIds = None) -> Response:  # noqa: A002
    """Every site but the bundled demo ones (or the `ids` given) as CSV or JSON, in the columns the import reads; no
    ingest tokens or other secrets."""
    fmt: site_export.Format = "json" if format == "json" else "csv"
    if format not in (None, "", "csv", "json"):
        raise Invalid("format must be csv or json")
    exported = await site_export.export_sites(session=session, actor=user, fmt=fmt, site_ids=ids)
    disposition = f'attachment; filename="{exported.filename}"'
    return Response(exported.content, media_type=exported.media_type, headers={"Content-Disposition": disposition})


def _outcome(outcome: BulkOutcome, done: str) -> BulkOutcomePublic:
    parts = [f"{outcome.changed} {'site' if outcome.changed == 1 else 'sites'} {done}"]
    if outcome.unchanged:
        parts.append(f"{outcome.unchanged} already {done}")
    if outcome.missing:
        parts.append(f"{outcome.missing} not found")
    return BulkOutcomePublic(
        changed=outcome.changed, unchanged=outcome.unchanged, missing=outcome.missing, message=", ".join(parts)
    )


@router.post("/pause", response_model=BulkOutcomePublic, responses=errors(403))
async def pause_sites(body: SiteIdsIn, user: CurrentUser, session: DbSession) -> BulkOutcomePublic:
    """Stop probing the chosen sites (their history and problems stay)."""
    return _outcome(await site_bulk.set_paused(session=session, actor=user, site_ids=body.ids, paused=True), "paused")


@router.post("/resume", response_model=BulkOutcomePublic, responses=errors(403))
async def resume_sites(body: SiteIdsIn, user: CurrentUser, session: DbSession) -> BulkOutcomePublic:
    """Probe the chosen sites again (at once)."""
    return _outcome(await site_bulk.set_paused(session=session, actor=user, site_ids=body.ids, paused=False), "resumed")


@router.post("/delete", response_model=BulkOutcomePublic, responses=errors(403))
async def delete_sites(body: SiteIdsIn, user: CurrentUser, session: DbSession) -> BulkOutcomePublic:
    """Stop monitoring the chosen sites: their open problems are closed, their records kept naming them."""
    return _outcome(await site_bulk.delete_sites(session=session, actor=user, site_ids=body.ids), "removed")
