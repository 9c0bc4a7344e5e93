"""Private work is its owner's, on every route (issue 21, items 9 and 10).

An administrator's builder project (a code root of the Security Scan, with a finding and a Fix Mode fix), their
HTML artifact and the build and generation jobs behind them are planted with markers in their code, prompts and
notes. The census calls every GET route of the API as a limited user and as another administrator, with the
owner's ids in every path parameter: no answer carries a marker, and every route naming the owner's private work
answers 404. Every route that changes something is either called the same way (404) or listed as one that
cannot touch another user's private work. The owner, on the same routes, gets all of it (the census would prove
nothing otherwise).
"""

from __future__ import annotations

import re
import shutil

import httpx
import pytest
from fastapi.routing import APIRoute, iter_route_contexts

from secdash.api.main import create_api
from secdash.services.builder import project_dir
from tests.api.conftest import bearer, signed_in
from tests.factories import DEFAULT_PASSWORD, make_user
from tests.support import private_world
from tests.support.api_app import shared_api
from tests.support.private_world import CODE, MARKERS, NOTE, PROMPT

# Routes that change something without naming anyone's private work in their path: each acts on the caller's own
# work, shared configuration (admins), the caller's session or a chat.
OWN_OR_SHARED_WRITES = {
    "POST /api/auth/login",
    "POST /api/auth/session-cookie",
    "POST /api/auth/logout",
    "POST /api/init-sites",
    "POST /api/sites",
    "PUT /api/sites/{site_id}",
    "DELETE /api/sites/{site_id}",
    "POST /api/sites/import",
    "POST /api/sites/pause",
    "POST /api/sites/resume",
    "POST /api/sites/delete",
    "POST /api/sites/{site_id}/ingest-tokens",
    "DELETE /api/sites/{site_id}/ingest-tokens/{token_id}",
    "POST /api/traffic/ingest",  # a site's ingest token, not a user: it appends that site's logs only
    "POST /api/bouncers",
    "POST /api/decisions",
    "DELETE /api/decisions/{decision_id}",
    "DELETE /api/bouncers/{bouncer_id}",
    "POST /api/security-events/{event_id}/resolve",
    "POST /api/defense-chat/message",
    "POST /api/defense-chat",
    "POST /api/ai-chat",
    "POST /api/security-scan/start",
    "POST /api/security-scan/stop",
    "POST /api/scans",
    "POST /api/scans/current/stop",
    "POST /api/battle-station/defend",
    "POST /api/battle-station/defenses/{site}/reset",
    "POST /api/code-project/build",
    "POST /api/code-project/new",
    "DELETE /api/code-project/clear-all",
    "POST /api/artifacts/create",
    "POST /api/artifacts/new",
    "POST /api/notification-channels",
    "PUT /api/notification-channels/{channel_id}",
    "DELETE /api/notification-channels/{channel_id}",
    "POST /api/notification-channels/{channel_id}/test",
    "PUT /api/notification-rules",
}
# Changes of someone's private work named in the body, not the path: called below with the owner's ids.
BODY_NAMED_WRITES = {"POST /api/fixes", "POST /api/code-project/continue", "POST /api/code-project/save"}
NOT_READ = {"/api/auth/logout", "/api/login"}  # they end the caller's own session: nothing to read
PRIVATE_PARAMS = ("job_id", "project_id", "artifact_id", "fix_id")


