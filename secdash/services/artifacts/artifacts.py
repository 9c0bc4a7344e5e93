"""HTML artifacts as their owners use them: create, update, stop, open, new, delete, list, read, history,
hand edits, restore and the diff of two versions.

An artifact belongs to one user; anyone else (admins included) is told it does not exist. Generation happens in
the "artifact" job (services/artifacts/generate_job.py); a user runs one generation at a time (the job's
singleton key, so the database decides, not a prior read). Each user has at most one open artifact
(`Artifact.current_of`, unique). Whether an artifact is being generated is its newest job's state
(records.shown); reads never write. Versions are only ever added: an update, a hand edit and a restore each make a
new one, so history is never lost.
"""

from __future__ import annotations

from sqlalchemy import func, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit, end_read, mark_changed
from secdash.jobs import runner, store
from secdash.models import LogCategory, UserPublic, utcnow
from secdash.models.artifacts import Artifact, ArtifactVersion, VersionSource
from secdash.models.artifacts_public import (
    ArtifactDiffPublic,
    ArtifactPublic,
    ArtifactSummaryPublic,
    ArtifactVersionNotePublic,
    ArtifactVersionPublic,
)
from secdash.models.jobs import Job
from secdash.services import audit, storage
from secdash.services.artifacts import generate_job, review, versions  # noqa: F401  (generate_job registers its kind)
from secdash.services.artifacts.limits import (
    MAX_ARTIFACTS,
    parse_html,
    parse_id,
    parse_note,
    parse_prompt,
    parse_version,
)
from secdash.services.artifacts.records import KIND, job_of, shown, topic_of, working
from secdash.services.errors import Conflict, Invalid, NotFound


async def owned(session: AsyncSession, viewer: UserPublic, artifact_id: object) -> Artifact:
    """The viewer's artifact (NotFound for anyone else's, admins included)."""
    wanted = parse_id(artifact_id)
    artifact = await session.get(Artifact, wanted)
    if artifact is None or artifact.owner_user_id != viewer.id:
        raise NotFound(f"Artifact #{wanted} not found")
    return artifact


async def _findings(session: AsyncSession, artifact: Artifact) -> list[dict]:
    if artifact.id is None or artifact.version == 0:
        return []
    row = await versions.find(session, artifact.id, artifact.version)
    return list(row.findings) if row is not None else []


async def public(session: AsyncSession, artifact: Artifact) -> ArtifactPublic:
    status, error = shown(artifact, await job_of(session, artifact))
    return ArtifactPublic.of(artifact, status, error, await _findings(session, artifact))


async def _generating(session: AsyncSession, artifact: Artifact) -> bool:
    return working(await job_of(session, artifact))


async def _make_current(session: AsyncSession, owner_id: int, artifact: Artifact | None) -> None:
    others = col(Artifact.current_of) == owner_id
    if artifact is not None and artifact.id is not None:
        others = others & (col(Artifact.id) != artifact.id)
    await session.exec(update(Artifact).execution_options(synchronize_session=False).where(others).values(current_of=None))
    if artifact is not None:
        await session.flush()
        artifact.current_of = owner_id
        session.add(artifact)
    mark_changed(session, topic_of(owner_id))


async def _start(session: AsyncSession, actor: UserPublic, artifact: Artifact, prompt: str, mode: str) -> None:
    """Start the artifact's generation job (one per user at a time), make it the open one, audit it, run it."""
    assert artifact.id is not None
    try:
        job = await runner.enqueue(
            session,
            kind=KIND,
            owner_user_id=actor.id,
            owner_email=actor.email,
            singleton_key=f"{KIND}:{actor.id}",
            params={"artifactId": artifact.id, "prompt": prompt, "mode": mode},
            progress={"phase": "generating"},
        )
    except store.ActiveJobExists:
        raise Conflict("An HTML artifact is already being generated: wait for it to finish or stop it") from None
    assert job.id is not None
    # It reads as generating from its job now; the row keeps the last outcome until the job writes the next one.
    artifact.job_id, artifact.prompt, artifact.draft, artifact.updated_at = job.id, prompt, "", utcnow()
    session.add(artifact)
    await _make_current(session, actor.id, artifact)
    verb = "created" if mode == "create" else "asked for a new version of"
    audit.record(
        session,
        category=LogCategory.ai,
        action=f"HTML artifact {'created' if mode == 'create' else 'updated'}",
        actor_user_id=actor.id,
        description=f"{actor.email} {verb} HTML artifact #{artifact.id}",
        details={"artifactId": artifact.id, "jobId": job.id, "version": artifact.version},
    )
    await commit(session)
    await session.refresh(artifact)


