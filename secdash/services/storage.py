"""What one user may store: the bytes of their HTML artifact versions and builder project files together.

Each feature has its own count limits (50 artifacts of 200 versions of 500 KB; 50 projects of 1 MB), which alone
would let one user store about 5 GB. This quota caps the sum (SECDASH_USER_STORAGE_MB, 100 MB by default). It is
checked where stored bytes grow: a hand edit, a restore and a generated version (with the version's size), a new
build, a continue and a saved snapshot (before they start). A build adds at most one project's size (1 MB) past
the check, so the quota can be passed by that much at most.
"""

from __future__ import annotations

from sqlalchemy import LargeBinary, cast, func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import get_settings
from secdash.models.artifacts import Artifact, ArtifactVersion
from secdash.models.builder import CodeProject, ProjectFile
from secdash.services.errors import Invalid

MB = 1024 * 1024


def _bytes(column, dialect: str):  # noqa: ANN001, ANN202  (SQL: the UTF-8 size of a text column, 0 for NULL)
    # PostgreSQL counts a text's bytes with octet_length (a cast to bytea would read backslashes as escapes);
    # SQLite's length() of the text cast to a blob counts its bytes.
    size = func.octet_length(column) if dialect == "postgresql" else func.length(cast(column, LargeBinary))
    return func.coalesce(func.sum(size), 0)


async def used_bytes(session: AsyncSession, user_id: int) -> int:
    """Bytes of every artifact version and every project file (with the content it had before its last change)."""
    dialect = session.get_bind().dialect.name
    versions = (
        select(_bytes(ArtifactVersion.html_content, dialect))
        .join(Artifact, col(Artifact.id) == ArtifactVersion.artifact_id)
        .where(Artifact.owner_user_id == user_id)
    )
    files = (
        select(_bytes(ProjectFile.content, dialect) + _bytes(ProjectFile.previous, dialect))
        .join(CodeProject, col(CodeProject.id) == ProjectFile.project_id)
        .where(CodeProject.owner_user_id == user_id)
    )
    return int((await session.exec(versions)).one()) + int((await session.exec(files)).one())


def _size(count: int) -> str:
    return f"{count / MB:.1f} MB"


async def ensure_room(session: AsyncSession, user_id: int, adding: int = 0) -> None:
    """Invalid, saying what to do, when the user's stored bytes plus `adding` would pass the quota (with
    `adding` 0: when the quota is already reached)."""
    quota = get_settings().USER_STORAGE_MB * MB
    used = await used_bytes(session, user_id)
    if used + adding > quota or (adding == 0 and used >= quota):
        needs = f"; this needs {_size(adding)} more" if adding else ""
        raise Invalid(
            f"Your storage is full: {_size(used)} of {_size(quota)} used{needs}. Delete HTML artifacts "
            "or code projects you no longer need (download them first to keep a copy)"
        )
