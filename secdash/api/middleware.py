"""Pure ASGI middlewares on the FastAPI that Reflex mounts as `api_transformer`.

In single-port prod every HTTP response passes through that FastAPI: pages and assets (Reflex's
static mount sits inside it), /api, /ping, 404s (shared/REFLEX-SECURITY.md, sections 1, 2 and 9).

- `SecurityHeaders`: CSP (inline-script hashes of the build, no 'unsafe-eval'), X-Frame-Options, nosniff,
  Referrer-Policy, HSTS over HTTPS. Headers a route sets itself win. The bundled demo sites
  (/demo/) and sandboxed previews (/preview/) keep their own CSP and may be framed; being content on the
  console's origin, they never set or clear a cookie (a `secdash_session` they set would replace the
  visitor's console session): their Set-Cookie and Clear-Site-Data headers are dropped.
- `RequestGuard`: a method an /api/ path does not answer, and any unusual method, get a JSON 405 with
  an Allow header naming the methods the path does answer; /api/ request bodies are capped (413) and JSON
  bodies with strings that are not valid Unicode (lone surrogates) are refused (400) before a
  route, a database driver or a log line can choke on them.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import os
import re
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Paths whose responses carry their own posture (a sandbox CSP, framable by the console).
OWN_POSTURE_PREFIXES = ("/demo/", "/preview/")
HSTS = "max-age=63072000; includeSubDomains"  # two years
REFERRER_POLICY = "strict-origin-when-cross-origin"
CSP_TEMPLATE = (
    "default-src 'self'; script-src 'self'{script_hashes}; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
    "connect-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
# No 'unsafe-eval': Reflex would run the JavaScript of events that handlers return (rx.toast,
# rx.call_script, rx.call_function) with eval, so handlers ask for toasts and the sign-in/sign-out
# hand-over through state/browser_actions.py instead, done by code compiled into the bundle
# (tests/security/test_no_eval_events.py keeps it so). Inline styles: emotion, sonner and Radix inject
# <style> text that cannot all be hashed.
# Headers that change the browser's state for the whole origin: never from content served on the console's origin.
OWN_POSTURE_DROPPED = frozenset({b"set-cookie", b"set-cookie2", b"clear-site-data"})
STANDARD_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)


def default_build_dir() -> Path:
    """Where Reflex's prod build keeps the prerendered pages (the server runs in the project root)."""
    return Path(os.environ.get("REFLEX_WEB_WORKDIR", ".web")) / "build" / "client"


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _html_files(build_dir: Path) -> list[Path]:
    try:
        return sorted(build_dir.rglob("*.html"))
    except OSError:
        return []


def _stamp(files: list[Path]) -> tuple[tuple[str, int], ...]:
    stamp = []
    for path in files:
        try:
            stamp.append((str(path), path.stat().st_mtime_ns))
        except OSError:
            continue
    return tuple(stamp)


def script_hashes(build_dir: Path, files: list[Path] | None = None) -> list[str]:
    """The sha256 sources of every inline <script> in the prerendered pages, sorted."""
    hashes: set[str] = set()
    for path in _html_files(build_dir) if files is None else files:
        try:
            html = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        hashes.update(_sha256(body) for body in _INLINE_SCRIPT.findall(html))
    return sorted(hashes)


def content_security_policy(build_dir: Path | None = None) -> str:
    """The app's policy for one build directory (no build: scripts from 'self' only)."""
    hashes = script_hashes(build_dir or default_build_dir())
    return CSP_TEMPLATE.format(script_hashes="".join(f" {h}" for h in hashes))


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value
    return None


