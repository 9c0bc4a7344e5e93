"""Fix Mode as people use it: propose a fix for a problem, read it, apply, reject or revert it, download its patch.

Reading is open to every signed-in user; everything that changes something is for admins and is audited. A fix
of code in a private builder project is its owner's (services/private_work.py): anyone else, administrators
included, is told it does not exist, and its job is private. The writing itself (the agent, the workspace, the
re-scan) happens in the "fix" job (services/fix/jobs.py), so it streams to the page, survives a reload and runs on
any worker.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from pathlib import Path
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit, end_read, mark_changed
from secdash.jobs import runner, store
from secdash.models import LogCategory, LogSeverity, SecurityEvent, Site, UserPublic, utcnow
from secdash.models.fixes import ACTIVE_STATUSES, Fix, FixKind, FixStatus
from secdash.models.fixes_public import FixPublic
from secdash.services import audit, ids, private_work
from secdash.services.builder import fix_link
from secdash.services.errors import Conflict, NotFound
from secdash.services.fix import (
    jobs,  # noqa: F401  (registers the "fix" job kind)
    patches,
    problems,
    scope,
    workspace,
)
from secdash.services.fix.job_kind import KIND, TOPIC
from secdash.services.fix.problems import ProblemFacts
from secdash.services.identity.permissions import require_admin
from secdash.services.problems import events
from secdash.services.scanning import code_roots

LIST_LIMIT = 100
MAX_LIST_LIMIT = 500


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def _facts(session: AsyncSession, fix: Fix) -> ProblemFacts:
    event = await session.get(SecurityEvent, fix.event_id)
    assert event is not None  # the fix row cascades with its event
    site = await session.get(Site, event.site_id) if event.site_id is not None else None
    return problems.facts_of(event, site)


async def public(session: AsyncSession, fix: Fix) -> FixPublic:
    site = await session.get(Site, fix.site_id) if fix.site_id is not None else None
    served = fix.kind == FixKind.code or bool(fix.root)
    view = FixPublic.of(fix, site=site.name if site else "Unassigned", served=served)
    if problems.is_secret_rule(fix.rule):
        view.diff = problems.mask_secrets(view.diff)
    return view


async def _get(session: AsyncSession, viewer: UserPublic, fix_id: int) -> Fix:
    """The fix, if the viewer may read it (a fix of a private project: its owner only)."""
    fix = await session.get(Fix, fix_id)
    if fix is None or not await private_work.may_read_root(session, viewer, fix.root):
        raise NotFound("No fix with this id")
    return fix


def parse_id(value: Any, name: str = "id") -> int:
    return ids.parse_id(value, name)


def parse_limit(value: Any) -> int:
    if value in (None, ""):
        return LIST_LIMIT
    limit = parse_id(value, "limit")
    return min(limit, MAX_LIST_LIMIT)


async def get_fix(*, session: AsyncSession, viewer: UserPublic, fix_id: int) -> FixPublic:
    return await public(session, await _get(session, viewer, fix_id))


async def list_fixes(
    *, session: AsyncSession, viewer: UserPublic, problem_id: int | None = None, limit: int = LIST_LIMIT
) -> list[FixPublic]:
    """The newest fixes the viewer may read first (of one problem when `problem_id`)."""
    query = select(Fix)
    if problem_id is not None:
        query = query.where(Fix.event_id == problem_id)
    query = query.order_by(col(Fix.id).desc())
    reader = private_work.RootReader(session, viewer)
    shown: list[FixPublic] = []
    offset = 0
    while len(shown) < limit:
        rows = list(await session.exec(query.offset(offset).limit(limit)))
        for fix in rows:
            if len(shown) < limit and await reader.may_read(fix.root):
                shown.append(await public(session, fix))
        if len(rows) < limit:
            break
        offset += limit
    return shown


async def _active_fix(session: AsyncSession, problem_id: int) -> Fix | None:
    query = select(Fix).where(Fix.event_id == problem_id, col(Fix.status).in_(ACTIVE_STATUSES))
    return (await session.exec(query.order_by(col(Fix.id).desc()).limit(1))).first()


async def _start_job(session: AsyncSession, fix: Fix, actor: UserPublic, step: str) -> int:
    assert fix.id is not None
    params: dict[str, Any] = {"fixId": fix.id, "step": step}
    if await private_work.root_owner(session, fix.root) is not None:
        params[private_work.PRIVATE_JOB] = True  # a fix of a private project: its job is its owner's too
    try:
        job = await runner.enqueue(
            session,
            kind=KIND,
            owner_user_id=actor.id,
            owner_email=actor.email,
            singleton_key=f"{KIND}:{fix.event_id}",
            params=params,
            progress={"phase": step, "percent": 0},
        )
    except store.ActiveJobExists:
        raise Conflict(f"Problem #{fix.event_id} already has a fix job running: wait for it to finish") from None
    assert job.id is not None
    fix.job_id = job.id
    return job.id


async def propose(*, session: AsyncSession, actor: UserPublic, problem_id: Any) -> FixPublic:
    """Ask the problem's agent for a fix (a job). Conflict while another fix of the problem is open."""
    require_admin(actor, "propose fixes")
    facts = await problems.load(session, actor, parse_id(problem_id, "problemId"))
    event_id = facts.event.id
    assert event_id is not None
    active = await _active_fix(session, event_id)
    if active is not None:
        raise Conflict(f"Problem #{event_id} already has fix #{active.id} ({active.status}): apply, reject or revert it first")
    fix = Fix(
        event_id=event_id,
        site_id=facts.event.site_id,
        kind=facts.kind,
        status=FixStatus.proposing,
        agent_id=facts.agent_id,
        root=str(facts.root) if facts.root else "",
        file=facts.file,
        rule=facts.rule,
        proposed_by=actor.id,
    )
    session.add(fix)
    await session.flush()
    await _start_job(session, fix, actor, "propose")
    audit.record(
        session,
        category=LogCategory.security,
        action="Fix proposal started",
        actor_user_id=actor.id,
        description=f"{actor.email} asked for a fix of problem #{event_id} ({facts.rule}"
        + (f" in {facts.file}" if facts.kind == FixKind.code else f" on {facts.site_name}")
        + ")",
        details={"fixId": fix.id, "problemId": event_id, "kind": facts.kind.value, "rule": facts.rule},
    )
    mark_changed(session, TOPIC)
    await commit(session)
    await session.refresh(fix)
    return await public(session, fix)


