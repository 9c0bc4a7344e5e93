"""The Live Code Builder on the job system: builds and continues with the offline template engine and with a
local OpenAI-compatible model (the file protocol, fenced blocks, no files, a cut answer, a failing model), the
real checks, snapshots, clear all, the zip, the preview links, limits and ownership."""

from __future__ import annotations

import io
import zipfile

import pytest
from sqlmodel import select

from secdash.jobs import runner
from secdash.models.builder import CodeProject
from secdash.services.builder import archive, build_job, file_writer, limits, preview, project_dir, projects
from secdash.services.builder.overview import read_builder
from secdash.services.builder.records import INTERRUPTED
from secdash.services.errors import Conflict, Invalid, NotFound
from secdash.services.identity import auth
from tests.factories import make_user, sign_in
from tests.support.dead_worker import Writes, worker_died
from tests.support.fake_openai import BUILD_CSS, FakeOpenAI


@pytest.fixture(autouse=True)
def clean_projects():
    yield
    import shutil

    shutil.rmtree(project_dir.projects_dir(), ignore_errors=True)


@pytest.fixture
def model(settings, monkeypatch):
    fake = FakeOpenAI()
    monkeypatch.setattr(settings, "LLM_BASE_URL", fake.base_url)
    monkeypatch.setattr(settings, "LLM_MODEL", "builder")
    yield fake
    fake.close()


async def settled(session, user, project_id: int):
    """The project once its running build has ended."""
    row = (
        await session.exec(select(CodeProject).where(CodeProject.id == project_id).execution_options(populate_existing=True))
    ).one()
    if row.job_id:
        await runner.wait_for(row.job_id, timeout=90)
    session.expire_all()
    return await projects.get_project(session=session, viewer=user, project_id=project_id)


async def log_text(session, user, project_id: int) -> list[tuple[str, str]]:
    return [(line.type.value, line.message) for line in await projects.logs(session=session, viewer=user, project_id=project_id)]


def files_of(project) -> dict[str, str]:
    return {file.filename: file.content for file in project.files}


async def test_an_offline_build_plans_writes_and_checks_a_working_project(session):
    user = await make_user(session, "builder@example.com")
    started = await projects.build(session=session, actor=user, prompt="A landing page for a coffee shop called Bean There")
    assert started.status == "planning" and started.building and started.current
    project = await settled(session, user, started.id)
    assert project.status == "complete", project.error
    assert project.name == "Bean There"
    files = files_of(project)
    assert "index.html" in files and "Bean There" in files["index.html"]
    assert project.checks["errors"] == 0
    log = await log_text(session, user, project.id)
    messages = [message for _kind, message in log]
    assert "Engine: the offline template engine" in messages
    assert any(message.startswith("Offline template engine:") for message in messages)
    assert ("success", next(m for m in messages if m.startswith("Created index.html"))) in log
    assert any(kind == "success" and message.startswith("Checks passed") for kind, message in log)
    assert (project_dir.dir_of(project.id) / "index.html").read_text() == files["index.html"]
    current = await projects.current(session=session, viewer=user)
    assert current is not None and current.id == project.id


async def test_a_continue_rewrites_only_what_the_request_needs_and_logs_the_diff(session):
    user = await make_user(session, "builder@example.com")
    project = await settled(
        session, user, (await projects.build(session=session, actor=user, prompt="a landing page for a bakery called Crumbs")).id
    )
    before = files_of(project)
    await projects.continue_build(session=session, actor=user, project_id=project.id, prompt='rename the title to "Crumbs & Co"')
    after_project = await settled(session, user, project.id)
    assert after_project.status == "complete", after_project.error
    assert after_project.current  # the project stays the user's current one
    after = files_of(after_project)
    changed = {path for path in after if after[path] != before.get(path)}
    assert changed and changed <= set(before)
    assert all(after[path] == before[path] for path in set(before) - changed)
    assert {file.filename for file in after_project.files if file.change == "updated"} == changed
    updated = next(file for file in after_project.files if file.change == "updated")
    assert updated.previous == before[updated.filename]
    log = await log_text(session, user, project.id)
    assert any(kind == "success" and message.startswith("Updated ") for kind, message in log)
    assert any(kind == "code" and "+" in message and "@@" in message for kind, message in log)


async def test_a_continue_the_offline_engine_cannot_do_changes_nothing_and_says_why(session):
    user = await make_user(session, "builder@example.com")
    project = await settled(
        session, user, (await projects.build(session=session, actor=user, prompt="a landing page for a bakery")).id
    )
    before = files_of(project)
    await projects.continue_build(
        session=session, actor=user, project_id=project.id, prompt="connect it to a Stripe checkout with webhooks"
    )
    after = await settled(session, user, project.id)
    assert after.status == "complete" and files_of(after) == before
    messages = [message for _kind, message in await log_text(session, user, project.id)]
    assert "No file changed" in messages
    assert any("SECDASH_LLM_BASE_URL" in message or "model" in message.lower() for message in messages)


