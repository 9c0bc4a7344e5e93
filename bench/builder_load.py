"""(h) Live Code Builder: time to the first file and to complete, the testing stage, and CPU per build.

In-process (services and the job runner as tasks of this process, a fresh SQLite database):
1. The offline template engine, one prompt per template, median of RUNS builds each: from `projects.build()`
   returning to the first file row (seen by following the owner's change topic `builder:<uid>`, as an open page
   does: each change wakes the follower, which reads the status and the file count), to `complete`, and the
   testing stage (from the "Testing ..." log line to the "Checks ..." one, the server's own timestamps).
2. The same against the local OpenAI-compatible test server (model "builder": plan, then a streamed 3-file
   answer, the same files whatever the prompt), to show what a streamed model answer adds.
3. CPU per build, without followers: this process's CPU (the API side, the job, the checks' Python) and its
   children's (`node --check` runs as subprocesses, RUSAGE_CHILDREN); then CONCURRENT builds by as many users at
   once, total wall and CPU. The test model server runs in its own process so its CPU is not counted (it is
   shown apart).

Figures are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.common import prepare_environment

RUNS = 3
CONCURRENT = 5
BUILD_TIMEOUT_SECONDS = 60
PROMPTS = (
    ("landing", "A landing page for a coffee shop called Bean There"),
    ("form", "A signup form with validation for a running club"),
    ("dashboard", "A dashboard with a chart of monthly sales"),
    ("snake", "A snake game with a high score"),
    ("api", "A REST API for a todo list in Python"),
)
FAKE_MODEL_SERVER = (
    "import sys\nfrom tests.support.fake_openai import FakeOpenAI\n"
    "fake = FakeOpenAI()\nprint(fake.base_url, flush=True)\nsys.stdin.read()\nfake.close()\n"
)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Timing:
    """One followed build, in ms from `build()` returning (call: how long `build()` itself took)."""

    call_ms: float
    first_file_ms: float
    to_testing_ms: float  # the files are written: the checks start
    complete_ms: float
    testing_ms: float  # the checks, by the log's timestamps
    files: int
    status: str
    engine: str


@dataclass(frozen=True)
class Cpu:
    """CPU seconds of this process and of its waited-for children (node --check) since `start()`."""

    own: float
    children: float

    @staticmethod
    def now() -> Cpu:
        def used(who: int) -> float:
            usage = resource.getrusage(who)
            return usage.ru_utime + usage.ru_stime

        return Cpu(used(resource.RUSAGE_SELF), used(resource.RUSAGE_CHILDREN))

    def since(self, before: Cpu) -> Cpu:
        return Cpu(self.own - before.own, self.children - before.children)


class ModelServer:
    """tests/support/fake_openai.py in a process of its own (its CPU stays out of this process's figures)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", FAKE_MODEL_SERVER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[1],
        )
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().strip()
        if not self.base_url:
            raise RuntimeError("the test model server did not start")

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def use_engine(base_url: str) -> None:
    """The offline template engine (""), or the test model server's "builder" model."""
    from secdash.core.config import get_settings

    settings = get_settings()
    settings.LLM_BASE_URL, settings.LLM_API_KEY = base_url, "sk-bench" if base_url else ""
    settings.LLM_MODEL = "builder"


async def _user(email: str):
    from secdash.core.db import session_scope
    from secdash.services.identity import users

    async with session_scope() as session:
        return await users.create_user(session=session, email=email, password="bench-password-123")


@dataclass(frozen=True)
class ProjectState:
    status: str
    files: int
    job_id: int | None
    engine: str


async def _state(project_id: int) -> ProjectState:
    """The project's status and how many file rows it has (what an open page reads on a change), its job, its engine."""
    from sqlalchemy import func
    from sqlmodel import select

    from secdash.core.db import session_scope
    from secdash.models.builder import CodeProject, ProjectFile
    from secdash.services.builder.records import job_of, shown

    async with session_scope() as session:
        project = await session.get(CodeProject, project_id)
        count = (
            await session.exec(select(func.count()).select_from(ProjectFile).where(ProjectFile.project_id == project_id))
        ).one()
        assert project is not None
        status, _ = shown(project, await job_of(session, project))
        return ProjectState(status.value, int(count), project.job_id, project.engine)


