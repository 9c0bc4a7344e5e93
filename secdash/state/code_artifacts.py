"""HTML artifacts (/code-artifacts): the open artifact (its newest version, or the page streaming in while it is
generated), the prompt (Create HTML / Update HTML on Ctrl+Enter), Stop, New artifact, Recent Artifacts, Version
History (load, restore), the Edit / Preview / Compare views, the checks' findings and the downloads.

Every change goes through services/artifacts/ (ownership, limits, one generation at a time per user: the job's
singleton key, so the server refuses a second one, not a disabled button). The page follows the user's artifacts
topic (rows, the draft as it streams, new versions) and re-reads at least every MAX_STALENESS_SECONDS.
"""

from __future__ import annotations

from typing import ClassVar

import reflex as rx

from secdash.core import notify
from secdash.models import UserPublic
from secdash.models.artifacts_public import (
    ArtifactFindingPublic,
)
from secdash.services.artifacts import artifacts, downloads, preview
from secdash.services.artifacts.limits import MAX_CHANGES_CHARS, MAX_PROMPT_CHARS
from secdash.services.artifacts.overview import ArtifactsRead, read_artifacts
from secdash.services.artifacts.records import topic_of
from secdash.services.diff.rows import DiffRow
from secdash.services.errors import DomainError
from secdash.services.scoped import in_session
from secdash.state import follow
from secdash.state.auth import AuthState
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.code_artifacts_view import (
    ArtifactRow,
    ArtifactView,
    FindingRow,
    VersionRow,
    artifact_row,
    artifact_view,
    compare_summary,
    diff_rows,
    finding_rows,
    generation_outcome_toast,
    mode_after_read,
    version_row,
)
from secdash.state.followed_page import FollowedPage
from secdash.state.prompt_composer import PromptComposer

PAGE = "code-artifacts"
MAX_STALENESS_SECONDS = 5.0
MODES = ("edit", "preview", "compare")
SOURCE_LABELS = {"model": "model", "offline": "offline engine", "edit": "edited by hand", "restore": "restored"}


