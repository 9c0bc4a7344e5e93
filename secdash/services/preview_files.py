"""What a preview link serves: a builder project's file or an HTML artifact version, by what the link names."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.services import preview_links
from secdash.services.artifacts import preview as artifact_preview
from secdash.services.builder import preview as project_preview


async def preview_file(*, session: AsyncSession, token: str, path: str) -> tuple[str, bytes]:
    """(media type, body) under a valid link; NotFound for anything else."""
    claims, owner_id = await preview_links.read_link(session, token)
    if "aid" in claims:
        return await artifact_preview.artifact_file(session, claims, owner_id, path)
    return await project_preview.project_file(session, claims, owner_id, path)
