"""HTML artifacts over HTTP (spec section 7's /api/artifacts calls, plus read, open, new, stop, delete, one
version, hand edits, restore, diff, preview links and downloads). Thin: every route calls
secdash/services/artifacts/, which parses input, checks ownership (someone else's artifact is 404, admins
included) and raises the DomainError the API answers as {"message": ...}."""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Request, Response
from pydantic import Field, WithJsonSchema

from secdash.api.deps import CurrentUser, DbSession, request_token
from secdash.api.schemas import NOT_BLANK, SIGNED_IN_ERRORS, PathId, RequestBody, errors, json_errors
from secdash.models.artifacts_public import ArtifactDiffPublic, ArtifactPublic, ArtifactVersionPublic
from secdash.models.public import PublicModel
from secdash.services.artifacts import artifacts, downloads, preview
from secdash.services.artifacts.limits import MAX_CHANGES_CHARS, MAX_HTML_BYTES, MAX_PROMPT_CHARS

router = APIRouter(prefix="/api/artifacts", tags=["html artifacts"], responses=SIGNED_IN_ERRORS)

MAX_VERSION = 999_999  # what services/artifacts/limits.parse_version accepts (six digits)
# A hand edit carries up to MAX_HTML_BYTES of HTML as a JSON string, which may escape it to several times its size
# (\" for quotes, \uXXXX for every non-ASCII character when the client escapes them): its route accepts a body of
# up to three times that; the service then answers an HTML over MAX_HTML_BYTES with a 400 naming both sizes.
EDIT_PATH = re.compile(r"^/api/artifacts/[^/]+/versions/?$")
EDIT_MAX_BODY_BYTES = 3 * MAX_HTML_BYTES + 64 * 1024
BODY_CAPS = ((EDIT_PATH, EDIT_MAX_BODY_BYTES),)  # for api/middleware.RequestGuard

# The service trims the prompt and refuses it blank or over MAX_PROMPT_CHARS; pydantic only caps what it reads.
Prompt = Annotated[
    str,
    Field(
        max_length=MAX_PROMPT_CHARS * 2,
        description=f"The page to create or the change to make (1 to {MAX_PROMPT_CHARS} characters)",
        json_schema_extra={"maxLength": MAX_PROMPT_CHARS, "minLength": 1, "pattern": NOT_BLANK},
    ),
]
Version = Annotated[int, Path(ge=1, le=MAX_VERSION, description="A version number (1 or more)")]
VersionQuery = Annotated[int | None, Query(ge=1, le=MAX_VERSION, description="A version number (the newest when left out)")]


class PromptIn(RequestBody):
    prompt: Prompt


class EditIn(RequestBody):
    # The limit is in bytes, which a JSON Schema maxLength (characters) cannot say; a page over it is a 400 naming
    # both sizes. (A documented maxLength would also invite longer strings whose escaped JSON passes the route's
    # body cap: a 413, not the 400 a schema-violating request is owed.)
    htmlContent: str = Field(
        description=f"The whole page, edited by hand: at most {MAX_HTML_BYTES} bytes of "  # noqa: N815
        f"UTF-8 (400 above that)",
        json_schema_extra={"minLength": 1, "pattern": NOT_BLANK},
    )
    changes: str | None = Field(
        None, description="A note on what was changed", json_schema_extra={"maxLength": MAX_CHANGES_CHARS}
    )


class RestoreIn(RequestBody):
    version: Annotated[int | str, WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_VERSION})] = Field(
        description="The version to make the newest again (1 or more)"
    )


class PreviewOut(PublicModel):
    url: str  # a 30-minute link to the sandboxed preview of the version


class HtmlResponse(Response):
    media_type = "text/html"  # Starlette adds "; charset=utf-8"


class ZipResponse(Response):
    media_type = "application/zip"


def attachment(name: str) -> str:
    """A Content-Disposition for a download named `name`: an ASCII `filename` for old clients (accents dropped,
    other characters replaced) and the exact name as `filename*` (RFC 6266/5987), so any name fits the header."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    ascii_name = re.sub(r"[^A-Za-z0-9._()+,=@-]", "_", ascii_name) or "artifact"
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name, safe='')}"


@router.get("", response_model=list[ArtifactPublic])
async def list_artifacts(user: CurrentUser, session: DbSession) -> list[ArtifactPublic]:
    """The user's artifacts with their newest HTML, most recently updated first."""
    return await artifacts.list_artifacts(session=session, viewer=user)


@router.get("/current", response_model=ArtifactPublic | None)
async def current_artifact(user: CurrentUser, session: DbSession) -> ArtifactPublic | None:
    """The user's open artifact (null when there is none); `generating` and `draft` follow its generation."""
    return await artifacts.current(session=session, viewer=user)


@router.post("/create", status_code=202, response_model=ArtifactPublic, responses=errors(409))
async def create(body: PromptIn, user: CurrentUser, session: DbSession) -> ArtifactPublic:
    """A new artifact from the prompt, made the open one; a job generates version 1 (status "generating")."""
    return await artifacts.create(session=session, actor=user, prompt=body.prompt)


@router.post("/new", status_code=204)
async def new_artifact(user: CurrentUser, session: DbSession) -> Response:
    """No open artifact any more (the next create starts a new one; the artifacts stay in the list)."""
    await artifacts.close(session=session, actor=user)
    return Response(status_code=204)


@router.get("/{artifact_id}", response_model=ArtifactPublic, responses=errors(404))
async def read_artifact(artifact_id: PathId, user: CurrentUser, session: DbSession) -> ArtifactPublic:
    return await artifacts.get_artifact(session=session, viewer=user, artifact_id=artifact_id)


