"""The isolated preview of a project: its links and the files served under them (the link machinery and the
sandbox are in services/preview_links.py)."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.files import safe_path
from secdash.models import UserPublic
from secdash.models.builder import CodeProject
from secdash.services import preview_links
from secdash.services.builder import projects
from secdash.services.builder.records import file_of
from secdash.services.errors import NotFound
from secdash.services.preview_links import ENTRY, PREVIEW_CSP, media_type  # noqa: F401  (re-exported)

TTL = preview_links.TTL


async def preview_url(*, session: AsyncSession, viewer: UserPublic, project_id: object, auth_token: str | None) -> str:
    """A fresh link to the project's index.html, valid while the viewer's sign-in session is (NotFound when the
    project has no index.html)."""
    project = await projects.owned(session, viewer, project_id)
    assert project.id is not None
    if await file_of(session, project.id, ENTRY) is None:
        raise NotFound("No HTML file: build a project first to preview it")
    return preview_links.make_link(viewer=viewer, auth_token=auth_token, target={"pid": project.id}, ttl=TTL)


async def project_file(session: AsyncSession, claims: dict[str, Any], owner_id: int, path: str) -> tuple[str, bytes]:
    """(media type, body) of the project file a valid link's claims name."""
    try:
        project_id = int(claims["pid"])
    except (KeyError, TypeError, ValueError):
        raise NotFound(preview_links.EXPIRED) from None
    project = await session.get(CodeProject, project_id)
    wanted = safe_path((path or ENTRY).removeprefix("./"))
    if project is None or project.owner_user_id != owner_id or wanted is None:
        raise NotFound("File not found in this project")
    file = await file_of(session, project_id, wanted)
    if file is None:
        raise NotFound(f"{wanted} is not a file of this project")
    return media_type(wanted), file.content.encode()


async def preview_file(*, session: AsyncSession, token: str, path: str) -> tuple[str, bytes]:
    """(media type, body) of a project file under a valid link; NotFound for anything else."""
    claims, owner_id = await preview_links.read_link(session, token)
    return await project_file(session, claims, owner_id, path)
