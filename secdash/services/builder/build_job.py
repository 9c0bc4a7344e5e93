"""The "build" job: plan, write the files as the model streams them, run the checks (a build or a continue).

The job's progress follows the work: planning (the model plans the files), building (files are written: each
appears in the project, and in every open page, while it is being written), testing (services/builder/checks.py
over the files on disk); the project row gets the outcome, complete or failed with the reason, and the lines go
to the job's log. A continue sends the current files as context and applies
only the files the answer holds; a file the answer left unfinished, or one being rewritten when the build fails
or is stopped, gets its previous content back, so nothing is half-written. A file that tools run by themselves
(`.git/config`, `.vscode/tasks.json`, ...: secdash/ai/files.py `tool_file_reason`) is refused, the reason logged.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from sqlalchemy import delete
from sqlmodel import col, select

from secdash.ai.base import FileContent, FileEnd, FileStart, LLMError, TextDelta
from secdash.ai.plans import ProjectPlan
from secdash.ai.tasks.build_project import BuildProjectTask, PlanProjectTask
from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.unit import commit, mark_changed
from secdash.jobs import JobContext, JobEnding, register
from secdash.models import Role, User, UserPublic, utcnow
from secdash.models.builder import BuildLogType, CodeProject, FileChange, ProjectFile, ProjectStatus
from secdash.models.jobs import JobLog
from secdash.services.agents import ai_calls
from secdash.services.builder import checks, project_dir
from secdash.services.builder.file_writer import BuildFailed, FileWriter, log_line
from secdash.services.builder.limits import (
    MAX_LOG_LINES,
)
from secdash.services.builder.records import CRASHED, INTERRUPTED, KIND, TOPIC, jobs_of, topic_of
from secdash.services.errors import DomainError

log = logging.getLogger(__name__)

NOTE_LINES_LOGGED = 6


async def _set(project_id: int, **fields: Any) -> CodeProject | None:
    async with session_scope() as session:
        project = await session.get(CodeProject, project_id)
        if project is None:
            return None
        for name, value in fields.items():
            setattr(project, name, value)
        project.updated_at = utcnow()
        session.add(project)
        mark_changed(session, topic_of(project.owner_user_id))
        await commit(session)
        return project


async def _current_files(project_id: int) -> dict[str, str]:
    async with session_scope() as session:
        rows = await session.exec(select(ProjectFile).where(ProjectFile.project_id == project_id))
        return {row.filename: row.content for row in rows}


async def _plan(ctx: JobContext, calls: ai_calls.AICalls, project_id: int, prompt: str) -> ProjectPlan | None:
    await ctx.progress(force=True, phase=ProjectStatus.planning.value)
    await log_line(ctx.job_id, project_id, "Planning the project's files...")
    try:
        plan = await calls.structured(PlanProjectTask(prompt=prompt), ProjectPlan)
    except LLMError as exc:
        if exc.kind != "format":
            raise
        await log_line(ctx.job_id, project_id, "The model gave no usable plan; building without one", BuildLogType.error)
        return None
    await _set(project_id, name=plan.name[:100], description=plan.description[:500])
    listed = ", ".join(item.path for item in plan.files)
    await log_line(
        ctx.job_id, project_id, f"Plan: {plan.name}: {len(plan.files)} file{'s' if len(plan.files) != 1 else ''} ({listed})"
    )
    return plan


async def _write(
    ctx: JobContext,
    calls: ai_calls.AICalls,
    project: CodeProject,
    prompt: str,
    plan: ProjectPlan | None,
    existing: dict[str, str],
) -> FileWriter:
    assert project.id is not None
    project_id = project.id
    await ctx.progress(force=True, phase=ProjectStatus.building.value)
    writer = FileWriter(ctx.job_id, project, existing, plan)
    notes: list[str] = []
    logged = 0

    async def say_notes() -> None:
        """The model's text outside files, logged as it comes (a few short lines at most)."""
        nonlocal logged
        said = [line.strip() for line in "".join(notes).splitlines() if line.strip() and not line.startswith("```")]
        for line in said[: max(0, NOTE_LINES_LOGGED - logged)]:
            await log_line(ctx.job_id, project_id, line[:300])
            logged += 1
        notes.clear()

    task = BuildProjectTask(prompt=prompt, plan=plan, current=tuple(sorted(existing.items())))
    try:
        async for event in calls.stream(task):
            if await ctx.should_stop():
                raise BuildFailed("Stopped")
            if isinstance(event, FileStart):
                await say_notes()
                await writer.start(event.path)
            elif isinstance(event, FileContent):
                await writer.append(event.text)
            elif isinstance(event, FileEnd):
                await writer.end(event.path, complete=event.complete)
            elif isinstance(event, TextDelta):
                notes.append(event.text)
    except BaseException:
        await asyncio.shield(writer.restore())
        raise
    await say_notes()
    return writer


