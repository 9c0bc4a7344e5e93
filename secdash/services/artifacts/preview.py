"""The isolated preview of an artifact version (the same sandboxed origin and links as the builder's preview:
services/preview_links.py). A link names one version; the page is served as `index.html` and nothing else."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import UserPublic
from secdash.models.artifacts import Artifact
from secdash.services import preview_links
from secdash.services.artifacts import artifacts, versions
from secdash.services.errors import NotFound
from secdash.services.preview_links import ENTRY


async def preview_url(
    *, session: AsyncSession, viewer: UserPublic, artifact_id: object, version: object = None, auth_token: str | None
) -> str:
    """A fresh link to one version of the viewer's artifact (the newest when `version` is None)."""
    artifact = await artifacts.owned(session, viewer, artifact_id)
    if artifact.version == 0:
        raise NotFound("No HTML yet: create the artifact's first version to preview it")
    row = await artifacts.version_row(session, artifact, artifact.version if version in (None, "") else version)
    assert artifact.id is not None
    return preview_links.make_link(viewer=viewer, auth_token=auth_token, target={"aid": artifact.id, "v": row.version})


async def artifact_file(session: AsyncSession, claims: dict[str, Any], owner_id: int, path: str) -> tuple[str, bytes]:
    """(media type, body) of the version a valid link's claims name; only its page exists."""
    try:
        artifact_id, version = int(claims["aid"]), int(claims["v"])
    except (KeyError, TypeError, ValueError):
        raise NotFound(preview_links.EXPIRED) from None
    if (path or ENTRY).removeprefix("./") != ENTRY:
        raise NotFound("An HTML artifact is one page: it has no other files")
    artifact = await session.get(Artifact, artifact_id)
    row = await versions.find(session, artifact_id, version) if artifact is not None else None
    if artifact is None or artifact.owner_user_id != owner_id or row is None:
        raise NotFound("This artifact version no longer exists")
    return "text/html", row.html_content.encode()
