"""The Live Code Builder over HTTP: build, follow, continue, save, new, clear all, download, preview links and the
isolated preview route; signed out 401, someone else's project 404, bad bodies and ids a clear 4xx {"message"}."""

from __future__ import annotations

import asyncio
import io
import shutil
import time
import zipfile

import pytest

from secdash.services.builder import preview, project_dir
from tests.api.conftest import signed_in

ROUTES = [
    ("GET", "/api/code-project", None),
    ("GET", "/api/code-project/current", None),
    ("GET", "/api/code-project/logs/1", None),
    ("POST", "/api/code-project/build", {"prompt": "a landing page"}),
    ("POST", "/api/code-project/continue", {"projectId": 1, "prompt": "make it dark"}),
    ("POST", "/api/code-project/save", {"projectId": 1}),
    ("POST", "/api/code-project/new", None),
    ("DELETE", "/api/code-project/clear-all", None),
    ("GET", "/api/code-project/1", None),
    ("POST", "/api/code-project/1/open", None),
    ("PATCH", "/api/code-project/1", {"name": "Renamed"}),
    ("DELETE", "/api/code-project/1", None),
    ("POST", "/api/code-project/1/stop", None),
    ("GET", "/api/code-project/1/preview", None),
    ("GET", "/api/code-project/1/download", None),
]


@pytest.fixture(autouse=True)
def clean_projects():
    yield
    shutil.rmtree(project_dir.projects_dir(), ignore_errors=True)


def assert_refused(response, status: int, *words: str) -> None:
    assert response.status_code == status, (response.status_code, response.text)
    message = response.json()["message"]
    assert message and all(word in message for word in words), message


async def finished(client, headers, project_id: int, timeout: float = 90) -> dict:
    """Poll the project until its build ends (as the spec's client polls /current)."""
    deadline = time.monotonic() + timeout
    while True:
        response = await client.get(f"/api/code-project/{project_id}", headers=headers)
        assert response.status_code == 200, response.text
        project = response.json()
        if not project["building"]:
            return project
        assert time.monotonic() < deadline, project
        await asyncio.sleep(0.05)


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_signed_out_callers_get_401(client, method, path, body):
    assert_refused(await client.request(method, path, json=body), 401)


async def test_build_follow_continue_save_download_and_clear(client, session):
    user = await signed_in(client, session, "builder@example.com", "limited")
    assert (await client.get("/api/code-project/current", headers=user)).json() is None
    response = await client.post("/api/code-project/build", json={"prompt": "a small memory game"}, headers=user)
    assert response.status_code == 202, response.text
    started = response.json()
    assert set(started) >= {"id", "name", "description", "status", "createdAt", "files"}
    assert started["status"] == "planning"
    project = await finished(client, user, started["id"])
    assert project["status"] == "complete" and project["files"], project
    assert set(project["files"][0]) >= {"id", "filename", "language", "description", "content"}
    current = (await client.get("/api/code-project/current", headers=user)).json()
    assert current["id"] == project["id"]

    logs = (await client.get(f"/api/code-project/logs/{project['id']}", headers=user)).json()
    assert set(logs[0]) == {"id", "type", "message", "timestamp"}
    assert {line["type"] for line in logs} >= {"info", "success"}
    later = (await client.get(f"/api/code-project/logs/{project['id']}?after={logs[-2]['id']}", headers=user)).json()
    assert later == logs[-1:]

    response = await client.post(
        "/api/code-project/continue", json={"projectId": project["id"], "prompt": "make it dark"}, headers=user
    )
    assert response.status_code == 202, response.text
    changed = await finished(client, user, project["id"])
    assert changed["status"] == "complete"
    assert any(file["change"] == "updated" for file in changed["files"])

    saved = await client.post("/api/code-project/save", json={"projectId": project["id"]}, headers=user)
    assert saved.status_code == 201 and saved.json()["snapshotOf"] == project["id"]
    listed = (await client.get("/api/code-project", headers=user)).json()
    assert [row["id"] for row in listed] == [saved.json()["id"], project["id"]]

    download = await client.get(f"/api/code-project/{project['id']}/download", headers=user)
    assert download.status_code == 200 and download.headers["content-type"] == "application/zip"
    assert 'filename="' in download.headers["content-disposition"]
    with zipfile.ZipFile(io.BytesIO(download.content)) as archive:
        assert len(archive.namelist()) == len(changed["files"])

    assert (await client.post("/api/code-project/new", headers=user)).status_code == 204
    assert (await client.get("/api/code-project/current", headers=user)).json() is None
    cleared = await client.delete("/api/code-project/clear-all", headers=user)
    assert cleared.status_code == 200 and cleared.json() == {"deleted": 2}
    assert (await client.get("/api/code-project", headers=user)).json() == []


