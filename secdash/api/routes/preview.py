"""The isolated preview: project files and HTML artifact versions, served with a sandbox CSP under a short-lived
link (no cookie, no user: the link is the credential; see secdash/services/preview_links.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from secdash.api.deps import DbSession
from secdash.services import preview_files, preview_links
from secdash.services.errors import NotFound

router = APIRouter(include_in_schema=False)
Token = Annotated[str, PathParam(max_length=1000)]
FilePath = Annotated[str, PathParam(max_length=400)]
SANDBOXED = {
    "content-security-policy": preview_links.PREVIEW_CSP,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


WINDOW = {
    "content-security-policy": preview_links.WINDOW_CSP,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


@router.get("/preview/{token}/{path:path}")
async def preview_file(token: Token, path: FilePath, session: DbSession, request: Request) -> Response:
    try:
        media_type, body = await preview_files.preview_file(session=session, token=token, path=path)
    except NotFound as exc:  # a plain page: it shows inside the frame
        return PlainTextResponse(exc.message, status_code=404, headers=SANDBOXED)
    if preview_links.shown_in_window(
        media_type, request.headers.get("sec-fetch-dest"), preview_links.FRAMED in request.query_params
    ):
        return HTMLResponse(preview_links.window_page(request.url.path), headers=WINDOW)
    headers = dict(SANDBOXED)
    if media_type == "text/javascript":
        headers["access-control-allow-origin"] = "*"  # module scripts of the opaque origin are CORS requests
    charset = "; charset=utf-8" if media_type.startswith("text/") or media_type.endswith(("json", "xml")) else ""
    return Response(body, media_type=f"{media_type}{charset}", headers=headers)
