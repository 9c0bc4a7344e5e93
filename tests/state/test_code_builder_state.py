"""Live Code Builder state: an empty page offers Build; Ctrl/Cmd+Enter sends; a build (offline template engine)
fills the files, the typed log and the viewer; a second build while one runs is refused by the server; a continue
shows its diff; preview and downloads need files; save, new project and clear all; another user sees none of it."""

from __future__ import annotations

import base64
import io
import shutil
import zipfile

import pytest
import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401  (registers every page and state)
from secdash.jobs import runner
from secdash.models.builder import CodeProject
from secdash.services.builder import project_dir, projects
from secdash.services.builder.limits import MAX_PROMPT_CHARS
from secdash.state.code_builder import CodeBuilderState
from tests.factories import make_user, sign_in

BUILD_PROMPT = "a landing page for a bakery called Crumbs"
CONTINUE_PROMPT = 'rename the title to "Crumbs & Co"'


@pytest.fixture(autouse=True)
def clean_projects():
    yield
    shutil.rmtree(project_dir.projects_dir(), ignore_errors=True)


def _state(token: str = "") -> CodeBuilderState:
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(CodeBuilderState.get_full_name().split("."))
    state.auth_token = token
    return state


async def _call(state: CodeBuilderState, name: str, **kwargs):
    return await CodeBuilderState.event_handlers[name].fn(state, **kwargs)


async def _signed_in(session, email: str = "builder@example.com") -> tuple[CodeBuilderState, object]:
    user = await make_user(session, email)
    state = _state(await sign_in(session, email))
    return state, user


async def _rows(session) -> list[CodeProject]:
    return list((await session.exec(select(CodeProject).execution_options(populate_existing=True))).all())


async def _settle(session) -> None:
    """Every build job of every project has ended."""
    for row in await _rows(session):
        if row.job_id:
            await runner.wait_for(row.job_id, timeout=90)
    session.expire_all()


async def _submit(state: CodeBuilderState, prompt: str):
    await _call(state, "set_prompt", value=prompt)
    return await _call(state, "submit")


async def _built(session, state: CodeBuilderState) -> None:
    """The state after a finished offline build, re-read as a tab that loads the page."""
    await _submit(state, BUILD_PROMPT)
    await _settle(session)
    await _call(state, "load")
    assert state.project.status == "complete", state.project.error


def _events(events) -> list:
    return events if isinstance(events, list) else [events] if events is not None else []


def _download(event) -> dict[str, str] | None:
    """The arguments (url, filename) of an rx.download event; None for any other event."""
    if getattr(getattr(event, "handler", None), "fn", None) is None or event.handler.fn.__qualname__ != "_download":
        return None
    return {name._js_expr: value._var_value for name, value in event.args}


def _zip_files(url: str) -> set[str]:
    body = base64.b64decode(url.split(";base64,", 1)[1])
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        return {entry.split("/", 1)[1] for entry in archive.namelist()}


async def test_an_empty_page_offers_build_and_cannot_send_a_blank_prompt(session):
    state, _user = await _signed_in(session)
    assert await _call(state, "load") == CodeBuilderState.follow_changes
    assert not state.loading and not state.has_project
    assert state.log == [] and state.files == [] and not state.has_files
    assert state.prompt == "" and not state.can_send
    await _call(state, "set_prompt", value="   ")
    assert not state.can_send
    await _call(state, "set_prompt", value="a form")
    assert state.can_send


async def test_only_ctrl_or_cmd_enter_sends(session):
    state, _user = await _signed_in(session)
    await _call(state, "load")
    assert await _call(state, "key_down", key="Enter", info={}) is None
    assert await _call(state, "key_down", key="Enter", info={"shift_key": True}) is None
    assert await _call(state, "key_down", key="a", info={"ctrl_key": True}) is None
    assert await _call(state, "key_down", key="Enter", info="not a dict") is None
    assert await _call(state, "key_down", key="Enter", info={"ctrl_key": True}) == CodeBuilderState.submit
    assert await _call(state, "key_down", key="Enter", info={"meta_key": True}) == CodeBuilderState.submit


async def test_a_blank_prompt_builds_nothing(session):
    state, _user = await _signed_in(session)
    await _call(state, "load")
    for prompt in ("", "   \n\t "):
        assert await _submit(state, prompt) is None
    assert await _rows(session) == []
    assert not state.has_project and not state.sending


