"""HTML artifacts state (/code-artifacts): an empty page offers Create HTML; Ctrl/Cmd+Enter sends; a create (offline
template engine) shows v1 in the preview with a fresh sandboxed link, an update v2 ("Creating HTML", "Updating
HTML"); with the slow test model the source view follows the draft as it grows and Stop ends it ("Generation
Stopped", no version); a generation the engine cannot do toasts "Generation Failed" once; loading an older version ("Version
Loaded"), restoring it as a new version, a hand edit saved as a new version, the compare view's line diff, the
downloads with the spec's file name; signed out nothing runs; another user's artifact id is refused."""

from __future__ import annotations

import asyncio
import base64
import io
import zipfile

import pytest
import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401  (registers every page and state)
from secdash.jobs import runner
from secdash.models.artifacts import Artifact
from secdash.services.artifacts import artifacts
from secdash.state.code_artifacts import CodeArtifactsState
from tests.factories import make_user, sign_in
from tests.support.fake_openai import ARTIFACT_PAGE, FakeOpenAI

CREATE_PROMPT = "a landing page for a bakery called Crumbs"
UPDATE_PROMPT = 'rename the title to "Crumbs & Co"'
IMPOSSIBLE = "connect it to a Stripe checkout with webhooks"  # the offline engine changes nothing: it fails


@pytest.fixture
def slow_model(settings, monkeypatch):
    """The local test model, writing its page slowly (tests/support/fake_openai.py artifact-slow)."""
    fake = FakeOpenAI()
    monkeypatch.setattr(settings, "LLM_BASE_URL", fake.base_url)
    monkeypatch.setattr(settings, "LLM_MODEL", "artifact-slow")
    yield fake
    fake.close()


def _state(token: str = "") -> CodeArtifactsState:
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(CodeArtifactsState.get_full_name().split("."))
    state.auth_token = token
    return state


async def _call(state: CodeArtifactsState, name: str, **kwargs):
    return await CodeArtifactsState.event_handlers[name].fn(state, **kwargs)


async def _signed_in(session, email: str = "artist@example.com") -> tuple[CodeArtifactsState, object]:
    user = await make_user(session, email)
    state = _state(await sign_in(session, email))
    await _call(state, "load")
    return state, user


async def _rows(session) -> list[Artifact]:
    return list((await session.exec(select(Artifact).execution_options(populate_existing=True))).all())


async def _settle(session) -> None:
    """Every generation job has ended."""
    for row in await _rows(session):
        if row.job_id:
            await runner.wait_for(row.job_id, timeout=90)
    session.expire_all()


async def _send(session, state: CodeArtifactsState, user, prompt: str) -> tuple[list, list]:
    """(the events of the send, those of the follow loop's read once the generation ended)."""
    await _call(state, "set_prompt", value=prompt)
    sent = _events(await _call(state, "submit"))
    await _settle(session)
    return sent, await state._refresh(user)


def _events(events) -> list:
    return events if isinstance(events, list) else [events] if events is not None else []


def _toast_titles(events) -> list[str]:
    """The titles of the toasts among a handler's events, in order."""
    titles = []
    for event in events:
        arguments = {name._js_expr: value for name, value in getattr(event, "args", ())}
        if getattr(getattr(event, "handler", None), "fn", None) is not None and "title" in arguments:
            titles.append(arguments["title"]._var_value)
    return titles


def _download(event) -> dict[str, str] | None:
    """The arguments (url, filename) of an rx.download event; None for any other event."""
    if getattr(getattr(event, "handler", None), "fn", None) is None or event.handler.fn.__qualname__ != "_download":
        return None
    return {name._js_expr: value._var_value for name, value in event.args}


def _body(url: str) -> bytes:
    return base64.b64decode(url.split(";base64,", 1)[1])


async def _two_versions(session) -> tuple[CodeArtifactsState, object]:
    state, user = await _signed_in(session)
    await _send(session, state, user, CREATE_PROMPT)
    await _send(session, state, user, UPDATE_PROMPT)
    assert state.artifact.version == 2 and state.loaded_version == 2, state.artifact.error
    return state, user


async def test_an_empty_page_offers_create_and_cannot_send_a_blank_prompt(session):
    state, _user = await _signed_in(session)
    assert not state.loading and not state.has_artifact and not state.has_versions
    assert state.recent == [] and state.history == [] and state.loaded_version == 0
    assert not state.can_send and not state.busy
    for prompt in ("", "  \n\t "):
        await _call(state, "set_prompt", value=prompt)
        assert not state.can_send
        assert await _call(state, "submit") is None  # the button is disabled; a forged click does nothing
    assert await _rows(session) == []
    await _call(state, "set_prompt", value="a pricing page")
    assert state.can_send


