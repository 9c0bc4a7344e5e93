"""HTML artifacts over HTTP: create, follow, update, history, one version, diff, restore, hand edits, open/new, stop,
delete, preview links and the sandboxed preview, downloads; signed out 401 everywhere, someone else's artifact 404
on every id route (an admin's view of a limited user's included), bad input a clear 400 {"message"}, a second
generation while one runs 409, and no 500 anywhere."""

from __future__ import annotations

import asyncio
import io
import json
import re
import time
import zipfile
from urllib.parse import unquote

import pytest

from secdash.api.routes.artifacts import EDIT_MAX_BODY_BYTES, attachment
from secdash.core.config import get_settings
from secdash.services.artifacts.limits import MAX_HTML_BYTES
from secdash.services.preview_links import PREVIEW_CSP
from tests.api.conftest import signed_in

ROUTES = [
    ("GET", "/api/artifacts", None),
    ("GET", "/api/artifacts/current", None),
    ("POST", "/api/artifacts/create", {"prompt": "a pricing table"}),
    ("POST", "/api/artifacts/new", None),
    ("GET", "/api/artifacts/1", None),
    ("DELETE", "/api/artifacts/1", None),
    ("POST", "/api/artifacts/1/update", {"prompt": "make it dark"}),
    ("POST", "/api/artifacts/1/open", None),
    ("POST", "/api/artifacts/1/stop", None),
    ("GET", "/api/artifacts/1/history", None),
    ("POST", "/api/artifacts/1/versions", {"htmlContent": "<p>hi</p>"}),
    ("GET", "/api/artifacts/1/versions/1", None),
    ("POST", "/api/artifacts/1/restore", {"version": 1}),
    ("GET", "/api/artifacts/1/diff?from=1&to=2", None),
    ("GET", "/api/artifacts/1/preview", None),
    ("GET", "/api/artifacts/1/download", None),
    ("GET", "/api/artifacts/1/download-all", None),
]
ID_ROUTES = [route for route in ROUTES if "/1" in route[1]]
PAGE = "<!doctype html>\n<html>\n<head><title>Hand made</title></head>\n<body>\n<h1>Hello</h1>\n</body>\n</html>\n"


def assert_refused(response, status: int, *words: str) -> None:
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json"), response.headers
    message = response.json()["message"]
    assert message and all(word in message for word in words), message


def with_id(path: str, artifact_id: object) -> str:
    return path.replace("/1", f"/{artifact_id}", 1)


async def finished(client, headers, artifact_id: int, timeout: float = 60) -> dict:
    """Poll the artifact until its generation ends (as the spec's client polls /current)."""
    deadline = time.monotonic() + timeout
    while True:
        response = await client.get(f"/api/artifacts/{artifact_id}", headers=headers)
        assert response.status_code == 200, response.text
        artifact = response.json()
        if not artifact["generating"]:
            return artifact
        assert time.monotonic() < deadline, artifact
        await asyncio.sleep(0.05)


async def made(client, headers, prompt: str = "a pricing table with three plans") -> dict:
    """A new artifact with its first version (offline engine)."""
    response = await client.post("/api/artifacts/create", json={"prompt": prompt}, headers=headers)
    assert response.status_code == 202, response.text
    artifact = await finished(client, headers, response.json()["id"])
    assert artifact["status"] == "ready" and artifact["version"] == 1, (artifact["status"], artifact.get("error"))
    return artifact


@pytest.fixture
async def user(client, session):
    return await signed_in(client, session, "maker@example.com", "limited")


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_signed_out_callers_get_401(client, method, path, body):
    assert_refused(await client.request(method, path, json=body), 401)