async def test_a_build_fills_files_log_and_viewer(session):
    state, user = await _signed_in(session)
    await _call(state, "load")
    events = await _submit(state, BUILD_PROMPT)
    assert "Build Started" in str(events)
    assert state.prompt == "" and state.has_project and not state.sending
    assert [row.id for row in await _rows(session)] == [state.project.id]

    assert [line.message for line in state.log][:1] == ["Build started: " + BUILD_PROMPT]

    await _settle(session)
    ended = await state._refresh(user)  # what the follow loop does on the job's last change
    assert "Build Complete" in str(ended)
    ids = [line.id for line in state.log]
    assert len(ids) == len(set(ids)) and ids == sorted(ids)  # the lines this tab had are not added twice
    assert await state._refresh(user) == [] and [line.id for line in state.log] == ids  # toasted once
    await _call(state, "load")
    assert [line.id for line in state.log] == ids
    assert state.project.status == "complete" and state.project.engine == "offline template engine"
    assert not state.building and state.project.checks.startswith("0 errors")
    names = [row.filename for row in state.files]
    assert "index.html" in names and state.has_files
    assert all(row.change == "created" and not row.writing and row.size for row in state.files)
    assert state.selected_file == "index.html"
    assert state.viewer_content and "<html" in state.viewer_content.lower()
    assert state.viewer_mode == "code" and state.viewer_diff == [] and not state.selected_changed
    kinds = {line.type for line in state.log}
    assert "success" in kinds
    assert any(line.type == "success" and line.message.startswith("Created index.html") for line in state.log)
    assert any(line.type == "success" and line.message.startswith("Checks passed") for line in state.log)
    assert all(line.time.count(":") == 2 for line in state.log)
    stored = await projects.get_project(session=session, viewer=user, project_id=state.project.id)
    assert len(state.files) == len(stored.files)

    other = next(name for name in names if name != "index.html")
    await _call(state, "select_file", filename=other)
    assert state.selected_file == other
    assert state.viewer_content == next(f.content for f in stored.files if f.filename == other)


async def test_a_second_build_while_one_runs_is_refused_by_the_server(session):
    state, _user = await _signed_in(session)
    other_tab = _state(state.auth_token)
    await _call(state, "load")
    await _call(other_tab, "load")
    await _submit(state, BUILD_PROMPT)
    first = state.project.id

    # The same tab: the open project is still being built, so its continue is refused.
    again = await _submit(state, "make it dark")
    assert "Build Failed" in str(again) and "wait for it to finish" in str(again)
    assert state.prompt == "make it dark" and not state.sending  # the text stays for another try

    # Another tab of the same user, loaded before the build: its Build is refused by the job's singleton key.
    refused = await _submit(other_tab, "a dashboard with a chart")
    assert "Build Failed" in str(refused) and "already running" in str(refused)
    assert [row.id for row in await _rows(session)] == [first]
    assert other_tab.has_project and other_tab.project.id == first  # the refusal re-reads: the running build shows
    await _settle(session)


async def test_a_continue_shows_what_changed(session):
    state, _user = await _signed_in(session)
    await _call(state, "load")
    await _built(session, state)
    before = {name: content for name, (content, _prev) in state._files.items()}

    events = await _submit(state, CONTINUE_PROMPT)
    assert "Continuing Build" in str(events)
    await _settle(session)
    await _call(state, "load")
    assert state.project.status == "complete", state.project.error
    assert len(await _rows(session)) == 1
    changed = [row.filename for row in state.files if row.change == "updated"]
    unchanged = [row.filename for row in state.files if row.change == "unchanged"]
    assert changed and unchanged
    assert all(state._files[name][0] != before[name] for name in changed)

    await _call(state, "select_file", filename=unchanged[0])
    await _call(state, "set_viewer_mode", mode="changes")
    assert state.viewer_mode == "code" and state.viewer_diff == []

    await _call(state, "select_file", filename=changed[0])
    assert state.selected_changed
    await _call(state, "set_viewer_mode", mode="changes")
    assert state.viewer_mode == "changes"
    kinds = {line.kind for line in state.viewer_diff}
    assert {"added", "removed"} <= kinds
    assert any(line.kind == "added" and "Co" in line.text and "Crumbs" in line.text for line in state.viewer_diff)
    await _call(state, "set_viewer_mode", mode="nonsense")
    assert state.viewer_mode == "changes"
    await _call(state, "select_file", filename=unchanged[0])
    assert state.viewer_mode == "code"  # a file without changes has no diff to show


