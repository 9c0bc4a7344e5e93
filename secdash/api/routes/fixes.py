"""Fix Mode (issue 11): the open problems a fix can target, and each fix's life over HTTP: propose (a "fix" job
writes it), read it, download its diff as a patch, apply it (a job verifies it by re-scan or probe), reject it,
revert it. Thin: every route calls secdash/services/fix/fixes.py or problems.py, which parse ids, check roles
(reading is for every signed-in user, changing for admins; a private project's problems and fixes are its owner's)
and raise the DomainError the API answers as
{"message": ...} (400 bad input, 403 role, 404 unknown, 409 a conflicting state).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from pydantic import Field

from secdash.api.deps import CurrentUser, DbSession
from secdash.api.schemas import (
    MAX_ID,
    SIGNED_IN_ERRORS,
    BodyId,
    PathId,
    RequestBody,
    choice_text,
    errors,
    integer_text,
    json_errors,
)
from secdash.models.fixes_public import FixableProblemPublic, FixPublic
from secdash.services.fix import fixes, problems

router = APIRouter(prefix="/api", tags=["fixes"], responses=SIGNED_IN_ERRORS)
IdFilter = Annotated[str | None, Query(max_length=12, description="A positive id"), integer_text(1, MAX_ID)]
SeverityFilter = Annotated[
    str | None, Query(max_length=16, description="all, high, medium or low"), choice_text(["", "all", *problems.SEVERITIES])
]
KindFilter = Annotated[
    str | None, Query(max_length=16, description="all, code or site"), choice_text(["", "all", *problems.KINDS])
]
Limit = Annotated[
    str | None,
    Query(
        max_length=12,
        description=f"How many (1 to {fixes.MAX_LIST_LIMIT}: more reads as {fixes.MAX_LIST_LIMIT}); default {fixes.LIST_LIMIT}",
    ),
    integer_text(1, MAX_ID),
]


class FixIn(RequestBody):
    problemId: BodyId = Field(description="The problem (security event) to fix: a positive id")  # noqa: N815


class DiffResponse(Response):
    """A fix's unified diff, as `git apply` reads it from the code root."""

    media_type = "text/x-diff"  # Starlette adds "; charset=utf-8"


def _optional_id(value: str | None, name: str) -> int | None:
    return None if value in (None, "") else fixes.parse_id(value, name)


@router.get("/fixes/problems", response_model=list[FixableProblemPublic])
async def list_problems(
    user: CurrentUser, session: DbSession, site: IdFilter = None, severity: SeverityFilter = None, kind: KindFilter = None
) -> list[FixableProblemPublic]:
    """Open problems Fix Mode can work on, most severe first, each with its latest fix's state."""
    return await problems.list_problems(
        session=session, viewer=user, site_id=_optional_id(site, "site"), severity=severity, kind=kind
    )


@router.get("/fixes", response_model=list[FixPublic])
async def list_fixes(
    user: CurrentUser,
    session: DbSession,
    problem_id: Annotated[
        str | None, Query(alias="problemId", max_length=12, description="Only this problem's fixes"), integer_text(1, MAX_ID)
    ] = None,
    limit: Limit = None,
) -> list[FixPublic]:
    """Fixes, newest first."""
    return await fixes.list_fixes(
        session=session, viewer=user, problem_id=_optional_id(problem_id, "problemId"), limit=fixes.parse_limit(limit)
    )


@router.post("/fixes", status_code=202, response_model=FixPublic, responses=errors(403, 404, 409))
async def propose_fix(body: FixIn, user: CurrentUser, session: DbSession) -> FixPublic:
    """Ask the problem's agent for a fix (admins): answers at once with status "proposing"; a job writes it."""
    return await fixes.propose(session=session, actor=user, problem_id=body.problemId)


@router.get("/fixes/{fix_id}", response_model=FixPublic, responses=errors(404))
async def read_fix(fix_id: PathId, user: CurrentUser, session: DbSession) -> FixPublic:
    return await fixes.get_fix(session=session, viewer=user, fix_id=fix_id)


@router.get("/fixes/{fix_id}/patch", response_model=str, response_class=DiffResponse, responses=json_errors(400, 401, 404, 413))
async def download_patch(fix_id: PathId, user: CurrentUser, session: DbSession) -> DiffResponse:
    """The fix's diff as a patch file (404 while it has none)."""
    name, text = await fixes.patch_file(session=session, viewer=user, fix_id=fix_id)
    return DiffResponse(text, headers={"Content-Disposition": f'attachment; filename="{name}"'})


@router.post("/fixes/{fix_id}/apply", status_code=202, response_model=FixPublic, responses=errors(403, 404, 409))
async def apply_fix(fix_id: PathId, user: CurrentUser, session: DbSession) -> FixPublic:
    """Write a proposed fix (admins): answers "applied"; a job verifies it."""
    return await fixes.apply(session=session, actor=user, fix_id=fix_id)


@router.post("/fixes/{fix_id}/reject", response_model=FixPublic, responses=errors(403, 404, 409))
async def reject_fix(fix_id: PathId, user: CurrentUser, session: DbSession) -> FixPublic:
    return await fixes.reject(session=session, actor=user, fix_id=fix_id)


@router.post("/fixes/{fix_id}/revert", response_model=FixPublic, responses=errors(403, 404, 409))
async def revert_fix(fix_id: PathId, user: CurrentUser, session: DbSession) -> FixPublic:
    """Write back the bytes an applied, checked fix replaced (admins); its problem opens again."""
    return await fixes.revert(session=session, actor=user, fix_id=fix_id)
