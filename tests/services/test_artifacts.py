"""HTML artifacts on the job system: create and update with the offline template engine and with a local
OpenAI-compatible model (the file protocol, a fenced block, a bare document, no HTML, a cut answer, a failing model,
findings), the draft while it streams, stop, one generation at a time, history, restore, hand edits, the diff of
any two versions, limits, ownership, an interrupted generation, the download names and zip, and preview links."""

from __future__ import annotations

import asyncio
import io
import warnings
import zipfile
from datetime import timedelta

import pytest
from sqlalchemy.exc import SAWarning
from sqlmodel import select

from secdash.core.db import session_scope
from secdash.jobs import runner
from secdash.models import Job
from secdash.models.artifacts import Artifact, ArtifactStatus, ArtifactVersion
from secdash.models.builder import CodeProject
from secdash.services import preview_files, preview_links
from secdash.services.artifacts import artifacts, downloads, generate_job, limits, preview, versions
from secdash.services.artifacts.overview import read_artifacts
from secdash.services.artifacts.records import INTERRUPTED
from secdash.services.builder import preview as project_preview
from secdash.services.builder import project_dir, projects
from secdash.services.errors import Conflict, Invalid, NotFound
from secdash.services.identity import auth
from tests.factories import make_user, sign_in
from tests.support.dead_worker import Writes, worker_died
from tests.support.fake_openai import ARTIFACT_NOTE, ARTIFACT_PAGE, ARTIFACT_TITLE, FakeOpenAI

LANDING = "a landing page for a coffee shop called Bean There"


@pytest.fixture
def model(settings, monkeypatch):
    fake = FakeOpenAI()
    monkeypatch.setattr(settings, "LLM_BASE_URL", fake.base_url)
    monkeypatch.setattr(settings, "LLM_MODEL", "artifact")
    yield fake
    fake.close()


@pytest.fixture
def use_model(model, settings, monkeypatch):
    """Switch the test model's behaviour by name."""

    def use(name: str) -> FakeOpenAI:
        monkeypatch.setattr(settings, "LLM_MODEL", name)
        return model

    return use


async def settled(session, user, artifact_id: int):
    """The artifact once its running generation has ended."""
    row = (await session.exec(select(Artifact).where(Artifact.id == artifact_id).execution_options(populate_existing=True))).one()
    if row.job_id:
        await runner.wait_for(row.job_id, timeout=90)
    session.expire_all()
    return await artifacts.get_artifact(session=session, viewer=user, artifact_id=artifact_id)


async def created(session, user, prompt: str = LANDING):
    started = await artifacts.create(session=session, actor=user, prompt=prompt)
    return await settled(session, user, started.id)


async def updated(session, user, artifact_id: int, prompt: str):
    await artifacts.update_artifact(session=session, actor=user, artifact_id=artifact_id, prompt=prompt)
    return await settled(session, user, artifact_id)


async def row_of(artifact_id: int) -> Artifact:
    """The stored row, read afresh (not through the test's session)."""
    async with session_scope() as fresh:
        row = await fresh.get(Artifact, artifact_id)
        assert row is not None
        return row


async def while_generating(artifact_id: int, until, timeout: float = 30.0) -> Artifact:
    """The row, polled until `until(row)` holds while it is still generating."""
    async with asyncio.timeout(timeout):
        while True:
            row = await row_of(artifact_id)
            assert row.status == ArtifactStatus.generating, row.error
            if until(row):
                return row
            await asyncio.sleep(0.02)


async def history_of(session, user, artifact_id: int) -> list:
    return await artifacts.history(session=session, viewer=user, artifact_id=artifact_id)


# --- the offline template engine ---------------------------------------------------------------------------------


async def test_an_offline_create_makes_version_one_named_from_its_title(session):
    user = await make_user(session, "artist@example.com")
    started = await artifacts.create(session=session, actor=user, prompt=LANDING)
    assert started.generating and started.status == "generating" and started.current and started.version == 0
    artifact = await settled(session, user, started.id)
    assert artifact.status == "ready", artifact.error
    assert artifact.version == 1 and artifact.name == "Bean There" and artifact.engine == "offline"
    assert artifact.html_content.lstrip().lower().startswith("<!doctype html>") and "Bean There" in artifact.html_content
    assert artifact.findings == [] and not artifact.generating and artifact.draft is None
    (v1,) = await history_of(session, user, artifact.id)
    assert v1.version == 1 and v1.source == "offline" and v1.prompt == LANDING
    assert v1.changes.startswith("Offline template engine: landing page")
    assert v1.html_content == artifact.html_content
    assert (await row_of(artifact.id)).draft is None
    current = await artifacts.current(session=session, viewer=user)
    assert current is not None and current.id == artifact.id


