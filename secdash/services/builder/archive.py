"""A project as a zip of every file (the Download button and GET /api/code-project/{id}/download).

A file that tools run or load by themselves (a `.git/config` runs a command on `git status` in the unzipped folder;
secdash/ai/files.py `tool_file_reason`) is never in the zip, even one stored before builds refused them."""

from __future__ import annotations

import io
import re
import zipfile

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.files import tool_file_reason
from secdash.models import UserPublic
from secdash.services.builder import projects
from secdash.services.errors import Invalid

ZIP_DATE = (2026, 1, 1, 0, 0, 0)  # fixed entry times: the same files give the same bytes


def archive_name(name: str, project_id: int) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()[:60]
    return f"{slug or 'project'}-{project_id}.zip"


def zip_bytes(files: dict[str, str], folder: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(files):
            if tool_file_reason(path) is not None:
                continue
            entry = zipfile.ZipInfo(f"{folder}/{path}", date_time=ZIP_DATE)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, files[path])
    return buffer.getvalue()


async def project_zip(*, session: AsyncSession, viewer: UserPublic, project_id: object) -> tuple[str, bytes]:
    """(file name, zip bytes) of the user's project; Invalid when it has no files."""
    project = await projects.get_project(session=session, viewer=viewer, project_id=project_id)
    if not project.files:
        raise Invalid("No files to download: build a project first")
    name = archive_name(project.name, project.id)
    return name, zip_bytes({file.filename: file.content for file in project.files}, name.removesuffix(".zip"))
