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
import html
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
TEXT_TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".html": "text/html",
    ".htm": "text/html",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".md": "text/plain",
    ".py": "text/plain",
    ".txt": "text/plain",
}


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
    claims = {**target, "sub": str(viewer.id), "sid": _session_id(auth_token), "aud": AUDIENCE, "iat": now, "exp": now + ttl}
    return f"/preview/{jwt.encode(claims, _key(), algorithm=ALGORITHM)}/{ENTRY}"


async def _session_alive(session: AsyncSession, session_id: str, owner_id: int) -> bool:
    row = await session.get(AuthSession, session_id)
    return row is not None and row.user_id == owner_id and row.revoked_at is None and as_utc(row.expires_at) > datetime.now(UTC)


async def read_link(session: AsyncSession, token: str) -> tuple[dict[str, Any], int]:
    """(claims, owner id) of a valid link whose sign-in session is alive; NotFound(EXPIRED) otherwise."""
    try:
        claims = jwt.decode(
            token, _key(), algorithms=[ALGORITHM], audience=AUDIENCE, options={"require": ["exp", "iat", "aud", "sub"]}
        )
        owner_id, session_id = int(claims["sub"]), str(claims["sid"])
    except (jwt.PyJWTError, KeyError, TypeError, ValueError):
        raise NotFound(EXPIRED) from None
    if not await _session_alive(session, session_id, owner_id):
        raise NotFound(EXPIRED)
    return claims, owner_id


def media_type(path: str) -> str:
    suffix = PurePosixPath(path).suffix.lower()
    return TEXT_TYPES.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"


# --- a preview opened in a whole window -------------------------------------------------------------------------
# A preview link is on the console's origin. Opened in a window of its own, a generated page fills it and could
# pose as a SecDash sign-in, with scripts to send what is typed away (a script may always navigate its own
# document, whatever the CSP). So a page asked for as a window's document is shown inside a SecDash frame instead:
# a banner that says what it is, and the page below it with scripts and forms off. The interactive preview is the
# one inside SecDash's pages (an <iframe sandbox="allow-scripts">, asked for as an iframe).
FRAMED = "frame"  # the query flag of the banner page's own frame (for browsers that send no Sec-Fetch-Dest)
BANNER = (
    "Preview of generated HTML: this is not a SecDash page. Scripts are off in this window; never type a "
    "password or any other secret into it."
)
WINDOW_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
)


def shown_in_window(media: str, fetch_dest: str | None, framed: bool) -> bool:
    """Whether this answer is a page for a whole window (show the banner page instead). Browsers name what a request
    is for in Sec-Fetch-Dest; one that names nothing is taken as a window unless it asks for the banner's frame."""
    if not media.startswith("text/html"):
        return False
    if fetch_dest is None:
        return not framed
    return fetch_dest not in ("iframe", "frame")


def window_page(path: str) -> str:
    """The banner page for a preview at `path` (the request's own path: /preview/<token>/<file>)."""
    source = html.escape(f"{path}?{FRAMED}=1", quote=True)
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>SecDash preview</title>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'></head>"
        "<body style='margin:0;font-family:system-ui,sans-serif;display:flex;flex-direction:column;height:100vh'>"
        "<div role='alert' style='background:#7f1d1d;color:#fff;padding:12px 16px;font-size:15px;font-weight:600'>"
        f"{html.escape(BANNER)}</div>"
        f"<iframe src='{source}' sandbox='' title='Generated page (scripts off)' "
        "style='border:0;flex:1;width:100%'></iframe></body></html>"
    )