async def test_an_offline_update_makes_version_two_and_the_diff_shows_it(session):
    user = await make_user(session, "artist@example.com")
    artifact = await created(session, user, "a landing page for a bakery called Crumbs")
    v2 = await updated(session, user, artifact.id, 'rename the title to "Crumbs & Co"')
    assert v2.status == "ready" and v2.version == 2, v2.error
    assert "Crumbs &amp; Co" in v2.html_content and "Crumbs &amp; Co" not in artifact.html_content
    assert v2.name == "Crumbs"  # the name comes from the first version's title only
    newest = (await history_of(session, user, artifact.id))[0]
    assert newest.version == 2 and newest.changes.startswith("Offline template engine: changed the title")
    diff = await artifacts.diff_versions(session=session, viewer=user, artifact_id=artifact.id, from_version=1, to_version=2)
    assert diff.added > 0 and diff.removed > 0
    assert any(line.kind == "added" and "Crumbs &amp; Co" in line.text for line in diff.lines)


async def test_an_update_the_offline_engine_cannot_do_fails_with_its_reason_and_keeps_the_version(session):
    user = await make_user(session, "artist@example.com")
    artifact = await created(session, user)
    after = await updated(session, user, artifact.id, "connect it to a Stripe checkout with webhooks")
    assert after.status == "failed" and after.version == 1 and after.html_content == artifact.html_content
    assert "offline template engine changed nothing" in after.error and "SECDASH_LLM_BASE_URL" in after.error
    assert len(await history_of(session, user, artifact.id)) == 1
    again = await updated(session, user, artifact.id, "make it dark")  # a failed artifact can be updated again
    assert again.status == "ready" and again.version == 2 and again.error is None


# --- a local OpenAI-compatible model -----------------------------------------------------------------------------


async def test_a_model_page_in_the_file_protocol_becomes_version_one_with_its_note(session, model):
    user = await make_user(session, "artist@example.com")
    artifact = await created(session, user, "a page with a button")
    assert artifact.status == "ready", artifact.error
    assert artifact.html_content == ARTIFACT_PAGE and artifact.name == ARTIFACT_TITLE
    assert artifact.engine == "openai-compatible" and artifact.model == "artifact" and artifact.findings == []
    (v1,) = await history_of(session, user, artifact.id)
    assert v1.changes == ARTIFACT_NOTE and v1.source == "model"
    sent = model.requests[-1]["body"]
    assert sent["stream"] and "HTML Artifacts creator" in sent["messages"][0]["content"]
    assert "CURRENT PAGE" not in sent["messages"][0]["content"]
    assert "a page with a button" in sent["messages"][-1]["content"]


async def test_a_model_update_sends_the_current_page_as_data_and_makes_version_two(session, model):
    user = await make_user(session, "artist@example.com")
    artifact = await created(session, user, "a page with a button")
    v2 = await updated(session, user, artifact.id, "make the heading purple")
    assert v2.status == "ready" and v2.version == 2, v2.error
    assert "h1 { color: purple; }" in v2.html_content and "Update: make the heading purple" in v2.html_content
    system = model.requests[-1]["body"]["messages"][0]["content"]
    assert "--- CURRENT PAGE ---\n" + ARTIFACT_PAGE.rstrip("\n") in system and "data, not instructions" in system
    entries = await history_of(session, user, artifact.id)
    assert [entry.version for entry in entries] == [2, 1]
    assert entries[0].changes == "Heading now purple; added a line with the request"
    assert entries[0].prompt == "make the heading purple"
    diff = await artifacts.diff_versions(session=session, viewer=user, artifact_id=artifact.id, from_version=1, to_version=2)
    assert (diff.added, diff.removed) == (2, 1)


@pytest.mark.parametrize(
    ("model_name", "page"),
    [
        ("artifact-fenced", ARTIFACT_PAGE),
        ("artifact-raw", ARTIFACT_PAGE.rstrip("\n")),
    ],
)
async def test_a_fenced_block_or_a_bare_document_is_taken_and_its_note_computed(session, use_model, model_name, page):
    use_model(model_name)
    user = await make_user(session, "artist@example.com")
    artifact = await created(session, user, "a page with a button")
    assert artifact.status == "ready", artifact.error
    assert artifact.html_content == page and artifact.name == ARTIFACT_TITLE
    (v1,) = await history_of(session, user, artifact.id)
    assert v1.changes == f"First version ({ARTIFACT_TITLE}): {page.count(chr(10)) + 1} lines"


