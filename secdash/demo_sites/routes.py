"""Serves the demo sites under /demo/{slug}/, each with its own security posture.

- stock: every recommended security header (grade A+), fast;
- tour: no CSP and no X-Frame-Options (grade E: CHECKING), as its headers.json ships;
- gem: good headers but slow (about 2.5 s: CHECKING);
- shares: answers 500 during one minute in five (ALERT now and then; SECDASH_DEMO_SHARES_OUTAGE=down or up
  pins it, so tests do not depend on the clock).

Each site's pages and its own response headers (`headers.json`: a JSON object of header name to value,
secdash/demo_sites/site_headers.py) live in its code root, `sources/<slug>/`; once Fix Mode made a workspace
of the demo sources, the sites serve the workspace instead (fixed pages and fixed headers). A page is any file
of that folder except `headers.json` and `.py` files (the sites' server-side code, never served).

They are served by the console's own origin, where the console keeps its sign-in token: every demo
response also carries `Content-Security-Policy: sandbox allow-scripts allow-forms` as a header of its
own, so a demo page (Tour has a planted innerHTML bug) runs in an opaque origin and cannot read the
console's local storage or cookies. The monitor's grader ignores a sandbox-only policy, so each site
keeps the grade its own headers earn.

Each site also has small endpoints that Battle Station drills attack (vulnerable on purpose, on fake data:
secdash/services/battle/demo_app.py): /login (POST), /search?q=, /comment?text=, /upload (POST, multipart),
/report-link (POST url=), and its pages. Every demo request passes the site's defense layer first (its
current DefenseConfig, secdash/services/battle/defense.py) and is written to the site's request log.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import ipaddress
import logging
import mimetypes
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from urllib.parse import parse_qsl, unquote_plus

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy.exc import SQLAlchemyError
from starlette.datastructures import UploadFile

from secdash.core.client_address import client_address
from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.demo_sites import SLUGS
from secdash.demo_sites import site_headers
from secdash.models import utcnow
from secdash.services.battle import defense, demo_app, request_log
from secdash.services.battle.demo_app import RequestFacts
from secdash.services.battle.request_log import DrillMark
from secdash.services.traffic import ingest
from secdash.services.traffic.logformats import Request as LoggedRequest
from secdash.services.traffic.logformats import nginx_escaped

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
    """The page file `name` of the site's folder; None for anything outside it, its headers file and code."""
    root = site_headers.site_folder(slug).resolve()
    path = (root / (name or "index.html")).resolve()
    if root not in path.parents or not path.is_file():
        return None
    if path.suffix.lower() == ".py" or path.name.lower() == site_headers.HEADERS_FILE:
        return None
    return path


def _sandboxed(response: Response) -> Response:
    """Add the sandbox as its own header, next to any policy the site sends."""
    response.headers.append("Content-Security-Policy", SANDBOX_POLICY)
    return response


@router.get("/demo/{slug}/search")
async def demo_search(request: Request, slug: str) -> Response:
    return await _guarded(request, slug, "search", _search)


@router.get("/demo/{slug}/comment")
async def demo_comment(request: Request, slug: str) -> Response:
    return await _guarded(request, slug, "comment", _comment)


@router.get("/demo/{slug}/login")
@router.post("/demo/{slug}/login")
async def demo_login(request: Request, slug: str) -> Response:
    return await _guarded(request, slug, "login", _login)


@router.get("/demo/{slug}/upload")
@router.post("/demo/{slug}/upload")
async def demo_upload(request: Request, slug: str) -> Response:
    return await _guarded(request, slug, "upload", _upload)


@router.get("/demo/{slug}/report-link")
@router.post("/demo/{slug}/report-link")
async def demo_report_link(request: Request, slug: str) -> Response:
    return await _guarded(request, slug, "report", _report)


@router.get("/demo/{slug}/{name:path}")
async def serve_demo_site(request: Request, slug: str, name: str = "") -> Response:
    async def pages(_request: Request, _slug: str, _facts: RequestFacts) -> Response:
        return await _demo_response(slug, name)

    return await _guarded(request, slug, "pages", pages)


@router.api_route("/demo/{slug}/{name:path}", methods=["POST", "PUT", "PATCH", "DELETE"])
async def demo_other_method(slug: str, name: str = "") -> Response:
    return _sandboxed(JSONResponse({"message": "Method Not Allowed"}, status_code=405))


async def _demo_response(slug: str, name: str) -> Response:
    if slug not in SLUGS:
        return JSONResponse({"message": "Not found"}, status_code=404)
    headers = site_headers.headers_of(slug)
    if slug == "gem":
        await asyncio.sleep(GEM_DELAY_SECONDS)
    if slug == "shares" and shares_failing():
        return Response("Shares AI is temporarily unavailable", status_code=500, headers=headers)
    path = _file(slug, name)
    if path is None:
        return Response("Not found", status_code=404, headers=headers)
    media_type = mimetypes.guess_type(path.name)[0] or "text/plain"
    return Response(path.read_bytes(), media_type=media_type, headers=headers)


