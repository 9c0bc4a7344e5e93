"""Writing a build's files as the model streams them: each file is created or reset when it starts, saved while it
is written (at most every FLUSH_EVERY_SECONDS, so every open page sees it grow), and finished when it ends; the
project's limits on file count and size end the build with a clear reason, and a tool file is refused."""

from __future__ import annotations

import time

from secdash.ai.files import tool_file_reason
from secdash.ai.plans import ProjectPlan
from secdash.core.db import session_scope
from secdash.core.unit import commit, mark_changed
from secdash.jobs import store
from secdash.models import utcnow
from secdash.models.builder import BuildLogType, CodeProject, FileChange, ProjectFile
from secdash.models.jobs import JobLevel
from secdash.services.builder import project_dir
from secdash.services.builder.limits import (
    MAX_FILE_BYTES,
    MAX_FILES,
    MAX_LOG_CHARS,
    MAX_TOTAL_BYTES,
    size_text,
)
from secdash.services.builder.records import file_of, topic_of
from secdash.services.diff.compute import line_diff
from secdash.services.errors import DomainError

FLUSH_EVERY_SECONDS = 0.25  # a file being written is saved (and shown) at most this often
DIFF_LINES_LOGGED = 40


class BuildFailed(Exception):
    """The build cannot go on; the message is shown in the log and as the project's error."""


async def log_line(job_id: int, project_id: int, message: str, kind: BuildLogType = BuildLogType.info) -> None:
    """A line of the build job's log (none once the project is gone)."""
    async with session_scope() as session:
        if await session.get(CodeProject, project_id) is not None:
            await store.add_log(session, job_id, message, JobLevel(kind.value), max_chars=MAX_LOG_CHARS)
            await commit(session)


class FileWriter:
    """Turns file events into project files: created or reset at FileStart, saved while written (at most every
    FLUSH_EVERY_SECONDS), finished at FileEnd; limits on count and size end the build with a clear reason."""

    def __init__(self, job_id: int, project: CodeProject, existing: dict[str, str], plan: ProjectPlan | None) -> None:
        assert project.id is not None
        self.job_id = job_id
        self.project_id = project.id
        self.owner_id = project.owner_user_id
        self.existing = existing
        self.described = {item.path: item.description for item in plan.files} if plan else {}
        self.written: dict[str, str] = {}  # finished files of this answer
        self.path: str | None = None
        self.buffer: list[str] = []
        self.size = 0
        self.saved_at = 0.0

    @property
    def total_bytes(self) -> int:
        files = {**self.existing, **self.written}
        return sum(len(text.encode()) for text in files.values()) + self.size

    async def _save(self, *, complete: bool, final: bool = False) -> None:
        assert self.path is not None
        content = "".join(self.buffer)
        async with session_scope() as session:
            file = await file_of(session, self.project_id, self.path)
            if file is None:
                file = ProjectFile(
                    project_id=self.project_id,
                    filename=self.path,
                    language=project_dir.language_of(self.path),
                    description=self.described.get(self.path, "")[:300],
                )
            before = self.existing.get(self.path)
            file.content = content
            file.complete = complete
            file.previous = before
            file.change = (
                FileChange.created
                if before is None
                else FileChange.unchanged
                if final and before == content
                else FileChange.updated
            )
            file.updated_at = utcnow()
            session.add(file)
            mark_changed(session, topic_of(self.owner_id))
            await commit(session)
        self.saved_at = time.monotonic()

    async def start(self, path: str) -> None:
        if self.path is not None:
            await self.end(self.path, complete=False)
        if (reason := tool_file_reason(path)) is not None:  # nothing is written: its content is dropped to its end
            await log_line(self.job_id, self.project_id, f"Refused {path}: {reason}", BuildLogType.error)
            return
        if path not in self.existing and path not in self.written and len({*self.existing, *self.written}) >= MAX_FILES:
            raise BuildFailed(f"The answer holds more than {MAX_FILES} files, the limit of a project")
        self.path, self.buffer, self.size = path, [], 0
        await log_line(self.job_id, self.project_id, f"Writing {path}...")
        await self._save(complete=False)

    async def append(self, text: str) -> None:
        if self.path is None:
            return
        self.buffer.append(text)
        self.size += len(text.encode())
        if self.size > MAX_FILE_BYTES:
            raise BuildFailed(f"{self.path} grew past {size_text(MAX_FILE_BYTES)}, the limit of one file")
        if self.total_bytes > MAX_TOTAL_BYTES:
            raise BuildFailed(f"The project grew past {size_text(MAX_TOTAL_BYTES)}, the limit of a project")
        if time.monotonic() - self.saved_at >= FLUSH_EVERY_SECONDS:
            await self._save(complete=False)

    async def end(self, path: str, *, complete: bool = True) -> None:
        if self.path != path:
            return
        content = "".join(self.buffer)
        before = self.existing.get(path)
        if not complete and before is not None:  # an unfinished rewrite: the previous content stays
            await self.restore()
            await log_line(
                self.job_id,
                self.project_id,
                f"{path} was cut off before its end: its previous content is kept",
                BuildLogType.error,
            )
            return
        await self._save(complete=complete, final=True)
        self.written[path] = content
        self.path = None
        lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
        if not complete:
            await log_line(
                self.job_id,
                self.project_id,
                f"{path} was cut off before its end ({size_text(self.size)} written)",
                BuildLogType.error,
            )
        elif before is None:
            await log_line(
                self.job_id, self.project_id, f"Created {path} ({lines} lines, {size_text(self.size)})", BuildLogType.success
            )
        elif before == content:
            await log_line(self.job_id, self.project_id, f"{path} unchanged")
        else:
            try:
                diff = await line_diff(before, content, from_name=f"a/{path}", to_name=f"b/{path}", max_rows=DIFF_LINES_LOGGED)
            except DomainError as exc:  # too large to compare, or busy
                await log_line(self.job_id, self.project_id, f"Updated {path}: {exc.message}", BuildLogType.success)
                return
            await log_line(self.job_id, self.project_id, f"Updated {path} (+{diff.added} -{diff.removed})", BuildLogType.success)
            more = diff.added + diff.removed - sum(1 for row in diff.rows if row.kind in ("added", "removed"))
            await log_line(
                self.job_id,
                self.project_id,
                diff.unified + (f"\n... and {more} more changed lines" if diff.truncated else ""),
                BuildLogType.code,
            )

    async def restore(self) -> None:
        """The file being written goes back to what it was (or away, if it is new)."""
        if self.path is None:
            return
        path, self.path = self.path, None
        async with session_scope() as session:
            file = await file_of(session, self.project_id, path)
            if file is not None:
                before = self.existing.get(path)
                if before is None:
                    await session.delete(file)
                else:
                    file.content, file.previous, file.change, file.complete = before, None, FileChange.unchanged, True
                    session.add(file)
                mark_changed(session, topic_of(self.owner_id))
                await commit(session)