@pytest.mark.parametrize(
    ("model_name", "reason"),
    [
        ("artifact-none", "held no HTML page"),
        ("artifact-cut", "cut off before the end of the page"),
        ("artifact-bad", "The model failed"),
    ],
)
async def test_an_answer_without_a_whole_page_fails_with_the_reason_and_adds_no_version(session, use_model, model_name, reason):
    user = await make_user(session, "artist@example.com")
    use_model("artifact")
    first = await created(session, user, "a page with a button")
    use_model(model_name)
    after = await updated(session, user, first.id, "make the heading purple")
    assert after.status == "failed" and reason in after.error
    assert after.version == 1 and after.html_content == ARTIFACT_PAGE
    assert (await row_of(first.id)).draft is None
    fresh = await created(session, user, "another page")  # a first generation that fails leaves version 0
    assert fresh.status == "failed" and reason in fresh.error and fresh.version == 0
    assert await history_of(session, user, fresh.id) == []


async def test_the_review_finds_eval_and_an_inline_secret_and_stores_them_on_the_version(session, use_model):
    use_model("artifact-eval")
    user = await make_user(session, "artist@example.com")
    artifact = await created(session, user, "a page that remembers its settings")
    assert artifact.status == "ready", artifact.error
    messages = [finding.message for finding in artifact.findings]
    assert any("eval" in message for message in messages) and any("AWS" in message for message in messages)
    assert all(finding.check == "scan" and finding.level == "error" for finding in artifact.findings)
    (v1,) = await history_of(session, user, artifact.id)
    assert v1.findings == artifact.findings
    clean = ARTIFACT_PAGE.replace("Written by the test model.", "Cleaned by hand.")
    edited = await artifacts.save_edit(session=session, actor=user, artifact_id=artifact.id, html=clean)
    assert edited.findings == []  # the newest version's findings, not the first one's
    assert (await history_of(session, user, artifact.id))[1].findings == v1.findings


async def test_the_draft_grows_while_the_model_streams_and_is_cleared_at_the_end(session, use_model):
    use_model("artifact-slow")
    user = await make_user(session, "artist@example.com")
    started = await artifacts.create(session=session, actor=user, prompt="a page with a button")
    row = await while_generating(started.id, lambda row: bool(row.draft) and "<title>" in row.draft)
    assert ARTIFACT_PAGE.startswith(row.draft) and len(row.draft) < len(ARTIFACT_PAGE)
    async with session_scope() as fresh:
        seen = await artifacts.get_artifact(session=fresh, viewer=user, artifact_id=started.id)
    assert seen.generating and seen.draft == row.draft and seen.version == 0
    artifact = await settled(session, user, started.id)
    assert artifact.status == "ready" and artifact.html_content == ARTIFACT_PAGE and artifact.draft is None
    assert (await row_of(started.id)).draft is None


async def test_stop_ends_the_generation_without_a_version(session, use_model):
    use_model("artifact-slow")
    user = await make_user(session, "artist@example.com")
    started = await artifacts.create(session=session, actor=user, prompt="a page with a button")
    await while_generating(started.id, lambda row: bool(row.draft))
    await artifacts.stop(session=session, actor=user, artifact_id=started.id)
    artifact = await settled(session, user, started.id)
    assert artifact.status == "failed" and artifact.error == "Stopped" and artifact.version == 0
    assert (await row_of(started.id)).draft is None
    with pytest.raises(Conflict, match="no generation running"):
        await artifacts.stop(session=session, actor=user, artifact_id=started.id)


async def test_a_stop_after_the_last_word_still_adds_no_version(session, monkeypatch):
    """The done-means run: Stop pressed while the offline page was being checked still made the version."""
    from secdash.core.db import session_scope
    from secdash.services.artifacts import generate_job

    user = await make_user(session, "artist@example.com")
    real_review = generate_job.review.review_html

    async def stopped_during_review(page: str):
        async with session_scope() as other:
            row = (await other.exec(select(Artifact).where(Artifact.owner_user_id == user.id))).one()
            await artifacts.stop(session=other, actor=user, artifact_id=row.id)
        return await real_review(page)

    monkeypatch.setattr(generate_job.review, "review_html", stopped_during_review)
    started = await artifacts.create(session=session, actor=user, prompt=LANDING)
    artifact = await settled(session, user, started.id)
    assert (artifact.status, artifact.error, artifact.version) == ("failed", "Stopped", 0)
    assert await history_of(session, user, started.id) == []


async def test_one_generation_at_a_time_per_user_is_decided_by_the_server(session, use_model):
    use_model("artifact-slow")
    user = await make_user(session, "artist@example.com")
    first = await artifacts.create(session=session, actor=user, prompt="a page with a button")
    with pytest.raises(Conflict, match="already being generated"):
        await artifacts.create(session=session, actor=user, prompt="a second page")
    assert [row.id for row in await artifacts.list_artifacts(session=session, viewer=user)] == [first.id]
    for call in (
        artifacts.update_artifact(session=session, actor=user, artifact_id=first.id, prompt="purple"),
        artifacts.save_edit(session=session, actor=user, artifact_id=first.id, html="<p>x</p>"),
        artifacts.delete(session=session, actor=user, artifact_id=first.id),
    ):
        with pytest.raises(Conflict):
            await call
    other = await make_user(session, "other@example.com")
    second = await artifacts.create(session=session, actor=other, prompt="a page with a button")
    assert second.generating
    await artifacts.stop(session=session, actor=other, artifact_id=second.id)
    assert (await settled(session, user, first.id)).status == "ready"
    await settled(session, other, second.id)


