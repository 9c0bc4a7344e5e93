"""The project list of the Live Code Builder: each project with its files, saved snapshots and last change;
rename and delete one project, the owner's only (anyone else, admins included, is told it does not exist)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from secdash.core.unit import commit
from secdash.models.builder import CodeProject, ProjectFile, ProjectStatus
from secdash.services import workspaces
from secdash.services.builder import library, project_dir, projects
from secdash.services.errors import Invalid, NotFound
from tests.factories import make_user


async def _project(session, user, name: str, current: bool = True) -> int:
    row = CodeProject(
        owner_user_id=user.id,
        current_of=user.id if current else None,
        name=name,
        description=name,
        prompt=name,
        status=ProjectStatus.complete,
    )
    session.add(row)
    await session.flush()
    session.add(ProjectFile(project_id=row.id, filename="index.html", language="html", content="<h1>x</h1>"))
    session.add(ProjectFile(project_id=row.id, filename="style.css", language="css", content="h1{}"))
    await commit(session)
    return row.id


async def test_the_list_counts_files_and_snapshots_newest_change_first(session):
    user = await make_user(session, "builder@example.com")
    first = await _project(session, user, "Bean There")
    snapshot = await projects.save(session=session, actor=user, project_id=first)
    listed = await projects.list_projects(session=session, viewer=user)
    by_id = {row.id: row for row in listed}
    assert by_id[first].snapshot_count == 1 and by_id[first].file_count == 2 and by_id[first].current
    assert by_id[snapshot.id].snapshot_of == first and by_id[snapshot.id].snapshot_count == 0
    assert all(row.updated_at is not None for row in listed)


async def test_rename_trims_and_checks_the_name(session):
    user = await make_user(session, "builder@example.com")
    project_id = await _project(session, user, "Bean There")
    renamed = await library.rename(session=session, actor=user, project_id=project_id, name="  Bean There v2  ")
    assert renamed.name == "Bean There v2"
    assert (await projects.get_project(session=session, viewer=user, project_id=project_id)).name == "Bean There v2"
    for bad in ("", "   ", "x" * (library.MAX_NAME_CHARS + 1), 42):
        with pytest.raises(Invalid):
            await library.rename(session=session, actor=user, project_id=project_id, name=bad)


async def test_delete_removes_one_project_and_keeps_its_snapshots(session):
    user = await make_user(session, "builder@example.com")
    project_id = await _project(session, user, "Bean There")
    snapshot = await projects.save(session=session, actor=user, project_id=project_id)
    project_dir.dir_of(project_id).mkdir(parents=True, exist_ok=True)
    await library.delete(session=session, actor=user, project_id=project_id)
    with pytest.raises(NotFound):
        await projects.get_project(session=session, viewer=user, project_id=project_id)
    assert await projects.current(session=session, viewer=user) is None
    kept = await projects.get_project(session=session, viewer=user, project_id=snapshot.id)
    assert kept.snapshot_of is None and len(kept.files) == 2
    assert not project_dir.dir_of(project_id).exists()


async def test_someone_elses_project_cannot_be_renamed_or_deleted(session):
    owner = await make_user(session, "owner@example.com")
    admin = await make_user(session, "root@example.com", role="admin")
    project_id = await _project(session, owner, "Bean There")
    with pytest.raises(NotFound):
        await library.rename(session=session, actor=admin, project_id=project_id, name="Mine now")
    with pytest.raises(NotFound):
        await library.delete(session=session, actor=admin, project_id=project_id)
    assert await projects.list_projects(session=session, viewer=admin) == []
    assert (await projects.get_project(session=session, viewer=owner, project_id=project_id)).name == "Bean There"


async def test_delete_waits_for_a_write_in_progress_and_the_server_keeps_answering(session):
    """A Fix Mode write holding the project's workspace lock finishes before the folder goes; meanwhile the
    event loop keeps serving other work (the deletion waits in a worker thread)."""
    user = await make_user(session, "builder@example.com")
    project_id = await _project(session, user, "Bean There")
    root = project_dir.dir_of(project_id)
    root.mkdir(parents=True, exist_ok=True)
    held, release = threading.Event(), threading.Event()

    def writer() -> None:
        with workspaces.locked(root):
            held.set()
            release.wait(10)
            (root / "index.html").write_text("<h1>fixed</h1>")

    thread = threading.Thread(target=writer)
    thread.start()
    assert await asyncio.to_thread(held.wait, 10)
    deleting = asyncio.create_task(library.delete(session=session, actor=user, project_id=project_id))
    ticks = 0
    for _ in range(20):
        await asyncio.sleep(0.01)
        ticks += 1
    assert ticks == 20 and not deleting.done() and root.exists()
    release.set()
    await asyncio.wait_for(deleting, 10)
    thread.join(10)
    assert not root.exists()