async def test_only_ctrl_or_cmd_enter_sends(session):
    state, _user = await _signed_in(session)
    assert await _call(state, "key_down", key="Enter", info={}) is None
    assert await _call(state, "key_down", key="Enter", info={"shift_key": True}) is None
    assert await _call(state, "key_down", key="a", info={"ctrl_key": True}) is None
    assert await _call(state, "key_down", key="Enter", info="not a dict") is None
    assert await _call(state, "key_down", key="Enter", info={"ctrl_key": True}) == CodeArtifactsState.submit
    assert await _call(state, "key_down", key="Enter", info={"meta_key": True}) == CodeArtifactsState.submit


async def test_create_then_update_show_v1_then_v2_with_their_toasts(session):
    state, user = await _signed_in(session)
    await _call(state, "set_prompt", value=CREATE_PROMPT)
    sent = _events(await _call(state, "submit"))
    assert "Creating HTML" in str(sent)
    assert state.prompt == "" and state.has_artifact and not state.sending
    # Right after the send the server says the artifact is being generated: the button reads "Generating...",
    # the source view follows the draft, and another send is refused by the button.
    assert state.generating and state.busy and state.mode == "edit" and not state.can_send
    await _settle(session)
    ended = await state._refresh(user)  # what the follow loop does on the job's last change
    assert "Generation Failed" not in str(ended)
    assert not state.generating and state.artifact.name == "Crumbs" and state.artifact.version == 1
    assert state.loaded_version == 1 and "Crumbs" in state.source and state.edited == state.source
    assert state.mode == "preview" and state.preview_url.startswith("/preview/")
    assert state.preview_url.endswith("/index.html")
    assert [row.version for row in state.history] == [1] and state.history[0].note.startswith("Offline template")
    assert [(row.name, row.version) for row in state.recent] == [("Crumbs", 1)]
    assert state.findings_label == "No findings" and state.artifact.engine == "offline template engine"

    sent, _ended = await _send(session, state, user, UPDATE_PROMPT)
    assert "Updating HTML" in str(sent) and "Creating HTML" not in str(sent)
    assert state.artifact.version == 2 and state.loaded_version == 2 and "Crumbs &amp; Co" in state.source
    assert [row.version for row in state.history] == [2, 1]
    assert len(await _rows(session)) == 1  # an update, not a second artifact
    assert state.recent[0].version == 2


async def test_a_failing_generation_toasts_generation_failed_once(session):
    state, user = await _signed_in(session)
    await _send(session, state, user, CREATE_PROMPT)
    sent, ended = await _send(session, state, user, IMPOSSIBLE)
    # The offline engine fails at once: the send's own read may already see the end (a busy machine runs the job
    # before the send returns), else the follow loop's read does; either way the toast comes exactly once.
    titles = _toast_titles(sent) + _toast_titles(ended)
    assert titles == ["Updating HTML", "Generation Failed"]
    assert "offline template engine changed nothing" in str(sent) + str(ended)
    assert state.artifact.status == "failed" and "changed nothing" in state.artifact.error
    assert state.artifact.version == 1 and state.loaded_version == 1  # the version stays
    assert state.prompt == IMPOSSIBLE  # the request is back in the box, to edit and send again
    assert "Generation Failed" not in str(await state._refresh(user))  # toasted once


async def test_a_refused_send_toasts_generation_failed_with_the_servers_message(session):
    state, _user = await _signed_in(session)
    await _call(state, "set_prompt", value=CREATE_PROMPT)
    await _call(state, "submit")
    other_tab = _state(state.auth_token)
    await _call(other_tab, "load")
    await _call(other_tab, "new_artifact")
    await _call(other_tab, "set_prompt", value="a second page while the first is generated")
    refused = await _call(other_tab, "submit")
    assert "Generation Failed" in str(refused) and "already being generated" in str(refused)
    assert other_tab.prompt.startswith("a second page")  # the text stays for another try
    await _call(state, "set_prompt", value="x" * 5000)
    state.generating = False  # as a tab that has not seen the generation yet
    too_long = await _call(state, "submit")
    assert "Generation Failed" in str(too_long) and "too long" in str(too_long)
    await _settle(session)
    assert len(await _rows(session)) == 1