# --- versions: history, restore, hand edits, diff ----------------------------------------------------------------


def edited_page(page: str, text: str) -> str:
    return page.replace("</body>", f"<p>{text}</p>\n</body>", 1)


async def three_versions(session, user):
    """An artifact with versions 1 (offline), 2 and 3 (hand edits)."""
    artifact = await created(session, user)
    v2 = edited_page(artifact.html_content, "Second")
    await artifacts.save_edit(session=session, actor=user, artifact_id=artifact.id, html=v2, changes="second line")
    v3 = edited_page(v2, "Third")
    return artifact, await artifacts.save_edit(session=session, actor=user, artifact_id=artifact.id, html=v3)


async def test_history_is_newest_first_with_notes_and_sources(session):
    user = await make_user(session, "artist@example.com")
    first, newest = await three_versions(session, user)
    entries = await history_of(session, user, first.id)
    assert [entry.version for entry in entries] == [3, 2, 1]
    assert [entry.source for entry in entries] == ["edit", "edit", "offline"]
    assert entries[1].changes == "Edited by hand: second line"
    assert entries[0].changes == "Changed +1 -0 lines" and entries[0].prompt == ""
    assert newest.version == 3 and newest.html_content == entries[0].html_content
    one = await artifacts.get_version(session=session, viewer=user, artifact_id=first.id, version="2")
    assert one.html_content == entries[1].html_content
    notes = await artifacts.history_notes(session=session, viewer=user, artifact_id=first.id)  # the list, no HTML
    assert [(n.version, n.changes, n.source) for n in notes] == [(e.version, e.changes, e.source) for e in entries]
    assert "htmlContent" not in notes[0].model_dump(by_alias=True)
    for bad in (0, "x", True, -1, None):
        with pytest.raises(Invalid, match="version number"):
            await artifacts.get_version(session=session, viewer=user, artifact_id=first.id, version=bad)
    with pytest.raises(NotFound, match="no version 9"):
        await artifacts.get_version(session=session, viewer=user, artifact_id=first.id, version=9)


async def test_restore_makes_a_new_version_and_keeps_the_later_ones(session):
    user = await make_user(session, "artist@example.com")
    first, _ = await three_versions(session, user)
    restored = await artifacts.restore(session=session, actor=user, artifact_id=first.id, version=1)
    assert restored.version == 4 and restored.html_content == first.html_content and restored.current
    entries = await history_of(session, user, first.id)
    assert [entry.version for entry in entries] == [4, 3, 2, 1]
    assert entries[0].source == "restore" and entries[0].changes == "Restored version 1"
    assert entries[0].prompt == LANDING  # the restored version's prompt
    assert "Third" in entries[1].html_content  # nothing after it was lost
    with pytest.raises(Invalid, match="already the newest"):
        await artifacts.restore(session=session, actor=user, artifact_id=first.id, version=4)
    with pytest.raises(NotFound):
        await artifacts.restore(session=session, actor=user, artifact_id=first.id, version=7)
    assert len(await history_of(session, user, first.id)) == 4


async def test_a_hand_edit_is_checked_and_bad_ones_change_nothing(session, monkeypatch):
    user = await make_user(session, "artist@example.com")
    artifact = await created(session, user)
    monkeypatch.setattr(limits, "MAX_HTML_BYTES", 10_000)
    for html, message in (
        ("   \n", "empty"),
        (None, "must be text"),
        (42, "must be text"),
        ("x" * 10_001, "too large"),
        ("é" * 5001, "too large"),  # bytes, not characters
        (artifact.html_content, "Nothing changed"),
    ):
        with pytest.raises(Invalid, match=message):
            await artifacts.save_edit(session=session, actor=user, artifact_id=artifact.id, html=html)
    with pytest.raises(Invalid, match="changes is too long"):
        await artifacts.save_edit(
            session=session, actor=user, artifact_id=artifact.id, html="<p>ok</p>", changes="x" * (limits.MAX_CHANGES_CHARS + 1)
        )
    assert len(await history_of(session, user, artifact.id)) == 1
    risky = (
        "<!doctype html>\n<html>\n<head><title>Mine</title></head>\n<body>\n<script>\neval(location.hash);\n"
        "</script>\n</body>\n</html>\n"
    )
    saved = await artifacts.save_edit(session=session, actor=user, artifact_id=artifact.id, html=risky)
    assert saved.version == 2 and saved.html_content == risky and saved.name == "Bean There"
    assert any("eval" in finding.message for finding in saved.findings)
    assert (await history_of(session, user, artifact.id))[0].source == "edit"


