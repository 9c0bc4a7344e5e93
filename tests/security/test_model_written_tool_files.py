"""A model never plants files that tools run by themselves in a builder project (issue 21, item 11).

A model-written `.git/config` with core.fsmonitor ran a command when the person who downloaded the project ran
`git status` in the unzipped folder. No dot file or dot folder that tools run or load (git's, Mercurial's,
Subversion's, editors' tasks, direnv, npm, pre-commit, devcontainers), and no `HEAD` that would make a folder a bare
git repository, is written: the build log says which file was refused and why, the project, its directory on disk
and its zip hold none of them (not even one stored before this rule).
"""

from __future__ import annotations

import io
import shutil
import zipfile

import pytest
from sqlmodel import select

from secdash.ai.files import tool_file_reason
from secdash.jobs import runner
from secdash.models.builder import CodeProject, ProjectFile, ProjectStatus
from secdash.services.builder import archive, project_dir, projects
from tests.factories import make_user
from tests.support.fake_openai import TOOL_FILES, FakeOpenAI

REFUSED = sorted(path for path in TOOL_FILES if path.startswith(".") or path.endswith("HEAD"))
HARMLESS = [
    "index.html",
    "app.js",
    "docs/read.me.txt",
    ".gitignore",
    ".editorconfig",
    ".well-known/security.txt",
    "site/config",
    "headless/app.js",
    "site/objects/keep.txt",
]


@pytest.fixture(autouse=True)
def clean_projects():
    yield
    shutil.rmtree(project_dir.projects_dir(), ignore_errors=True)


@pytest.fixture
def model(settings, monkeypatch):
    fake = FakeOpenAI()
    monkeypatch.setattr(settings, "LLM_BASE_URL", fake.base_url)
    monkeypatch.setattr(settings, "LLM_MODEL", "builder-toolfiles")
    yield fake
    fake.close()


@pytest.mark.parametrize(
    "path",
    [
        *REFUSED,
        ".GIT/config",
        "a/b/.git/config",
        ".Git/hooks/pre-commit",
        "head",
        "site/Head",
        ".env",
        ".env.local",
        ".bashrc",
        ".profile",
        ".yarnrc.yml",
        ".eslintrc.js",
        ".github/workflows/ci.yml",
        ".circleci/config.yml",
    ],
)
def test_files_that_tools_run_are_refused_with_a_reason(path):
    reason = tool_file_reason(path)
    assert reason and len(reason) > 20, path


@pytest.mark.parametrize("path", HARMLESS)
def test_ordinary_files_are_not(path):
    assert tool_file_reason(path) is None


async def test_a_build_writes_none_of_them_and_its_log_says_so(session, model):
    user = await make_user(session, "builder@example.com")
    started = await projects.build(session=session, actor=user, prompt="a page with a button")
    row = (await session.exec(select(CodeProject).where(CodeProject.id == started.id))).one()
    await runner.wait_for(row.job_id, timeout=90)
    session.expire_all()
    project = await projects.get_project(session=session, viewer=user, project_id=started.id)
    assert project.status == "complete", project.error
    names = {file.filename for file in project.files}
    assert {"index.html", "style.css", "app.js", "site/config"} <= names
    assert not names & set(REFUSED), names & set(REFUSED)
    log = [line.message for line in await projects.logs(session=session, viewer=user, project_id=project.id)]
    for path in REFUSED:
        assert any(message.startswith(f"Refused {path}: ") for message in log), (path, log)
    assert not any("secdash-pwned" in message for message in log)  # the refused content is not logged either
    root = project_dir.dir_of(project.id)
    on_disk = {path.relative_to(root).as_posix() for path in root.rglob("*")}
    assert not on_disk & set(REFUSED) and not any(part.startswith(".") for p in on_disk for part in p.split("/"))
    _name, data = await archive.project_zip(session=session, viewer=user, project_id=project.id)
    entries = [name.split("/", 1)[1] for name in zipfile.ZipFile(io.BytesIO(data)).namelist()]
    assert "index.html" in entries and not set(entries) & set(REFUSED)


async def test_files_stored_before_the_rule_stay_out_of_the_directory_and_the_zip(session):
    user = await make_user(session, "builder@example.com")
    project = CodeProject(owner_user_id=user.id, name="Old", prompt="old", status=ProjectStatus.complete)
    session.add(project)
    await session.flush()
    files = {"index.html": "<p>hi</p>\n", **TOOL_FILES}
    for path, content in files.items():
        session.add(ProjectFile(project_id=project.id, filename=path, content=content))
    project_id = project.id
    await session.commit()
    root = project_dir.write(project_id, files)
    assert (root / "index.html").is_file()
    assert not any((root / path).exists() for path in REFUSED)
    _name, data = await archive.project_zip(session=session, viewer=user, project_id=project_id)
    entries = {name.split("/", 1)[1] for name in zipfile.ZipFile(io.BytesIO(data)).namelist()}
    assert "index.html" in entries and not entries & set(REFUSED)
    assert archive.zip_bytes({".git/config": "x", "a.txt": "y"}, "p") == archive.zip_bytes({"a.txt": "y"}, "p")
