"""Applying fixes to one workspace: the slow copy never stalls the server, and concurrent applies take turns."""

from __future__ import annotations

import asyncio
import shutil
import threading
import time

import pytest

from secdash.core.db import session_scope
from secdash.services import workspaces
from secdash.services.fix import fixes, workspace
from secdash.services.scanning import code_roots
from tests.factories import make_user
from tests.services.test_fix_mode import code_dir, full_scan, problem, settle  # noqa: F401  (code_dir: a fixture)

EVAL_FILE, EVAL_RULE = "gem/appraise.js", "js:eval"
HTML_FILE, HTML_RULE = "tour/translate.js", "js:innerHTML"


@pytest.fixture
def slow_copy(monkeypatch):
    """The first apply's copy of the root takes 0.6 s, as a large root's would."""
    real = shutil.copytree

    def copytree(*args, **kwargs):
        time.sleep(0.6)
        return real(*args, **kwargs)

    monkeypatch.setattr(workspace.shutil, "copytree", copytree)


async def proposed(session, admin, file: str, rule: str):
    fix = await settle(session, await fixes.propose(session=session, actor=admin, problem_id=await problem(session, file, rule)))
    assert fix.status == "proposed", fix.error
    return fix


async def test_the_server_keeps_answering_while_a_fix_copies_a_large_root(session, code_dir, slow_copy):  # noqa: F811
    admin = await make_user(session, "root@example.com", role="admin")
    await full_scan(session, admin)
    fix = await proposed(session, admin, EVAL_FILE, EVAL_RULE)
    ticks = 0
    applying = True

    async def other_requests() -> None:
        nonlocal ticks
        while applying:
            ticks += 1
            await asyncio.sleep(0.02)

    other = asyncio.create_task(other_requests())
    await asyncio.sleep(0)
    try:
        applied = await fixes.apply(session=session, actor=admin, fix_id=fix.id)
    finally:
        applying = False
        await other
    assert applied.status == "applied"
    assert ticks >= 10, f"the event loop ran other work only {ticks} times during a 0.6 s copy"
    assert b"carats * 1200" in (code_roots.workspace_for(code_dir) / EVAL_FILE).read_bytes()
    await settle(session, fix)


async def test_two_applies_on_one_workspace_take_turns(session, code_dir, slow_copy):  # noqa: F811
    admin = await make_user(session, "root@example.com", role="admin")
    await full_scan(session, admin)
    first = await proposed(session, admin, EVAL_FILE, EVAL_RULE)
    second = await proposed(session, admin, HTML_FILE, HTML_RULE)

    async def apply(fix_id: int):
        async with session_scope() as own:  # two requests: two sessions
            return await fixes.apply(session=own, actor=admin, fix_id=fix_id)

    once, other, twice = await asyncio.gather(apply(first.id), apply(second.id), apply(first.id), return_exceptions=True)
    assert getattr(other, "status", None) == "applied", other
    # The same fix twice: whichever takes the lock first writes it, the other is told it is no longer proposed.
    assert sorted(str(getattr(r, "status", None)) for r in (once, twice)) == ["None", "applied"], (once, twice)
    assert "only a proposed fix can be applied" in str(once if isinstance(once, Exception) else twice)
    copy = code_roots.workspace_for(code_dir)
    assert b"carats * 1200" in (copy / EVAL_FILE).read_bytes()  # neither write lost to the other's copy
    assert (copy / HTML_FILE).read_bytes() != (code_dir / HTML_FILE).read_bytes()
    assert not [p for p in copy.parent.iterdir() if p.name.startswith(copy.name + ".") and p.is_dir()]  # no staging left
    await settle(session, first)
    await settle(session, second)


async def test_the_lock_serializes_coroutines_and_threads(tmp_path):
    directory = tmp_path / "ws"
    inside: list[str] = []
    overlaps = 0
    guard = threading.Lock()

    def enter(who: str) -> None:
        nonlocal overlaps
        with guard:
            overlaps += bool(inside)
            inside.append(who)

    def leave(who: str) -> None:
        with guard:
            inside.remove(who)

    async def coroutine(n: int) -> None:
        async with workspaces.locked_async(directory):
            enter(f"task {n}")
            await asyncio.sleep(0.05)
            leave(f"task {n}")

    def thread() -> None:
        with workspaces.locked(directory):
            enter("thread")
            time.sleep(0.05)
            leave("thread")

    await asyncio.gather(*(coroutine(n) for n in range(3)), asyncio.to_thread(thread), asyncio.to_thread(thread))
    assert overlaps == 0 and not inside
    assert workspaces.lock_file(directory) == tmp_path / "ws.lock"