def _json_response(status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None):
    body = json.dumps({"message": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(extra or [])]
    return {"type": "http.response.start", "status": status, "headers": headers}, {"type": "http.response.body", "body": body}


async def _reject(send: Send, status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    start, body = _json_response(status, message, extra)
    await send(start)
    await send(body)


class SecurityHeaders:
    """Adds the security headers to every HTTP response that does not set them itself."""

    def __init__(
        self,
        app: ASGIApp,
        build_dir: Path | None = None,
        recheck_seconds: float = 2.0,
        trusted_proxies: tuple[Any, ...] | Callable[[], tuple[Any, ...]] = (),
    ) -> None:
        self.app = app
        self.build_dir = build_dir
        self.recheck_seconds = recheck_seconds
        self.trusted_proxies = trusted_proxies
        self._policy: str | None = None
        self._stamp: tuple | None = None
        self._checked_at = float("-inf")

    def policy(self) -> str:
        """The CSP, recomputed when the build's pages change (checked at most every recheck_seconds)."""
        now = time.monotonic()
        if self._policy is not None and now - self._checked_at < self.recheck_seconds:
            return self._policy
        self._checked_at = now
        build_dir = self.build_dir or default_build_dir()
        files = _html_files(build_dir)
        stamp = (str(build_dir), _stamp(files))
        if self._policy is None or stamp != self._stamp:
            hashes = script_hashes(build_dir, files)
            self._policy = CSP_TEMPLATE.format(script_hashes="".join(f" {h}" for h in hashes))
            self._stamp = stamp
        return self._policy

    def _trusted(self) -> tuple[Any, ...]:
        return self.trusted_proxies() if callable(self.trusted_proxies) else self.trusted_proxies

    def is_https(self, scope: Scope) -> bool:
        """HTTPS to the browser: the connection's scheme, or X-Forwarded-Proto from a trusted proxy."""
        if scope.get("scheme") in ("https", "wss"):
            return True
        forwarded = _header(scope, b"x-forwarded-proto")
        trusted = self._trusted()
        if not forwarded or not trusted or not scope.get("client"):
            return False
        try:
            peer = ipaddress.ip_address(str(scope["client"][0]))
        except ValueError:
            return False
        if not any(peer.version == net.version and peer in net for net in trusted):
            return False
        # The proxy that talks to us appends its own view last.
        return forwarded.decode("latin-1").split(",")[-1].strip().lower() == "https"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        own_posture = scope["path"].startswith(OWN_POSTURE_PREFIXES)
        https = self.is_https(scope)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if own_posture:
                    headers = [(key, value) for key, value in headers if key.lower() not in OWN_POSTURE_DROPPED]
                present = {key.lower() for key, _ in headers}
                add = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", REFERRER_POLICY.encode())]
                if not own_posture:
                    add += [(b"x-frame-options", b"DENY"), (b"content-security-policy", self.policy().encode())]
                if https:
                    add.append((b"strict-transport-security", HSTS.encode()))
                headers += [(key, value) for key, value in add if key not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


NUL_REFUSED = "text may not contain the NUL character (U+0000)"


def _strings(value: Any) -> Iterator[str]:
    """Every string (key or value) in parsed JSON."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _text_problem(parsed: Any) -> str | None:
    """Why the JSON's text must be refused: a string UTF-8 cannot encode (a lone surrogate), or one holding U+0000
    (PostgreSQL cannot store it in text); None when every string is fine."""
    for item in _strings(parsed):
        try:
            item.encode("utf-8")
        except UnicodeEncodeError:
            return "request body contains text that is not valid Unicode (a lone surrogate escape)"
        if "\x00" in item:
            return NUL_REFUSED
    return None


def _is_json(content_type: bytes | None) -> bool:
    """FastAPI parses a body as JSON when it has no content type or a JSON one."""
    if not content_type:
        return True
    media = content_type.decode("latin-1").split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


class RequestGuard:
    """Methods, body size and body text checks, before anything else reads the request."""

    def __init__(
        self,
        app: ASGIApp,
        max_body_bytes: int = 256 * 1024,
        prefix: str = "/api/",
        body_caps: tuple[tuple[re.Pattern[str], int], ...] = (),
        methods_of: Callable[[str], frozenset[str]] | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.prefix = prefix
        self.body_caps = body_caps  # (path pattern, cap): the few routes whose bodies may be larger
        self.methods_of = methods_of  # the methods an /api/ path answers (none: no such path, the route's 404)

    def cap_of(self, path: str) -> tuple[int, str]:
        """The body cap of a path, and the message of a body over it."""
        for pattern, cap in self.body_caps:
            if pattern.match(path):
                return cap, f"request body too large (the limit of this request is {cap // 1024} KB)"
        return self.max_body_bytes, "request body too large"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        allowed = self.methods_of(path) if self.methods_of is not None and path.startswith(self.prefix) else None
        if allowed and scope["method"] not in allowed:
            allow = ", ".join(sorted(allowed))
            await _reject(send, 405, f"Method Not Allowed: this path answers {allow}", [(b"allow", allow.encode())])
            return
        if scope["method"] not in STANDARD_METHODS and not path.startswith(OWN_POSTURE_PREFIXES):
            standard = ", ".join(sorted(STANDARD_METHODS)).encode()
            await _reject(send, 405, "Method Not Allowed", [(b"allow", standard)])
            return
        # /api/ paths, and the few others given a cap of their own (Reflex's /_upload, which has none).
        if not path.startswith(self.prefix) and not any(pattern.match(path) for pattern, _ in self.body_caps):
            await self.app(scope, receive, send)
            return
        if "\x00" in path or b"%00" in scope.get("query_string", b"").lower():
            await _reject(send, 400, NUL_REFUSED)
            return
        cap, too_large = self.cap_of(path)
        length = _header(scope, b"content-length")
        if length is not None:
            if not length.strip().isdigit():
                await _reject(send, 400, "bad Content-Length header")
                return
            if int(length) > cap:
                await _reject(send, 413, too_large)
                return
        # Read the whole (capped) body, check it, then hand it on unchanged.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > cap:
                await _reject(send, 413, too_large)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body and _is_json(_header(scope, b"content-type")):
            problem = _check_json(body)
            if problem:
                await _reject(send, 400, problem)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _check_json(body: bytes) -> str | None:
    """Why a JSON body must be refused here, or None (malformed JSON is left to the route's 400)."""
    try:
        parsed = json.loads(body)
    except RecursionError:
        return "request body is nested too deeply"
    except ValueError:
        return None
    return _text_problem(parsed)
