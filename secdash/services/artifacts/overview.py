"""What the /code-artifacts page reads in one go: the user's open artifact, the Recent Artifacts list, and the
open artifact's history (without the HTML) when the page does not have it yet: it is read again only when the
open artifact or its newest version changed."""

from __future__ import annotations

import dataclasses

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import UserPublic
from secdash.models.artifacts_public import ArtifactPublic, ArtifactSummaryPublic, ArtifactVersionNotePublic
from secdash.services.artifacts import artifacts


@dataclasses.dataclass(frozen=True)
class ArtifactsRead:
    current: ArtifactPublic | None
    recent: list[ArtifactSummaryPublic]
    history: list[ArtifactVersionNotePublic] | None  # newest first; None: unchanged since `known`


async def read_artifacts(*, session: AsyncSession, viewer: UserPublic, known: tuple[int, int] = (0, 0)) -> ArtifactsRead:
    """`known` is (artifact id, newest version) of the history the page shows."""
    current = await artifacts.current(session=session, viewer=viewer)
    recent = await artifacts.summaries(session=session, viewer=viewer)
    history: list[ArtifactVersionNotePublic] | None = None
    if current is not None and (current.id, current.version) != known:
        history = await artifacts.history_notes(session=session, viewer=viewer, artifact_id=current.id)
    elif current is None:
        history = []
    return ArtifactsRead(current, recent, history)
