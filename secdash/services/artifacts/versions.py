"""Versions of an artifact: adding one (the artifact then shows it), the note of what changed, the line diff of
two versions, and the page title that names an artifact."""

from __future__ import annotations

import difflib
import html as html_lib
import re
from typing import Any

from sqlalchemy import func
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import utcnow
from secdash.models.artifacts import Artifact, ArtifactStatus, ArtifactVersion, VersionSource
from secdash.models.artifacts_public import ArtifactDiffPublic, DiffLinePublic
from secdash.services.artifacts.limits import MAX_CHANGES_CHARS, MAX_VERSIONS, NAME_CHARS
from secdash.services.artifacts.records import topic_of
from secdash.services.errors import Invalid
from secdash.services.unit import mark_changed

DIFF_ROWS = 2000  # rows of a diff answered; beyond them the diff is cut (`truncated`)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def short_name(text: str) -> str:
    """At most NAME_CHARS characters, cut at a word."""
    words = " ".join(text.split())
    return words if len(words) <= NAME_CHARS else words[: NAME_CHARS - 1].rsplit(" ", 1)[0] + "…"


def title_of(page: str) -> str:
    """The page's <title> text (plain, shortened), or ""."""
    found = _TITLE.search(page)
    return short_name(html_lib.unescape(re.sub(r"<[^>]*>", "", found.group(1)))) if found else ""


def counts(before: str, after: str) -> tuple[int, int]:
    """Lines added and removed from `before` to `after`."""
    added = removed = 0
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def change_note(before: str, after: str) -> str:
    """What changed, computed from the HTML when no note was given."""
    if not before:
        lines = after.count("\n") + 1
        title = title_of(after)
        return f"First version{f' ({title})' if title else ''}: {lines} lines"
    if before == after:
        return "No change to the HTML"
    added, removed = counts(before, after)
    parts = [f"+{added} -{removed} lines"]
    old_title, new_title = title_of(before), title_of(after)
    if new_title and new_title != old_title:
        parts.append(f'title now "{new_title}"')
    return "Changed " + ", ".join(parts)


def diff(before: str, after: str, from_version: int, to_version: int) -> ArtifactDiffPublic:
    """The line diff of two versions (unified, and as rows with old/new line numbers)."""
    unified = list(difflib.unified_diff(before.splitlines(), after.splitlines(), f"v{from_version}.html",
                                        f"v{to_version}.html", lineterm="", n=3))
    rows: list[DiffLinePublic] = []
    added = removed = 0
    old = new = 0
    for line in unified:
        if line.startswith(("---", "+++")):
            continue
        if hunk := _HUNK.match(line):
            old, new = int(hunk.group(1)), int(hunk.group(2))
            row = DiffLinePublic(kind="hunk", text=line, old_line=None, new_line=None)
        elif line.startswith("+"):
            added += 1
            row = DiffLinePublic(kind="added", text=line[1:], old_line=None, new_line=new)
            new += 1
        elif line.startswith("-"):
            removed += 1
            row = DiffLinePublic(kind="removed", text=line[1:], old_line=old, new_line=None)
            old += 1
        else:
            row = DiffLinePublic(kind="context", text=line[1:], old_line=old, new_line=new)
            old, new = old + 1, new + 1
        rows.append(row)
    return ArtifactDiffPublic(from_version=from_version, to_version=to_version, added=added, removed=removed,
                              unified="\n".join(unified), lines=rows[:DIFF_ROWS], truncated=len(rows) > DIFF_ROWS)


async def count(session: AsyncSession, artifact_id: int) -> int:
    query = select(func.count()).select_from(ArtifactVersion).where(ArtifactVersion.artifact_id == artifact_id)
    return int((await session.exec(query)).one())


async def room_for_one_more(session: AsyncSession, artifact: Artifact) -> None:
    assert artifact.id is not None
    if await count(session, artifact.id) >= MAX_VERSIONS:
        raise Invalid(f"Artifact #{artifact.id} has {MAX_VERSIONS} versions, the limit: create a new artifact "
                      "(download this one's versions first if you need them)")


async def find(session: AsyncSession, artifact_id: int, version: int) -> ArtifactVersion | None:
    query = select(ArtifactVersion).where(ArtifactVersion.artifact_id == artifact_id,
                                          ArtifactVersion.version == version)
    return (await session.exec(query)).first()


async def add(session: AsyncSession, artifact: Artifact, *, page: str, prompt: str, source: VersionSource,
              findings: list[dict[str, Any]], changes: str = "") -> ArtifactVersion:
    """The next version, made the artifact's content (written with the caller's commit). The first version
    names the artifact after its page title when it has one."""
    assert artifact.id is not None
    note = " ".join(changes.split())[:MAX_CHANGES_CHARS] or change_note(artifact.html_content, page)
    row = ArtifactVersion(artifact_id=artifact.id, version=artifact.version + 1, html_content=page,
                          changes=note, prompt=prompt, source=source, findings=findings)
    session.add(row)
    if artifact.version == 0 and (title := title_of(page)):
        artifact.name = title
    artifact.version, artifact.html_content = row.version, page
    artifact.status, artifact.draft, artifact.error = ArtifactStatus.ready, None, None
    artifact.updated_at = utcnow()
    session.add(artifact)
    mark_changed(session, topic_of(artifact.owner_user_id))
    return row