async def test_preview_and_downloads_need_files(session):
    state, _user = await _signed_in(session)
    await _call(state, "load")
    events = await _call(state, "open_preview")
    assert "No HTML file" in str(events) and "Build a project first to preview it." in str(events)
    assert not state.preview_open and state.preview_url == ""
    events = await _call(state, "download_all")
    assert "No files to download" in str(events) and "Build a project first." in str(events)
    assert not any(_download(event) for event in _events(events))

    await _built(session, state)
    assert await _call(state, "open_preview") is None
    assert state.preview_open and state.preview_url.startswith("/preview/")
    assert state.preview_url.endswith("/index.html")
    await _call(state, "set_preview_open", value=False)
    assert not state.preview_open and state.preview_url == ""

    events = await _call(state, "download_all")
    assert isinstance(events, list) and len(events) == 2
    download = _download(events[0])
    assert download and download["filename"].endswith(f"-{state.project.id}.zip")
    assert download["url"].startswith("data:application/zip;base64,")
    assert _zip_files(download["url"]) == {row.filename for row in state.files}
    assert "Files Downloaded" in str(events[1]) and f"({len(state.files)} files)" in str(events[1])

    events = await _call(state, "download_file", filename="index.html")
    download = _download(events[0])
    assert download and download["filename"] == "index.html" and "Files Downloaded" in str(events[1])
    events = await _call(state, "download_file", filename="no-such-file.js")
    assert "No files to download" in str(events) and not any(_download(event) for event in _events(events))


async def test_save_new_project_and_clear_all(session):
    state, user = await _signed_in(session)
    await _call(state, "load")
    assert "Build a project first." in str(await _call(state, "save"))
    await _built(session, state)
    await _call(state, "open_preview")
    assert state.preview_open

    events = await _call(state, "save")
    assert "Project Saved" in str(events) and "(saved " in str(events)
    assert len(await projects.list_projects(session=session, viewer=user)) == 2

    events = await _call(state, "new_project")
    assert "New Project" in str(events)
    assert not state.has_project and state.files == [] and state.log == [] and not state.preview_open
    assert state.preview_url == "" and state.viewer_content == "" and state.selected_file == ""
    await _call(state, "load")  # the server agrees: no current project
    assert not state.has_project
    assert len(await projects.list_projects(session=session, viewer=user)) == 2  # the projects stay listed

    await _call(state, "open_clear_dialog")
    assert state.clear_dialog_open
    events = await _call(state, "clear_all")
    assert "All Projects Cleared" in str(events)
    assert not state.clear_dialog_open and not state.has_project and state.files == []
    assert await projects.list_projects(session=session, viewer=user) == []


async def test_selecting_a_file_not_in_the_project_changes_nothing(session):
    state, _user = await _signed_in(session)
    await _call(state, "load")
    await _built(session, state)
    shown = (state.selected_file, state.viewer_content, state.viewer_mode)
    for name in ("missing.js", "../index.html", ""):
        await _call(state, "select_file", filename=name)
        assert (state.selected_file, state.viewer_content, state.viewer_mode) == shown, name


async def test_the_prompt_is_bounded(session):
    state, _user = await _signed_in(session)
    await _call(state, "load")
    await _call(state, "set_prompt", value="x" * (MAX_PROMPT_CHARS * 3))
    assert len(state.prompt) == MAX_PROMPT_CHARS + 1
    await _call(state, "set_prompt", value=None)
    assert state.prompt == ""

    await _call(state, "set_prompt", value="x" * (MAX_PROMPT_CHARS + 1))
    events = await _call(state, "submit")  # one character too many: the server says why
    assert "Build Failed" in str(events) and "too long" in str(events)
    assert await _rows(session) == [] and not state.has_project


async def test_another_user_never_sees_the_project(session):
    owner, _user = await _signed_in(session, "owner@example.com")
    await _call(owner, "load")
    await _built(session, owner)
    assert owner.has_project and owner.files

    other, _other_user = await _signed_in(session, "other@example.com")
    await _call(other, "load")
    assert not other.has_project and other.files == [] and other.log == [] and other.project.id == 0
    events = await _call(other, "open_preview")
    assert "No HTML file" in str(events) and not other.preview_open
    events = await _call(other, "download_file", filename="index.html")
    assert "No files to download" in str(events) and not any(_download(event) for event in _events(events))