async def create(*, session: AsyncSession, actor: UserPublic, prompt: object) -> ArtifactPublic:
    """A new artifact from a prompt, made the open one; the job generates version 1."""
    text = parse_prompt(prompt)
    total = (await session.exec(select(func.count()).select_from(Artifact).where(Artifact.owner_user_id == actor.id))).one()
    if total >= MAX_ARTIFACTS:
        raise Invalid(f"You have {total} artifacts, the limit: delete some before creating another")
    await storage.ensure_room(session, actor.id)
    artifact = Artifact(owner_user_id=actor.id, name=versions.short_name(text), prompt=text)
    session.add(artifact)
    await session.flush()
    await _start(session, actor, artifact, text, "create")
    return await public(session, artifact)


async def update_artifact(*, session: AsyncSession, actor: UserPublic, artifact_id: object, prompt: object) -> ArtifactPublic:
    """The next version from the newest one and the prompt (an artifact whose first generation failed is
    generated afresh)."""
    text = parse_prompt(prompt)
    artifact = await owned(session, actor, artifact_id)
    if await _generating(session, artifact):
        raise Conflict(f"Artifact #{artifact.id} is still being generated: wait for it to finish or stop it")
    await versions.room_for_one_more(session, artifact)
    await storage.ensure_room(session, actor.id)
    await _start(session, actor, artifact, text, "update" if artifact.version else "create")
    return await public(session, artifact)


async def stop(*, session: AsyncSession, actor: UserPublic, artifact_id: object) -> ArtifactPublic:
    """Ask the artifact's running generation to stop (it ends without a new version: "Stopped")."""
    artifact = await owned(session, actor, artifact_id)
    job = await job_of(session, artifact)
    if job is None or not working(job) or not store.request_stop(session, job):
        raise Conflict(f"Artifact #{artifact.id} has no generation running")
    await commit(session)
    return await public(session, artifact)


async def open_artifact(*, session: AsyncSession, actor: UserPublic, artifact_id: object) -> ArtifactPublic:
    """Make one of the user's artifacts the open one."""
    artifact = await owned(session, actor, artifact_id)
    await _make_current(session, actor.id, artifact)
    await commit(session)
    await session.refresh(artifact)
    return await public(session, artifact)


async def close(*, session: AsyncSession, actor: UserPublic) -> None:
    """No open artifact (the next prompt creates a new one); the artifacts stay in the list."""
    await _make_current(session, actor.id, None)
    await commit(session)


async def delete(*, session: AsyncSession, actor: UserPublic, artifact_id: object) -> None:
    """Delete an artifact and all its versions (refused while it is being generated)."""
    artifact = await owned(session, actor, artifact_id)
    if await _generating(session, artifact):
        raise Conflict(f"Artifact #{artifact.id} is being generated: stop it before deleting it")
    for row in await session.exec(select(ArtifactVersion).where(ArtifactVersion.artifact_id == artifact.id)):
        await session.delete(row)
    await session.flush()  # the versions first: the ORM knows no order between the two tables
    await session.delete(artifact)
    audit.record(
        session,
        category=LogCategory.ai,
        action="HTML artifact deleted",
        actor_user_id=actor.id,
        description=f"{actor.email} deleted HTML artifact #{artifact.id} ({artifact.version} versions)",
        details={"artifactId": artifact.id, "versions": artifact.version},
    )
    mark_changed(session, topic_of(actor.id))
    await commit(session)


def _newest_first(owner_id: int):  # noqa: ANN202
    """The user's artifacts, each with its newest job (None without one), most recently updated first."""
    return (
        select(Artifact, Job)
        .outerjoin(Job, col(Job.id) == Artifact.job_id)
        .where(Artifact.owner_user_id == owner_id)
        .order_by(col(Artifact.updated_at).desc(), col(Artifact.id).desc())
    )


async def list_artifacts(*, session: AsyncSession, viewer: UserPublic) -> list[ArtifactPublic]:
    """The user's artifacts with their newest HTML, most recently updated first (GET /api/artifacts)."""
    return [await public(session, row) for row, _job in await session.exec(_newest_first(viewer.id))]


async def summaries(*, session: AsyncSession, viewer: UserPublic) -> list[ArtifactSummaryPublic]:
    """The user's artifacts without their HTML, most recently updated first (the Recent Artifacts list)."""
    return [ArtifactSummaryPublic.of(row, shown(row, job)[0]) for row, job in await session.exec(_newest_first(viewer.id))]


async def current(*, session: AsyncSession, viewer: UserPublic) -> ArtifactPublic | None:
    row = (await session.exec(select(Artifact).where(Artifact.current_of == viewer.id))).first()
    return await public(session, row) if row is not None else None


async def get_artifact(*, session: AsyncSession, viewer: UserPublic, artifact_id: object) -> ArtifactPublic:
    return await public(session, await owned(session, viewer, artifact_id))


async def history(*, session: AsyncSession, viewer: UserPublic, artifact_id: object) -> list[ArtifactVersionPublic]:
    """Every version of the artifact, newest first."""
    artifact = await owned(session, viewer, artifact_id)
    query = (
        select(ArtifactVersion).where(ArtifactVersion.artifact_id == artifact.id).order_by(col(ArtifactVersion.version).desc())
    )
    return [ArtifactVersionPublic.of(row) for row in await session.exec(query)]