async def test_one_build_at_a_time_per_user_is_decided_by_the_server(session):
    user = await make_user(session, "builder@example.com")
    first = await projects.build(session=session, actor=user, prompt="a small game")
    with pytest.raises(Conflict):
        await projects.build(session=session, actor=user, prompt="a dashboard with a chart")
    with pytest.raises(Conflict):
        await projects.continue_build(session=session, actor=user, project_id=first.id, prompt="make it dark")
    await settled(session, user, first.id)
    other = await make_user(session, "other@example.com")
    assert (await projects.build(session=session, actor=other, prompt="a form")).status == "planning"


async def test_bad_prompts_are_refused_with_a_clear_message_and_change_nothing(session):
    user = await make_user(session, "builder@example.com")
    for prompt, message in (
        ("   ", "Prompt is required"),
        (None, "Prompt is required"),
        (5, "must be text"),
        ("x" * (limits.MAX_PROMPT_CHARS + 1), "too long"),
    ):
        with pytest.raises(Invalid, match=message):
            await projects.build(session=session, actor=user, prompt=prompt)
    assert await projects.list_projects(session=session, viewer=user) == []


async def test_someone_elses_project_does_not_exist_for_you(session):
    owner = await make_user(session, "owner@example.com")
    admin = await make_user(session, "root@example.com", role="admin")
    project = await settled(session, owner, (await projects.build(session=session, actor=owner, prompt="a landing page")).id)
    calls = [
        projects.get_project(session=session, viewer=admin, project_id=project.id),
        projects.logs(session=session, viewer=admin, project_id=project.id),
        projects.continue_build(session=session, actor=admin, project_id=project.id, prompt="make it dark"),
        projects.save(session=session, actor=admin, project_id=project.id),
        projects.open_project(session=session, actor=admin, project_id=project.id),
        projects.stop(session=session, actor=admin, project_id=project.id),
        archive.project_zip(session=session, viewer=admin, project_id=project.id),
        preview.preview_url(session=session, viewer=admin, project_id=project.id, auth_token=None),
    ]
    for call in calls:
        with pytest.raises(NotFound):
            await call
    assert await projects.list_projects(session=session, viewer=admin) == []
    await projects.clear_all(session=session, actor=admin)  # clears only the admin's (none)
    assert (await projects.get_project(session=session, viewer=owner, project_id=project.id)).files


async def test_save_new_and_clear_all(session):
    user = await make_user(session, "builder@example.com")
    project = await settled(
        session, user, (await projects.build(session=session, actor=user, prompt="a form with validation")).id
    )
    snapshot = await projects.save(session=session, actor=user, project_id=project.id)
    assert snapshot.snapshot_of == project.id and "(saved " in snapshot.name
    assert files_of(snapshot) == files_of(project) and not snapshot.current
    listed = await projects.list_projects(session=session, viewer=user)
    assert [row.id for row in listed] == [snapshot.id, project.id] and listed[1].current
    assert listed[0].file_count == len(project.files)
    await projects.new_project(session=session, actor=user)
    assert await projects.current(session=session, viewer=user) is None
    reopened = await projects.open_project(session=session, actor=user, project_id=snapshot.id)
    assert reopened.current
    assert await projects.clear_all(session=session, actor=user) == 2
    assert await projects.list_projects(session=session, viewer=user) == []
    assert not project_dir.dir_of(project.id).exists()


async def test_the_zip_holds_every_file(session):
    user = await make_user(session, "builder@example.com")
    project = await settled(
        session, user, (await projects.build(session=session, actor=user, prompt="a dashboard with a chart of sales")).id
    )
    name, body = await archive.project_zip(session=session, viewer=user, project_id=project.id)
    assert name.endswith(f"-{project.id}.zip")
    with zipfile.ZipFile(io.BytesIO(body)) as archive_file:
        folder = name.removesuffix(".zip")
        assert {
            entry.removeprefix(folder + "/"): archive_file.read(entry).decode() for entry in archive_file.namelist()
        } == files_of(project)