async def test_create_follow_update_history_and_list(client, user):
    assert (await client.get("/api/artifacts/current", headers=user)).json() is None
    assert (await client.get("/api/artifacts", headers=user)).json() == []
    response = await client.post("/api/artifacts/create", json={"prompt": "a pricing table with three plans"}, headers=user)
    assert response.status_code == 202, response.text
    started = response.json()
    assert set(started) >= {"id", "name", "version", "htmlContent", "updatedAt"}  # the spec's Artifact
    assert started["generating"] and started["status"] == "generating" and started["version"] == 0
    assert started["name"] == "a pricing table with three plans" and started["current"]
    current = (await client.get("/api/artifacts/current", headers=user)).json()
    assert current["id"] == started["id"]

    first = await finished(client, user, started["id"])
    assert first["status"] == "ready" and first["version"] == 1 and first["error"] is None
    assert first["htmlContent"].lower().startswith("<!doctype html") and "</html>" in first["htmlContent"]
    assert first["engine"] == "offline" and first["draft"] is None

    response = await client.post(f"/api/artifacts/{first['id']}/update", json={"prompt": "make it dark"}, headers=user)
    assert response.status_code == 202 and response.json()["generating"], response.text
    second = await finished(client, user, first["id"])
    assert second["version"] == 2 and second["htmlContent"] != first["htmlContent"], second

    history = (await client.get(f"/api/artifacts/{first['id']}/history", headers=user)).json()
    assert [entry["version"] for entry in history] == [2, 1]  # newest first
    assert set(history[0]) >= {"id", "version", "htmlContent", "changes", "prompt", "createdAt"}  # the spec's entry
    assert history[0]["prompt"] == "make it dark" and history[0]["changes"]
    assert history[0]["htmlContent"] == second["htmlContent"] and history[1]["htmlContent"] == first["htmlContent"]
    one = (await client.get(f"/api/artifacts/{first['id']}/versions/1", headers=user)).json()
    assert one == history[1]

    other = await made(client, user, "a contact form")
    listed = (await client.get("/api/artifacts", headers=user)).json()
    assert [row["id"] for row in listed] == [other["id"], first["id"]]  # newest first
    assert listed[1]["htmlContent"] == second["htmlContent"] and listed[1]["version"] == 2
    assert [row["current"] for row in listed] == [True, False]


async def test_diff_restore_and_hand_edit_make_versions(client, user):
    artifact = await made(client, user)
    aid = artifact["id"]
    await client.post(f"/api/artifacts/{aid}/update", json={"prompt": "make it dark"}, headers=user)
    second = await finished(client, user, aid)

    diff = await client.get(f"/api/artifacts/{aid}/diff?from=1&to=2", headers=user)
    assert diff.status_code == 200, diff.text
    body = diff.json()
    assert (body["fromVersion"], body["toVersion"]) == (1, 2)
    assert body["added"] > 0 and body["unified"].startswith("---")
    assert {line["kind"] for line in body["lines"]} >= {"added", "hunk"}
    backwards = (await client.get(f"/api/artifacts/{aid}/diff?from=2&to=1", headers=user)).json()
    assert (backwards["added"], backwards["removed"]) == (body["removed"], body["added"])

    restored = await client.post(f"/api/artifacts/{aid}/restore", json={"version": 1}, headers=user)
    assert restored.status_code == 201, restored.text
    assert restored.json()["version"] == 3 and restored.json()["htmlContent"] == artifact["htmlContent"]
    assert_refused(
        await client.post(f"/api/artifacts/{aid}/restore", json={"version": 3}, headers=user), 400, "already the newest"
    )

    edited = await client.post(
        f"/api/artifacts/{aid}/versions", json={"htmlContent": PAGE, "changes": "a greeting"}, headers=user
    )
    assert edited.status_code == 201, edited.text
    assert edited.json()["version"] == 4 and edited.json()["htmlContent"] == PAGE
    assert_refused(
        await client.post(f"/api/artifacts/{aid}/versions", json={"htmlContent": PAGE}, headers=user), 400, "Nothing changed"
    )
    history = (await client.get(f"/api/artifacts/{aid}/history", headers=user)).json()
    assert [(entry["version"], entry["source"]) for entry in history] == [
        (4, "edit"),
        (3, "restore"),
        (2, "model" if second["engine"] != "offline" else history[2]["source"]),
        (1, history[3]["source"]),
    ]
    assert history[0]["changes"] == "Edited by hand: a greeting"
    assert history[1]["changes"] == "Restored version 1"