# --- the attackable endpoints and the defense layer in front of them ---------------------------------------

log = logging.getLogger(__name__)
Handler = Callable[[Request, str, RequestFacts], Awaitable[Response]]
MAX_QUERY_TEXT = 2000  # characters of one query parameter the endpoints use


def _site_headers(slug: str) -> dict[str, str]:
    return site_headers.headers_of(slug)


def _html(slug: str, text: str, status_code: int = 200) -> Response:
    return HTMLResponse(text, status_code=status_code, headers=_site_headers(slug))


async def _read_body(request: Request) -> bytes | None:
    """The request body, or None when it is larger than the demo sites accept."""
    length = request.headers.get("content-length", "")
    if length.strip().isascii() and length.strip().isdigit() and int(length) > demo_app.MAX_BODY_BYTES:
        return None
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > demo_app.MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def _facts(request: Request, slug: str, endpoint: str, body: bytes) -> tuple[RequestFacts, dict[str, str]]:
    """What the defense sees, and the form fields (a file upload under "file" goes to facts.upload)."""
    facts = RequestFacts(slug=slug, endpoint=endpoint, path=request.url.path, query=unquote_plus(request.url.query))
    fields: dict[str, str] = {}
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if body and content_type == "multipart/form-data":
        sent = False

        async def replay() -> dict:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        form = await Request(request.scope, replay).form(max_files=1, max_fields=20, max_part_size=demo_app.MAX_BODY_BYTES)
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                facts.filename = (value.filename or "")[:200]
                facts.upload = await value.read(demo_app.MAX_BODY_BYTES + 1)
            else:
                fields.setdefault(key, value)
        facts.body = "&".join(f"{k}={v}" for k, v in fields.items())
    elif body:
        text = body.decode("utf-8", "replace")
        if content_type == "application/x-www-form-urlencoded":
            for key, value in parse_qsl(text, keep_blank_values=True, max_num_fields=50):
                fields.setdefault(key, value)
            facts.body = unquote_plus(text)
        else:
            facts.body = text
    if endpoint == "report" and request.method == "POST":
        facts.url = fields.get("url", "")[: demo_app.MAX_URL_LENGTH]
    return facts, fields


async def _arrive(
    request: Request,
    facts: RequestFacts,
    client: str,
    mark: DrillMark | None,
    *,
    monitor: bool = False,
) -> tuple[int | None, tuple[str, int] | None]:
    """Log the request as it arrives (status 0), then apply the site's current defense to it: the id of the log
    row and the refusing rule (if any). Rate limits count this client's requests logged before this one, so
    the requests of a concurrent burst each see the ones ahead of them. A console database that cannot answer
    lets the request through: the demo sites keep serving, and the monitor keeps seeing them."""
    try:
        async with session_scope() as session:
            row = await request_log.record(
                session,
                slug=facts.slug,
                client=client,
                method=request.method,
                path=request.url.path,
                endpoint=facts.endpoint,
                status_code=0,
                blocked=False,
                mark=mark,
            )
            await session.commit()
            row_id = row.id
            current = await defense.get_defense(session, facts.slug)

            async def count_recent(window_seconds: int, endpoints: Sequence[str] | None) -> int:
                if monitor:  # SecDash's own monitor: rate limits do not count it (every other rule applies)
                    return 0
                return await request_log.count_recent(
                    session,
                    slug=facts.slug,
                    client=client,
                    endpoints=endpoints,
                    since=request_log.window_start(window_seconds),
                    before_id=row_id,
                )

            return row_id, await demo_app.enforce(current.config, facts, count_recent)
    except SQLAlchemyError as exc:
        log.warning("demo site %s: defense not applied (%s); request let through", facts.slug, type(exc).__name__)
        return None, None


def _as_logged(request: Request, client: str, response: Response) -> LoggedRequest | None:
    """The request as nginx would log it (raw target, \\xHH escapes), for the site's traffic; None without a
    client address (a test transport may have none)."""
    try:
        client = str(ipaddress.ip_address(client))
    except ValueError:
        return None
    target = request.scope.get("raw_path") or request.url.path.encode()
    if request.scope.get("query_string"):
        target += b"?" + request.scope["query_string"]
    return LoggedRequest(
        time=utcnow(),
        address=client,
        method=request.method[:16],
        target=nginx_escaped(target)[:4096],
        status=response.status_code,
        size=len(getattr(response, "body", b"") or b""),
        user_agent=nginx_escaped(request.headers.get("user-agent", "").encode("latin-1", "replace"))[:512],
        referer=nginx_escaped(request.headers.get("referer", "").encode("latin-1", "replace"))[:512],
        host=request.url.hostname or "",
    )