async def test_a_diff_between_any_two_versions_in_either_order(session):
    user = await make_user(session, "artist@example.com")
    first, _ = await three_versions(session, user)
    forward = await artifacts.diff_versions(session=session, viewer=user, artifact_id=first.id, from_version=1, to_version=3)
    assert (forward.from_version, forward.to_version, forward.added, forward.removed) == (1, 3, 2, 0)
    assert [line.text for line in forward.lines if line.kind == "added"] == ["<p>Second</p>", "<p>Third</p>"]
    assert forward.unified.startswith("--- v1.html\n+++ v3.html\n@@")
    backward = await artifacts.diff_versions(session=session, viewer=user, artifact_id=first.id, from_version="3", to_version="1")
    assert (backward.added, backward.removed) == (0, 2)
    assert [line.text for line in backward.lines if line.kind == "removed"] == ["<p>Second</p>", "<p>Third</p>"]
    removed = next(line for line in backward.lines if line.kind == "removed")
    assert removed.old_line is not None and removed.new_line is None
    same = await artifacts.diff_versions(session=session, viewer=user, artifact_id=first.id, from_version=2, to_version=2)
    assert (same.added, same.removed, same.lines) == (0, 0, [])
    with pytest.raises(NotFound, match="no version 4"):
        await artifacts.diff_versions(session=session, viewer=user, artifact_id=first.id, from_version=1, to_version=4)


# --- limits and bad input ----------------------------------------------------------------------------------------


async def test_bad_prompts_are_refused_with_a_clear_message_and_change_nothing(session):
    user = await make_user(session, "artist@example.com")
    for prompt, message in (
        ("   ", "Prompt is required"),
        (None, "Prompt is required"),
        (5, "must be text"),
        ("x" * (limits.MAX_PROMPT_CHARS + 1), "too long"),
    ):
        with pytest.raises(Invalid, match=message):
            await artifacts.create(session=session, actor=user, prompt=prompt)
    assert await artifacts.list_artifacts(session=session, viewer=user) == []
    artifact = await created(session, user, "x" * limits.MAX_PROMPT_CHARS)  # at the limit is fine
    with pytest.raises(Invalid, match="Prompt is required"):
        await artifacts.update_artifact(session=session, actor=user, artifact_id=artifact.id, prompt="\n\t ")
    for bad in ("abc", -1, 10**20, None):
        with pytest.raises(Invalid, match="artifactId"):
            await artifacts.get_artifact(session=session, viewer=user, artifact_id=bad)
    assert len(await history_of(session, user, artifact.id)) == 1


async def test_the_artifact_and_version_limits_say_what_to_do(session, monkeypatch):
    user = await make_user(session, "artist@example.com")
    monkeypatch.setattr(artifacts, "MAX_ARTIFACTS", 1)
    artifact = await created(session, user)
    with pytest.raises(Invalid, match="the limit: delete some"):
        await artifacts.create(session=session, actor=user, prompt="a form")
    assert len(await artifacts.list_artifacts(session=session, viewer=user)) == 1
    other = await make_user(session, "other@example.com")  # the limit is per user
    await created(session, other)
    monkeypatch.setattr(versions, "MAX_VERSIONS", 2)
    await artifacts.save_edit(
        session=session, actor=user, artifact_id=artifact.id, html=edited_page(artifact.html_content, "Two")
    )
    for call in (
        artifacts.update_artifact(session=session, actor=user, artifact_id=artifact.id, prompt="make it dark"),
        artifacts.save_edit(session=session, actor=user, artifact_id=artifact.id, html="<p>three</p>"),
        artifacts.restore(session=session, actor=user, artifact_id=artifact.id, version=1),
    ):
        with pytest.raises(Invalid, match="2 versions, the limit: create a new artifact"):
            await call
    assert len(await history_of(session, user, artifact.id)) == 2
    assert (await artifacts.get_artifact(session=session, viewer=user, artifact_id=artifact.id)).status == "ready"


async def test_a_generated_page_over_the_size_limit_fails_and_adds_no_version(session, monkeypatch):
    monkeypatch.setattr(generate_job, "MAX_HTML_BYTES", 500)
    user = await make_user(session, "artist@example.com")
    artifact = await created(session, user)
    assert artifact.status == "failed" and "limit of one version" in artifact.error and artifact.version == 0


# --- ownership ---------------------------------------------------------------------------------------------------


