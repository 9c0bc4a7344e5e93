"""The Live Code Builder over HTTP (spec section 7's /api/code-project calls, plus read, stop, preview and
download). Thin: every route calls secdash/services/builder/, which parses input, checks ownership (someone
else's project is 404) and raises the DomainError the API answers as {"message": ...}."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from pydantic import Field

from secdash.api.deps import CurrentUser, DbSession, request_token
from secdash.api.schemas import (
    MAX_CURSOR,
    NOT_BLANK,
    SIGNED_IN_ERRORS,
    BodyId,
    PathId,
    RequestBody,
    errors,
    integer_text,
    json_errors,
)
from secdash.models.builder_public import BuildLogPublic, CodeProjectPublic, ProjectSummaryPublic
from secdash.models.public import PublicModel
from secdash.services.builder import archive, library, preview, projects
from secdash.services.builder.limits import MAX_PROMPT_CHARS

router = APIRouter(prefix="/api/code-project", tags=["code builder"], responses=SIGNED_IN_ERRORS)
# The service trims the prompt and refuses it blank or over MAX_PROMPT_CHARS; pydantic only caps what it reads.
Prompt = Annotated[
    str,
    Field(
        max_length=MAX_PROMPT_CHARS * 2,
        description=f"What to build or change (1 to {MAX_PROMPT_CHARS} characters)",
        json_schema_extra={"maxLength": MAX_PROMPT_CHARS, "minLength": 1, "pattern": NOT_BLANK},
    ),
]
After = Annotated[str | None, Query(max_length=12, description="Only lines after this log line id"), integer_text(0, MAX_CURSOR)]


class BuildIn(RequestBody):
    prompt: Prompt


class ContinueIn(RequestBody):
    projectId: BodyId = Field(description="The project to change: a positive id")  # noqa: N815
    prompt: Prompt


class ProjectIn(RequestBody):
    projectId: BodyId = Field(description="A project: a positive id")  # noqa: N815


class RenameIn(RequestBody):
    name: Annotated[
        str,
        Field(
            max_length=library.MAX_NAME_CHARS * 2,
            description=f"The project's new name (1 to {library.MAX_NAME_CHARS} characters)",
            json_schema_extra={"maxLength": library.MAX_NAME_CHARS, "minLength": 1, "pattern": NOT_BLANK},
        ),
    ]


class ClearedOut(PublicModel):
    deleted: int


class PreviewOut(PublicModel):
    url: str  # a 30-minute link to the sandboxed preview of index.html


class ZipResponse(Response):
    media_type = "application/zip"


@router.get("", response_model=list[ProjectSummaryPublic])
async def list_projects(user: CurrentUser, session: DbSession) -> list[ProjectSummaryPublic]:
    """The user's projects (saved snapshots included), newest first, without file contents."""
    return await projects.list_projects(session=session, viewer=user)


@router.get("/current", response_model=CodeProjectPublic | None)
async def current_project(user: CurrentUser, session: DbSession) -> CodeProjectPublic | None:
    """The user's current project with its files (null when there is none)."""
    return await projects.current(session=session, viewer=user)


@router.get("/logs/{project_id}", response_model=list[BuildLogPublic], responses=errors(404))
async def project_logs(project_id: PathId, user: CurrentUser, session: DbSession, after: After = None) -> list[BuildLogPublic]:
    """The project's build log, oldest first (a page of 500; pass the last id seen as `after` for more)."""
    return await projects.logs(session=session, viewer=user, project_id=project_id, after=after)


@router.post("/build", status_code=202, response_model=CodeProjectPublic, responses=errors(409))
async def build(body: BuildIn, user: CurrentUser, session: DbSession) -> CodeProjectPublic:
    """Create a project from the prompt and start its build (status "planning"; a job writes the files)."""
    return await projects.build(session=session, actor=user, prompt=body.prompt)


