"""Live Code Builder (/code-mode): the current project, its files as they are written, the build log, the
prompt (Build / Continue on Ctrl+Enter), Save, New Project, Clear All, the isolated preview and the downloads.

Every change goes through services/builder/ (ownership, limits, one build at a time per user: the job system's
singleton key, so a second Build from another tab is refused by the server, not by a disabled button). The page
follows the user's builder topic (project rows, files while they stream, log lines) and re-reads at least every
MAX_STALENESS_SECONDS; the log is read from the last line this tab has.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import reflex as rx

from secdash.core import notify
from secdash.models import UserPublic
from secdash.services.builder import archive, preview, projects
from secdash.services.builder.limits import MAX_PROMPT_CHARS
from secdash.services.builder.overview import BuilderRead, read_builder
from secdash.services.builder.records import topic_of
from secdash.services.diff.rows import DiffRow
from secdash.services.errors import DomainError
from secdash.services.scoped import in_session
from secdash.state import follow
from secdash.state.auth import AuthState
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.code_builder_view import (
    BuildLine,
    FileRow,
    ProjectView,
    build_outcome_toast,
    diff_lines,
    file_row,
    log_position,
    project_view,
    selected_after_read,
)
from secdash.state.followed_page import FollowedPage
from secdash.state.job_log_view import fresh_lines
from secdash.state.prompt_composer import PromptComposer

PAGE = "code-mode"
MAX_STALENESS_SECONDS = 5.0
LOG_KEPT = 300  # log lines a tab shows
VIEWER_CHARS = 200_000


class CodeBuilderState(FollowedPage, PromptComposer, AuthState):
    """State of /code-mode."""

    _follow_page: ClassVar[str] = PAGE

    loading: bool = True
    has_project: bool = False
    project: ProjectView = ProjectView()
    files: list[FileRow] = []
    selected_file: str = ""
    viewer_content: str = ""
    viewer_mode: str = "code"  # code | changes
    viewer_diff: list[DiffRow] = []
    selected_changed: bool = False  # the selected file was changed by the newest continue
    log: list[BuildLine] = []
    building: bool = False  # the server says a build or continue runs (planning, building, testing)
    preview_open: bool = False
    preview_url: str = ""
    clear_dialog_open: bool = False
    _log_project: int = 0
    _log_after: int = 0
    _status: str = ""  # the status at the last read (a change to complete or failed is toasted)
    _files: dict[str, tuple[str, str]] = {}  # filename -> (content, previous) of the newest read
    _pinned: bool = False  # the user chose a file: the viewer stops following the file being written
    _diff_of: str = ""  # which (file, previous, content) viewer_diff shows: a key of `_diff_key`

    @rx.var
    def has_files(self) -> bool:
        return len(self.files) > 0

    def _max_prompt_chars(self) -> int:
        return MAX_PROMPT_CHARS

    @rx.var
    def can_send(self) -> bool:
        return bool(self.prompt.strip()) and not self.sending and not self.building

    # --- applying reads -------------------------------------------------------------------------------

    def _apply(self, data: BuilderRead) -> list[rx.event.EventSpec]:
        out: list[rx.event.EventSpec] = []
        project = data.project
        self.loading = False
        if project is None:
            self._clear()
            return out
        if project.id != self._log_project:
            self._log_project, self._log_after, self.log, self._status = project.id, 0, [], ""
            self.selected_file, self.viewer_mode = "", "code"
        outcome = build_outcome_toast(self._status, project)
        if outcome is not None:
            out.append(outcome)
        self._status = project.status.value
        self.has_project = True
        self.project = project_view(project)
        self.building = project.building
        self.files = [file_row(file, project.building) for file in project.files]
        self._files = {file.filename: (file.content, file.previous or "") for file in project.files}
        self.selected_file = selected_after_read(
            self.selected_file, project.files, building=project.building, pinned=self._pinned
        )
        self._show_selected()
        self._log_after, log = fresh_lines(
            self.log, self._log_after, data.log, kept=LOG_KEPT, view=BuildLine.of, position=log_position
        )
        if log is not None:
            self.log = log
        return out

    def _show_selected(self) -> None:
        content, previous = self._files.get(self.selected_file, ("", ""))
        row = next((row for row in self.files if row.filename == self.selected_file), None)
        self.selected_changed = row is not None and row.change == "updated"
        self.viewer_content = content[:VIEWER_CHARS]
        if not self.selected_changed:
            self.viewer_diff, self._diff_of = [], ""
        if not self.selected_changed:
            self.viewer_mode = "code"

    def _diff_key(self) -> str:
        """What the viewer's diff should show now ("" for no diff)."""
        if not self.selected_changed:
            return ""
        content, previous = self._files.get(self.selected_file, ("", ""))
        return f"{self.selected_file}:{hash(previous)}:{hash(content)}"

    async def _show_diff(self) -> None:
        """Bring viewer_diff up to date (the diff runs in a bounded worker, never on the event loop)."""
        key = self._diff_key()
        if key and key != self._diff_of:
            content, previous = self._files[self.selected_file]
            self.viewer_diff, self._diff_of = await diff_lines(previous, content), key

    def _clear(self) -> None:
        self.has_project, self.project, self.files, self._files = False, ProjectView(), [], {}
        self.selected_file, self.viewer_content, self.viewer_diff, self.viewer_mode = "", "", [], "code"
        self.selected_changed, self.log, self.building = False, [], False
        self.preview_open, self.preview_url = False, ""
        self._log_project, self._log_after, self._status, self._diff_of = 0, 0, "", ""

    async def _read(self, user: UserPublic) -> BuilderRead:
        return await in_session(read_builder, viewer=user, log_project=self._log_project, log_after=self._log_after)

    async def _refresh(self, user: UserPublic) -> list[rx.event.EventSpec]:
        out = self._apply(await self._read(user))
        await self._show_diff()
        return out

    # --- handlers -------------------------------------------------------------------------------------

    @protected(reads_only=True)
    async def load(self, user: UserPublic):
        self._status = ""
        self._log_project, self._log_after, self.log = 0, 0, []
        self._apply(await self._read(user))
        await self._show_diff()
        return CodeBuilderState.follow_changes

    @protected
    async def submit(self, user: UserPublic):
        """Build (no current project) or Continue (one is open); the server decides whether a build may start."""
        text = self._take_prompt()
        if not text:
            return None
        try:
            if self.has_project:
                project = await in_session(projects.continue_build, actor=user, project_id=self.project.id, prompt=text)
                started = toast.info("Continuing Build", description=project.name)
            else:
                project = await in_session(projects.build, actor=user, prompt=text)
                started = toast.info("Build Started", description=project.name)
        except DomainError as exc:
            self.sending = False
            return [toast.error("Build Failed", description=exc.message), *await self._refresh(user)]
        self.sending, self._pinned = False, False
        self.prompt = ""
        self._status = project.status.value
        return [started, *await self._refresh(user)]

    @protected
    async def stop_build(self, user: UserPublic):
        if not self.has_project:
            return None
        try:
            await in_session(projects.stop, actor=user, project_id=self.project.id)
        except DomainError as exc:
            return [toast.error("Error", description=exc.message), *await self._refresh(user)]
        return toast.info("Stopping", description="The build stops at its next step")

    @protected
    async def save(self, user: UserPublic):
        if not self.has_project:
            return toast.error("Error", description="Build a project first.")
        try:
            snapshot = await in_session(projects.save, actor=user, project_id=self.project.id)
        except DomainError as exc:
            return toast.error("Error", description=exc.message)
        return toast.success("Project Saved", description=snapshot.name)

    @protected
    async def new_project(self, user: UserPublic):
        try:
            await in_session(projects.new_project, actor=user)
        except DomainError as exc:
            return toast.error("Error", description=exc.message)
        self._clear()
        self.prompt, self.sending = "", False
        return toast.info("New Project", description="Describe what to build")

    @protected(reads_only=True)
    async def open_clear_dialog(self):
        self.clear_dialog_open = True
        return None

    @protected(reads_only=True)
    async def set_clear_dialog(self, value: bool):
        self.clear_dialog_open = bool(value)
        return None

    @protected
    async def clear_all(self, user: UserPublic):
        try:
            await in_session(projects.clear_all, actor=user)
        except DomainError:
            return toast.error("Error", description="Failed to clear projects. Please try again.")
        self._clear()
        self.prompt, self.sending, self.clear_dialog_open = "", False, False
        return toast.success("All Projects Cleared", description="Every project, file and build log was deleted")

    @protected(reads_only=True)
    async def select_file(self, filename: str):
        if filename in self._files:
            self.selected_file, self._pinned = filename, True
            self._show_selected()
            await self._show_diff()
        return None

    @protected(reads_only=True)
    async def set_viewer_mode(self, mode: str):
        if mode in ("code", "changes") and (mode == "code" or self.selected_changed):
            self.viewer_mode = mode
        return None

    @protected(reads_only=True)
    async def open_preview(self, user: UserPublic):
        if "index.html" not in self._files:
            return toast.error("No HTML file", description="Build a project first to preview it.")
        try:
            self.preview_url = await in_session(
                preview.preview_url, viewer=user, project_id=self.project.id, auth_token=self.auth_token
            )
        except DomainError as exc:
            return toast.error("No HTML file", description=exc.message)
        self.preview_open = True
        return None

    @protected(reads_only=True)
    async def set_preview_open(self, value: bool):
        self.preview_open = bool(value)
        if not self.preview_open:
            self.preview_url = ""
        return None

    @protected(reads_only=True)
    async def download_all(self, user: UserPublic):
        if not self._files:
            return toast.error("No files to download", description="Build a project first.")
        try:
            name, body = await in_session(archive.project_zip, viewer=user, project_id=self.project.id)
        except DomainError as exc:
            return toast.error("No files to download", description=exc.message)
        return [
            rx.download(data=body, filename=name, mime_type="application/zip"),
            toast.success("Files Downloaded", description=f"{name} ({len(self._files)} files)"),
        ]

    @protected(reads_only=True)
    async def download_file(self, filename: str):
        if filename not in self._files:
            return toast.error("No files to download", description="Build a project first.")
        content, _previous = self._files[filename]
        return [
            rx.download(data=content, filename=filename.rsplit("/", 1)[-1], mime_type="text/plain"),
            toast.success("Files Downloaded", description=filename),
        ]

    @protected(reads_only=True, background=True)
    async def follow_changes(self):
        """Re-read on every change of the user's projects (rows, streamed files, log lines)."""
        async for out in follow.signed_in_rounds(
            self,
            PAGE,
            timeout=MAX_STALENESS_SECONDS,
            each_round=self._follow_round,
            user_topics=lambda user: (topic_of(user.id),),
            skip=(DomainError,),
        ):
            yield out

    async def _follow_round(self, user: UserPublic, _changed: notify.Changed) -> list[rx.event.EventSpec]:
        async with self:
            log_project, log_after = self._log_project, self._log_after
        data = await in_session(read_builder, viewer=user, log_project=log_project, log_after=log_after)
        async with self:
            if (
                (self._log_project, self._log_after) != (log_project, log_after)
                and data.project is not None
                and data.project.id == self._log_project
            ):
                data = dataclasses.replace(data, log=[line for line in data.log if line.id > self._log_after])
            out = self._apply(data)
            key = self._diff_key()
            wanted = self._files.get(self.selected_file) if key and key != self._diff_of else None
        if wanted is not None:  # the diff is made outside the state's lock
            rows = await diff_lines(wanted[1], wanted[0])
            async with self:
                if self._diff_key() == key:
                    self.viewer_diff, self._diff_of = rows, key
        return out
