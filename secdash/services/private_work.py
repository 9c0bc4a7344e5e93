"""Private work is its owner's: the one rule every route and page applies (issue 21, items 9 and 10).

A Live Code Builder project and an HTML artifact belong to the user who made them. Nobody else, administrators
included, reads their code, files, prompts, notes or logs, or changes or stops them: to anyone else they do not
exist (404 "not found", so ids reveal nothing). Administrators manage the system (users, sites, alerting, the
Security Scan, Fix Mode on shared code), not other users' private work.

The rule follows private work wherever it shows up:
- jobs: a build or an artifact generation (its parameters hold the prompt) is a private kind (`PRIVATE_KINDS`);
  a Fix Mode job on a private project is marked private when it is created (`PRIVATE_JOB` in its parameters);
- Fix Mode: an administrator's project is also a code root of the Security Scan. Its findings are in the Problem
  Database like any other (rule, file name, line: what the whole team's security record needs), but the code
  around them (Fix Mode's problem rows with their snippets, the fixes with their diffs and explanations, the
  patches, the fix jobs) and every Fix Mode action on them are the project owner's;
- the audit trail says what was done to private work, never its content (no prompt, note or page title).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import UserPublic
from secdash.models.builder import CodeProject
from secdash.services.artifacts.records import KIND as ARTIFACT_KIND
from secdash.services.builder import project_dir
from secdash.services.builder.records import KIND as BUILD_KIND

PRIVATE_KINDS = frozenset({BUILD_KIND, ARTIFACT_KIND})  # job kinds that are always someone's private work
PRIVATE_JOB = "private"  # a job parameter: this job's work is its owner's alone
NOBODY = 0  # the owner of private work whose owner is gone: visible to no one


def owns(viewer: UserPublic, owner_id: int | None) -> bool:
    """Whether `viewer` is the owner of private work owned by `owner_id` (administrators are no exception)."""
    return owner_id is not None and owner_id != NOBODY and viewer.id == owner_id


def is_private_job(kind: str, params: dict[str, Any] | None) -> bool:
    """A job whose parameters, progress and log are its owner's alone (a private kind, or marked at creation)."""
    return kind in PRIVATE_KINDS or (params or {}).get(PRIVATE_JOB) is True


async def root_owner(session: AsyncSession, root: str | Path | None) -> int | None:
    """Who a code root belongs to: the owner of the builder project it is (NOBODY once the project is gone), or None
    for a shared root (the configured scan paths, the demo sources)."""
    if not root:
        return None
    project_id = project_dir.project_of(Path(root))
    if project_id is None:
        return None
    project = await session.get(CodeProject, project_id)
    return project.owner_user_id if project is not None else NOBODY


class RootReader:
    """Decides, for one viewer, which code roots' code they may read (the owners are looked up once per root)."""

    def __init__(self, session: AsyncSession, viewer: UserPublic) -> None:
        self.session, self.viewer = session, viewer
        self._owners: dict[str, int | None] = {}

    async def may_read(self, root: str | Path | None) -> bool:
        key = str(root or "")
        if key not in self._owners:
            self._owners[key] = await root_owner(self.session, root)
        owner = self._owners[key]
        return owner is None or owns(self.viewer, owner)


async def may_read_root(session: AsyncSession, viewer: UserPublic, root: str | Path | None) -> bool:
    """Whether `viewer` may read the code of `root` (shared roots: everyone; a project: its owner only)."""
    return await RootReader(session, viewer).may_read(root)