@router.delete("/{artifact_id}", status_code=204, responses=errors(404, 409))
async def delete_artifact(artifact_id: PathId, user: CurrentUser, session: DbSession) -> Response:
    """Delete the artifact and all its versions (409 while it is being generated)."""
    await artifacts.delete(session=session, actor=user, artifact_id=artifact_id)
    return Response(status_code=204)


@router.post("/{artifact_id}/update", status_code=202, response_model=ArtifactPublic, responses=errors(404, 409))
async def update(artifact_id: PathId, body: PromptIn, user: CurrentUser, session: DbSession) -> ArtifactPublic:
    """Generate the next version from the newest one and the prompt (a job; status "generating")."""
    return await artifacts.update_artifact(session=session, actor=user, artifact_id=artifact_id, prompt=body.prompt)


@router.post("/{artifact_id}/open", response_model=ArtifactPublic, responses=errors(404))
async def open_artifact(artifact_id: PathId, user: CurrentUser, session: DbSession) -> ArtifactPublic:
    """Make one of the user's artifacts the open one."""
    return await artifacts.open_artifact(session=session, actor=user, artifact_id=artifact_id)


@router.post("/{artifact_id}/stop", status_code=202, response_model=ArtifactPublic, responses=errors(404, 409))
async def stop(artifact_id: PathId, user: CurrentUser, session: DbSession) -> ArtifactPublic:
    """Ask the artifact's running generation to stop (it ends without a new version, "Stopped")."""
    return await artifacts.stop(session=session, actor=user, artifact_id=artifact_id)


@router.get("/{artifact_id}/history", response_model=list[ArtifactVersionPublic], responses=errors(404))
async def history(artifact_id: PathId, user: CurrentUser, session: DbSession) -> list[ArtifactVersionPublic]:
    """Every version of the artifact, newest first, with its change note, prompt and check findings."""
    return await artifacts.history(session=session, viewer=user, artifact_id=artifact_id)


@router.post("/{artifact_id}/versions", status_code=201, response_model=ArtifactPublic, responses=errors(404, 409))
async def save_edit(artifact_id: PathId, body: EditIn, user: CurrentUser, session: DbSession) -> ArtifactPublic:
    """The HTML edited by hand as the next version (checked like a generated one; 400 if unchanged)."""
    return await artifacts.save_edit(
        session=session, actor=user, artifact_id=artifact_id, html=body.htmlContent, changes=body.changes
    )


@router.get("/{artifact_id}/versions/{version}", response_model=ArtifactVersionPublic, responses=errors(404))
async def read_version(artifact_id: PathId, version: Version, user: CurrentUser, session: DbSession) -> ArtifactVersionPublic:
    return await artifacts.get_version(session=session, viewer=user, artifact_id=artifact_id, version=version)


@router.post("/{artifact_id}/restore", status_code=201, response_model=ArtifactPublic, responses=errors(404, 409))
async def restore(artifact_id: PathId, body: RestoreIn, user: CurrentUser, session: DbSession) -> ArtifactPublic:
    """An earlier version's HTML as the next version (the versions after it stay in the history)."""
    return await artifacts.restore(session=session, actor=user, artifact_id=artifact_id, version=body.version)


@router.get("/{artifact_id}/diff", response_model=ArtifactDiffPublic, responses=errors(404, 503))
async def diff(
    artifact_id: PathId,
    user: CurrentUser,
    session: DbSession,
    from_version: Annotated[int, Query(alias="from", ge=1, le=MAX_VERSION, description="Older version")],
    to_version: Annotated[int, Query(alias="to", ge=1, le=MAX_VERSION, description="Newer version")],
) -> ArtifactDiffPublic:
    """The line diff of two versions' HTML (any two, either order); 503 while every comparing worker is busy."""
    return await artifacts.diff_versions(
        session=session, viewer=user, artifact_id=artifact_id, from_version=from_version, to_version=to_version
    )


@router.get("/{artifact_id}/preview", response_model=PreviewOut, responses=errors(404))
async def preview_link(
    artifact_id: PathId, user: CurrentUser, session: DbSession, request: Request, version: VersionQuery = None
) -> PreviewOut:
    """A link to one version (the newest by default) in the isolated preview, valid for 30 minutes while this
    sign-in lasts (404 before the first version exists)."""
    return PreviewOut(
        url=await preview.preview_url(
            session=session, viewer=user, artifact_id=artifact_id, version=version, auth_token=request_token(request)
        )
    )


@router.get(
    "/{artifact_id}/download",
    response_model=bytes,
    response_class=HtmlResponse,
    responses={200: {"content": {"text/html": {"schema": {"type": "string"}}}}, **json_errors(400, 401, 404, 413)},
)
async def download(artifact_id: PathId, user: CurrentUser, session: DbSession, version: VersionQuery = None) -> HtmlResponse:
    """One version's HTML (the newest by default) as `<name>_v<version>.html`."""
    name, body = await downloads.version_file(session=session, viewer=user, artifact_id=artifact_id, version=version)
    return HtmlResponse(body, headers={"Content-Disposition": attachment(name)})


@router.get(
    "/{artifact_id}/download-all",
    response_model=bytes,
    response_class=ZipResponse,
    responses={
        200: {"content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}},
        **json_errors(400, 401, 404, 413),
    },
)
async def download_all(artifact_id: PathId, user: CurrentUser, session: DbSession) -> ZipResponse:
    """Every version of the artifact in one zip, one `<name>_v<version>.html` each."""
    name, body = await downloads.all_versions_zip(session=session, viewer=user, artifact_id=artifact_id)
    return ZipResponse(body, headers={"Content-Disposition": attachment(name)})
