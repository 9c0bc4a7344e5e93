"""Untrusted input never stops the server (issue 21, items 1-4).

Each payload is one a limited user (or, for the demo search, anyone) can send; it is processed while /api/health is
asked every 20 ms on the same event loop, and every answer must come within HEALTH_BOUND. The payloads are small
versions of the measured ones: large enough that the old code held the event loop (or the shared thread pool) for
far longer than the bound, small enough to finish in seconds now that the work runs in bounded workers.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager

import httpx
import pytest

from secdash.core import bounded
from secdash.services.battle import demo_db
from secdash.services.builder import checks
from secdash.services.code_scan import Finding
from secdash.services.diff import compute, rows
from secdash.services.fix import recipes
from tests.api.conftest import signed_in
from tests.factories import DEFAULT_PASSWORD
from tests.support.plant_artifact import plant

# Seconds for /api/health while a payload is processed. The security review asked for 0.2 s on an idle machine; the
# suite runs on 2 cores beside another worker and a browser run, where one answer took 0.27 s with nothing blocking
# and, in a CI run, 1.1 s. The payloads below held the loop for 6 s or more before the fix (on a quiet machine), so
# 2 s still tells a blocked loop from a busy machine.
HEALTH_BOUND = 2.0
LONG_LINE = "<!doctype html><title>t</title><p>" + "<a" * 16_000  # the quadratic-rule payload (item 1)
PRINTF = "x' UNION SELECT printf('%.*c', 900000000, 'x'), 1 --"  # one SQLite opcode of ~1 s (item 4)


@pytest.fixture
async def limited(client, session):
    return await signed_in(client, session, "user@example.com", "limited")


@asynccontextmanager
async def health_watch(client: httpx.AsyncClient):
    """Ask /api/health every 20 ms until the block ends; yields the list of answer times (seconds), each counted
    from when the request was due (a client on another machine would have sent it then)."""
    times: list[float] = []
    done = asyncio.Event()

    async def ask() -> None:
        due = time.perf_counter()  # when a client asking every 20 ms sends its next request
        while not done.is_set():
            response = await client.get("/api/health")
            times.append(time.perf_counter() - due)  # a blocked loop delays the request, not only its answer
            assert response.status_code == 200
            due = time.perf_counter() + 0.02
            await asyncio.sleep(0.02)

    task = asyncio.create_task(ask())
    try:
        yield times
    finally:
        done.set()
        await task


def _note_and_sleep(path: str, seconds: float) -> None:
    with open(path, "a", encoding="utf-8") as file:
        file.write("started\n")
    time.sleep(seconds)


def _two_versions(lines: int) -> tuple[str, str]:
    """Two pages whose line diff costs difflib ~3.4 s at 8,000 lines (every other line changed): before the diff ran
    in a bounded worker, saving and comparing them held the event loop that long, each."""
    before = "\n".join(f"<p>line {i} {'x' * 10}</p>" for i in range(lines))
    after = "\n".join(f"<p>line {i * 7 + 1} {'y' * 10}</p>" if i % 2 else f"<p>line {i} {'x' * 10}</p>" for i in range(lines))
    return before, after


async def test_a_long_hostile_line_in_a_hand_edit_leaves_the_server_answering(client, session, limited):
    artifact = await plant("user@example.com", "long line", "<!doctype html><title>t</title><p>first</p>")
    async with health_watch(client) as times:
        response = await client.post(f"/api/artifacts/{artifact}/versions", headers=limited, json={"htmlContent": LONG_LINE})
    assert response.status_code == 201, response.text
    assert len(times) >= 2 and max(times) < HEALTH_BOUND, times


async def test_saving_and_diffing_large_versions_leaves_the_server_answering(client, session, limited):
    before, after = _two_versions(8000)
    artifact = await plant("user@example.com", "two versions", before)
    async with health_watch(client) as times:
        saved = await client.post(f"/api/artifacts/{artifact}/versions", headers=limited, json={"htmlContent": after})
        diffed = await client.get(f"/api/artifacts/{artifact}/diff?from=1&to=2", headers=limited)
    assert saved.status_code == 201, saved.text
    history = (await client.get(f"/api/artifacts/{artifact}/history", headers=limited)).json()
    assert history[0]["changes"] == "Changed +4000 -4000 lines"
    assert diffed.status_code == 200 and diffed.json()["added"] == 4000
    assert len(times) >= 2 and max(times) < HEALTH_BOUND, times


async def test_a_hand_edit_with_thousands_of_inline_scripts_leaves_the_server_answering(client, session, limited):
    """Item 3: each inline <script> was its own `node --check` process (a 36 KB edit with 2,000 held both cores for
    137 s). The review checks at most MAX_INLINE_SCRIPTS of them, in a bounded worker, and names the rest."""
    artifact = await plant("user@example.com", "scripts", "<!doctype html><title>t</title><p>first</p>")
    page = "<!doctype html><title>t</title>" + "<script>let a=1;</script>\n" * 2000
    async with health_watch(client) as times:
        response = await client.post(f"/api/artifacts/{artifact}/versions", headers=limited, json={"htmlContent": page})
    assert response.status_code == 201, response.text
    messages = [finding["message"] for finding in response.json()["findings"]]
    skipped = 2000 - checks.MAX_INLINE_SCRIPTS
    assert (
        f"{skipped} more inline <script> blocks were not syntax-checked (at most {checks.MAX_INLINE_SCRIPTS} per check)"
        in messages
    )
    assert len(times) >= 2 and max(times) < HEALTH_BOUND, times


@pytest.mark.parametrize(
    "hostile", ["<a" * 20_000, "\n" + "<script" * 10_000], ids=["unclosed-tags-on-the-handler-line", "unclosed-script-tags"]
)
def test_the_offline_inline_handler_fix_is_linear_in_a_hostile_page(hostile):
    """Fix Mode's offline recipe reads a page a model may have written (an administrator's builder project is a code
    root of the Security Scan), in the fix job on the server's event loop. Its tag searches retried the rest of the
    text from every '<' they could not close: a 70 KB page of '<script' took 4.75 s, a 2 MB file about an hour."""
    page = "<html><body>\n" + '<button onclick="go()">Go</button>' + hostile + "\n</body></html>\n"
    finding = Finding("index.html", 2, "html:inline-event-handler", "medium", "inline handler", "semgrep")
    started = time.perf_counter()
    diff = recipes.propose_files(page, finding, path="index.html", read=lambda _path: None)
    took = time.perf_counter() - started
    assert diff is not None and "addEventListener" in diff
    assert took < HEALTH_BOUND, took


async def test_a_diff_answer_is_capped_with_its_text(client, session, limited):
    before, after = _two_versions(8000)
    artifact = await plant("user@example.com", "two versions", before)
    await client.post(f"/api/artifacts/{artifact}/versions", headers=limited, json={"htmlContent": after})
    body = (await client.get(f"/api/artifacts/{artifact}/diff?from=1&to=2", headers=limited)).json()
    assert body["truncated"] and len(body["lines"]) == rows.DIFF_ROWS
    assert len(body["unified"].splitlines()) == rows.DIFF_ROWS + 2  # the two headers and the rows kept


async def test_a_diff_that_runs_out_of_its_budget_is_refused_clearly(client, session, limited, monkeypatch):
    before, after = _two_versions(8000)
    artifact = await plant("user@example.com", "two versions", before)
    await client.post(f"/api/artifacts/{artifact}/versions", headers=limited, json={"htmlContent": after})

    async def out_of_time(pool, seconds, *args, owner=None):
        raise bounded.BudgetExceeded(pool.name, "time", seconds)  # git diffs these in ms: no real input runs out

    monkeypatch.setattr(bounded, "run", out_of_time)
    response = await client.get(f"/api/artifacts/{artifact}/diff?from=1&to=2", headers=limited)
    assert response.status_code == 400
    assert response.json() == {
        "message": "v1.html and v2.html are too large to compare (the comparison did not "
        f"finish within {compute.DIFF_SECONDS:g} s)"
    }


async def test_checks_that_run_out_of_their_budget_say_nothing_was_checked(tmp_path, monkeypatch):
    (tmp_path / "index.html").write_text("<p>x</p>\n<script>let a = 1;</script>\n" * 20)
    monkeypatch.setattr(checks, "REVIEW_SECONDS", 0.01)
    report = await checks.run_checks(tmp_path, ["index.html"])
    assert report.ok and report.counts["html"] == 0
    assert [(f.level, f.message) for f in report.findings] == [
        (
            "warning",
            "The checks did not finish within 0.01 s (the files are too large or too complex to check); nothing was checked",
        )
    ]


@pytest.mark.parametrize("unit", ["<a", "<a x='"], ids=["unclosed-tags", "unclosed-quotes"])
async def test_the_review_of_a_page_of_unclosed_tags_is_bounded(tmp_path, unit):
    """The review of a hand edit or a build reads the page with semgrep's HTML parser and the inline-script reader,
    both quadratic in the '<' of a page they cannot parse: "<a" * 32000 (64 KB) took about 30 s, "<a x='" * 16000
    about 65 s. A page over semgrep.MAX_HTML_TAGS is not given to them and the user is told it was too large."""
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title><p>" + unit * 32_000, encoding="utf-8")
    started = time.perf_counter()
    report = await checks.run_checks(tmp_path, ["index.html"])
    took = time.perf_counter() - started
    messages = [finding.message for finding in report.findings]
    assert took < 10, (took, messages)  # a loaded 2-core machine; the quadratic parsers needed 30 s and more
    assert any("more than 5000 '<' in the page (too large to check its markup and" in message for message in messages)
    assert "not checked: more than 5000 '<' in the page (too large to check its markup)" in messages, messages


async def test_injected_sql_never_starves_the_sign_in(client, session):
    """24 searches whose injected SQL costs ~1 s each, then a sign-in: it is answered before the searches that ran
    are done (before: they filled the shared thread pool that password hashing waited in; a sign-in took 46 s)."""
    await signed_in(client, session, "root@example.com", "admin")
    answered: list[int] = []  # every search answered (a refused one answers 503 at once: "the site is busy")

    async def search() -> None:
        answered.append((await client.get("/demo/gem/search", params={"q": PRINTF})).status_code)

    searches = [asyncio.create_task(search()) for _ in range(24)]
    await asyncio.sleep(0.3)
    async with health_watch(client) as times:
        signed = await client.post("/api/auth/login", json={"email": "root@example.com", "password": DEFAULT_PASSWORD})
        ran_before = [status for status in answered if status != 503]
        waiting = 24 - len(answered)
    for task in searches:  # the rest would only take time (a cancelled search stops its worker)
        task.cancel()
    await asyncio.gather(*searches, return_exceptions=True)
    assert signed.status_code == 200, signed.text
    assert waiting > 0, "no search was still running: the test proves nothing"
    assert len(ran_before) <= 1, f"the sign-in waited for {len(ran_before)} searches"
    assert max(times) < HEALTH_BOUND, times


async def test_the_demo_search_runs_in_a_bounded_worker_of_its_own(monkeypatch):
    """The search's own budget (a SQLite progress handler) cannot stop one long opcode: the worker's can."""
    monkeypatch.setattr(demo_db, "SEARCH_WORKER_SECONDS", 0.2)
    result = await demo_db.search("gem", "x' UNION SELECT printf('%.*c', 900000000, 'x') || printf('%.*c', 900000000, 'x'), 1 --")
    assert result.error == "the search ran out of time"
    assert (await demo_db.search("gem", "")).rows  # the next search gets a fresh worker


async def test_cancelled_waiting_tasks_never_reach_a_worker(tmp_path):
    """A flood of searches whose clients went away: the waiting ones are dropped, not each started in a worker only
    to be killed with it (one worker start after another: a search after 24 cancelled ones waited 43 s)."""
    tiny = bounded.Pool("test-cancelled", workers=1, memory_mb=512, queue=32)
    started = tmp_path / "started"
    await bounded.run(tiny, 5, len, "warm")  # the worker is up
    waiting = [asyncio.create_task(bounded.run(tiny, 5, _note_and_sleep, str(started), 0.5)) for _ in range(8)]
    await asyncio.sleep(0.2)
    for task in waiting:
        task.cancel()
    await asyncio.gather(*waiting, return_exceptions=True)
    assert await bounded.run(tiny, 5, len, "next") == 4
    assert started.read_text().count("\n") == 1  # only the one that was running when its client went away


async def test_a_full_pool_refuses_at_once(monkeypatch):
    tiny = bounded.Pool("test-tiny", workers=1, memory_mb=512, queue=1)
    first = asyncio.create_task(bounded.run(tiny, 5, time.sleep, 0.5))
    await asyncio.sleep(0.05)
    with pytest.raises(bounded.Busy):
        await bounded.run(tiny, 5, time.sleep, 0)
    await first


async def test_a_runaway_allocation_fails_inside_its_worker():
    tiny = bounded.Pool("test-memory", workers=1, memory_mb=256, queue=2)
    with pytest.raises(bounded.BudgetExceeded) as exc:
        await bounded.run(tiny, 20, bytearray, 1024 * 1024 * 1024)
    assert exc.value.reason == "memory"
    assert await bounded.run(tiny, 20, len, "ok") == 2


async def test_one_user_has_a_share_of_the_workers_not_all_of_them():
    """A limited user sending hostile edits in parallel fills their own share; another user's task still runs."""
    shared = bounded.Pool("test-shared", workers=2, memory_mb=512, queue=8, per_owner=1)
    first = asyncio.create_task(bounded.run(shared, 5, time.sleep, 0.5, owner=1))
    await asyncio.sleep(0.05)
    with pytest.raises(bounded.Busy) as refused:
        await bounded.run(shared, 5, len, "x", owner=1)
    assert refused.value.yours
    assert await bounded.run(shared, 5, len, "xy", owner=2) == 2
    await first
    assert await bounded.run(shared, 5, len, "xyz", owner=1) == 3  # the share comes back
