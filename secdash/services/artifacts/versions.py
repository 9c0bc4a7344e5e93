"""Versions of an artifact: adding one (the artifact then shows it), the note of what changed, the line diff of
two versions, and the page title that names an artifact."""

from __future__ import annotations

import html as html_lib
import re
from typing import Any

from sqlalchemy import func
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import mark_changed
from secdash.models import utcnow
from secdash.models.artifacts import Artifact, ArtifactStatus, ArtifactVersion, VersionSource
from secdash.models.artifacts_public import ArtifactDiffPublic, DiffLinePublic
from secdash.services.artifacts.limits import MAX_CHANGES_CHARS, MAX_VERSIONS, NAME_CHARS
from secdash.services.artifacts.records import topic_of
from secdash.services.diff.compute import line_diff
from secdash.services.errors import DomainError, Invalid

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def short_name(text: str) -> str:
    """At most NAME_CHARS characters, cut at a word."""
    words = " ".join(text.split())
    return words if len(words) <= NAME_CHARS else words[: NAME_CHARS - 1].rsplit(" ", 1)[0] + "…"


def title_of(page: str) -> str:
    """The page's <title> text (plain, shortened), or ""."""
    found = _TITLE.search(page)
    return short_name(html_lib.unescape(re.sub(r"<[^>]*>", "", found.group(1)))) if found else ""


async def change_note(before: str, after: str, *, owner: int | None = None) -> str:
    """What changed, computed from the HTML when no note was given (the line counts come from a bounded diff)."""
    if not before:
        lines = after.count("\n") + 1
        title = title_of(after)
        return f"First version{f' ({title})' if title else ''}: {lines} lines"
    if before == after:
        return "No change to the HTML"
    try:
        changed = await line_diff(before, after, context=0, max_rows=0, owner=owner)
        parts = [f"+{changed.added} -{changed.removed} lines"]
    except DomainError:  # too large to compare, or busy: the note says so rather than holding the save
        parts = ["too large to count the lines that changed"]
    old_title, new_title = title_of(before), title_of(after)
    if new_title and new_title != old_title:
        parts.append(f'title now "{new_title}"')
    return "Changed " + ", ".join(parts)


async def diff(before: str, after: str, from_version: int, to_version: int, *, owner: int | None = None) -> ArtifactDiffPublic:
    """The line diff of two versions (unified, and as rows with old/new line numbers), at most DIFF_ROWS rows."""
    found = await line_diff(before, after, from_name=f"v{from_version}.html", to_name=f"v{to_version}.html", owner=owner)
    rows = [DiffLinePublic(kind=row.kind, text=row.text, old_line=row.old_line, new_line=row.new_line) for row in found.rows]
    return ArtifactDiffPublic(
        from_version=from_version,
        to_version=to_version,
        added=found.added,
        removed=found.removed,
        unified=found.unified,
        lines=rows,
        truncated=found.truncated,
    )


async def count(session: AsyncSession, artifact_id: int) -> int:
    query = select(func.count()).select_from(ArtifactVersion).where(ArtifactVersion.artifact_id == artifact_id)
    return int((await session.exec(query)).one())


async def room_for_one_more(session: AsyncSession, artifact: Artifact) -> None:
    assert artifact.id is not None
    if await count(session, artifact.id) >= MAX_VERSIONS:
        raise Invalid(
            f"Artifact #{artifact.id} has {MAX_VERSIONS} versions, the limit: create a new artifact "
            "(download this one's versions first if you need them)"
        )


async def find(session: AsyncSession, artifact_id: int, version: int) -> ArtifactVersion | None:
    query = select(ArtifactVersion).where(ArtifactVersion.artifact_id == artifact_id, ArtifactVersion.version == version)
    return (await session.exec(query)).first()


async def add(
    session: AsyncSession,
    artifact: Artifact,
    *,
    page: str,
    prompt: str,
    source: VersionSource,
    findings: list[dict[str, Any]],
    changes: str = "",
) -> ArtifactVersion:
    """The next version, made the artifact's content (written with the caller's commit). The first version
    names the artifact after its page title when it has one."""
    assert artifact.id is not None
    note = " ".join(changes.split())[:MAX_CHANGES_CHARS] or await change_note(
        artifact.html_content, page, owner=artifact.owner_user_id
    )
    row = ArtifactVersion(
        artifact_id=artifact.id,
        version=artifact.version + 1,
        html_content=page,
        changes=note,
        prompt=prompt,
        source=source,
        findings=findings,
    )
    session.add(row)
    if artifact.version == 0 and (title := title_of(page)):
        artifact.name = title
    artifact.version, artifact.html_content = row.version, page
    artifact.status, artifact.draft, artifact.error = ArtifactStatus.ready, None, None
    artifact.updated_at = utcnow()
    session.add(artifact)
    mark_changed(session, topic_of(artifact.owner_user_id))
    return row
