"""One user's private work, planted through the real stores and services, for the census of who may read it
(tests/security/test_private_work*.py): a builder project that is a code root of the Security Scan (an
administrator's), a scanner finding in it with a Fix Mode fix, an HTML artifact with a hand-edited version, and
the build and generation jobs whose parameters hold the prompts. Every piece carries a marker the census looks for.
"""

from __future__ import annotations

from dataclasses import dataclass

from secdash.core.config import get_settings
from secdash.jobs import runner, store
from secdash.models import UserPublic
from secdash.models.artifacts import Artifact, ArtifactStatus, ArtifactVersion, VersionSource
from secdash.models.builder import BuildLogType, CodeProject, ProjectFile, ProjectStatus
from secdash.services.artifacts import artifacts
from secdash.services.artifacts.records import KIND as ARTIFACT_KIND
from secdash.services.builder import project_dir, projects  # noqa: F401  (projects registers the "build" kind)
from secdash.services.builder.records import KIND as BUILD_KIND
from secdash.services.builder.records import add_log
from secdash.services.code_scan import Finding
from secdash.services.fix import fixes
from secdash.services.problems import events
from secdash.services.scanning import scan_findings

CODE = "PRIVATE-CODE-5e1f"  # in the project's files and the artifact's HTML
PROMPT = "PRIVATE-PROMPT-9c2d"  # the prompts (the project's, the artifact's, both jobs' parameters)
NOTE = "PRIVATE-NOTE-3b7a"  # the note of a hand edit
MARKERS = (CODE, PROMPT, NOTE)

APP_JS = (
    f"// {CODE}: the owner's settings loader\n"
    "const saved = localStorage.getItem('settings') || '{}';\n"
    "const settings = eval(saved);\n"
    f"console.log('{CODE}', settings);\n"
)
INDEX_HTML = f'<!doctype html>\n<html lang="en">\n<title>{CODE}</title>\n<script src="app.js"></script>\n</html>\n'
PAGE = f'<!doctype html>\n<html lang="en">\n<head><title>Owner page</title></head>\n<body><p>{CODE}</p></body>\n</html>\n'


@dataclass(frozen=True)
class PrivateWork:
    owner: UserPublic
    project_id: int
    artifact_id: int
    problem_id: int
    fix_id: int
    build_job: int
    artifact_job: int
    fix_job: int

    @property
    def jobs(self) -> tuple[int, ...]:
        return self.build_job, self.artifact_job, self.fix_job


async def _project(session, owner: UserPublic) -> tuple[int, int]:
    project = CodeProject(
        owner_user_id=owner.id,
        current_of=owner.id,
        name="Owner project",
        description=PROMPT,
        prompt=PROMPT,
        status=ProjectStatus.complete,
    )
    session.add(project)
    await session.flush()
    files = {"app.js": APP_JS, "index.html": INDEX_HTML}
    for path, content in files.items():
        session.add(ProjectFile(project_id=project.id, filename=path, language=project_dir.language_of(path), content=content))
    job = await store.create(
        session,
        kind=BUILD_KIND,
        owner_user_id=owner.id,
        owner_email=owner.email,
        singleton_key=f"{BUILD_KIND}:{owner.id}",
        params={"projectId": project.id, "prompt": PROMPT, "mode": "build"},
    )
    project.job_id = job.id
    session.add(project)
    await add_log(session, project, f"Updated app.js:\n{APP_JS}", BuildLogType.code)
    project_id, job_id = project.id, job.id
    await session.commit()
    project_dir.write(project_id, files)
    project_dir.mark_code_root(project_id, True)  # as a build of an administrator's project does
    await store.append_log(job_id, f"Writing app.js: {CODE}")
    return project_id, job_id


async def _artifact(session, owner: UserPublic) -> tuple[int, int]:
    artifact = Artifact(
        owner_user_id=owner.id,
        current_of=owner.id,
        name="Owner page",
        version=1,
        html_content=PAGE,
        prompt=PROMPT,
        status=ArtifactStatus.ready,
    )
    session.add(artifact)
    await session.flush()
    session.add(
        ArtifactVersion(
            artifact_id=artifact.id,
            version=1,
            html_content=PAGE,
            changes="First version",
            prompt=PROMPT,
            source=VersionSource.model,
        )
    )
    job = await store.create(
        session,
        kind=ARTIFACT_KIND,
        owner_user_id=owner.id,
        owner_email=owner.email,
        singleton_key=f"{ARTIFACT_KIND}:{owner.id}",
        params={"artifactId": artifact.id, "prompt": PROMPT, "mode": "create"},
    )
    artifact_id, job_id = artifact.id, job.id
    await session.commit()
    await store.append_log(job_id, f"Generating: {PROMPT}")
    edited = PAGE.replace("<p>", "<p>Edited ")
    await artifacts.save_edit(session=session, actor=owner, artifact_id=artifact_id, html=edited, changes=NOTE)
    return artifact_id, job_id


async def plant(session, owner: UserPublic, monkeypatch) -> PrivateWork:
    """The owner's private work (the owner should be an administrator: only their projects are code roots)."""
    project_id, build_job = await _project(session, owner)
    artifact_id, artifact_job = await _artifact(session, owner)
    finding = Finding("app.js", 3, "js:eval", "high", "eval() runs a string as code", "secdash-rules")
    prints = await scan_findings.record_findings(session, 0, [finding], root=str(project_dir.dir_of(project_id)))
    await session.commit()
    found = await events.open_by_fingerprint(session=session, fingerprints=list(prints))
    problem_id = next(iter(found.values())).id
    monkeypatch.setattr(get_settings(), "LLM_BASE_URL", "")  # the offline engine's recipe writes the fix
    fix = await fixes.propose(session=session, actor=owner, problem_id=problem_id)
    await runner.wait_for(fix.job_id, timeout=60)
    session.expire_all()
    return PrivateWork(
        owner=owner,
        project_id=project_id,
        artifact_id=artifact_id,
        problem_id=problem_id,
        fix_id=fix.id,
        build_job=build_job,
        artifact_job=artifact_job,
        fix_job=fix.job_id,
    )