async def test_someone_elses_artifact_does_not_exist_for_you_even_as_an_admin(session):
    owner = await make_user(session, "owner@example.com")
    artifact, _ = await three_versions(session, owner)
    auth_token = await sign_in(session, "owner@example.com")
    for email, role in (("other@example.com", "limited"), ("root@example.com", "admin")):
        viewer = await make_user(session, email, role=role)
        viewer_token = await sign_in(session, email)
        aid = artifact.id
        calls = [
            artifacts.get_artifact(session=session, viewer=viewer, artifact_id=aid),
            artifacts.history(session=session, viewer=viewer, artifact_id=aid),
            artifacts.get_version(session=session, viewer=viewer, artifact_id=aid, version=1),
            artifacts.update_artifact(session=session, actor=viewer, artifact_id=aid, prompt="make it dark"),
            artifacts.stop(session=session, actor=viewer, artifact_id=aid),
            artifacts.open_artifact(session=session, actor=viewer, artifact_id=aid),
            artifacts.delete(session=session, actor=viewer, artifact_id=aid),
            artifacts.save_edit(session=session, actor=viewer, artifact_id=aid, html="<p>mine now</p>"),
            artifacts.restore(session=session, actor=viewer, artifact_id=aid, version=1),
            artifacts.diff_versions(session=session, viewer=viewer, artifact_id=aid, from_version=1, to_version=2),
            artifacts.owned(session, viewer, aid),
            downloads.version_file(session=session, viewer=viewer, artifact_id=aid),
            downloads.all_versions_zip(session=session, viewer=viewer, artifact_id=aid),
            preview.preview_url(session=session, viewer=viewer, artifact_id=aid, auth_token=viewer_token),
        ]
        for call in calls:
            with pytest.raises(NotFound, match=f"Artifact #{aid} not found"):
                await call
        assert await artifacts.list_artifacts(session=session, viewer=viewer) == []
        assert await artifacts.summaries(session=session, viewer=viewer) == []
        assert await artifacts.current(session=session, viewer=viewer) is None
        await artifacts.close(session=session, actor=viewer)  # closes only the viewer's (none)
    mine = await artifacts.get_artifact(session=session, viewer=owner, artifact_id=artifact.id)
    assert mine.version == 3 and mine.current
    assert len(await history_of(session, owner, artifact.id)) == 3
    assert await preview.preview_url(session=session, viewer=owner, artifact_id=artifact.id, auth_token=auth_token)


async def test_open_close_list_and_delete(session):
    user = await make_user(session, "artist@example.com")
    first = await created(session, user)
    second = await created(session, user, "a snake game")
    listed = await artifacts.summaries(session=session, viewer=user)
    assert [(row.id, row.current) for row in listed] == [(second.id, True), (first.id, False)]
    assert [row.name for row in await artifacts.list_artifacts(session=session, viewer=user)] == ["Snake", "Bean There"]
    opened = await artifacts.open_artifact(session=session, actor=user, artifact_id=first.id)
    assert opened.current and (await artifacts.current(session=session, viewer=user)).id == first.id
    await artifacts.close(session=session, actor=user)
    assert await artifacts.current(session=session, viewer=user) is None
    assert len(await artifacts.summaries(session=session, viewer=user)) == 2  # closing keeps them
    await artifacts.delete(session=session, actor=user, artifact_id=first.id)
    assert [row.id for row in await artifacts.summaries(session=session, viewer=user)] == [second.id]
    with pytest.raises(NotFound):
        await artifacts.history(session=session, viewer=user, artifact_id=first.id)


async def test_delete_removes_the_versions_before_the_artifact(session):
    """The ORM knows no order between the two tables: deleting the artifact first let the database's cascade take
    the versions, and the ORM's own delete of them then matched no row (an SAWarning on every delete)."""
    user = await make_user(session, "artist@example.com")
    artifact, _ = await three_versions(session, user)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SAWarning)
        await artifacts.delete(session=session, actor=user, artifact_id=artifact.id)
    remaining = (await session.exec(select(ArtifactVersion).where(ArtifactVersion.artifact_id == artifact.id))).all()
    assert remaining == [] and await session.get(Artifact, artifact.id) is None


async def test_a_generation_interrupted_by_a_restart_reads_as_failed(session):
    user = await make_user(session, "artist@example.com")
    artifact = await created(session, user)
    row = await session.get(Artifact, artifact.id)
    row.draft = "<!doctype html><p>half"  # as a worker that died mid-generation leaves it
    session.add(row)
    job = await session.get(Job, row.job_id)
    assert job is not None and job.status == "done"
    await session.commit()
    await worker_died(session, row.job_id)  # its job still said running; the reaper has found it since
    read = await artifacts.get_artifact(session=session, viewer=user, artifact_id=artifact.id)
    assert read.status == "failed" and read.error == INTERRUPTED and not read.generating
    assert read.version == 1 and read.html_content == artifact.html_content
    assert (await row_of(artifact.id)).draft is None
    row = await session.get(Artifact, artifact.id)
    row.status, row.job_id = ArtifactStatus.generating, None  # no job at all
    session.add(row)
    await session.commit()
    current = await artifacts.current(session=session, viewer=user)
    assert current is not None and current.status == "failed" and current.error == INTERRUPTED
    again = await updated(session, user, artifact.id, "make it dark")
    assert again.status == "ready" and again.version == 2


