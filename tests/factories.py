"""Test data: users and signed-in sessions made through the real services."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import get_settings
from secdash.models import UserPublic
from secdash.services.identity import auth, users

DEFAULT_PASSWORD = "correct-horse-battery-staple"


async def make_user(
    session: AsyncSession, email: str = "analyst@example.com", role: str = "limited", password: str = DEFAULT_PASSWORD
) -> UserPublic:
    return await users.create_user(session=session, email=email, password=password, role=role)


async def sign_in(session: AsyncSession, email: str, password: str = DEFAULT_PASSWORD) -> str:
    result = await auth.login(session=session, settings=get_settings(), email=email, password=password, ip="10.0.0.1")
    return result.token


def scan_job(*, scan_type: str = "quick", status: str = "done", **progress: int | str):
    """A stored scan job (kind "scan") with its progress figures in the job's own words (camelCase)."""
    from secdash.models import Job

    keys = {
        "total_lines": "totalLines",
        "lines_scanned": "linesScanned",
        "total_files": "totalFiles",
        "files_scanned": "filesScanned",
        "threats_found": "threatsFound",
        "vulnerabilities": "vulnerabilities",
        "current_file": "currentFile",
    }
    return Job(
        kind="scan",
        status=status,
        params={"scanType": scan_type},
        progress={keys[name]: value for name, value in progress.items()},
    )
