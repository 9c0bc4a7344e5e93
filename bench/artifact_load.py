"""(i) HTML artifacts: time to the first streamed HTML and to the new version, the review stage, CPU per version.

In-process (services and the job runner as tasks of this process, a fresh SQLite database), following the
owner's change topic `artifacts:<uid>` as an open page does:
1. The offline engine: create (version 1) and update (version 2: "make it dark") for a few prompts, median of RUNS:
   from the call returning to the first non-empty draft, and to the version being ready.
2. The same against the local OpenAI-compatible test server (model "artifact", streamed in small chunks).
3. The review alone (services/artifacts/review.py: HTML structure, inline scripts through `node --check`, the code
   scan) on each offline page; and CPU per version (this process plus node children), one at a time.

Figures are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from dataclasses import dataclass

from bench.builder_load import Cpu, ModelServer, _user
from bench.common import prepare_environment

RUNS = 3
TIMEOUT_SECONDS = 60
PROMPTS = (
    ("landing", "A landing page for a coffee shop called Bean There"),
    ("form", "A signup form with validation for a running club"),
    ("dashboard", "A dashboard with a chart of monthly sales"),
    ("memory", "A memory game with emoji cards"),
)
UPDATE = "make it dark and add a footer saying Open every day"


@dataclass(frozen=True)
class Timing:
    call_ms: float
    first_html_ms: float
    ready_ms: float
    status: str
    version: int


def use_engine(base_url: str) -> None:
    from secdash.core.config import get_settings

    settings = get_settings()
    settings.LLM_BASE_URL, settings.LLM_API_KEY = base_url, "sk-bench" if base_url else ""
    settings.LLM_MODEL = "artifact"


async def _row(artifact_id: int):
    from secdash.core.db import session_scope
    from secdash.models.artifacts import Artifact

    async with session_scope() as session:
        row = await session.get(Artifact, artifact_id)
        assert row is not None
        return row


async def followed(user, prompt: str, artifact_id: int | None = None) -> tuple[int, Timing]:
    """One create (or update of `artifact_id`), followed from before the call to ready (or failed)."""
    from secdash.core import notify
    from secdash.core.db import session_scope
    from secdash.jobs import runner
    from secdash.services.artifacts import artifacts
    from secdash.services.artifacts.records import topic_of

    async with notify.subscribe(topic_of(user.id)) as changes:
        called = time.perf_counter()
        async with session_scope() as session:
            if artifact_id is None:
                started = await artifacts.create(session=session, actor=user, prompt=prompt)
            else:
                started = await artifacts.update_artifact(session=session, actor=user, artifact_id=artifact_id, prompt=prompt)
        returned = time.perf_counter()
        first = None
        deadline = returned + TIMEOUT_SECONDS
        while time.perf_counter() < deadline:
            row = await _row(started.id)
            now = time.perf_counter()
            if first is None and (row.draft or (row.status.value == "ready" and row.version > started.version)):
                first = now
            if row.status.value in ("ready", "failed"):
                break
            await changes.wait(timeout=1, settle=0)
        ready = time.perf_counter()
    if row.job_id is not None:
        await runner.wait_for(row.job_id, timeout=TIMEOUT_SECONDS)

    def ms(at: float | None) -> float:
        return (at - returned) * 1000 if at is not None else float("nan")

    return started.id, Timing((returned - called) * 1000, ms(first), ms(ready), row.status.value, row.version)


def _median(values: list[float]) -> float:
    return statistics.median(values)


async def table(label: str, email: str) -> None:
    user = await _user(email)
    await followed(user, PROMPTS[0][1])  # warm-up
    print(f"  {label}: median of {RUNS}, ms from the call returning")
    print(f"    {'prompt':10s} {'step':7s} {'call':>7s} {'first HTML':>10s} {'ready':>8s}  status")
    for key, prompt in PROMPTS:
        creates, updates = [], []
        for _ in range(RUNS):
            artifact_id, created = await followed(user, prompt)
            creates.append(created)
            updates.append((await followed(user, UPDATE, artifact_id))[1])
        for step, runs in (("create", creates), ("update", updates)):
            ended = ",".join(sorted({f"{run.status} v{run.version}" for run in runs}))
            print(
                f"    {key:10s} {step:7s} {_median([r.call_ms for r in runs]):7.1f}"
                f" {_median([r.first_html_ms for r in runs]):10.1f} {_median([r.ready_ms for r in runs]):8.1f}  {ended}"
            )


async def review_and_cpu() -> None:
    from secdash.ai.artifact_pages import create_page
    from secdash.services.artifacts import review

    print("  3. the review alone (HTML, node --check of inline scripts, code scan), and CPU per offline version")
    for key, prompt in PROMPTS:
        page = create_page(prompt)[1]
        times = []
        for _ in range(RUNS):
            started = time.perf_counter()
            findings = await review.review_html(page)
            times.append((time.perf_counter() - started) * 1000)
        print(f"    {key:10s} {len(page) / 1024:5.1f} KB  review {_median(times):6.1f} ms  findings {len(findings)}")
    user = await _user("cpu@bench.test")
    before = Cpu.now()
    for _key, prompt in PROMPTS:
        await followed(user, prompt)
    used = Cpu.now().since(before)
    print(
        f"    CPU per offline create (followed): process {used.own / len(PROMPTS) * 1000:.0f} ms,"
        f" node children {used.children / len(PROMPTS) * 1000:.0f} ms"
    )


async def _run() -> None:
    from secdash.cli import migrate
    from secdash.core.config import get_settings

    migrate()
    settings = get_settings()
    settings.AI_CALLS_PER_MINUTE = settings.AI_CALLS_PER_HOUR = 1_000_000
    use_engine("")
    await table("1. offline engine", "offline@bench.test")
    model = ModelServer()
    try:
        use_engine(model.base_url)
        await table('2. test model server, model "artifact" (streamed in small chunks)', "model@bench.test")
    finally:
        model.close()
    use_engine("")
    await review_and_cpu()


def run() -> None:
    print("(i) HTML artifacts: first streamed HTML, new version, review, CPU (in-process, SQLite)")
    prepare_environment()
    os.environ.pop("REFLEX_REDIS_URL", None)
    started = time.perf_counter()
    asyncio.run(_run())
    print(f"  (ran in {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    run()