async def _testing_ms(project_id: int) -> float:
    """The testing stage by the log's timestamps: "Testing N files ..." to "Checks passed / found ..."."""
    from sqlmodel import col, select

    from secdash.core.db import session_scope
    from secdash.models.jobs import JobLog
    from secdash.services.builder.records import jobs_of

    async with session_scope() as session:
        query = select(JobLog).where(col(JobLog.job_id).in_(jobs_of([project_id]))).order_by(col(JobLog.id))
        rows = list(await session.exec(query))
    started = next((row.created_at for row in rows if row.message.startswith("Testing ")), None)
    ended = next((row.created_at for row in rows if row.message.startswith("Checks ")), None)
    return (ended - started).total_seconds() * 1000 if started and ended else float("nan")


async def _start(user, prompt: str):
    from secdash.core.db import session_scope
    from secdash.services.builder import projects

    async with session_scope() as session:
        return await projects.build(session=session, actor=user, prompt=prompt)


async def followed_build(user, prompt: str) -> Timing:
    """One build, followed on the owner's change topic from before it starts to `complete` (or failed)."""
    from secdash.core import notify
    from secdash.jobs import runner
    from secdash.services.builder.records import topic_of

    async with notify.subscribe(topic_of(user.id)) as changes:
        called = time.perf_counter()
        project = await _start(user, prompt)
        returned = time.perf_counter()
        first_file = testing = done = None
        deadline = returned + BUILD_TIMEOUT_SECONDS
        while time.perf_counter() < deadline:
            state = await _state(project.id)
            now = time.perf_counter()
            if state.files and first_file is None:
                first_file = now
            if state.status in ("testing", "complete") and testing is None:
                testing = now
            if state.status in ("complete", "failed"):
                done = now
                break
            await changes.wait(timeout=1, settle=0)
    if state.job_id is not None:  # its last log line and progress come after `complete`
        await runner.wait_for(state.job_id, timeout=BUILD_TIMEOUT_SECONDS)

    def ms(at: float | None) -> float:
        return (at - returned) * 1000 if at is not None else float("nan")

    return Timing(
        (returned - called) * 1000,
        ms(first_file),
        ms(testing),
        ms(done),
        await _testing_ms(project.id),
        state.files,
        state.status,
        state.engine,
    )


async def quiet_build(user, prompt: str) -> tuple[float, ProjectState]:
    """One build nobody follows, to its job's end: wall seconds and the project as it ended."""
    from secdash.jobs import runner

    started = time.perf_counter()
    project = await _start(user, prompt)
    job_id = (await _state(project.id)).job_id
    assert job_id is not None
    await runner.wait_for(job_id, timeout=BUILD_TIMEOUT_SECONDS)
    wall = time.perf_counter() - started
    return wall, await _state(project.id)


def _median(values: list[float]) -> float:
    return statistics.median(values)


async def latency_table(label: str, email: str) -> dict[str, list[Timing]]:
    user = await _user(email)
    await followed_build(user, PROMPTS[0][1])  # warm-up: imports, the first node start, SQLite caches
    timings = {key: [await followed_build(user, prompt) for _ in range(RUNS)] for key, prompt in PROMPTS}
    print(f"  {label}: median of {RUNS} builds, ms from build() returning")
    print(
        f"    {'template':10s} {'build() call':>12s} {'first file':>10s} {'to testing':>10s} {'complete':>9s}"
        f" {'testing':>8s} {'files':>5s}  engine: status"
    )
    for key, runs in timings.items():
        ended = ",".join(sorted({f"{run.engine}: {run.status}" for run in runs}))
        print(
            f"    {key:10s} {_median([r.call_ms for r in runs]):12.1f} {_median([r.first_file_ms for r in runs]):10.1f}"
            f" {_median([r.to_testing_ms for r in runs]):10.1f} {_median([r.complete_ms for r in runs]):9.1f}"
            f" {_median([r.testing_ms for r in runs]):8.1f} {runs[0].files:5d}  {ended}"
        )
    return timings


def _added(streamed: dict[str, list[Timing]], offline: dict[str, list[Timing]], field: str) -> float:
    """What the streamed answer adds to one figure: the median over the prompts of the per-prompt medians."""
    return _median(
        [
            _median([getattr(r, field) for r in streamed[key]]) - _median([getattr(r, field) for r in offline[key]])
            for key, _prompt in PROMPTS
        ]
    )