def _writes(fix: Fix) -> dict[str, tuple[bytes, bytes]] | None:
    """{path: (before, after)} a served fix writes, checked against the files as they are now; None when it
    writes nothing (a site SecDash does not serve)."""
    if not fix.diff or not fix.root:
        return None
    root = Path(fix.root)
    try:
        source = code_roots.source_of(root)
        changes = patches.validate_patch(fix.diff, source, allowed_files=scope.allowed_files(source, fix.file, kind=fix.kind))
    except patches.PatchRefused as exc:
        raise Conflict(f"The fix no longer applies: {exc} Reject it and propose a new one.") from None
    return {change.path: (change.before, change.after) for change in changes}


def _must_be_proposed(fix: Fix) -> None:
    if fix.status != FixStatus.proposed:
        raise Conflict(f"Fix #{fix.id} is {fix.status}: only a proposed fix can be applied")


async def apply(*, session: AsyncSession, actor: UserPublic, fix_id: int) -> FixPublic:
    """Write a proposed fix into the workspace (or, for a site SecDash does not serve, record that the admin
    applied it on their server) and start its verification.

    The workspace is copied and written in a worker thread under its file lock, with no database transaction
    open meanwhile; the fix is read again under the lock, so two applies of one fix cannot both write it."""
    require_admin(actor, "apply fixes")
    fix = await _get(session, actor, fix_id)
    _must_be_proposed(fix)
    facts = await _facts(session, fix)
    if facts.event.resolved:
        raise Conflict(f"Problem #{fix.event_id} is already resolved; this fix is no longer needed")
    if not (fix.root and fix.diff):
        return await _record_applied(session, actor, fix, f"{facts.site_name}'s server (by the admin)")
    root = Path(fix.root)
    await fix_link.before_fix(session, root)
    await end_read(session)  # no pooled connection held while the lock is awaited
    async with workspace.locked(root):
        await session.refresh(fix)
        _must_be_proposed(fix)
        await end_read(session)  # nor while the root is copied and the files written
        writes = await asyncio.to_thread(_writes, fix)
        assert writes is not None
        written = {path: after for path, (_before, after) in writes.items()}
        await workspace.write(root, written)
        message = f"Fix Mode: fix #{fix_id} ({fix.rule}) applied to {', '.join(sorted(writes))}"
        await fix_link.after_fix(session, root, written, message)
        fix.previous = {path: base64.b64encode(before).decode() for path, (before, _after) in writes.items()}
        fix.applied = {path: _sha(after) for path, (_before, after) in writes.items()}
        return await _record_applied(session, actor, fix, f"the workspace copy of {', '.join(writes)}")


async def _record_applied(session: AsyncSession, actor: UserPublic, fix: Fix, where: str) -> FixPublic:
    """Mark the fix applied, start its verification, audit and commit."""
    now = utcnow()
    fix.status, fix.applied_at, fix.updated_at, fix.decided_by = FixStatus.applied, now, now, actor.id
    fix.verification = {"state": "running"}
    session.add(fix)
    await _start_job(session, fix, actor, "verify")
    audit.record(
        session,
        category=LogCategory.security,
        action="Fix applied",
        severity=LogSeverity.warning,
        actor_user_id=actor.id,
        description=f"{actor.email} applied fix #{fix.id} for problem #{fix.event_id} to {where}",
        details={"fixId": fix.id, "problemId": fix.event_id, "files": sorted(fix.applied), "rule": fix.rule},
    )
    mark_changed(session, TOPIC)
    await commit(session)
    await session.refresh(fix)
    return await public(session, fix)