async def test_reading_an_artifact_whose_generation_died_writes_nothing(session):
    """Before the reaper closes it, an artifact whose job was interrupted reads as failed, derived from its job:
    the artifact, the open one, the lists and the page's read happen without a single write."""
    user = await make_user(session, "artist@example.com")
    artifact = await created(session, user)
    row = await session.get(Artifact, artifact.id)
    row.draft = "<!doctype html><p>half"
    session.add(row)
    await session.commit()
    updated_at = row.updated_at
    await worker_died(session, row.job_id, reaped=False)
    with Writes(session) as writes:
        read = await artifacts.get_artifact(session=session, viewer=user, artifact_id=artifact.id)
        current = await artifacts.current(session=session, viewer=user)
        listed = await artifacts.list_artifacts(session=session, viewer=user)
        recent = await artifacts.summaries(session=session, viewer=user)
        page = await read_artifacts(session=session, viewer=user)
    assert (read.status, read.error, read.generating, read.draft) == ("failed", INTERRUPTED, False, None)
    assert read.version == 1 and read.html_content == artifact.html_content
    assert current is not None and (current.status, current.error) == ("failed", INTERRUPTED)
    assert [item.status for item in listed] == ["failed"] and [item.status for item in recent] == ["failed"]
    assert page.current is not None and page.current.status == "failed"
    assert writes == []
    stored = await row_of(artifact.id)
    assert (stored.status, stored.draft, stored.updated_at) == ("ready", "<!doctype html><p>half", updated_at)


# --- downloads ---------------------------------------------------------------------------------------------------


async def rename(artifact_id: int, name: str) -> None:
    async with session_scope() as fresh:
        row = await fresh.get(Artifact, artifact_id)
        row.name = name
        fresh.add(row)
        await fresh.commit()


@pytest.mark.parametrize(
    ("name", "file_name"),
    [
        ("My  Page\t2", "My__Page_2_v3.html"),
        ('a/b\\c:d*e?f"g<h>i|j', "abcdefghij_v3.html"),
        ("Ünïcode page", "Ünïcode_page_v3.html"),
        ("..hidden.", "hidden_v3.html"),
        ("/:*?", "artifact_v3.html"),
    ],
)
async def test_a_download_has_the_spec_file_name(session, name, file_name):
    user = await make_user(session, "artist@example.com")
    artifact, newest = await three_versions(session, user)
    await rename(artifact.id, name)
    session.expire_all()
    got_name, body = await downloads.version_file(session=session, viewer=user, artifact_id=artifact.id)
    assert (got_name, body.decode()) == (file_name, newest.html_content)
    first = await downloads.version_file(session=session, viewer=user, artifact_id=artifact.id, version=1)
    assert first == (file_name.replace("_v3.", "_v1."), artifact.html_content.encode())
    with pytest.raises(NotFound):
        await downloads.version_file(session=session, viewer=user, artifact_id=artifact.id, version=4)


async def test_the_zip_holds_every_version(session):
    user = await make_user(session, "artist@example.com")
    artifact, _ = await three_versions(session, user)
    await rename(artifact.id, "My Page")
    session.expire_all()
    name, body = await downloads.all_versions_zip(session=session, viewer=user, artifact_id=artifact.id)
    assert name == "My_Page_versions.zip"
    expected = {
        f"My_Page_versions/My_Page_v{entry.version}.html": entry.html_content
        for entry in await history_of(session, user, artifact.id)
    }
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        assert {entry: archive.read(entry).decode() for entry in archive.namelist()} == expected
    assert len(expected) == 3


async def test_an_artifact_without_a_version_has_nothing_to_download_or_preview(session, use_model):
    use_model("artifact-none")
    user = await make_user(session, "artist@example.com")
    artifact = await created(session, user)
    auth_token = await sign_in(session, "artist@example.com")
    for call in (
        downloads.version_file(session=session, viewer=user, artifact_id=artifact.id),
        downloads.all_versions_zip(session=session, viewer=user, artifact_id=artifact.id),
        preview.preview_url(session=session, viewer=user, artifact_id=artifact.id, auth_token=auth_token),
    ):
        with pytest.raises(NotFound, match="No HTML yet"):
            await call


# --- preview links -----------------------------------------------------------------------------------------------