async def test_a_500_kb_edit_is_accepted_and_a_larger_one_is_a_clear_error(client, user):
    aid = (await made(client, user))["id"]
    filler = "<p>" + "x" * 96 + "</p>\n"
    body = filler * ((MAX_HTML_BYTES - len(PAGE)) // len(filler))
    page = PAGE.replace("<h1>Hello</h1>", "<h1>Hello</h1>\n" + body)
    page += " " * (MAX_HTML_BYTES - len(page.encode()))
    assert len(page.encode()) == MAX_HTML_BYTES > get_settings().API_MAX_BODY_BYTES
    response = await client.post(f"/api/artifacts/{aid}/versions", json={"htmlContent": page}, headers=user)
    assert response.status_code == 201, response.text[:300]
    assert response.json()["version"] == 2 and len(response.json()["htmlContent"]) == MAX_HTML_BYTES

    assert_refused(
        await client.post(f"/api/artifacts/{aid}/versions", json={"htmlContent": page + "!"}, headers=user),
        400,
        "too large",
        "500000 bytes",
    )
    # Non-ASCII text escaped by the client (\uXXXX: six bytes a character) still reaches the size check.
    accented = PAGE.replace("Hello", "é" * (MAX_HTML_BYTES // 2))
    raw = json.dumps({"htmlContent": accented}).encode()
    assert get_settings().API_MAX_BODY_BYTES < len(raw) <= EDIT_MAX_BODY_BYTES
    assert_refused(
        await client.post(f"/api/artifacts/{aid}/versions", content=raw, headers={**user, "content-type": "application/json"}),
        400,
        "too large",
    )
    huge = json.dumps({"htmlContent": "x" * EDIT_MAX_BODY_BYTES}).encode()
    assert_refused(
        await client.post(f"/api/artifacts/{aid}/versions", content=huge, headers={**user, "content-type": "application/json"}),
        413,
        "too large",
    )
    # Other routes keep the app's cap.
    assert_refused(await client.post(f"/api/artifacts/{aid}/update", json={"prompt": "x" * MAX_HTML_BYTES}, headers=user), 413)
    assert [entry["version"] for entry in (await client.get(f"/api/artifacts/{aid}/history", headers=user)).json()] == [2, 1]


async def test_downloads_are_named_as_the_spec_says(client, user):
    artifact = await made(client, user, "Café menu with prices")
    aid, name = artifact["id"], artifact["name"]
    assert "é" in name and " " in name, name  # named after the page title, which keeps the accent
    stem = re.sub(r"\s", "_", name)  # the spec: whitespace replaced by underscores, then _v{version}.html
    await client.post(f"/api/artifacts/{aid}/versions", json={"htmlContent": PAGE}, headers=user)

    newest = await client.get(f"/api/artifacts/{aid}/download", headers=user)
    assert newest.status_code == 200, newest.text
    assert newest.headers["content-type"].startswith("text/html") and newest.content == PAGE.encode()
    disposition = newest.headers["content-disposition"]
    assert disposition.startswith("attachment;")
    assert f'filename="{stem.replace("é", "e")}_v2.html"' in disposition  # the ASCII fallback
    assert unquote(disposition.split("filename*=UTF-8''")[1]) == f"{stem}_v2.html"

    first = await client.get(f"/api/artifacts/{aid}/download?version=1", headers=user)
    assert first.content == artifact["htmlContent"].encode()
    assert unquote(first.headers["content-disposition"].split("filename*=UTF-8''")[1]) == f"{stem}_v1.html"

    everything = await client.get(f"/api/artifacts/{aid}/download-all", headers=user)
    assert everything.status_code == 200 and everything.headers["content-type"] == "application/zip"
    assert unquote(everything.headers["content-disposition"].split("filename*=UTF-8''")[1]) == f"{stem}_versions.zip"
    with zipfile.ZipFile(io.BytesIO(everything.content)) as archive:
        names = archive.namelist()
        assert sorted(entry.rsplit("/", 1)[-1] for entry in names) == [f"{stem}_v1.html", f"{stem}_v2.html"]
        assert archive.read(next(entry for entry in names if entry.endswith("_v2.html"))) == PAGE.encode()
        assert archive.read(next(entry for entry in names if entry.endswith("_v1.html"))) == artifact["htmlContent"].encode()


def test_content_disposition_fits_any_name():
    header = attachment('Plan… über"alles"_v1.html')
    header.encode("latin-1")  # what an HTTP header may hold
    assert header.isascii() and 'filename="Plan..._uber_alles__v1.html"' in header
    assert unquote(header.split("filename*=UTF-8''")[1]) == 'Plan… über"alles"_v1.html'


async def test_the_preview_link_serves_the_version_sandboxed(client, user):
    artifact = await made(client, user)
    aid = artifact["id"]
    await client.post(f"/api/artifacts/{aid}/versions", json={"htmlContent": PAGE}, headers=user)
    link = (await client.get(f"/api/artifacts/{aid}/preview", headers=user)).json()["url"]
    assert link.startswith("/preview/") and link.endswith("/index.html")
    frame = {"Sec-Fetch-Dest": "iframe"}  # as the preview inside SecDash's page asks for it
    page = await client.get(link, headers=frame)  # no credentials: the link is the credential
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.text == PAGE
    assert page.headers["content-security-policy"] == PREVIEW_CSP
    assert "sandbox allow-scripts" in PREVIEW_CSP and "allow-same-origin" not in PREVIEW_CSP

    older = (await client.get(f"/api/artifacts/{aid}/preview?version=1", headers=user)).json()["url"]
    assert (await client.get(older, headers=frame)).text == artifact["htmlContent"]
    for bad in (
        link.replace("index.html", "other.html"),
        link.replace("index.html", "..%2F..%2Fetc%2Fpasswd"),
        "/preview/forged-token/index.html",
    ):
        response = await client.get(bad)
        assert response.status_code == 404 and "sandbox" in response.headers["content-security-policy"], bad


async def test_open_new_and_delete(client, user):
    first = await made(client, user, "a contact form")
    second = await made(client, user, "a pricing table")
    assert (await client.get("/api/artifacts/current", headers=user)).json()["id"] == second["id"]
    opened = await client.post(f"/api/artifacts/{first['id']}/open", headers=user)
    assert opened.status_code == 200 and opened.json()["current"]
    assert (await client.get("/api/artifacts/current", headers=user)).json()["id"] == first["id"]

    assert (await client.post("/api/artifacts/new", headers=user)).status_code == 204
    assert (await client.get("/api/artifacts/current", headers=user)).json() is None
    assert len((await client.get("/api/artifacts", headers=user)).json()) == 2

    deleted = await client.delete(f"/api/artifacts/{first['id']}", headers=user)
    assert deleted.status_code == 204 and deleted.content == b""
    assert_refused(await client.get(f"/api/artifacts/{first['id']}", headers=user), 404)
    assert_refused(await client.get(f"/api/artifacts/{first['id']}/history", headers=user), 404)
    assert [row["id"] for row in (await client.get("/api/artifacts", headers=user)).json()] == [second["id"]]


async def test_one_generation_at_a_time_and_stop(client, user, monkeypatch):
    from secdash.services.artifacts import generate_job

    release = asyncio.Event()
    real_set = generate_job._set

    async def slow_set(artifact_id, **fields):  # holds the job at its first draft until the test lets it go
        await release.wait()
        await real_set(artifact_id, **fields)

    monkeypatch.setattr(generate_job, "_set", slow_set)
    started = (await client.post("/api/artifacts/create", json={"prompt": "a pricing table"}, headers=user)).json()
    aid = started["id"]
    assert_refused(
        await client.post("/api/artifacts/create", json={"prompt": "another"}, headers=user), 409, "already being generated"
    )
    assert_refused(await client.post(f"/api/artifacts/{aid}/update", json={"prompt": "dark"}, headers=user), 409)
    assert_refused(await client.post(f"/api/artifacts/{aid}/versions", json={"htmlContent": PAGE}, headers=user), 409)
    assert_refused(await client.delete(f"/api/artifacts/{aid}", headers=user), 409, "stop it")
    stopping = await client.post(f"/api/artifacts/{aid}/stop", headers=user)
    assert stopping.status_code == 202, stopping.text
    release.set()
    stopped = await finished(client, user, aid)
    assert stopped["status"] == "failed" and stopped["version"] == 0 and "Stopped" in stopped["error"], stopped
    assert_refused(await client.post(f"/api/artifacts/{aid}/stop", headers=user), 409, "no generation running")
    assert (await client.get(f"/api/artifacts/{aid}/history", headers=user)).json() == []
    assert_refused(await client.get(f"/api/artifacts/{aid}/download", headers=user), 404, "No HTML yet")
    assert_refused(await client.get(f"/api/artifacts/{aid}/preview", headers=user), 404, "No HTML yet")
    assert_refused(await client.get(f"/api/artifacts/{aid}/download-all", headers=user), 404, "No HTML yet")


@pytest.mark.parametrize("role", ["limited", "admin"])
async def test_someone_elses_artifact_is_404_on_every_id_route(client, session, user, role):
    aid = (await made(client, user))["id"]
    other = await signed_in(client, session, f"other-{role}@example.com", role)
    for method, path, body in ID_ROUTES:
        assert_refused(await client.request(method, with_id(path, aid), json=body, headers=other), 404, f"#{aid}"), (method, path)
    assert (await client.get("/api/artifacts", headers=other)).json() == []
    assert (await client.get("/api/artifacts/current", headers=other)).json() is None
    # Nothing changed for the owner.
    mine = (await client.get(f"/api/artifacts/{aid}", headers=user)).json()
    assert mine["version"] == 1 and mine["current"] and mine["status"] == "ready"


async def test_bad_input_gets_a_clear_400(client, user):
    aid = (await made(client, user))["id"]
    for body, words in [
        ({"prompt": "   "}, ("Prompt",)),
        ({"prompt": "x" * 4001}, ("too long",)),
        ({}, ("prompt",)),
        ({"prompt": 7}, ("prompt",)),
        ({"prompt": None}, ("prompt",)),
        ({"prompt": ["a"]}, ()),
    ]:
        assert_refused(await client.post("/api/artifacts/create", json=body, headers=user), 400, *words)
        assert_refused(await client.post(f"/api/artifacts/{aid}/update", json=body, headers=user), 400, *words)
    assert_refused(
        await client.post("/api/artifacts/create", content=b"{not json", headers={**user, "content-type": "application/json"}),
        400,
        "JSON",
    )
    for bad_id in ("0", "-1", "x", str(2**40), "1.5"):
        for method, path, body in ID_ROUTES:
            assert_refused(await client.request(method, with_id(path, bad_id), json=body, headers=user), 400)
    for bad_version in ("0", "-1", "x", str(2**40)):
        assert_refused(await client.get(f"/api/artifacts/{aid}/versions/{bad_version}", headers=user), 400)
        for query in (f"version={bad_version}",):
            assert_refused(await client.get(f"/api/artifacts/{aid}/download?{query}", headers=user), 400, "version")
            assert_refused(await client.get(f"/api/artifacts/{aid}/preview?{query}", headers=user), 400, "version")
        assert_refused(await client.get(f"/api/artifacts/{aid}/diff?from={bad_version}&to=1", headers=user), 400, "from")
        assert_refused(
            await client.post(f"/api/artifacts/{aid}/restore", json={"version": bad_version}, headers=user), 400, "version"
        )
    for missing in (99, 1000):  # well-formed versions the artifact does not have
        assert_refused(await client.get(f"/api/artifacts/{aid}/versions/{missing}", headers=user), 404, f"no version {missing}")
        assert_refused(await client.get(f"/api/artifacts/{aid}/diff?from=1&to={missing}", headers=user), 404)
        assert_refused(await client.get(f"/api/artifacts/{aid}/download?version={missing}", headers=user), 404)
        assert_refused(await client.post(f"/api/artifacts/{aid}/restore", json={"version": missing}, headers=user), 404)
    assert_refused(await client.get(f"/api/artifacts/{aid}/diff?from=1", headers=user), 400, "to")
    assert_refused(await client.get(f"/api/artifacts/{aid}/diff", headers=user), 400)
    for body, words in [
        ({}, ("htmlContent",)),
        ({"htmlContent": 5}, ("htmlContent",)),
        ({"htmlContent": "  \n "}, ("empty",)),
        ({"htmlContent": PAGE, "changes": 3}, ("changes",)),
        ({"htmlContent": PAGE, "changes": "y" * 301}, ("changes", "too long")),
    ]:
        assert_refused(await client.post(f"/api/artifacts/{aid}/versions", json=body, headers=user), 400, *words)
    for body in ({}, {"version": True}, {"version": 1.5}, {"version": None}, {"version": [1]}):
        assert_refused(await client.post(f"/api/artifacts/{aid}/restore", json=body, headers=user), 400, "version")
    history = (await client.get(f"/api/artifacts/{aid}/history", headers=user)).json()
    assert [entry["version"] for entry in history] == [1]  # nothing changed


async def test_the_artifact_limit_is_a_clear_400(client, user, monkeypatch):
    from secdash.services.artifacts import artifacts

    monkeypatch.setattr(artifacts, "MAX_ARTIFACTS", 1)
    await made(client, user)
    assert_refused(await client.post("/api/artifacts/create", json={"prompt": "another"}, headers=user), 400, "limit")