async def test_bad_input_gets_a_clear_message(client, session):
    user = await signed_in(client, session, "builder@example.com", "limited")
    assert_refused(await client.post("/api/code-project/build", json={"prompt": "   "}, headers=user), 400, "Prompt")
    assert_refused(await client.post("/api/code-project/build", json={"prompt": "x" * 4001}, headers=user), 400, "too long")
    assert_refused(await client.post("/api/code-project/build", json={}, headers=user), 400)
    assert_refused(await client.post("/api/code-project/build", json={"prompt": 7}, headers=user), 400)
    assert_refused(
        await client.post("/api/code-project/continue", json={"projectId": "x", "prompt": "a"}, headers=user), 400, "projectId"
    )
    assert_refused(await client.post("/api/code-project/continue", json={"projectId": 99, "prompt": "a"}, headers=user), 404)
    assert_refused(await client.get("/api/code-project/0", headers=user), 400)
    for huge in (2**31, 36307118907):  # no such row; PostgreSQL would refuse it as an INTEGER (a 500 before)
        assert_refused(
            await client.post("/api/code-project/continue", json={"projectId": huge, "prompt": "a"}, headers=user),
            400,
            "projectId",
            "at most",
        )
        assert_refused(await client.post("/api/code-project/save", json={"projectId": huge}, headers=user), 400)
    assert_refused(await client.get("/api/code-project/logs/1?after=-1", headers=user), 404)
    assert (await client.get("/api/code-project", headers=user)).json() == []


async def test_someone_elses_project_is_404_and_one_build_at_a_time(client, session):
    owner = await signed_in(client, session, "owner@example.com", "limited")
    other = await signed_in(client, session, "root@example.com", "admin")
    started = (await client.post("/api/code-project/build", json={"prompt": "a landing page"}, headers=owner)).json()
    assert_refused(
        await client.post("/api/code-project/build", json={"prompt": "another"}, headers=owner), 409, "already running"
    )
    project = await finished(client, owner, started["id"])
    pid = project["id"]
    for method, path, body in [
        ("GET", f"/api/code-project/{pid}", None),
        ("GET", f"/api/code-project/logs/{pid}", None),
        ("POST", "/api/code-project/continue", {"projectId": pid, "prompt": "dark"}),
        ("POST", "/api/code-project/save", {"projectId": pid}),
        ("GET", f"/api/code-project/{pid}/download", None),
        ("GET", f"/api/code-project/{pid}/preview", None),
        ("POST", f"/api/code-project/{pid}/open", None),
        ("PATCH", f"/api/code-project/{pid}", {"name": "Mine now"}),
        ("DELETE", f"/api/code-project/{pid}", None),
    ]:
        assert_refused(await client.request(method, path, json=body, headers=other), 404)


async def test_the_list_rename_and_delete_of_one_project(client, session):
    owner = await signed_in(client, session, "owner@example.com", "limited")
    started = (await client.post("/api/code-project/build", json={"prompt": "a landing page"}, headers=owner)).json()
    pid = (await finished(client, owner, started["id"]))["id"]
    saved = await client.post("/api/code-project/save", json={"projectId": pid}, headers=owner)
    listed = {row["id"]: row for row in (await client.get("/api/code-project", headers=owner)).json()}
    assert listed[pid]["snapshotCount"] == 1 and listed[pid]["updatedAt"]
    renamed = await client.patch(f"/api/code-project/{pid}", json={"name": " Bean There v2 "}, headers=owner)
    assert renamed.status_code == 200 and renamed.json()["name"] == "Bean There v2"
    assert_refused(await client.patch(f"/api/code-project/{pid}", json={"name": "  "}, headers=owner), 400)
    assert (await client.delete(f"/api/code-project/{pid}", headers=owner)).status_code == 204
    assert_refused(await client.get(f"/api/code-project/{pid}", headers=owner), 404)
    kept = (await client.get(f"/api/code-project/{saved.json()['id']}", headers=owner)).json()
    assert kept["snapshotOf"] is None


async def test_the_preview_route_serves_sandboxed_files_under_a_link(client, session):
    user = await signed_in(client, session, "builder@example.com", "limited")
    started = (await client.post("/api/code-project/build", json={"prompt": "a dashboard with a chart"}, headers=user)).json()
    project = await finished(client, user, started["id"])
    link = (await client.get(f"/api/code-project/{project['id']}/preview", headers=user)).json()["url"]
    assert link.startswith("/preview/") and link.endswith("/index.html")
    page = await client.get(link, headers={"Sec-Fetch-Dest": "iframe"})  # no credentials: the link is the credential
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["content-security-policy"] == preview.PREVIEW_CSP
    assert "sandbox allow-scripts" in page.headers["content-security-policy"]
    assert "connect-src 'none'" in page.headers["content-security-policy"]
    assert "allow-same-origin" not in page.headers["content-security-policy"]
    scripts = [file["filename"] for file in project["files"] if file["filename"].endswith(".js")]
    script = await client.get(link.replace("index.html", scripts[0]))
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    for bad in (
        link.replace("index.html", "..%2F..%2Fetc%2Fpasswd"),
        link.replace("index.html", "nope.html"),
        "/preview/forged-token/index.html",
    ):
        response = await client.get(bad)
        assert response.status_code == 404 and "sandbox" in response.headers["content-security-policy"]
