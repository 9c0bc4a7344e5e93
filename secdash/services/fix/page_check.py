"""Does the page still work? A fixed page is loaded in headless Chromium beside the page as it was before the fix.

Both versions of the site's folder are served from this machine (a static server on 127.0.0.1 per version, with
the folder's own `headers.json` policies, as the demo sites send them) and each page that a changed file belongs to
is opened in a fresh browser context. What the page reports is compared: console errors, uncaught exceptions,
failed requests and answers of 400 or more. What the fixed page reports and the page before did not is a
regression: the fix is then "not verified" with these lines as the reason.

Nothing leaves the machine: every request to another origin is aborted (and not counted). The browser is Debian's
Chromium (`SECDASH_CHROMIUM`, default the `chromium` on PATH), driven by Playwright; without it the check cannot be
made, which is itself a reason the fix is not verified.
"""

from __future__ import annotations

import asyncio
import functools
import http.server
import os
import re
import shutil
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from secdash.services.monitoring.headers_file import HEADERS_FILE, parse_headers

PAGE_SECONDS = 10.0  # one page's load
SETTLE_SECONDS = 0.5  # after `load`, for errors a page's scripts report late
MAX_REPORTED = 10  # regressions named (the rest are counted)
BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


_HASH = re.compile(r"'sha(?:256|384|512)-[A-Za-z0-9+/=]+'")


class CheckUnavailable(Exception):
    """The browser check could not run (no Chromium, or it failed to start): the message says why."""


def chromium_path() -> str | None:
    configured = os.environ.get("SECDASH_CHROMIUM", "")
    return configured if configured and Path(configured).is_file() else shutil.which("chromium")


def pages_of(files: Sequence[str], all_files: Sequence[str]) -> list[str]:
    """The HTML pages a change to `files` can affect: the changed pages, and the pages in a changed script's folder."""
    pages = []
    for changed in files:
        folder = str(PurePosixPath(changed).parent)
        if PurePosixPath(changed).suffix.lower() in (".html", ".htm"):
            pages.append(changed)
            continue
        pages += [
            name
            for name in all_files
            if str(PurePosixPath(name).parent) == folder and PurePosixPath(name).suffix.lower() in (".html", ".htm")
        ]
    return sorted(dict.fromkeys(pages))


class _Handler(http.server.SimpleHTTPRequestHandler):
    policies: dict[str, str] = {}

    def end_headers(self) -> None:
        for name, value in self.policies.items():
            self.send_header(name, value)
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args: object) -> None:  # quiet
        pass


@contextmanager
def _serving(folder: Path) -> Iterator[str]:
    """A static server of `folder` on 127.0.0.1 (its headers.json policies on every answer); yields its origin."""
    policies: dict[str, str] = {}
    headers_file = folder / HEADERS_FILE
    if headers_file.is_file():
        try:
            policies = parse_headers(headers_file.read_text(encoding="utf-8"))
        except ValueError:
            policies = {}
    handler = type("Handler", (_Handler,), {"policies": policies})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def _load(browser, origin: str, page_path: str) -> Counter[str]:  # noqa: ANN001 (a Playwright Browser)
    """What one page reports while it loads, with its origin taken out so two servers compare."""
    seen: Counter[str] = Counter()

    def plain(text: str) -> str:
        # The origin and a blocked inline script's hash differ between the two versions; the complaint does not.
        text = _HASH.sub("'sha-...'", text.replace(origin, ""))
        return " ".join(text.split())[:300]

    context = await browser.new_context()
    try:

        async def only_local(route) -> None:  # noqa: ANN001
            if route.request.url.startswith(origin + "/"):
                await route.continue_()
            else:
                await route.abort()

        await context.route("**/*", only_local)
        page = await context.new_page()
        page.on(
            "console", lambda message: seen.update([f"console error: {plain(message.text)}"]) if message.type == "error" else None
        )
        page.on("pageerror", lambda error: seen.update([f"uncaught error: {plain(str(error))}"]))
        page.on(
            "requestfailed",
            lambda request: (
                seen.update([f"failed request: {plain(request.url)} ({request.failure or 'failed'})"])
                if request.url.startswith(origin + "/")
                else None
            ),
        )
        page.on(
            "response",
            lambda response: (
                seen.update([f"{response.status} for {plain(response.url)}"])
                if response.status >= 400 and response.url.startswith(origin + "/")
                else None
            ),
        )
        try:
            await page.goto(f"{origin}/{page_path}", wait_until="load", timeout=PAGE_SECONDS * 1000)
            await page.wait_for_timeout(SETTLE_SECONDS * 1000)
        except Exception as exc:  # noqa: BLE001 (Playwright's timeouts and navigation errors: the page did not load)
            seen.update([f"the page did not load: {plain(str(exc).splitlines()[0])}"])
    finally:
        await context.close()
    return seen


async def regressions(before: Path, after: Path, pages: Sequence[str]) -> list[str]:
    """What each page reports after the fix and did not before (both folders hold the same site: before and after
    the fix); [] when nothing got worse. Raises CheckUnavailable when the browser cannot run."""
    executable = chromium_path()
    if executable is None:
        raise CheckUnavailable("Chromium is not installed on the server, so the fixed page could not be loaded")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        raise CheckUnavailable("Playwright is not installed on the server, so the fixed page could not be loaded") from None
    found: list[str] = []
    with _serving(before) as old_origin, _serving(after) as new_origin:
        try:
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=executable, args=BROWSER_ARGS)
                try:
                    for page in pages:
                        was = await _load(browser, old_origin, page)
                        now = await _load(browser, new_origin, page)
                        found += [f"{page}: {line}" for line in (now - was).elements()]
                finally:
                    await browser.close()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 (the browser failed to start or crashed)
            raise CheckUnavailable(f"the browser could not load the page ({str(exc).splitlines()[0][:200]})") from None
    if len(found) > MAX_REPORTED:
        found = [*found[:MAX_REPORTED], f"... and {len(found) - MAX_REPORTED} more"]
    return found