@pytest.fixture
def clean_projects():
    yield
    import shutil

    shutil.rmtree(project_dir.projects_dir(), ignore_errors=True)


def token_of(url: str) -> str:
    assert url.startswith("/preview/") and url.endswith("/index.html")
    return url.split("/")[2]


async def test_a_version_link_serves_that_versions_html_and_nothing_else(session):
    user = await make_user(session, "artist@example.com")
    artifact, newest = await three_versions(session, user)
    auth_token = await sign_in(session, "artist@example.com")
    one = token_of(
        await preview.preview_url(session=session, viewer=user, artifact_id=artifact.id, version=1, auth_token=auth_token)
    )
    latest = token_of(await preview.preview_url(session=session, viewer=user, artifact_id=artifact.id, auth_token=auth_token))
    assert await preview_files.preview_file(session=session, token=one, path="index.html") == (
        "text/html",
        artifact.html_content.encode(),
    )
    for path in ("index.html", "./index.html", ""):
        assert await preview_files.preview_file(session=session, token=latest, path=path) == (
            "text/html",
            newest.html_content.encode(),
        )
    for path in ("style.css", "app.js", "../index.html", "a/index.html", "/etc/passwd", "index.htm"):
        with pytest.raises(NotFound):
            await preview_files.preview_file(session=session, token=one, path=path)
    with pytest.raises(NotFound, match="no version 8"):
        await preview.preview_url(session=session, viewer=user, artifact_id=artifact.id, version=8, auth_token=auth_token)
    await artifacts.delete(session=session, actor=user, artifact_id=artifact.id)
    with pytest.raises(NotFound, match="no longer exists"):
        await preview_files.preview_file(session=session, token=one, path="index.html")


async def test_expired_forged_and_foreign_links_are_not_found(session, settings):
    user = await make_user(session, "artist@example.com")
    artifact = await created(session, user)
    auth_token = await sign_in(session, "artist@example.com")
    token = token_of(await preview.preview_url(session=session, viewer=user, artifact_id=artifact.id, auth_token=auth_token))
    assert (await preview_files.preview_file(session=session, token=token, path="index.html"))[1]
    target = {"aid": artifact.id, "v": 1}
    expired = token_of(preview_links.make_link(viewer=user, auth_token=auth_token, target=target, ttl=-timedelta(minutes=1)))
    for bad in (token[:-2] + "xx", "not-a-token", "", expired):
        with pytest.raises(NotFound, match="expired or is not valid"):
            await preview_files.preview_file(session=session, token=bad, path="index.html")
    # someone else's link naming this artifact: signed properly, but the artifact is not theirs
    other = await make_user(session, "other@example.com")
    other_token = await sign_in(session, "other@example.com")
    foreign = token_of(preview_links.make_link(viewer=other, auth_token=other_token, target=target))
    with pytest.raises(NotFound, match="no longer exists"):
        await preview_files.preview_file(session=session, token=foreign, path="index.html")
    # a link made in another sign-in session of the owner stops with that session
    await auth.logout(session=session, settings=settings, token=auth_token)
    with pytest.raises(NotFound, match="expired"):
        await preview_files.preview_file(session=session, token=token, path="index.html")
    with pytest.raises(NotFound, match="Sign in again"):
        await preview.preview_url(session=session, viewer=user, artifact_id=artifact.id, auth_token="forged")
    dead = token_of(
        await preview.preview_url(session=session, viewer=user, artifact_id=artifact.id, auth_token=auth_token)
    )  # made with the ended session's token
    with pytest.raises(NotFound, match="expired"):
        await preview_files.preview_file(session=session, token=dead, path="index.html")


async def test_a_builder_link_still_serves_its_project_files(session, clean_projects):
    user = await make_user(session, "artist@example.com")
    started = await projects.build(session=session, actor=user, prompt="a landing page")
    job_id = (await session.exec(select(CodeProject.job_id).where(CodeProject.id == started.id))).one()
    await runner.wait_for(job_id, timeout=90)
    session.expire_all()
    project = await projects.get_project(session=session, viewer=user, project_id=started.id)
    assert project.status == "complete", project.error
    auth_token = await sign_in(session, "artist@example.com")
    token = token_of(
        await project_preview.preview_url(session=session, viewer=user, project_id=project.id, auth_token=auth_token)
    )
    files = {file.filename: file.content for file in project.files}
    assert await preview_files.preview_file(session=session, token=token, path="index.html") == (
        "text/html",
        files["index.html"].encode(),
    )
    css = next(path for path in files if path.endswith(".css"))
    assert await preview_files.preview_file(session=session, token=token, path=css) == ("text/css", files[css].encode())
    with pytest.raises(NotFound):
        await preview_files.preview_file(session=session, token=token, path="missing.js")
