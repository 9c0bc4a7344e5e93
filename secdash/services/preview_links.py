"""Links to the isolated preview: `/preview/<token>/<path>`, for a builder project or an HTML artifact version.

The token (a JWT signed with a key derived from the secret key, audience "preview", 30 minutes) is the only
credential, because the sandboxed frame is an opaque origin: its requests carry no cookie and must not. It names
the sign-in session it was made in, so it stops working when that session ends (logout, revocation, expiry).
Every response carries PREVIEW_CSP: `sandbox allow-scripts` makes the document an opaque origin even when opened
top-level (no access to the app's storage, cookies or pages), `connect-src 'none'` stops fetch/XHR/WebSocket to
anywhere, and nothing loads from other origins. What a link names (`pid`: a project; `aid` and `v`: an artifact
version) is read by services/builder/preview.py and services/artifacts/preview.py.
"""

from __future__ import annotations

import hashlib
import mimetypes
from datetime import UTC, datetime, timedelta
from pathlib import PurePosixPath
from typing import Any

import jwt
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import get_settings
from secdash.core.security import InvalidToken, decode_access_token
from secdash.models import AuthSession, UserPublic, as_utc
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


def make_link(*, viewer: UserPublic, auth_token: str | None, target: dict[str, int], ttl: timedelta = TTL) -> str:
    """A link to ENTRY of what `target` names, valid for `ttl` while the viewer's sign-in session is."""
    now = datetime.now(UTC)
    claims = {**target, "sub": str(viewer.id), "sid": _session_id(auth_token), "aud": AUDIENCE, "iat": now,
              "exp": now + ttl}
    return f"/preview/{jwt.encode(claims, _key(), algorithm=ALGORITHM)}/{ENTRY}"


async def _session_alive(session: AsyncSession, session_id: str, owner_id: int) -> bool:
    row = await session.get(AuthSession, session_id)
    return (row is not None and row.user_id == owner_id and row.revoked_at is None
            and as_utc(row.expires_at) > datetime.now(UTC))


async def read_link(session: AsyncSession, token: str) -> tuple[dict[str, Any], int]:
    """(claims, owner id) of a valid link whose sign-in session is alive; NotFound(EXPIRED) otherwise."""
    try:
        claims = jwt.decode(token, _key(), algorithms=[ALGORITHM], audience=AUDIENCE,
                            options={"require": ["exp", "iat", "aud", "sub"]})
        owner_id, session_id = int(claims["sub"]), str(claims["sid"])
    except (jwt.PyJWTError, KeyError, TypeError, ValueError):
        raise NotFound(EXPIRED) from None
    if not await _session_alive(session, session_id, owner_id):
        raise NotFound(EXPIRED)
    return claims, owner_id


def media_type(path: str) -> str:
    suffix = PurePosixPath(path).suffix.lower()
    return TEXT_TYPES.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"