async def _test(ctx: JobContext, project_id: int, code_root: bool) -> dict[str, Any]:
    await ctx.progress(force=True, phase=ProjectStatus.testing.value)
    files = await _current_files(project_id)
    await log_line(ctx.job_id, project_id, f"Testing {len(files)} files: HTML, links, JavaScript syntax, Python, code scan...")
    root = await asyncio.to_thread(project_dir.write, project_id, files)
    if project_dir.mark_code_root(project_id, code_root) and code_root:
        await log_line(
            ctx.job_id,
            project_id,
            "This project is now a code root of the Security Scan: its findings reach the Problem Database and Fix Mode",
        )
    report = await checks.run_checks(root, sorted(files))
    for finding in report.findings:
        where = f"{finding.file}:{finding.line}" if finding.line else finding.file
        kind = BuildLogType.error if finding.level == "error" else BuildLogType.info
        await log_line(ctx.job_id, project_id, f"[{finding.check}] {where}: {finding.message}", kind)
    warnings = len(report.findings) - report.errors
    summary = {"errors": report.errors, "warnings": warnings, "counts": dict(report.counts)}
    if report.ok:
        await log_line(
            ctx.job_id, project_id, f"Checks passed ({warnings} warning{'s' if warnings != 1 else ''})", BuildLogType.success
        )
    else:
        await log_line(
            ctx.job_id,
            project_id,
            f"Checks found {report.errors} error{'s' if report.errors != 1 else ''} and "
            f"{warnings} warning{'s' if warnings != 1 else ''}",
            BuildLogType.error,
        )
    return summary


async def _owner(user_id: int | None) -> UserPublic:
    async with session_scope() as session:
        user = await session.get(User, user_id) if user_id else None
        if user is None:
            raise BuildFailed("The project's owner no longer exists")
        return UserPublic.from_user(user)


async def _run(ctx: JobContext, project_id: int, prompt: str, mode: str) -> dict[str, Any]:
    async with session_scope() as session:
        project = await session.get(CodeProject, project_id)
        if project is None:
            raise BuildFailed(f"Project #{project_id} no longer exists")
    owner = await _owner(ctx.owner_user_id)
    calls = ai_calls.for_user(settings=get_settings(), user=owner, feature="code_builder", agent="general")
    engine = "the offline template engine" if calls.name == "offline" else f"{calls.name} ({calls.model})"
    await _set(project_id, engine=calls.name[:32], model=calls.model[:100])
    await log_line(ctx.job_id, project_id, f"Engine: {engine}")
    existing = await _current_files(project_id) if mode == "continue" else {}
    if mode == "continue":
        await _reset_changes(project_id)
    plan = await _plan(ctx, calls, project_id, prompt) if mode == "build" else None
    writer = await _write(ctx, calls, project, prompt, plan, existing)
    if not writer.written:
        if mode == "build":
            raise BuildFailed("The answer held no files (neither the file protocol nor fenced blocks with a file name)")
        await log_line(ctx.job_id, project_id, "No file changed")
    summary = await _test(ctx, project_id, code_root=owner.role == Role.admin and project.snapshot_of is None)
    await _set(project_id, status=ProjectStatus.complete, checks=summary, error=None)
    count = len(writer.written)
    done = (
        f"Build complete: {count} file{'s' if count != 1 else ''} written"
        if mode == "build"
        else f"Continue complete: {count} file{'s' if count != 1 else ''} changed"
    )
    await log_line(ctx.job_id, project_id, done, BuildLogType.success)
    await ctx.progress(force=True, phase=ProjectStatus.complete.value)
    return {"projectId": project_id, "files": sorted(writer.written), **summary}


async def _reset_changes(project_id: int) -> None:
    async with session_scope() as session:
        for file in await session.exec(select(ProjectFile).where(ProjectFile.project_id == project_id)):
            file.change, file.previous = FileChange.unchanged, None
            session.add(file)
        await commit(session)


async def _fail(job_id: int, project_id: int, reason: str) -> None:
    await log_line(job_id, project_id, f"Build failed: {reason}", BuildLogType.error)
    await _set(project_id, status=ProjectStatus.failed, error=reason[:1000])


async def trim_log(project_id: int) -> None:
    """Keep the newest MAX_LOG_LINES lines of the project's log, its build jobs' lines (a project continued many
    times grows no further)."""
    async with session_scope() as session:
        mine = col(JobLog.job_id).in_(jobs_of([project_id]))
        query = select(JobLog.id).where(mine).order_by(col(JobLog.id).desc()).offset(MAX_LOG_LINES).limit(1)
        oldest_dropped = (await session.exec(query)).first()
        if oldest_dropped is not None:
            await session.exec(delete(JobLog).where(mine, col(JobLog.id) <= oldest_dropped))
            await commit(session)


async def _ended(ending: JobEnding) -> None:
    """The job ended without the build closing its project (a crash, the server stopping, a vanished worker)."""
    reason = INTERRUPTED if ending.status == "interrupted" else CRASHED
    await _fail(ending.job_id, int(ending.params["projectId"]), reason)


@register(KIND, topic=TOPIC, owner_topic=topic_of, on_end=_ended)
async def run_build(ctx: JobContext) -> dict[str, Any]:
    project_id = int(ctx.params["projectId"])
    prompt, mode = str(ctx.params.get("prompt", "")), str(ctx.params.get("mode", "build"))
    try:
        return await _run(ctx, project_id, prompt, mode)
    except BuildFailed as exc:
        await _fail(ctx.job_id, project_id, str(exc))
        return {"projectId": project_id, "error": str(exc)}
    except LLMError as exc:
        await _fail(ctx.job_id, project_id, f"The model failed: {exc.message}")
        return {"projectId": project_id, "error": exc.message}
    except DomainError as exc:  # the user's AI budget
        await _fail(ctx.job_id, project_id, exc.message)
        return {"projectId": project_id, "error": exc.message}
    finally:
        await asyncio.shield(trim_log(project_id))
