"""Serves the demo sites under /demo/{slug}/, each with its own security posture.

- stock: every recommended security header (grade A+), fast;
- tour: no CSP and no X-Frame-Options (grade E: CHECKING);
- gem: good headers but slow (about 2.5 s: CHECKING);
- shares: answers 500 during one minute in five (ALERT now and then; SECDASH_DEMO_SHARES_OUTAGE=down or up
  pins it, so tests do not depend on the clock).

They are served by the console's own origin, where the console keeps its sign-in token: every demo
response also carries `Content-Security-Policy: sandbox allow-scripts allow-forms` as a header of its
own, so a demo page (Tour has a planted innerHTML bug) runs in an opaque origin and cannot read the
console's local storage or cookies. The monitor's grader ignores a sandbox-only policy, so each site
keeps the grade its own headers earn.
"""

from __future__ import annotations

import asyncio
import mimetypes
import time
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from secdash.core.config import get_settings

SOURCES = Path(__file__).resolve().parent / "sources"
STRONG_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; object-src 'none'",
    "Strict-Transport-Security": "max-age=63072000; includeSubDomains",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
}
WEAK_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
SANDBOX_POLICY = "sandbox allow-scripts allow-forms"
GEM_DELAY_SECONDS = 2.5

router = APIRouter(include_in_schema=False)


def shares_failing(now: float | None = None, outage: str | None = None) -> bool:
    """Shares fails during the first minute of every five (or always / never, as the setting says)."""
    outage = outage or get_settings().DEMO_SHARES_OUTAGE
    if outage != "schedule":
        return outage == "down"
    return int((now if now is not None else time.time()) // 60) % 5 == 0


def _file(slug: str, name: str) -> Path | None:
    root = (SOURCES / slug).resolve()
    path = (root / (name or "index.html")).resolve()
    if root not in path.parents or not path.is_file() or path.suffix == ".py":
        return None
    return path


def _sandboxed(response: Response) -> Response:
    """Add the sandbox as its own header, next to any policy the site sends."""
    response.headers.append("Content-Security-Policy", SANDBOX_POLICY)
    return response


@router.get("/demo/{slug}/{name:path}")
async def serve_demo_site(slug: str, name: str = "") -> Response:
    return _sandboxed(await _demo_response(slug, name))


async def _demo_response(slug: str, name: str) -> Response:
    if slug not in {"stock", "tour", "gem", "shares"}:
        return JSONResponse({"message": "Not found"}, status_code=404)
    headers = WEAK_HEADERS if slug == "tour" else STRONG_HEADERS
    if slug == "gem":
        await asyncio.sleep(GEM_DELAY_SECONDS)
    if slug == "shares" and shares_failing():
        return Response("Shares AI is temporarily unavailable", status_code=500, headers=headers)
    path = _file(slug, name)
    if path is None:
        return Response("Not found", status_code=404, headers=headers)
    media_type = mimetypes.guess_type(path.name)[0] or "text/plain"
    return Response(path.read_bytes(), media_type=media_type, headers=headers)
