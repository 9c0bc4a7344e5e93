"""The project list of the Live Code Builder (/code-mode): every project and saved snapshot of the user, to open,
rename or delete.

The rules (ownership, name checks, what a delete removes) are the services' (services/builder/projects.py and
library.py); this state shows their answers. The list follows the user's builder topic, so a Save, a Build or a
change in another tab shows here too.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from secdash.core import notify
from secdash.models import UserPublic, as_utc
from secdash.models.builder_public import ProjectSummaryPublic
from secdash.services.builder import library, projects
from secdash.services.builder.records import topic_of
from secdash.services.errors import DomainError
from secdash.services.scoped import in_session
from secdash.state import follow
from secdash.state.auth import AuthState
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.code_builder import CodeBuilderState
from secdash.state.followed_page import FollowedPage

PAGE = "code-mode-projects"
MAX_STALENESS_SECONDS = 15.0


def _plural(count: int, one: str) -> str:
    return f"{count} {one}" if count == 1 else f"{count} {one}s"


@dataclasses.dataclass
class ProjectItem:
    id: int = 0
    name: str = ""
    status: str = ""
    files: str = ""  # "2 files"
    snapshots: str = ""  # "1 saved snapshot"
    updated: str = ""  # "2026-11-25 21:50" (UTC)
    current: bool = False
    snapshot_of: int = 0  # a saved snapshot: the project it was saved from (0: not a snapshot, or that one is gone)
    is_snapshot: bool = False


def project_item(row: ProjectSummaryPublic) -> ProjectItem:
    when = row.updated_at or row.created_at
    return ProjectItem(
        id=row.id,
        name=row.name,
        status=row.status.value,
        files=_plural(row.file_count, "file"),
        snapshots=_plural(row.snapshot_count, "saved snapshot"),
        updated=as_utc(when).strftime("%Y-%m-%d %H:%M"),
        current=row.current,
        snapshot_of=row.snapshot_of or 0,
        is_snapshot=row.snapshot_of is not None,
    )


class ProjectListState(FollowedPage, AuthState):
    """State of the project list on /code-mode."""

    _follow_page: ClassVar[str] = PAGE

    items: list[ProjectItem] = []
    loaded: bool = False
    renaming: int = 0  # the project whose name is being edited
    rename_draft: str = ""
    deleting: int = 0  # the project whose delete waits for its confirmation

    async def _read(self, user: UserPublic) -> None:
        rows = await in_session(projects.list_projects, viewer=user)
        self.items = [project_item(row) for row in rows]
        self.loaded = True
        known = {item.id for item in self.items}
        if self.renaming not in known:
            self.renaming = 0
        if self.deleting not in known:
            self.deleting = 0

    async def _builder_refresh(self, user: UserPublic, project_id: int) -> None:
        """The builder's columns show the open project: bring them up to date after a change to it."""
        builder = await self.get_state(CodeBuilderState)
        if project_id == 0 or builder.project.id == project_id:
            await builder._refresh(user)

    @protected(reads_only=True)
    async def load(self, user: UserPublic):
        self.renaming, self.deleting = 0, 0
        await self._read(user)
        return ProjectListState.follow_changes

    @protected
    async def open_project(self, user: UserPublic, project_id: int):
        try:
            project = await in_session(projects.open_project, actor=user, project_id=project_id)
        except DomainError as exc:
            await self._read(user)
            return toast.error("Error", description=exc.message)
        await self._read(user)
        await self._builder_refresh(user, 0)
        return toast.success("Project Opened", description=project.name)

    @protected(reads_only=True)
    async def start_rename(self, project_id: int):
        item = next((item for item in self.items if item.id == project_id), None)
        if item is not None:
            self.renaming, self.rename_draft, self.deleting = item.id, item.name, 0
        return None

    @protected(reads_only=True)
    async def set_rename_draft(self, value: str):
        self.rename_draft = str(value or "")[: library.MAX_NAME_CHARS + 1]
        return None

    @protected(reads_only=True)
    async def cancel_rename(self):
        self.renaming, self.rename_draft = 0, ""
        return None

    @protected(reads_only=True)
    async def rename_key(self, key: str):
        """Enter keeps the new name, Escape leaves it (after the typed text has arrived)."""
        if key == "Enter":
            return ProjectListState.save_rename
        if key == "Escape":
            return ProjectListState.cancel_rename
        return None

    @protected
    async def save_rename(self, user: UserPublic):
        if not self.renaming:
            return None
        try:
            project = await in_session(library.rename, actor=user, project_id=self.renaming, name=self.rename_draft)
        except DomainError as exc:  # the form stays open with what was typed
            return toast.error("Not renamed", description=exc.message)
        self.renaming, self.rename_draft = 0, ""
        await self._read(user)
        await self._builder_refresh(user, project.id)
        return toast.success("Project Renamed", description=project.name)

    @protected(reads_only=True)
    async def ask_delete(self, project_id: int):
        if any(item.id == project_id for item in self.items):
            self.deleting, self.renaming = project_id, 0
        return None

    @protected(reads_only=True)
    async def cancel_delete(self):
        self.deleting = 0
        return None

    @protected
    async def confirm_delete(self, user: UserPublic):
        """Delete the project the confirmation names (only its button deletes)."""
        if not self.deleting:
            return None
        wanted, self.deleting = self.deleting, 0
        name = next((item.name for item in self.items if item.id == wanted), f"Project #{wanted}")
        try:
            await in_session(library.delete, actor=user, project_id=wanted)
        except DomainError as exc:
            await self._read(user)
            return toast.error("Error", description=exc.message)
        await self._read(user)
        await self._builder_refresh(user, wanted)
        return toast.success("Project Deleted", description=name)

    @protected(reads_only=True, background=True)
    async def follow_changes(self):
        """Re-read the list on every change of the user's projects (a Save, a Build, another tab)."""
        async for out in follow.signed_in_rounds(
            self,
            PAGE,
            timeout=MAX_STALENESS_SECONDS,
            each_round=self._follow_round,
            user_topics=lambda user: (topic_of(user.id),),
            skip=(DomainError,),
        ):
            yield out

    async def _follow_round(self, user: UserPublic, _changed: notify.Changed) -> None:
        rows = await in_session(projects.list_projects, viewer=user)
        async with self:
            self.items = [project_item(row) for row in rows]
            known = {item.id for item in self.items}
            if self.renaming not in known:
                self.renaming = 0
            if self.deleting not in known:
                self.deleting = 0