class CodeArtifactsState(FollowedPage, PromptComposer, AuthState):
    """State of /code-artifacts."""

    _follow_page: ClassVar[str] = PAGE

    loading: bool = True
    has_artifact: bool = False
    artifact: ArtifactView = ArtifactView()
    generating: bool = False  # the server says the open artifact is being generated
    draft: str = ""  # the page streamed so far (while generating)
    recent: list[ArtifactRow] = []
    history: list[VersionRow] = []
    loaded_version: int = 0  # the version shown in the panel (0: none)
    source: str = ""  # its HTML
    edited: str = ""  # the editor's text
    edit_note: str = ""  # what a hand edit changes (optional; the diff's counts otherwise)
    editor_key: int = 0  # a new editor (showing `source`) each time a version is loaded
    findings: list[FindingRow] = []
    mode: str = "preview"  # edit | preview | compare
    preview_url: str = ""
    compare_from: str = ""
    compare_to: str = ""
    diff: list[DiffRow] = []
    diff_summary: str = ""
    _status: str = ""  # the open artifact's status at the last read (a failure is toasted once)
    _newest: tuple[int, int] = (0, 0)  # (artifact id, newest version) shown in the history

    def _max_prompt_chars(self) -> int:
        return MAX_PROMPT_CHARS

    @rx.var
    def can_send(self) -> bool:
        return bool(self.prompt.strip()) and not self.sending and not self.generating

    @rx.var
    def busy(self) -> bool:
        return self.sending or self.generating

    @rx.var
    def has_versions(self) -> bool:
        return self.loaded_version > 0

    @rx.var
    def dirty(self) -> bool:
        return self.loaded_version > 0 and not self.generating and self.edited != self.source

    @rx.var
    def is_older(self) -> bool:
        return 0 < self.loaded_version < self.artifact.version

    @rx.var
    def version_options(self) -> list[str]:
        return [str(row.version) for row in self.history]

    @rx.var
    def findings_have_errors(self) -> bool:
        return any(row.level == "error" for row in self.findings)

    @rx.var
    def findings_label(self) -> str:
        count = len(self.findings)
        return "No findings" if count == 0 else f"{count} finding{'s' if count != 1 else ''}"

    # --- applying reads -------------------------------------------------------------------------------

    def _apply(self, data: ArtifactsRead, user: UserPublic) -> list[rx.event.EventSpec]:
        out: list[rx.event.EventSpec] = []
        self.loading = False
        self.recent = [artifact_row(row) for row in data.recent]
        current = data.current
        if current is None:
            self._clear()
            return out
        if current.id != self.artifact.id:
            self._clear()
        outcome = generation_outcome_toast(self._status, current)
        if outcome is not None:
            out.append(outcome)
            if not self.prompt.strip():  # the request comes back to the box, to edit and send again
                self.prompt = current.prompt
        self._status = current.status.value
        self.has_artifact = True
        self.artifact = artifact_view(current)
        self.generating = current.generating
        self.draft = current.draft or "" if current.generating else ""
        if data.history is not None:
            self.history = [version_row(row) for row in data.history]
            self._newest = (current.id, current.version)
            if current.version and not current.generating:
                self.compare_from, self.compare_to, self.diff, self.diff_summary = "", "", [], ""
        new_version_shown = current.version != self.loaded_version and (current.version == 0 or data.history is not None)
        if new_version_shown:
            self._show(current.version, current.html_content, current.findings)
        mode = mode_after_read(
            self.mode, new_version_shown=new_version_shown, generating=current.generating, loaded_version=self.loaded_version
        )
        if mode != self.mode:
            self.mode = mode
        return out

    def _show(self, version: int, html: str, findings: list[ArtifactFindingPublic]) -> None:
        self.loaded_version, self.source, self.edited = version, html, html
        self.editor_key += 1
        self.findings = finding_rows(findings)
        self.preview_url = ""

    def _clear(self) -> None:
        self.has_artifact, self.artifact, self.generating, self.draft = False, ArtifactView(), False, ""
        self.history, self.loaded_version, self.source, self.edited, self.findings = [], 0, "", "", []
        self.mode, self.preview_url = "preview", ""
        self.compare_from, self.compare_to, self.diff, self.diff_summary = "", "", [], ""
        self._status, self._newest = "", (0, 0)

    async def _refresh(self, user: UserPublic) -> list[rx.event.EventSpec]:
        data = await in_session(read_artifacts, viewer=user, known=self._newest)
        out = self._apply(data, user)
        await self._fresh_preview(user)
        return out

    async def _fresh_preview(self, user: UserPublic) -> None:
        """A new preview link for the loaded version when the preview shows and has none."""
        if self.mode != "preview" or self.loaded_version == 0 or self.preview_url:
            return
        try:
            self.preview_url = await in_session(
                preview.preview_url,
                viewer=user,
                artifact_id=self.artifact.id,
                version=self.loaded_version,
                auth_token=self.auth_token,
            )
        except DomainError:
            self.preview_url = ""

    # --- handlers -------------------------------------------------------------------------------------

    @protected(reads_only=True)
    async def load(self, user: UserPublic):
        self._clear()
        await self._refresh(user)
        return CodeArtifactsState.follow_changes

    @protected
    async def submit(self, user: UserPublic):
        """Create HTML (no open artifact) or Update HTML (one is open); the server decides whether it may start."""
        text = self._take_prompt()
        if not text:
            return None
        try:
            if self.has_artifact:
                artifact = await in_session(artifacts.update_artifact, actor=user, artifact_id=self.artifact.id, prompt=text)
                started = toast.info("Updating HTML", description=artifact.name)
            else:
                artifact = await in_session(artifacts.create, actor=user, prompt=text)
                started = toast.info("Creating HTML", description=artifact.name)
        except DomainError as exc:
            self.sending = False
            return [toast.error("Generation Failed", description=exc.message), *await self._refresh(user)]
        self.sending, self.prompt = False, ""
        self._status = "generating"
        return [started, *await self._refresh(user)]

    @protected
    async def stop(self, user: UserPublic):
        if not self.has_artifact:
            return None
        try:
            await in_session(artifacts.stop, actor=user, artifact_id=self.artifact.id)
        except DomainError as exc:
            return [toast.error("Error", description=exc.message), *await self._refresh(user)]
        return toast.info("Stopping", description="The generation stops at its next step")

    @protected
    async def new_artifact(self, user: UserPublic):
        try:
            await in_session(artifacts.close, actor=user)
        except DomainError as exc:
            return toast.error("Error", description=exc.message)
        self._clear()
        self.prompt, self.sending = "", False
        return [toast.info("New Artifact", description="Describe the page to create"), *await self._refresh(user)]

    @protected
    async def open_artifact(self, user: UserPublic, artifact_id: int):
        try:
            await in_session(artifacts.open_artifact, actor=user, artifact_id=artifact_id)
        except DomainError as exc:
            return [toast.error("Error", description=exc.message), *await self._refresh(user)]
        return await self._refresh(user)

    @protected(reads_only=True)
    async def load_version(self, user: UserPublic, version: int):
        """Show one version of the open artifact in the panel."""
        if not self.has_artifact:
            return None
        try:
            row = await in_session(artifacts.get_version, viewer=user, artifact_id=self.artifact.id, version=version)
        except DomainError as exc:
            return toast.error("Error", description=exc.message)
        self._show(row.version, row.html_content, row.findings)
        if self.mode == "compare":
            self.mode = "preview"
        await self._fresh_preview(user)
        return toast.success("Version Loaded", description=f"{self.artifact.name} v{row.version}")

    @protected
    async def restore(self, user: UserPublic):
        """The loaded (older) version as the newest version."""
        if not self.has_artifact or not self.loaded_version:
            return None
        version = self.loaded_version
        try:
            artifact = await in_session(artifacts.restore, actor=user, artifact_id=self.artifact.id, version=version)
        except DomainError as exc:
            return [toast.error("Error", description=exc.message), *await self._refresh(user)]
        return [
            toast.success("Version Restored", description=f"v{version} is now v{artifact.version}"),
            *await self._refresh(user),
        ]

    @protected(reads_only=True)
    async def set_edited(self, value: str):
        self.edited = str(value or "")
        return None

    @protected(reads_only=True)
    async def set_edit_note(self, value: str):
        self.edit_note = str(value or "")[: MAX_CHANGES_CHARS + 1]
        return None

    @protected
    async def save_edit(self, user: UserPublic):
        """The editor's HTML as the next version."""
        if not self.has_artifact or self.generating:
            return None
        try:
            artifact = await in_session(
                artifacts.save_edit, actor=user, artifact_id=self.artifact.id, html=self.edited, changes=self.edit_note
            )
        except DomainError as exc:
            return toast.error("Error", description=exc.message)
        self.edit_note = ""
        return [toast.success("Version Saved", description=f"{artifact.name} v{artifact.version}"), *await self._refresh(user)]

    @protected(reads_only=True)
    async def set_mode(self, user: UserPublic, mode: str):
        if mode not in MODES or (mode != "edit" and self.generating) or not self.loaded_version:
            return None
        if mode == "compare" and len(self.history) < 2:
            return None
        self.mode = mode
        if mode == "preview":
            self.preview_url = ""  # a fresh link each time (links expire)
            await self._fresh_preview(user)
        elif mode == "compare" and not self.diff:
            newest = self.history[0].version
            older = self.loaded_version if self.loaded_version < newest else self.history[1].version
            return await self._compare(user, str(older), str(newest))
        return None

    async def _compare(self, user: UserPublic, from_version: str, to_version: str):
        self.compare_from, self.compare_to = from_version, to_version
        try:
            diff = await in_session(
                artifacts.diff_versions,
                viewer=user,
                artifact_id=self.artifact.id,
                from_version=from_version,
                to_version=to_version,
            )
        except DomainError as exc:
            self.diff, self.diff_summary = [], ""
            return toast.error("Error", description=exc.message)
        self.diff = diff_rows(diff)
        self.diff_summary = compare_summary(diff, self.diff)
        return None

    @protected(reads_only=True)
    async def set_compare_from(self, user: UserPublic, value: str):
        if self.has_artifact:
            return await self._compare(user, str(value), self.compare_to)
        return None

    @protected(reads_only=True)
    async def set_compare_to(self, user: UserPublic, value: str):
        if self.has_artifact:
            return await self._compare(user, self.compare_from, str(value))
        return None

    @protected(reads_only=True)
    async def download(self, user: UserPublic):
        """The loaded version as an .html file (the spec's name)."""
        if not self.loaded_version:
            return toast.error("Nothing to download", description="Create the artifact's first version first.")
        try:
            name, body = await in_session(
                downloads.version_file, viewer=user, artifact_id=self.artifact.id, version=self.loaded_version
            )
        except DomainError as exc:
            return toast.error("Nothing to download", description=exc.message)
        return [rx.download(data=body, filename=name, mime_type="text/html"), toast.success("Downloaded", description=name)]

    @protected(reads_only=True)
    async def download_all(self, user: UserPublic):
        """Every version of the open artifact in one zip."""
        if not self.loaded_version:
            return toast.error("Nothing to download", description="Create the artifact's first version first.")
        try:
            name, body = await in_session(downloads.all_versions_zip, viewer=user, artifact_id=self.artifact.id)
        except DomainError as exc:
            return toast.error("Nothing to download", description=exc.message)
        return [
            rx.download(data=body, filename=name, mime_type="application/zip"),
            toast.success("Downloaded", description=f"{name} ({len(self.history)} versions)"),
        ]

    @protected(reads_only=True, background=True)
    async def follow_changes(self):
        """Re-read on every change of the user's artifacts (rows, the streamed draft, new versions)."""
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
            known = self._newest
        data = await in_session(read_artifacts, viewer=user, known=known)
        async with self:
            out = self._apply(data, user)
            await self._fresh_preview(user)
        return out