async def cpu_per_build(label: str, email_prefix: str, model: ModelServer | None) -> None:
    users = [await _user(f"{email_prefix}{i}@bench.test") for i in range(CONCURRENT)]
    await quiet_build(users[0], PROMPTS[0][1])  # warm-up
    own, children, walls, ended = [], [], [], set()
    model_before = model.cpu_seconds() if model else 0.0
    for _key, prompt in PROMPTS:
        before = Cpu.now()
        wall, state = await quiet_build(users[0], prompt)
        used = Cpu.now().since(before)
        own.append(used.own)
        children.append(used.children)
        walls.append(wall)
        ended.add(f"{state.engine}: {state.status}")
    model_cpu = (model.cpu_seconds() - model_before) / len(PROMPTS) if model else 0.0
    print(f"  {label}, one build at a time ({len(PROMPTS)} builds, one per prompt; {', '.join(sorted(ended))}):")
    print(
        f"    per build: wall {_median(walls) * 1000:.0f} ms (median), process CPU {statistics.fmean(own) * 1000:.0f} ms"
        f" (max {max(own) * 1000:.0f}), node --check children {statistics.fmean(children) * 1000:.0f} ms"
        + (f"; the model server's own CPU {model_cpu * 1000:.0f} ms (not counted)" if model else "")
    )

    before, started = Cpu.now(), time.perf_counter()
    model_before = model.cpu_seconds() if model else 0.0
    results = await asyncio.gather(*(quiet_build(user, PROMPTS[i % len(PROMPTS)][1]) for i, user in enumerate(users)))
    wall, used = time.perf_counter() - started, Cpu.now().since(before)
    model_cpu = model.cpu_seconds() - model_before if model else 0.0
    per_build = sorted(seconds for seconds, _state in results)
    done = sum(1 for _seconds, state in results if state.status == "complete")
    print(
        f"    {CONCURRENT} builds by {CONCURRENT} users at once: wall {wall:.2f} s (each {per_build[0]:.2f}-"
        f"{per_build[-1]:.2f} s), process CPU {used.own:.2f} s + node children {used.children:.2f} s"
        f" = {(used.own + used.children) / CONCURRENT * 1000:.0f} ms per build"
        f" ({100 * (used.own + used.children) / wall:.0f}% of a core); {done}/{CONCURRENT} complete"
        + (f"; model server {model_cpu * 1000:.0f} ms" if model else "")
    )


async def _run() -> None:
    from secdash.cli import migrate
    from secdash.core.config import get_settings

    migrate()
    settings = get_settings()
    # The per-user AI budget guards production; the benchmark measures the builder, not the budget.
    settings.AI_CALLS_PER_MINUTE = settings.AI_CALLS_PER_HOUR = 1_000_000
    use_engine("")
    offline = await latency_table("1. offline template engine", "offline@bench.test")
    model = ModelServer()
    try:
        use_engine(model.base_url)
        streamed = await latency_table(
            '2. test model server, model "builder" (3 files streamed word by word)', "model@bench.test"
        )
        print(
            f"    the streamed answer vs the offline engine (median over the prompts): first file"
            f" {_added(streamed, offline, 'first_file_ms'):+.0f} ms, files written (to testing)"
            f" {_added(streamed, offline, 'to_testing_ms'):+.0f} ms, complete {_added(streamed, offline, 'complete_ms'):+.0f}"
            " ms (the model's 3 small files are checked faster than most templates)"
        )
        print("  3. CPU per build (no follower; process = API side, job, checks' Python; children = node --check)")
        use_engine("")
        await cpu_per_build("offline template engine", "cpu-offline-", None)
        use_engine(model.base_url)
        await cpu_per_build('test model server ("builder")', "cpu-model-", model)
    finally:
        model.close()


def run() -> None:
    print("(h) Live Code Builder: first file, complete, testing stage, CPU per build (in-process, SQLite)")
    prepare_environment()
    os.environ.pop("REFLEX_REDIS_URL", None)  # jobs as tasks of this process, changes in memory
    node = shutil.which("node")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip() if node else ""
    print(f"  node for the checks: {f'{node} {version}' if node else 'none (JavaScript checks skipped)'}")
    started = time.perf_counter()
    asyncio.run(_run())
    print(f"  (ran in {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    run()