async def reject(*, session: AsyncSession, actor: UserPublic, fix_id: int) -> FixPublic:
    require_admin(actor, "reject fixes")
    fix = await _get(session, actor, fix_id)
    if fix.status != FixStatus.proposed:
        raise Conflict(f"Fix #{fix_id} is {fix.status}: only a proposed fix can be rejected")
    fix.status, fix.updated_at, fix.decided_by = FixStatus.rejected, utcnow(), actor.id
    session.add(fix)
    audit.record(
        session,
        category=LogCategory.security,
        action="Fix rejected",
        actor_user_id=actor.id,
        description=f"{actor.email} rejected fix #{fix_id} for problem #{fix.event_id} ({fix.rule})",
        details={"fixId": fix_id, "problemId": fix.event_id},
    )
    mark_changed(session, TOPIC)
    await commit(session)
    await session.refresh(fix)
    return await public(session, fix)


def _must_be_revertible(fix: Fix) -> None:
    if fix.status not in (FixStatus.verified, FixStatus.not_verified):
        raise Conflict(f"Fix #{fix.id} is {fix.status}: only an applied and checked fix can be reverted")
    if not fix.previous:
        raise Conflict("SecDash did not write this fix (it was applied on the site's own server): undo it there")


def _unchanged_since_applied(root: Path, fix: Fix) -> None:
    """Conflict when a file the fix wrote is missing or changed since (reads the disk: run off the loop)."""
    for path, digest in fix.applied.items():
        try:
            now_bytes = workspace.current_bytes(root, path)
        except OSError:
            raise Conflict(f"{path} is missing from the workspace; it cannot be reverted") from None
        if _sha(now_bytes) != digest:
            raise Conflict(f"{path} changed after this fix was applied (another fix?): revert that one first")


async def revert(*, session: AsyncSession, actor: UserPublic, fix_id: int) -> FixPublic:
    """Write back the exact bytes a fix replaced; the problem opens again when the fix had closed it. The files
    are checked and written in a worker thread under the workspace lock, with no database transaction open."""
    require_admin(actor, "revert fixes")
    fix = await _get(session, actor, fix_id)
    _must_be_revertible(fix)
    root = Path(fix.root)
    await fix_link.before_fix(session, root)
    await end_read(session)
    async with workspace.locked(root):
        await session.refresh(fix)
        _must_be_revertible(fix)
        await end_read(session)
        await asyncio.to_thread(_unchanged_since_applied, root, fix)
        restored = {path: base64.b64decode(data) for path, data in fix.previous.items()}
        await workspace.write(root, restored)
        message = f"Fix Mode: fix #{fix_id} ({fix.rule}) reverted in {', '.join(sorted(fix.previous))}"
        await fix_link.after_fix(session, root, restored, message)
        event = await session.get(SecurityEvent, fix.event_id)
        if event is not None and event.resolved:
            events.reopen(session, event)
            event.description = event.description[:2000]
        now = utcnow()
        fix.status, fix.updated_at, fix.decided_by = FixStatus.reverted, now, actor.id
        session.add(fix)
        audit.record(
            session,
            category=LogCategory.security,
            action="Fix reverted",
            severity=LogSeverity.warning,
            actor_user_id=actor.id,
            description=f"{actor.email} reverted fix #{fix_id}: {', '.join(sorted(fix.previous))} restored; problem "
            f"#{fix.event_id} is open again",
            details={"fixId": fix_id, "problemId": fix.event_id, "files": sorted(fix.previous)},
        )
        mark_changed(session, TOPIC)
        await commit(session)
    await session.refresh(fix)
    return await public(session, fix)


async def patch_file(*, session: AsyncSession, viewer: UserPublic, fix_id: int) -> tuple[str, str]:
    """(file name, text) of a fix's diff, as `git apply` reads it from the code root."""
    fix = await _get(session, viewer, fix_id)
    if problems.is_secret_rule(fix.rule):
        require_admin(viewer, "download the patch of a committed secret's fix (it holds the secret)")
    if not fix.diff:
        raise NotFound(
            f"Fix #{fix_id} has no diff"
            + (" yet" if fix.status == FixStatus.proposing else " (it is a header change for the site's own server)")
        )
    stem = Path(fix.file).name.replace(".", "-") or "site"
    return f"secdash-fix-{fix_id}-{stem}.patch", fix.diff