async def history_notes(*, session: AsyncSession, viewer: UserPublic, artifact_id: object) -> list[ArtifactVersionNotePublic]:
    """Every version of the artifact without its HTML, newest first (the Version History list)."""
    artifact = await owned(session, viewer, artifact_id)
    query = (
        select(  # type: ignore[call-overload]  # six columns: SQLModel's select is typed for up to four
            ArtifactVersion.id,
            ArtifactVersion.version,
            ArtifactVersion.changes,
            ArtifactVersion.prompt,
            ArtifactVersion.created_at,
            ArtifactVersion.source,
        )
        .where(ArtifactVersion.artifact_id == artifact.id)
        .order_by(col(ArtifactVersion.version).desc())
    )
    return [
        ArtifactVersionNotePublic(id=row[0], version=row[1], changes=row[2], prompt=row[3], created_at=row[4], source=row[5])
        for row in await session.exec(query)
    ]


async def version_row(session: AsyncSession, artifact: Artifact, version: object) -> ArtifactVersion:
    number = parse_version(version)
    assert artifact.id is not None
    row = await versions.find(session, artifact.id, number)
    if row is None:
        raise NotFound(f"Artifact #{artifact.id} has no version {number}")
    return row


async def get_version(
    *, session: AsyncSession, viewer: UserPublic, artifact_id: object, version: object
) -> ArtifactVersionPublic:
    artifact = await owned(session, viewer, artifact_id)
    return ArtifactVersionPublic.of(await version_row(session, artifact, version))


SOURCE_WORDS = {VersionSource.edit: "edited by hand", VersionSource.restore: "an earlier version restored"}


async def _new_version(
    session: AsyncSession,
    actor: UserPublic,
    artifact: Artifact,
    *,
    page: str,
    prompt: str,
    source: VersionSource,
    changes: str,
    action: str,
) -> ArtifactPublic:
    if await _generating(session, artifact):
        raise Conflict(f"Artifact #{artifact.id} is being generated: wait for it to finish or stop it")
    await versions.room_for_one_more(session, artifact)
    await storage.ensure_room(session, actor.id, len(page.encode()))
    await end_read(session)  # the review runs `node --check`: no pooled connection held across it
    findings = await review.review_html(page, owner=actor.id)
    row = await versions.add(session, artifact, page=page, prompt=prompt, source=source, findings=findings, changes=changes)
    await _make_current(session, actor.id, artifact)
    # What was done, never the content: the note and the page's title are the owner's (services/private_work.py).
    audit.record(
        session,
        category=LogCategory.ai,
        action=action,
        actor_user_id=actor.id,
        description=f"{actor.email}: HTML artifact #{artifact.id} version {row.version} "
        f"({SOURCE_WORDS.get(source, source.value)})",
        details={"artifactId": artifact.id, "version": row.version, "source": source.value},
    )
    await commit(session)
    await session.refresh(artifact)
    return await public(session, artifact)


async def save_edit(
    *, session: AsyncSession, actor: UserPublic, artifact_id: object, html: object, changes: object = None
) -> ArtifactPublic:
    """The user's hand-edited HTML as the next version (checked like a generated one)."""
    page, note = parse_html(html), parse_note(changes)
    artifact = await owned(session, actor, artifact_id)
    if artifact.version and page == artifact.html_content:
        raise Invalid(f"Nothing changed: the HTML is the same as version {artifact.version}")
    return await _new_version(
        session,
        actor,
        artifact,
        page=page,
        prompt="",
        source=VersionSource.edit,
        changes=f"Edited by hand: {note}" if note else "",
        action="HTML artifact edited",
    )


async def restore(*, session: AsyncSession, actor: UserPublic, artifact_id: object, version: object) -> ArtifactPublic:
    """An earlier version's HTML as the next version (the versions after it stay in the history)."""
    artifact = await owned(session, actor, artifact_id)
    row = await version_row(session, artifact, version)
    if row.version == artifact.version:
        raise Invalid(f"Version {row.version} is already the newest version")
    return await _new_version(
        session,
        actor,
        artifact,
        page=row.html_content,
        prompt=row.prompt,
        source=VersionSource.restore,
        changes=f"Restored version {row.version}",
        action="HTML artifact restored",
    )


async def diff_versions(
    *, session: AsyncSession, viewer: UserPublic, artifact_id: object, from_version: object, to_version: object
) -> ArtifactDiffPublic:
    """The line diff from one version to another (any two, either order)."""
    artifact = await owned(session, viewer, artifact_id)
    before = await version_row(session, artifact, from_version)
    after = await version_row(session, artifact, to_version)
    await end_read(session)  # no pooled connection held while the worker compares
    return await versions.diff(before.html_content, after.html_content, before.version, after.version, owner=viewer.id)