@router.post("/continue", status_code=202, response_model=CodeProjectPublic, responses=errors(404, 409))
async def continue_build(body: ContinueIn, user: CurrentUser, session: DbSession) -> CodeProjectPublic:
    """Change an existing project: the model gets its files and rewrites only what the request needs."""
    return await projects.continue_build(session=session, actor=user, project_id=body.projectId, prompt=body.prompt)


@router.post("/save", status_code=201, response_model=CodeProjectPublic, responses=errors(404, 409))
async def save(body: ProjectIn, user: CurrentUser, session: DbSession) -> CodeProjectPublic:
    """Store a named snapshot of the project (answers the snapshot)."""
    return await projects.save(session=session, actor=user, project_id=body.projectId)


@router.post("/new", status_code=204)
async def new_project(user: CurrentUser, session: DbSession) -> Response:
    """No current project any more (the projects stay in the list)."""
    await projects.new_project(session=session, actor=user)
    return Response(status_code=204)


@router.delete("/clear-all", response_model=ClearedOut)
async def clear_all(user: CurrentUser, session: DbSession) -> ClearedOut:
    """Delete all of the user's projects, their files and build logs."""
    return ClearedOut(deleted=await projects.clear_all(session=session, actor=user))


@router.get("/{project_id}", response_model=CodeProjectPublic, responses=errors(404))
async def read_project(project_id: PathId, user: CurrentUser, session: DbSession) -> CodeProjectPublic:
    return await projects.get_project(session=session, viewer=user, project_id=project_id)


@router.patch("/{project_id}", response_model=CodeProjectPublic, responses=errors(400, 404))
async def rename_project(project_id: PathId, body: RenameIn, user: CurrentUser, session: DbSession) -> CodeProjectPublic:
    """Rename one of the user's projects or saved snapshots."""
    return await library.rename(session=session, actor=user, project_id=project_id, name=body.name)


@router.delete("/{project_id}", status_code=204, responses=errors(404))
async def delete_project(project_id: PathId, user: CurrentUser, session: DbSession) -> Response:
    """Delete one of the user's projects (its saved snapshots stay)."""
    await library.delete(session=session, actor=user, project_id=project_id)
    return Response(status_code=204)


@router.post("/{project_id}/open", response_model=CodeProjectPublic, responses=errors(404))
async def open_project(project_id: PathId, user: CurrentUser, session: DbSession) -> CodeProjectPublic:
    """Make one of the user's projects the current one."""
    return await projects.open_project(session=session, actor=user, project_id=project_id)


@router.post("/{project_id}/stop", status_code=202, response_model=CodeProjectPublic, responses=errors(404, 409))
async def stop_build(project_id: PathId, user: CurrentUser, session: DbSession) -> CodeProjectPublic:
    """Ask the project's running build to stop (it ends as failed, "Stopped"; a file being rewritten is restored)."""
    return await projects.stop(session=session, actor=user, project_id=project_id)


@router.get("/{project_id}/preview", response_model=PreviewOut, responses=errors(404))
async def preview_link(project_id: PathId, user: CurrentUser, session: DbSession, request: Request) -> PreviewOut:
    """A link to the project's index.html in the isolated preview, valid for 30 minutes while this sign-in lasts
    (404 "No HTML file" without one)."""
    return PreviewOut(
        url=await preview.preview_url(session=session, viewer=user, project_id=project_id, auth_token=request_token(request))
    )


@router.get(
    "/{project_id}/download",
    response_model=bytes,
    response_class=ZipResponse,
    responses={
        200: {"content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}},
        **json_errors(400, 401, 404, 413),
    },
)
async def download(project_id: PathId, user: CurrentUser, session: DbSession) -> ZipResponse:
    """Every file of the project in one zip."""
    name, body = await archive.project_zip(session=session, viewer=user, project_id=project_id)
    return ZipResponse(body, headers={"Content-Disposition": f'attachment; filename="{name}"'})
