"""The isolated preview of a project: short-lived links, and the files served under them.

A preview link `/preview/<token>/<path>` names one project; the token (a JWT signed with a key derived from
the secret key, audience "preview", 30 minutes) is the only credential, because the sandboxed frame is an opaque
origin: its requests carry no cookie and must not. It names the sign-in session it was made in, so it stops
working when that session ends (logout, revocation, expiry). Every response carries PREVIEW_CSP: `sandbox allow-scripts`
makes the document an opaque origin even when opened top-level (no access to the app's storage, cookies or
pages), `connect-src 'none'` stops fetch/XHR/WebSocket to anywhere, and nothing loads from other origins.
"""

from __future__ import annotations

import hashlib
import mimetypes
from datetime import UTC, datetime, timedelta
from pathlib import PurePosixPath

import jwt
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.files import safe_path
from secdash.core.config import get_settings
from secdash.core.security import InvalidToken, decode_access_token
from secdash.models import AuthSession, UserPublic, as_utc
from secdash.models.builder import CodeProject
from secdash.services.builder import projects
from secdash.services.builder.records import file_of
from secdash.services.errors import NotFound

PREVIEW_CSP = (
    "sandbox allow-scripts; default-src 'none'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; media-src 'self' data:; "
    "connect-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'"
)
TTL = timedelta(minutes=30)
EXPIRED = "This preview link has expired or is not valid: open the preview again"
AUDIENCE = "preview"
ALGORITHM = "HS256"
ENTRY = "index.html"
TEXT_TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".html": "text/html",
              ".htm": "text/html", ".json": "application/json", ".svg": "image/svg+xml", ".md": "text/plain",
              ".py": "text/plain", ".txt": "text/plain"}


def _key() -> str:
    return hashlib.sha256(f"secdash-preview:{get_settings().secret_key()}".encode()).hexdigest()


def _session_id(auth_token: str | None) -> str:
    """The sign-in session of the (already verified) token the request came with."""
    try:
        return decode_access_token(auth_token or "", secret=get_settings().secret_key()).session_id
    except InvalidToken:
        raise NotFound("Sign in again to preview") from None


async def preview_url(*, session: AsyncSession, viewer: UserPublic, project_id: object, auth_token: str | None) -> str:
    """A fresh link to the project's index.html, valid while the viewer's sign-in session is (NotFound when the
    project has no index.html)."""
    project = await projects.owned(session, viewer, project_id)
    assert project.id is not None
    if await file_of(session, project.id, ENTRY) is None:
        raise NotFound("No HTML file: build a project first to preview it")
    now = datetime.now(UTC)
    claims = {"pid": project.id, "sub": str(viewer.id), "sid": _session_id(auth_token), "aud": AUDIENCE, "iat": now,
              "exp": now + TTL}
    return f"/preview/{jwt.encode(claims, _key(), algorithm=ALGORITHM)}/{ENTRY}"


async def _session_alive(session: AsyncSession, session_id: str, owner_id: int) -> bool:
    row = await session.get(AuthSession, session_id)
    return (row is not None and row.user_id == owner_id and row.revoked_at is None
            and as_utc(row.expires_at) > datetime.now(UTC))


def media_type(path: str) -> str:
    suffix = PurePosixPath(path).suffix.lower()
    return TEXT_TYPES.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"


async def preview_file(*, session: AsyncSession, token: str, path: str) -> tuple[str, bytes]:
    """(media type, body) of a project file under a valid link; NotFound for anything else."""
    try:
        claims = jwt.decode(token, _key(), algorithms=[ALGORITHM], audience=AUDIENCE,
                            options={"require": ["exp", "iat", "aud", "sub"]})
        project_id, owner_id, session_id = int(claims["pid"]), int(claims["sub"]), str(claims["sid"])
    except (jwt.PyJWTError, KeyError, TypeError, ValueError):
        raise NotFound(EXPIRED) from None
    if not await _session_alive(session, session_id, owner_id):
        raise NotFound(EXPIRED)
    project = await session.get(CodeProject, project_id)
    wanted = safe_path((path or ENTRY).removeprefix("./"))
    if project is None or project.owner_user_id != owner_id or wanted is None:
        raise NotFound("File not found in this project")
    file = await file_of(session, project_id, wanted)
    if file is None:
        raise NotFound(f"{wanted} is not a file of this project")
    return media_type(wanted), file.content.encode()
