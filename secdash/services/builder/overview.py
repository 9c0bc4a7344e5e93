"""What the /code-mode page reads in one go: the user's current project and its new log lines."""

from __future__ import annotations

import dataclasses

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import UserPublic
from secdash.models.builder_public import BuildLogPublic, CodeProjectPublic
from secdash.services.builder import projects


@dataclasses.dataclass(frozen=True)
class BuilderRead:
    project: CodeProjectPublic | None
    log: list[BuildLogPublic]  # the current project's lines after `log_after` (all of them for another project)


async def read_builder(*, session: AsyncSession, viewer: UserPublic, log_project: int = 0, log_after: int = 0) -> BuilderRead:
    project = await projects.current(session=session, viewer=viewer)
    if project is None:
        return BuilderRead(None, [])
    after = log_after if project.id == log_project else 0
    return BuilderRead(project, await projects.logs(session=session, viewer=viewer, project_id=project.id, after=after))
