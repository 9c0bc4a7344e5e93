"""The "artifact" job: generate an artifact's next version, streaming the page into the artifact as it comes.

The model (or the offline engine) answers with one line `Changes: ...` and the page, as the file `index.html`
or one ```html fenced block; a reply with neither but a whole document in its text (`<!doctype html>` ...
`</html>`) is taken too. The HTML streamed so far is saved in the artifact's `draft` (at most every
FLUSH_EVERY_SECONDS, pushed to every open page). When the page is complete it is checked
(services/artifacts/review.py) and becomes the next version; a reply with no HTML, one cut off, one over the
size limit, a model error or a stop end the generation as failed with the reason, and no version is added.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from secdash.ai.base import FileContent, FileEnd, FileStart, LLMError, TextDelta
from secdash.ai.tasks.html_artifact import CHANGES_PREFIX, PAGE, HtmlArtifactTask
from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.unit import commit, mark_changed
from secdash.jobs import JobContext, JobEnding, register
from secdash.models import User, UserPublic, utcnow
from secdash.models.artifacts import Artifact, ArtifactStatus, VersionSource
from secdash.services import storage
from secdash.services.agents import ai_calls
from secdash.services.artifacts import review, versions
from secdash.services.artifacts.limits import MAX_HTML_BYTES, size_text
from secdash.services.artifacts.records import CRASHED, INTERRUPTED, KIND, TOPIC, topic_of
from secdash.services.errors import DomainError, Invalid

log = logging.getLogger(__name__)

FLUSH_EVERY_SECONDS = 0.25
NO_HTML = "The answer held no HTML page (neither the file index.html, nor a ```html block, nor a whole <!doctype html> document)"
_DOCUMENT = re.compile(r"(?is)(<!doctype html.*?</html\s*>|<html[\s>].*?</html\s*>)")


class GenerationFailed(Exception):
    """The generation cannot go on; the message is the artifact's error and the "Generation Failed" toast."""


async def _set(artifact_id: int, **fields: Any) -> None:
    async with session_scope() as session:
        artifact = await session.get(Artifact, artifact_id)
        if artifact is None:
            raise GenerationFailed(f"Artifact #{artifact_id} no longer exists")
        for name, value in fields.items():
            setattr(artifact, name, value)
        artifact.updated_at = utcnow()
        session.add(artifact)
        mark_changed(session, topic_of(artifact.owner_user_id))
        await commit(session)


def note_of(text: str) -> str:
    """The `Changes: ...` line of the text outside the page ("" without one)."""
    for line in text.splitlines():
        line = line.strip().strip("*_ ")
        if line.lower().startswith(CHANGES_PREFIX.lower()):
            return line[len(CHANGES_PREFIX) :].strip().strip("*_ ")
    return ""


class PageWriter:
    """Collects the page from file events (the first complete index.html wins), saving the draft as it grows."""

    def __init__(self, artifact_id: int) -> None:
        self.artifact_id = artifact_id
        self.buffer: list[str] = []
        self.size = 0
        self.writing = False
        self.page: str | None = None  # the finished page
        self.cut = False  # the answer ended inside the page
        self.saved_at = 0.0

    async def save_draft(self) -> None:
        await _set(self.artifact_id, draft="".join(self.buffer))
        self.saved_at = time.monotonic()

    async def start(self, path: str) -> None:
        if self.page is not None or path != PAGE:
            return
        self.writing, self.buffer, self.size = True, [], 0
        await self.save_draft()

    async def append(self, text: str) -> None:
        if not self.writing:
            return
        self.buffer.append(text)
        self.size += len(text.encode())
        if self.size > MAX_HTML_BYTES:
            raise GenerationFailed(f"The page grew past {size_text(MAX_HTML_BYTES)}, the limit of one version")
        if time.monotonic() - self.saved_at >= FLUSH_EVERY_SECONDS:
            await self.save_draft()

    async def end(self, complete: bool) -> None:
        if not self.writing:
            return
        self.writing = False
        if complete:
            self.page = "".join(self.buffer)
        else:
            self.cut = True
        await self.save_draft()