@pytest.fixture
async def client(session):
    transport = httpx.ASGITransport(app=shared_api(), client=("198.51.100.9", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http
    shutil.rmtree(project_dir.projects_dir(), ignore_errors=True)


@pytest.fixture
async def world(session, client, monkeypatch):
    owner = await make_user(session, "owner@example.com", role="admin")
    owner_headers = await bearer(client, "owner@example.com", DEFAULT_PASSWORD)
    client.cookies.clear()
    work = await private_world.plant(session, owner, monkeypatch)
    return work, {
        "owner": owner_headers,
        "admin": await signed_in(client, session, "other-admin@example.com", "admin"),
        "limited": await signed_in(client, session, "limited@example.com", "limited"),
    }


def _routes() -> list[tuple[str, str]]:
    contexts = iter_route_contexts(create_api().routes)
    found = set()
    for context in contexts:
        route = context.original_route
        if isinstance(route, APIRoute) and "/demo/" not in context.path and "{rest:path}" not in context.path:
            found |= {(method, context.path) for method in route.methods if method not in ("HEAD", "OPTIONS")}
    return sorted(found)


def _paths(path: str, work) -> list[str]:
    """The route's path with the owner's ids (one path per job for {job_id})."""
    values = {
        "project_id": [work.project_id],
        "artifact_id": [work.artifact_id],
        "fix_id": [work.fix_id],
        "job_id": list(work.jobs),
        "version": [1],
        "event_id": [work.problem_id],
        "site_id": [1],
        "operation_id": [1],
        "site": ["stock"],
        "channel_id": [1],
        "token": ["not-a-token"],
        "path:path": ["index.html"],
    }
    paths = [path]
    for name, choices in values.items():
        if "{" + name + "}" in path:
            paths = [p.replace("{" + name + "}", str(choice)) for p in paths for choice in choices]
    assert "{" not in "".join(paths), path
    return paths


QUERIES = {
    "/api/fixes": [{}, {"problemId": "{problem}"}],
    "/api/history-logs": [{}, {"search": NOTE}],
    "/api/artifacts/{artifact_id}/diff": [{"from": 1, "to": 2}],
}


async def _reads(client, headers, work) -> list[tuple[str, httpx.Response]]:
    answers = []
    for method, path in _routes():
        if method != "GET" or path in NOT_READ:
            continue
        for concrete in _paths(path, work):
            for query in QUERIES.get(path, [{}]):
                params = {key: str(value).replace("{problem}", str(work.problem_id)) for key, value in query.items()}
                answers.append((path, await client.get(concrete, params=params, headers=headers)))
    return answers


def _private(path: str) -> bool:
    return any("{" + name + "}" in path for name in PRIVATE_PARAMS)


async def test_no_read_route_gives_another_users_private_code_prompts_or_files(client, world):
    work, users = world
    for who in ("limited", "admin"):
        for path, response in await _reads(client, users[who], work):
            leaked = [marker for marker in MARKERS if marker in response.text]
            assert not leaked, (who, str(response.request.url), response.status_code, leaked)
            if _private(path):
                assert response.status_code == 404, (who, str(response.request.url), response.text)
                assert set(response.json()) == {"message"}
        problems = (await client.get("/api/fixes/problems", headers=users[who])).json()
        assert work.problem_id not in {row["problemId"] for row in problems}, who
        assert work.fix_id not in {row["id"] for row in (await client.get("/api/fixes", headers=users[who])).json()}


async def test_the_owner_reads_all_of_it_on_the_same_routes(client, world):
    work, users = world
    answers = await _reads(client, users["owner"], work)
    text = "".join(response.text for _path, response in answers)
    assert all(marker in text for marker in MARKERS)
    for path, response in answers:
        if _private(path) and not path.endswith(("/preview", "/download", "/download-all", "/patch")):
            assert response.status_code == 200, (str(response.request.url), response.text)
    problem = next(
        row
        for row in (await client.get("/api/fixes/problems", headers=users["owner"])).json()
        if row["problemId"] == work.problem_id
    )
    assert CODE in problem["snippet"]
    assert (await client.get(f"/api/jobs/{work.build_job}", headers=users["owner"])).json()["params"]["prompt"] == PROMPT


def _changes() -> list[tuple[str, str]]:
    return [(method, path) for method, path in _routes() if method != "GET"]


def test_every_route_that_changes_something_is_in_the_census():
    unlisted = (
        {f"{method} {path}" for method, path in _changes() if not _private(path)} - OWN_OR_SHARED_WRITES - BODY_NAMED_WRITES
    )
    assert not unlisted, f"classify these routes in the private-work census: {sorted(unlisted)}"


async def test_no_one_else_changes_or_stops_the_owners_private_work(client, world):
    work, users = world
    bodies = {
        "/api/code-project/continue": {"projectId": work.project_id, "prompt": "change it"},
        "/api/code-project/save": {"projectId": work.project_id},
        "/api/code-project/{project_id}": {"name": "mine now"},  # PATCH renames (DELETE ignores the body)
        "/api/fixes": {"problemId": work.problem_id},
        "/api/artifacts/{artifact_id}/update": {"prompt": "change it"},
        "/api/artifacts/{artifact_id}/versions": {"htmlContent": "<p>mine now</p>"},
        "/api/artifacts/{artifact_id}/restore": {"version": 1},
    }
    for who in ("admin", "limited"):
        for method, path in _changes():
            if not _private(path) and f"{method} {path}" not in BODY_NAMED_WRITES:
                continue
            for concrete in _paths(path, work):
                response = await client.request(method, concrete, json=bodies.get(path, {}), headers=users[who])
                allowed = {404} if who == "admin" else {403, 404}  # a limited user may be refused by role first
                assert response.status_code in allowed, (who, method, concrete, response.text)
                assert not any(marker in response.text for marker in MARKERS)
    for job_id in work.jobs:  # nothing was stopped
        job = (await client.get(f"/api/jobs/{job_id}", headers=users["owner"])).json()
        assert not job["stopRequested"], job


async def test_the_owner_still_stops_their_own_build(client, world):
    work, users = world
    response = await client.post(f"/api/jobs/{work.build_job}/stop", headers=users["owner"])
    assert response.status_code == 200, response.text
    assert response.json()["stopRequested"] is True


def test_the_census_knows_every_kind_of_private_id():
    named = {name for _method, path in _routes() for name in re.findall(r"\{(\w+)", path)}
    assert set(PRIVATE_PARAMS) <= named