async def test_loading_an_older_version_then_restoring_it(session):
    state, user = await _two_versions(session)
    newest = state.source
    events = await _call(state, "load_version", version=1)
    assert "Version Loaded" in str(events) and "v1" in str(events)
    assert state.loaded_version == 1 and state.is_older and "Crumbs &amp; Co" not in state.source
    assert state.edited == state.source and state.preview_url.startswith("/preview/")
    assert "Version Loaded" not in str(await state._refresh(user))  # a re-read keeps the loaded version
    assert state.loaded_version == 1

    events = await _call(state, "restore")
    assert "Version Restored" in str(events) and "v1 is now v3" in str(events)
    assert state.artifact.version == 3 and state.loaded_version == 3 and not state.is_older
    assert [row.version for row in state.history] == [3, 2, 1]
    assert state.history[0].note == "Restored version 1" and state.history[0].source == "restored"
    assert state.source != newest and "Crumbs &amp; Co" not in state.source
    history = await artifacts.history(session=session, viewer=user, artifact_id=state.artifact.id)
    assert history[0].html_content == history[2].html_content  # v3 is v1's HTML; v2 is kept

    events = await _call(state, "load_version", version=99)
    assert "has no version 99" in str(events) and state.loaded_version == 3


async def test_a_hand_edit_is_saved_as_a_new_version(session):
    state, user = await _two_versions(session)
    await _call(state, "set_mode", mode="edit")
    assert state.mode == "edit" and not state.dirty
    key = state.editor_key
    edited = state.source.replace("</body>", "<footer>Hand made</footer>\n</body>")
    await _call(state, "set_edited", value=edited)
    assert state.dirty
    await _call(state, "set_edit_note", value="a hand-made footer")
    events = await _call(state, "save_edit")
    assert "Version Saved" in str(events) and "v3" in str(events)
    assert state.artifact.version == 3 and state.loaded_version == 3 and state.source == edited
    assert not state.dirty and state.editor_key > key  # the editor shows the saved version afresh
    assert state.history[0].source == "edited by hand"
    assert state.history[0].note == "Edited by hand: a hand-made footer" and state.edit_note == ""
    stored = await artifacts.get_version(session=session, viewer=user, artifact_id=state.artifact.id, version=3)
    assert "Hand made" in stored.html_content

    await _call(state, "set_edited", value="   ")
    events = await _call(state, "save_edit")
    assert "htmlContent is empty" in str(events) and state.artifact.version == 3


async def test_compare_shows_the_line_diff_of_two_chosen_versions(session):
    state, _user = await _two_versions(session)
    assert state.version_options == ["2", "1"]
    await _call(state, "set_mode", mode="compare")
    assert state.mode == "compare" and (state.compare_from, state.compare_to) == ("1", "2")
    kinds = {row.kind for row in state.diff}
    assert {"added", "removed"} <= kinds
    added = [row for row in state.diff if row.kind == "added"]
    assert any("Crumbs &amp; Co" in row.text for row in added)
    assert all(row.new_line and not row.old_line for row in added)
    assert all(row.old_line and not row.new_line for row in state.diff if row.kind == "removed")
    assert state.diff_summary.startswith("v1 → v2: +")

    await _call(state, "set_compare_from", value="2")
    assert state.diff == [] and state.diff_summary == "v2 and v2 have the same HTML"
    await _call(state, "set_compare_to", value="1")
    assert any(row.kind == "removed" and "Crumbs &amp; Co" in row.text for row in state.diff)
    events = await _call(state, "set_compare_to", value="7")
    assert "has no version 7" in str(events) and state.diff == []

    await _call(state, "set_mode", mode="nonsense")
    assert state.mode == "compare"
    await _call(state, "load_version", version=1)  # loading a version shows it
    assert state.mode == "preview" and state.loaded_version == 1


async def test_downloads_name_the_file_as_the_spec_says(session):
    state, _user = await _two_versions(session)
    await _call(state, "load_version", version=1)
    events = _events(await _call(state, "download"))
    download = _download(events[0])
    assert download and download["filename"] == "Crumbs_v1.html"
    assert download["url"].startswith("data:text/html;base64,")
    assert _body(download["url"]).decode() == state.source
    assert "Downloaded" in str(events[1])

    events = _events(await _call(state, "download_all"))
    download = _download(events[0])
    assert download and download["filename"] == "Crumbs_versions.zip"
    with zipfile.ZipFile(io.BytesIO(_body(download["url"]))) as archive:
        names = {entry.split("/", 1)[1] for entry in archive.namelist()}
    assert names == {"Crumbs_v1.html", "Crumbs_v2.html"} and "Downloaded" in str(events[1])


