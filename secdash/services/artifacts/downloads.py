"""An artifact's downloads: one version as an .html file, or every version in one zip.

The file name is the spec's: the artifact's name with whitespace replaced by underscores, then `_v{version}.html`.
Characters that cannot be in a file name on common systems (`/ \\ : * ? " < > |` and control characters) are
dropped as well, so the name is safe in a Content-Disposition header and on disk.
"""

from __future__ import annotations

import re

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import UserPublic
from secdash.models.artifacts import ArtifactVersion
from secdash.services.artifacts import artifacts
from secdash.services.builder.archive import zip_bytes
from secdash.services.errors import NotFound

_UNSAFE = re.compile(r'[\\/:*?"<>|\x00-\x1f\x7f]')


def base_name(name: str) -> str:
    """The artifact's name as the start of a file name."""
    cleaned = _UNSAFE.sub("", re.sub(r"\s", "_", name)).strip(".")
    return cleaned or "artifact"


def file_name(name: str, version: int) -> str:
    return f"{base_name(name)}_v{version}.html"


async def version_file(
    *, session: AsyncSession, viewer: UserPublic, artifact_id: object, version: object = None
) -> tuple[str, bytes]:
    """(file name, HTML bytes) of one version of the viewer's artifact (the newest when `version` is None)."""
    artifact = await artifacts.owned(session, viewer, artifact_id)
    if artifact.version == 0:
        raise NotFound("No HTML yet: create the artifact's first version to download it")
    row = await artifacts.version_row(session, artifact, artifact.version if version in (None, "") else version)
    return file_name(artifact.name, row.version), row.html_content.encode()


async def all_versions_zip(*, session: AsyncSession, viewer: UserPublic, artifact_id: object) -> tuple[str, bytes]:
    """(zip name, zip bytes) holding every version of the viewer's artifact, one .html file each."""
    artifact = await artifacts.owned(session, viewer, artifact_id)
    rows = list(
        await session.exec(
            select(ArtifactVersion).where(ArtifactVersion.artifact_id == artifact.id).order_by(col(ArtifactVersion.version))
        )
    )
    if not rows:
        raise NotFound("No HTML yet: create the artifact's first version to download it")
    folder = f"{base_name(artifact.name)}_versions"
    return f"{folder}.zip", zip_bytes({file_name(artifact.name, row.version): row.html_content for row in rows}, folder)