async def test_preview_links_serve_only_that_projects_files(session, monkeypatch):
    user = await make_user(session, "builder@example.com")
    project = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a landing page")).id)
    auth_token = await sign_in(session, "builder@example.com")
    url = await preview.preview_url(session=session, viewer=user, project_id=project.id, auth_token=auth_token)
    token = url.split("/")[2]
    media, body = await preview.preview_file(session=session, token=token, path="index.html")
    assert media == "text/html" and body.decode() == files_of(project)["index.html"]
    for path in ("../index.html", "/etc/passwd", "missing.js", "a/../../b"):
        with pytest.raises(NotFound):
            await preview.preview_file(session=session, token=token, path=path)
    for bad in (token[:-2] + "xx", "not-a-token", ""):
        with pytest.raises(NotFound, match="expired or is not valid"):
            await preview.preview_file(session=session, token=bad, path="index.html")
    monkeypatch.setattr(preview, "TTL", -preview.TTL)
    expired = (await preview.preview_url(session=session, viewer=user, project_id=project.id, auth_token=auth_token)).split("/")[
        2
    ]
    with pytest.raises(NotFound, match="expired"):
        await preview.preview_file(session=session, token=expired, path="index.html")


async def test_a_preview_link_ends_with_the_sign_in_it_was_made_in(session, settings):
    user = await make_user(session, "builder@example.com")
    project = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a landing page")).id)
    auth_token = await sign_in(session, "builder@example.com")
    token = (await preview.preview_url(session=session, viewer=user, project_id=project.id, auth_token=auth_token)).split("/")[2]
    assert (await preview.preview_file(session=session, token=token, path="index.html"))[1]
    await auth.logout(session=session, settings=settings, token=auth_token)
    with pytest.raises(NotFound, match="expired"):
        await preview.preview_file(session=session, token=token, path="index.html")
    with pytest.raises(NotFound, match="Sign in again"):
        await preview.preview_url(session=session, viewer=user, project_id=project.id, auth_token="forged")


async def test_a_model_build_streams_protocol_files_and_passes_the_checks(session, model):
    user = await make_user(session, "builder@example.com")
    project = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a page with a button")).id)
    assert project.status == "complete", project.error
    assert project.name == "Model Page" and project.engine == "openai-compatible"
    assert set(files_of(project)) == {"index.html", "style.css", "app.js"}
    assert project.checks["errors"] == 0
    descriptions = {file.filename: file.description for file in project.files}
    assert descriptions["app.js"] == "Its behaviour"


async def test_a_model_that_uses_fenced_blocks_still_produces_files(session, model, settings, monkeypatch):
    monkeypatch.setattr(settings, "LLM_MODEL", "builder-fenced")
    user = await make_user(session, "builder@example.com")
    project = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a page with a button")).id)
    assert project.status == "complete", project.error
    assert files_of(project)["style.css"] == BUILD_CSS


async def test_a_model_continue_changes_one_file(session, model):
    user = await make_user(session, "builder@example.com")
    project = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a page with a button")).id)
    await projects.continue_build(session=session, actor=user, project_id=project.id, prompt="purple heading")
    after = await settled(session, user, project.id)
    changes = {file.filename: file.change for file in after.files}
    assert changes == {"index.html": "unchanged", "style.css": "updated", "app.js": "unchanged"}
    assert "purple" in files_of(after)["style.css"]
    sent = model.requests[-1]["body"]["messages"][0]["content"]
    assert "--- CURRENT PROJECT ---" in sent and "not instructions" in sent


@pytest.mark.parametrize(
    ("model_name", "reason"),
    [
        ("builder-nofiles", "held no files"),
        ("broken", "The model failed"),
    ],
)
async def test_a_build_without_files_fails_with_the_reason(session, model, settings, monkeypatch, model_name, reason):
    monkeypatch.setattr(settings, "LLM_MODEL", model_name)
    user = await make_user(session, "builder@example.com")
    project = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a page with a button")).id)
    assert project.status == "failed" and reason in project.error
    assert any(kind == "error" and reason in message for kind, message in await log_text(session, user, project.id))


async def test_an_answer_cut_inside_a_file_keeps_it_marked_incomplete(session, model, settings, monkeypatch):
    monkeypatch.setattr(settings, "LLM_MODEL", "builder-cut")
    user = await make_user(session, "builder@example.com")
    project = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a page with a button")).id)
    complete = {file.filename: file.complete for file in project.files}
    assert complete == {"index.html": True, "app.js": False}
    log = await log_text(session, user, project.id)
    assert any(kind == "error" and message.startswith("app.js was cut off") for kind, message in log)
    assert any(kind == "error" and "[javascript] app.js" in message for kind, message in log), log


