"""An administrator's Live Code Builder project is a code root of the Security Scan: a full scan finds what the
project's own checks found, Fix Mode fixes it in the project's directory and files (the builder shows the fix,
the re-scan verifies it, revert brings the exact bytes back); a limited user's project stays private."""

from __future__ import annotations

import shutil

import pytest
from sqlmodel import select

from secdash.jobs import runner
from secdash.models.builder import CodeProject
from secdash.models.fixes import Fix
from secdash.models.jobs import Job, JobStatus
from secdash.services.builder import project_dir, projects
from secdash.services.errors import Conflict
from secdash.services.fix import fixes, problems
from secdash.services.scanning import scans
from tests.factories import make_user
from tests.support.fake_openai import FakeOpenAI


@pytest.fixture(autouse=True)
def only_projects(tmp_path, settings, monkeypatch):
    """The scan reads a one-file configured path and the projects (fast); the projects go afterwards."""
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "ok.py").write_text("ANSWER = 42\n")
    monkeypatch.setattr(settings, "SCAN_PATHS", str(empty))
    yield
    shutil.rmtree(project_dir.projects_dir(), ignore_errors=True)


@pytest.fixture
def model(settings, monkeypatch):
    fake = FakeOpenAI()
    monkeypatch.setattr(settings, "LLM_BASE_URL", fake.base_url)
    monkeypatch.setattr(settings, "LLM_MODEL", "builder-eval")
    yield fake
    fake.close()


async def built(session, user, prompt: str):
    started = await projects.build(session=session, actor=user, prompt=prompt)
    row = (await session.exec(select(CodeProject).where(CodeProject.id == started.id))).one()
    await runner.wait_for(row.job_id, timeout=90)
    session.expire_all()
    return await projects.get_project(session=session, viewer=user, project_id=started.id)


async def full_scan(session, admin) -> None:
    job = await scans.start_scan(session=session, actor=admin, scan_type="full")
    await runner.wait_for(job.id, timeout=120)
    session.expire_all()


async def settle(session, fix_id: int) -> Fix:
    row = (await session.exec(select(Fix).where(Fix.id == fix_id).execution_options(populate_existing=True))).one()
    await runner.wait_for(row.job_id, timeout=60)
    return (await session.exec(select(Fix).where(Fix.id == fix_id).execution_options(populate_existing=True))).one()


async def test_an_admins_project_is_scanned_and_fixed_through_fix_mode(session, model, settings, monkeypatch):
    admin = await make_user(session, "root@example.com", role="admin")
    project = await built(session, admin, "a page with a button")
    root = project_dir.dir_of(project.id)
    assert project.status == "complete" and root in scans.scan_roots()
    log = [line.message for line in await projects.logs(session=session, viewer=admin, project_id=project.id)]
    assert any("code root of the Security Scan" in message for message in log)
    assert any(message.startswith("[scan] app.js:2") for message in log)  # the project's own checks saw it

    await full_scan(session, admin)
    found = [row for row in await problems.list_problems(session=session, viewer=admin) if row.rule == "js:eval"]
    assert [(row.file, row.line) for row in found] == [("app.js", 2)]

    monkeypatch.setattr(settings, "LLM_BASE_URL", "")  # the offline engine's recipe writes the fix
    fix = await fixes.propose(session=session, actor=admin, problem_id=found[0].problem_id)
    fix = await settle(session, fix.id)
    assert fix.status == "proposed", fix.error
    await fixes.apply(session=session, actor=admin, fix_id=fix.id)
    fix = await settle(session, fix.id)
    assert fix.status == "verified", fix.verification
    fix_id = fix.id
    session.expire_all()
    after = await projects.get_project(session=session, viewer=admin, project_id=project.id)
    app = next(file for file in after.files if file.filename == "app.js")
    assert "JSON.parse(saved)" in app.content and "eval(" not in app.content and app.change == "updated"
    assert (root / "app.js").read_text() == app.content  # the directory and the project agree
    log = [line.message for line in await projects.logs(session=session, viewer=admin, project_id=project.id)]
    assert any(message.startswith(f"Fix Mode: fix #{fix_id} (js:eval) applied to app.js") for message in log)

    await fixes.revert(session=session, actor=admin, fix_id=fix_id)
    session.expire_all()
    reverted = await projects.get_project(session=session, viewer=admin, project_id=project.id)
    assert "eval(saved)" in next(file.content for file in reverted.files if file.filename == "app.js")


async def test_a_fix_waits_while_the_project_is_being_built(session, model, settings, monkeypatch):
    admin = await make_user(session, "root@example.com", role="admin")
    project = await built(session, admin, "a page with a button")
    await full_scan(session, admin)
    problem = next(row for row in await problems.list_problems(session=session, viewer=admin) if row.rule == "js:eval")
    monkeypatch.setattr(settings, "LLM_BASE_URL", "")
    fix = await settle(session, (await fixes.propose(session=session, actor=admin, problem_id=problem.problem_id)).id)
    row = await session.get(CodeProject, project.id)
    job = await session.get(Job, row.job_id)
    job.status, job.progress = JobStatus.running, {"phase": "building"}  # a build of the project runs
    session.add(job)
    await session.commit()
    with pytest.raises(Conflict, match="being built"):
        await fixes.apply(session=session, actor=admin, fix_id=fix.id)
    assert "eval(saved)" in (project_dir.dir_of(project.id) / "app.js").read_text()  # nothing was written


async def test_a_limited_users_project_stays_out_of_the_shared_scan(session, model):
    user = await make_user(session, "builder@example.com")
    project = await built(session, user, "a page with a button")
    assert project.status == "complete"
    assert project_dir.dir_of(project.id) not in scans.scan_roots()
    admin = await make_user(session, "root@example.com", role="admin")
    await full_scan(session, admin)
    assert [row for row in await problems.list_problems(session=session, viewer=admin) if row.rule == "js:eval"] == []


async def test_clearing_a_project_removes_its_code_root(session, model):
    admin = await make_user(session, "root@example.com", role="admin")
    project = await built(session, admin, "a page with a button")
    assert project_dir.dir_of(project.id) in scans.scan_roots()
    await projects.clear_all(session=session, actor=admin)
    assert scans.scan_roots() == [r for r in scans.scan_roots() if not project_dir.is_project_root(r)]
    assert not project_dir.dir_of(project.id).exists()