async def test_new_artifact_and_opening_one_from_the_list(session):
    state, user = await _signed_in(session)
    await _send(session, state, user, CREATE_PROMPT)
    first = state.artifact.id
    events = await _call(state, "new_artifact")
    assert "New Artifact" in str(events)
    assert not state.has_artifact and state.history == [] and state.loaded_version == 0
    assert [row.id for row in state.recent] == [first]  # the artifact stays listed
    assert "Nothing to download" in str(await _call(state, "download"))
    sent, _ended = await _send(session, state, user, "a snake game")
    assert "Creating HTML" in str(sent) and state.artifact.id != first and state.loaded_version == 1
    assert len(state.recent) == 2

    await _call(state, "open_artifact", artifact_id=first)
    assert state.artifact.id == first and state.artifact.name == "Crumbs" and [r.version for r in state.history] == [1]
    assert "Crumbs" in state.source


async def test_signed_out_nothing_runs(session):
    owner, _user = await _signed_in(session)
    stranger = _state("")
    await _call(stranger, "set_prompt", value=CREATE_PROMPT)
    for name, kwargs in (
        ("submit", {}),
        ("load", {}),
        ("open_artifact", {"artifact_id": 1}),
        ("load_version", {"version": 1}),
        ("restore", {}),
        ("save_edit", {}),
        ("download", {}),
    ):
        events = await _call(stranger, name, **kwargs)
        assert "Unauthorized" in str(events), name
    assert await _rows(session) == [] and not stranger.has_artifact
    assert owner.auth_token  # the owner's tab is untouched


async def test_another_users_artifact_id_is_refused(session):
    owner, owner_user = await _signed_in(session, "owner@example.com")
    await _send(session, owner, owner_user, CREATE_PROMPT)
    theirs = owner.artifact.id

    other, _other_user = await _signed_in(session, "other@example.com")
    assert not other.has_artifact and other.recent == []
    events = await _call(other, "open_artifact", artifact_id=theirs)
    assert f"Artifact #{theirs} not found" in str(events)
    assert not other.has_artifact and other.source == "" and other.recent == []
    # A forged tab that claims the owner's artifact as its open one gets nothing from it either.
    other.has_artifact, other.artifact.id = True, theirs
    for name, kwargs in (("load_version", {"version": 1}), ("download", {}), ("download_all", {})):
        other.loaded_version = 1
        events = _events(await _call(other, name, **kwargs))
        assert f"Artifact #{theirs} not found" in str(events), name
        assert not any(_download(event) for event in events)
    other.loaded_version = 1
    events = await _call(other, "restore")
    assert f"Artifact #{theirs} not found" in str(events)
    owner_history = await artifacts.history(session=session, viewer=owner_user, artifact_id=theirs)
    assert [row.version for row in owner_history] == [1]


async def test_the_source_view_follows_the_draft_and_stop_ends_it_without_a_version(session, slow_model):
    state, user = await _signed_in(session)
    await _call(state, "set_prompt", value="a page with a button")
    assert "Creating HTML" in str(await _call(state, "submit"))
    drafts: list[str] = []
    async with asyncio.timeout(30):
        while len(drafts) < 2:  # what the follow loop reads on each change, until the draft has grown twice
            await state._refresh(user)
            assert state.generating and state.busy and state.mode == "edit", state.artifact.error
            if state.draft and (not drafts or state.draft != drafts[-1]):
                drafts.append(state.draft)
            await asyncio.sleep(0.05)
    assert ARTIFACT_PAGE.startswith(drafts[-1]) and len(drafts[0]) < len(drafts[-1]) < len(ARTIFACT_PAGE)
    assert state.loaded_version == 0 and not state.dirty and not state.can_send
    await _call(state, "set_mode", mode="preview")  # nothing to preview while the page is written
    assert state.mode == "edit"

    assert "Stopping" in str(await _call(state, "stop"))
    await _settle(session)
    ended = await state._refresh(user)
    assert "Generation Stopped" in str(ended) and "Generation Failed" not in str(ended)
    assert not state.generating and state.draft == "" and state.artifact.version == 0
    assert state.history == [] and state.mode == "preview"