async def _generate(ctx: JobContext, calls: ai_calls.AICalls, artifact_id: int, task: HtmlArtifactTask) -> tuple[str, str]:
    """(page, the model's change note) of the answer."""
    writer = PageWriter(artifact_id)
    text: list[str] = []
    async for event in calls.stream(task):
        if await ctx.should_stop():
            raise GenerationFailed("Stopped")
        if isinstance(event, FileStart):
            await writer.start(event.path)
        elif isinstance(event, FileContent):
            await writer.append(event.text)
        elif isinstance(event, FileEnd):
            await writer.end(event.complete)
        elif isinstance(event, TextDelta) and sum(map(len, text)) < MAX_HTML_BYTES:
            text.append(event.text)
    outside = "".join(text)
    page = writer.page
    if page is None and (found := _DOCUMENT.search(outside)):
        page = found.group(1)
    if page is None:
        raise GenerationFailed("The answer was cut off before the end of the page" if writer.cut else NO_HTML)
    if not page.strip():
        raise GenerationFailed("The answer's page is empty")
    if len(page.encode()) > MAX_HTML_BYTES:
        raise GenerationFailed(f"The page is larger than {size_text(MAX_HTML_BYTES)}, the limit of one version")
    return page, note_of(outside)


async def _owner(user_id: int | None) -> UserPublic:
    async with session_scope() as session:
        user = await session.get(User, user_id) if user_id else None
        if user is None:
            raise GenerationFailed("The artifact's owner no longer exists")
        return UserPublic.from_user(user)


async def _run(ctx: JobContext, artifact_id: int, prompt: str, mode: str) -> dict[str, Any]:
    async with session_scope() as session:
        artifact = await session.get(Artifact, artifact_id)
        if artifact is None:
            raise GenerationFailed(f"Artifact #{artifact_id} no longer exists")
        current, name = (artifact.html_content if mode == "update" else ""), artifact.name
    owner = await _owner(ctx.owner_user_id)
    calls = ai_calls.for_user(settings=get_settings(), user=owner, feature="code_artifacts", agent="general")
    await _set(artifact_id, engine=calls.name[:32], model=calls.model[:100])
    await ctx.progress(force=True, phase="generating")
    try:
        page, note = await _generate(ctx, calls, artifact_id, HtmlArtifactTask(prompt=prompt, current=current, name=name))
    except LLMError as exc:
        if calls.name == "offline":  # what the offline engine cannot do, in its own words
            raise GenerationFailed(exc.message) from None
        raise
    await ctx.progress(force=True, phase="checking")
    findings = await review.review_html(page)
    if await ctx.should_stop(max_age=0):  # a stop that came after the last streamed word: no version
        raise GenerationFailed("Stopped")
    async with session_scope() as session:
        artifact = await session.get(Artifact, artifact_id)
        if artifact is None:
            raise GenerationFailed(f"Artifact #{artifact_id} no longer exists")
        try:
            await storage.ensure_room(session, artifact.owner_user_id, len(page.encode()))
        except Invalid as exc:
            raise GenerationFailed(exc.message) from None
        source = VersionSource.offline if calls.name == "offline" else VersionSource.model
        row = await versions.add(session, artifact, page=page, prompt=prompt, source=source, findings=findings, changes=note)
        await commit(session)
        return {"artifactId": artifact_id, "version": row.version, "findings": len(findings)}


async def _fail(artifact_id: int, reason: str) -> None:
    async with session_scope() as session:
        artifact = await session.get(Artifact, artifact_id)
        if artifact is not None:
            artifact.status, artifact.error, artifact.draft = ArtifactStatus.failed, reason[:1000], None
            artifact.updated_at = utcnow()
            session.add(artifact)
            mark_changed(session, topic_of(artifact.owner_user_id))
            await commit(session)


async def _ended(ending: JobEnding) -> None:
    """The job ended without the generation closing its artifact (a crash, the server stopping, a lost worker)."""
    reason = INTERRUPTED if ending.status == "interrupted" else CRASHED
    await _fail(int(ending.params["artifactId"]), reason)


@register(KIND, topic=TOPIC, owner_topic=topic_of, on_end=_ended)
async def run_generation(ctx: JobContext) -> dict[str, Any]:
    artifact_id = int(ctx.params["artifactId"])
    prompt, mode = str(ctx.params.get("prompt", "")), str(ctx.params.get("mode", "create"))
    try:
        return await _run(ctx, artifact_id, prompt, mode)
    except GenerationFailed as exc:
        await _fail(artifact_id, str(exc))
        return {"artifactId": artifact_id, "error": str(exc)}
    except LLMError as exc:
        await _fail(artifact_id, f"The model failed: {exc.message}")
        return {"artifactId": artifact_id, "error": exc.message}
    except DomainError as exc:  # the user's AI budget
        await _fail(artifact_id, exc.message)
        return {"artifactId": artifact_id, "error": exc.message}