async def test_the_checks_find_a_syntax_error_and_a_planted_secret(session, model, settings, monkeypatch):
    monkeypatch.setattr(settings, "LLM_MODEL", "builder-bad")
    user = await make_user(session, "builder@example.com")
    project = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a page with a button")).id)
    assert project.status == "complete" and project.checks["errors"] >= 2
    errors = [message for kind, message in await log_text(session, user, project.id) if kind == "error"]
    assert any(message.startswith("[javascript] app.js:") for message in errors)
    assert any(message.startswith("[scan] app.js:1") for message in errors)
    assert any(message.startswith("Checks found") for message in errors)


async def test_a_file_over_the_limit_ends_the_build_and_keeps_nothing_half_written(session, monkeypatch):
    monkeypatch.setattr(file_writer, "MAX_FILE_BYTES", 200)
    user = await make_user(session, "builder@example.com")
    project = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a landing page")).id)
    assert project.status == "failed" and "limit of one file" in project.error
    assert all(file.complete for file in project.files)


async def test_a_build_interrupted_by_a_restart_reads_as_failed(session):
    user = await make_user(session, "builder@example.com")
    project = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a landing page")).id)
    row = await session.get(CodeProject, project.id)
    await worker_died(session, row.job_id)  # a worker that died mid-build; the reaper has found it since
    read = await projects.get_project(session=session, viewer=user, project_id=project.id)
    assert read.status == "failed" and "interrupted" in read.error
    assert (
        await projects.continue_build(session=session, actor=user, project_id=project.id, prompt="make it dark")
    ).status == "planning"
    await settled(session, user, project.id)


async def test_reading_a_project_whose_build_died_writes_nothing(session):
    """Before the reaper closes it, a project whose job was interrupted reads as failed, derived from its job:
    the project page, its list, the current project and its log are read without a single write."""
    user = await make_user(session, "builder@example.com")
    project = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a landing page")).id)
    row = await session.get(CodeProject, project.id)
    job_id, updated_at = row.job_id, row.updated_at
    log_lines = len(await projects.logs(session=session, viewer=user, project_id=project.id))
    await worker_died(session, job_id, reaped=False)
    with Writes(session) as writes:
        read = await projects.get_project(session=session, viewer=user, project_id=project.id)
        current = await projects.current(session=session, viewer=user)
        listed = await projects.list_projects(session=session, viewer=user)
        lines = await projects.logs(session=session, viewer=user, project_id=project.id)
        builder = await read_builder(session=session, viewer=user)
    assert read.status == "failed" and read.error == INTERRUPTED and not read.building
    assert current is not None and (current.status, current.error) == ("failed", INTERRUPTED)
    assert [(item.id, item.status) for item in listed] == [(project.id, "failed")]
    assert builder.project is not None and builder.project.status == "failed"
    assert writes == [] and len(lines) == log_lines
    session.expire_all()
    stored = await session.get(CodeProject, project.id)
    assert (stored.status, stored.error, stored.updated_at) == ("complete", None, updated_at)


async def test_a_projects_log_keeps_its_newest_lines(session, monkeypatch):
    monkeypatch.setattr(build_job, "MAX_LOG_LINES", 10)
    user = await make_user(session, "builder@example.com")
    project = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a landing page")).id)
    before = await projects.logs(session=session, viewer=user, project_id=project.id)
    assert len(before) == 10 and before[-1].message.startswith("Build complete")
    await projects.continue_build(session=session, actor=user, project_id=project.id, prompt="make it dark")
    await settled(session, user, project.id)
    after = await projects.logs(session=session, viewer=user, project_id=project.id)
    assert len(after) == 10 and after[0].id > before[0].id  # the oldest lines went, the newest stay in order
    assert [line.id for line in after] == sorted(line.id for line in after)
    assert after[-1].message.startswith("Continue complete")


async def test_the_project_count_and_size_limits_say_what_to_do(session, monkeypatch):
    user = await make_user(session, "builder@example.com")
    monkeypatch.setattr(projects, "MAX_PROJECTS", 1)
    await settled(session, user, (await projects.build(session=session, actor=user, prompt="a landing page")).id)
    with pytest.raises(Invalid, match="limit: clear some"):
        await projects.build(session=session, actor=user, prompt="a form")
    monkeypatch.setattr(projects, "MAX_PROJECTS", 50)
    monkeypatch.setattr(file_writer, "MAX_FILES", 2)
    too_many = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a landing page")).id)
    assert too_many.status == "failed" and "more than 2 files" in too_many.error
    monkeypatch.setattr(file_writer, "MAX_FILES", 30)
    monkeypatch.setattr(file_writer, "MAX_TOTAL_BYTES", 3000)
    too_big = await settled(session, user, (await projects.build(session=session, actor=user, prompt="a landing page")).id)
    assert too_big.status == "failed" and "limit of a project" in too_big.error
    assert all(file.complete for file in too_big.files)  # what was written is whole; the rest never started
