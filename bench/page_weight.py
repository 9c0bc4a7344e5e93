"""(e) Page weight: the JavaScript a signed-in Dashboard downloads on its first load, as sent (gzip).

Starts a prod server (or uses `--base-url` with `--email`/`--password`), signs in in Chromium, then
opens the Dashboard in a fresh browser context (empty cache, the signed-in storage only) and sums the
bytes of every JavaScript response as transferred (Chrome's `encodedDataLength`: gzip body plus
headers). It then opens the chat widget and the other signed-in pages in the same tab and reports
what each loads on top (what loads when it is needed, not with the Dashboard).

    .venv/bin/python -m bench.page_weight                    # its own server (builds into .web/)
    .venv/bin/python -m bench.page_weight --base-url http://127.0.0.1:3000 --email a@b.c --password ...

Run it while no browser test builds into the same .web/ (wrap it in `flock /tmp/secdash-e2e.lock`).
Nothing is asserted; the figures go to the README.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from bench.common import ADMIN_EMAIL, ADMIN_PASSWORD, prepare_environment, server_overrides

TARGET_KB = 400
# Other pages a signed-in user opens from the Dashboard: what each adds is reported, not counted above.
LATER_PAGES = (
    ("History Logs", "/history"),
    ("Defense Command", "/defense-command"),
    ("Defense Command Center", "/defense-command/center"),
)


@dataclass
class JsLog:
    """JavaScript responses seen by one page's DevTools session: url -> transferred bytes."""

    transferred: dict[str, int] = field(default_factory=dict)
    body: dict[str, int] = field(default_factory=dict)
    _scripts: dict[str, tuple[str, int]] = field(default_factory=dict)  # request id -> (url, header bytes)

    def mark(self) -> set[str]:
        return set(self.transferred)

    def since(self, mark: set[str]) -> tuple[int, int, list[tuple[str, int]]]:
        new = {url: size for url, size in self.transferred.items() if url not in mark}
        return sum(new.values()), sum(self.body.get(u, 0) for u in new), sorted(new.items(), key=lambda kv: -kv[1])


def _is_js(url: str, mime: str) -> bool:
    return "javascript" in mime or url.split("?", 1)[0].endswith((".js", ".mjs"))


@contextmanager
def _recording(page) -> Iterator[JsLog]:
    log = JsLog()
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})

    def on_response(params: dict) -> None:
        response = params["response"]
        if _is_js(response["url"], response.get("mimeType", "")):
            # At this point Chrome has received the headers only: what follows is the (gzip) body.
            log._scripts[params["requestId"]] = (response["url"], int(response.get("encodedDataLength") or 0))

    def on_finished(params: dict) -> None:
        seen = log._scripts.pop(params["requestId"], None)
        if seen is not None:
            url, header_bytes = seen
            total = int(params["encodedDataLength"])
            log.transferred[url] = log.transferred.get(url, 0) + total
            log.body[url] = log.body.get(url, 0) + max(0, total - header_bytes)

    cdp.on("Network.responseReceived", on_response)
    cdp.on("Network.loadingFinished", on_finished)
    yield log


def _kb(size: int) -> str:
    return f"{size / 1024:.1f} KB"


def _short(url: str) -> str:
    return re.sub(r"^https?://[^/]+", "", url)


def measure(base_url: str, email: str, password: str, show: int = 12) -> int:
    from playwright.sync_api import expect, sync_playwright

    from tests.support.live_server import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        signing_in = browser.new_context(base_url=base_url)
        page = signing_in.new_page()
        page.goto("/login")
        page.get_by_label("Email").fill(email)
        page.locator("#password").fill(password)
        page.get_by_role("button", name="Access System").click()
        expect(page.get_by_role("banner").get_by_role("button", name="Logout")).to_be_visible(timeout=30_000)
        storage = signing_in.storage_state()
        signing_in.close()

        # The Dashboard's first load: a new context (empty cache) that holds only the signed-in storage.
        context = browser.new_context(base_url=base_url, storage_state=storage)
        page = context.new_page()
        with _recording(page) as log:
            page.goto("/")
            expect(page.get_by_text("SecDash Security Command")).to_be_visible(timeout=30_000)
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(1500)  # anything a mounted component fetches after idle
            total, body, files = log.since(set())
            print(
                f"  Dashboard first load: {_kb(total)} of JavaScript transferred ({_kb(body)} gzip bodies, "
                f"{len(files)} files; target <= {TARGET_KB} KB)"
            )
            for url, size in files[:show]:
                print(f"    {_kb(size):>9}  {_short(url)}")
            if len(files) > show:
                print(f"    ... {len(files) - show} more")

            mark = log.mark()
            page.get_by_role("button", name="Open defense chat").click()
            expect(page.get_by_role("dialog", name="Defense Command chat")).to_be_visible()
            page.get_by_placeholder("Message defense command").fill("What is XSS?")
            page.get_by_role("button", name="Send").click()
            expect(page.get_by_test_id("agent-message").last).to_be_visible(timeout=30_000)
            page.wait_for_load_state("networkidle")
            added, _, chat_files = log.since(mark)
            print(f"  + opening the chat and its first reply: {_kb(added)} ({len(chat_files)} files)")
            for title, path in LATER_PAGES:
                mark = log.mark()
                page.goto(path)
                page.wait_for_load_state("networkidle")
                added, _, page_files = log.since(mark)
                print(f"  + then {title} ({path}): {_kb(added)} ({len(page_files)} files)")
        context.close()
        browser.close()
    return total


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.page_weight", description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", help="an already running prod server (default: start one)")
    parser.add_argument("--email", default=ADMIN_EMAIL)
    parser.add_argument("--password", default=ADMIN_PASSWORD)
    parser.add_argument("--show", type=int, default=12, help="largest files to list")
    args = parser.parse_args()
    print("(e) page weight: JavaScript of the signed-in Dashboard's first load (Chromium, gzip as transferred)")
    if args.base_url:
        measure(args.base_url.rstrip("/"), args.email, args.password, args.show)
        return
    run(show=args.show)


def run(show: int = 12) -> None:
    data_dir = prepare_environment(SECDASH_SIMULATION="off")
    from tests.support.live_server import server_env, start_server

    server = start_server(server_env(data_dir, **server_overrides(data_dir), GRANIAN_WORKERS="1"), data_dir)
    try:
        measure(server.base_url, ADMIN_EMAIL, ADMIN_PASSWORD, show)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