async def _finish(
    row_id: int | None, slug: str, status_code: int, rule: str | None, seen: LoggedRequest | None, mark: DrillMark | None
) -> None:
    """Complete the request's log row, and add the request to the demo site's traffic (the path every site's
    access log takes: services/traffic/ingest.py), a drill's marked with its operation."""
    if row_id is None:
        return
    try:
        async with session_scope() as session:
            await request_log.finish(session, row_id, status_code=status_code, blocked=rule is not None, rule=rule)
            site_id = await ingest.demo_site_id(session, slug) if seen is not None else None
            if site_id is not None and seen is not None:
                await ingest.ingest_requests(session, site_id, [seen], operation_id=mark.operation_id if mark else None)
            await session.commit()
    except SQLAlchemyError as exc:
        log.warning("demo site %s: request not logged (%s)", slug, type(exc).__name__)


async def _guarded(request: Request, slug: str, endpoint: str, handler: Handler) -> Response:
    """The defense layer: read the body (capped), log the request, apply the site's defense, answer."""
    if slug not in defense.DEMO_SLUGS:
        return _sandboxed(JSONResponse({"message": "Not found"}, status_code=404))
    peer = request.client.host if request.client else ""
    mark = request_log.read_drill_mark(peer, request.headers.get(request_log.DRILL_HEADER))
    trusted = get_settings().trusted_proxies
    client = mark.client if mark else client_address(peer, request.headers.getlist("x-forwarded-for"), trusted)
    facts = RequestFacts(slug=slug, endpoint=endpoint, path=request.url.path, query=unquote_plus(request.url.query))
    fields: dict[str, str] = {}
    rule: str | None = None
    body = await _read_body(request)
    response: Response | None = None
    if body is None:
        response = Response("Request body too large", status_code=413, headers=_site_headers(slug))
    else:
        try:
            facts, fields = await _facts(request, slug, endpoint, body)
        except Exception:  # a malformed multipart body (python-multipart and Starlette raise several kinds)
            response = Response("Malformed form", status_code=400, headers=_site_headers(slug))
    monitor = mark is None and request_log.is_monitor_probe(peer, request.headers.get(request_log.MONITOR_HEADER))
    row_id, blocked = await _arrive(request, facts, client, mark, monitor=monitor)
    if response is None:
        if blocked is not None:
            rule, status = blocked
            response = Response(f"Blocked by {slug}'s defense ({rule})", status_code=status, headers=_site_headers(slug))
        else:
            request.state.demo_fields = fields
            response = await handler(request, slug, facts)
    else:
        rule = None  # the site's own limits answered before any defense rule
    await _finish(row_id, slug, response.status_code, rule, _as_logged(request, client, response), mark)
    return _sandboxed(response)


def _fields(request: Request) -> dict[str, str]:
    return getattr(request.state, "demo_fields", {})


async def _search(request: Request, slug: str, _facts: RequestFacts) -> Response:
    query = request.query_params.get("q", "")[:MAX_QUERY_TEXT]
    result = await demo_app.search(slug, query)
    return _html(slug, demo_app.search_page(slug, query, result), 503 if result.busy else 500 if result.error else 200)


async def _comment(request: Request, slug: str, _facts: RequestFacts) -> Response:
    text = request.query_params.get("text", "")[: demo_app.MAX_COMMENT_LENGTH]
    return _html(slug, demo_app.comment_page(slug, text))


async def _login(request: Request, slug: str, _facts: RequestFacts) -> Response:
    if request.method != "POST":
        return _html(slug, demo_app.form_page(slug, "login"))
    fields = _fields(request)
    username, password = fields.get("username", ""), fields.get("password", "")
    if await asyncio.to_thread(demo_app.check_login, slug, username, password):
        return _html(slug, demo_app.page("Welcome", f"<p>Welcome back, {html.escape(username[:100])}</p>"))
    return _html(slug, demo_app.page("Sign in", "<p>Wrong username or password</p>"), 401)


async def _upload(request: Request, slug: str, facts: RequestFacts) -> Response:
    if request.method != "POST":
        return _html(slug, demo_app.form_page(slug, "upload"))
    if facts.upload is None:
        return JSONResponse({"message": "send a file in the form field 'file'"}, status_code=400, headers=_site_headers(slug))
    if len(facts.upload) > demo_app.MAX_UPLOAD_BYTES:
        return JSONResponse({"message": "file too large"}, status_code=413, headers=_site_headers(slug))
    return JSONResponse(
        {
            "accepted": True,
            "filename": facts.filename,
            "bytes": len(facts.upload),
            "sha256": hashlib.sha256(facts.upload).hexdigest(),
        },
        headers=_site_headers(slug),
    )


async def _report(request: Request, slug: str, facts: RequestFacts) -> Response:
    if request.method != "POST":
        return _html(slug, demo_app.form_page(slug, "report"))
    url = facts.url or ""
    if demo_app.link_host(url) is None:
        return _html(slug, demo_app.page("Report a link", "<p>Enter an http(s) link</p>"), 400)
    return _html(slug, demo_app.report_page(slug, url))
