"""Fix Mode over HTTP: a full scan's problem is proposed, read, downloaded as a patch `git apply` accepts, applied,
verified by re-scan and reverted; one open fix per problem, reject, a diff that no longer applies; signed out 401,
limited users read but may not change (403); bad ids, bodies and filters get a clear 4xx {"message"}, never 500."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time

import pytest

from secdash.jobs import runner
from secdash.models import EventSeverity, EventType, SecurityEvent, Site
from secdash.models.scans import CodeRoot
from secdash.services.scanning import code_roots
from tests.api.conftest import signed_in

DEMO_EVAL = "gem/appraise.js"
FIX_ID = 1
ROUTES = [
    ("GET", "/api/fixes/problems", None),
    ("GET", "/api/fixes", None),
    ("POST", "/api/fixes", {"problemId": 1}),
    ("GET", f"/api/fixes/{FIX_ID}", None),
    ("GET", f"/api/fixes/{FIX_ID}/patch", None),
    ("POST", f"/api/fixes/{FIX_ID}/apply", None),
    ("POST", f"/api/fixes/{FIX_ID}/reject", None),
    ("POST", f"/api/fixes/{FIX_ID}/revert", None),
]
WRITES = [(method, path, body) for method, path, body in ROUTES if method == "POST"]


@pytest.fixture
def code_dir(tmp_path, settings, monkeypatch):
    root = tmp_path / "sources"
    shutil.copytree(code_roots.DEMO_SOURCES, root)
    monkeypatch.setattr(settings, "SCAN_PATHS", str(root))
    yield root
    shutil.rmtree(code_roots.workspace_for(root), ignore_errors=True)


@pytest.fixture
async def gem_site(session, code_dir) -> int:
    """A site that owns the copy's gem/ folder, so its findings carry a site id."""
    site = Site(name="Gem", domain="gem.example.com", url="https://gem.example.com/")
    session.add(site)
    await session.flush()
    session.add(CodeRoot(path=str(code_dir / "gem"), site_id=site.id))
    await session.commit()
    assert site.id is not None
    return site.id


async def full_scan(client, admin) -> None:
    started = await client.post("/api/scans", json={"scanType": "full"}, headers=admin)
    assert started.status_code == 202, started.text
    assert await runner.wait_for(started.json()["jobId"], timeout=120) == "done"


async def problems(client, headers, query: str = "") -> list[dict]:
    response = await client.get(f"/api/fixes/problems{query}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def problem_id(client, headers, file: str, rule: str) -> int:
    return next(row["problemId"] for row in await problems(client, headers) if (row["file"], row["rule"]) == (file, rule))


async def until(client, headers, fix_id: int, status: str, timeout: float = 60) -> dict:
    """Poll GET /api/fixes/{id} until the fix reaches `status` (as a page would)."""
    deadline = time.monotonic() + timeout
    while True:
        response = await client.get(f"/api/fixes/{fix_id}", headers=headers)
        assert response.status_code == 200, response.text
        fix = response.json()
        if fix["status"] == status:
            return fix
        assert fix["status"] in ("proposing", "applied"), fix  # still working, not failed or elsewhere
        assert time.monotonic() < deadline, fix
        await asyncio.sleep(0.05)


async def propose(client, admin, problem: int) -> dict:
    response = await client.post("/api/fixes", json={"problemId": problem}, headers=admin)
    assert response.status_code == 202, response.text
    return response.json()


def git_apply_check(root, patch: bytes, repo) -> subprocess.CompletedProcess:
    """`git apply --check` of the patch in a git-initialised copy of the scanned root."""
    shutil.copytree(root, repo)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo.parent / "fix.patch").write_bytes(patch)
    return subprocess.run(["git", "apply", "--check", str(repo.parent / "fix.patch")], cwd=repo, capture_output=True, text=True)


def assert_refused(response, status: int, *words: str) -> None:
    assert response.status_code == status, (response.status_code, response.text)
    message = response.json()["message"]
    assert message and all(word in message for word in words), message


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_signed_out_callers_get_401(client, method, path, body):
    response = await client.request(method, path, json=body)
    assert_refused(response, 401)


async def test_a_code_fix_is_proposed_downloaded_applied_verified_and_reverted(client, session, code_dir, gem_site, tmp_path):
    admin = await signed_in(client, session, "root@example.com", "admin")
    viewer = await signed_in(client, session, "viewer@example.com", "limited")
    await full_scan(client, admin)

    listed = await problems(client, admin)
    assert {(row["file"], row["rule"]) for row in listed} >= {(DEMO_EVAL, "js:eval"), ("tour/translate.js", "js:innerHTML")}
    row = next(row for row in listed if (row["file"], row["rule"]) == (DEMO_EVAL, "js:eval"))
    assert row["state"] == "open" and row["fixId"] is None and row["kind"] == "code" and row["offlineRecipe"] is True
    assert row["siteId"] == gem_site and row["site"] == "Gem" and "eval(" in row["snippet"]
    assert row["detectedAt"].endswith("Z")
    assert [r["severity"] for r in listed] == sorted((r["severity"] for r in listed), key=["high", "medium", "low"].index)
    assert await problems(client, viewer) == listed
    # Filters: by site, severity and kind ("all" is no filter).
    gem_only = await problems(client, admin, f"?site={gem_site}")
    assert row in gem_only and {r["siteId"] for r in gem_only} == {gem_site}
    assert row in await problems(client, admin, f"?severity={row['severity']}&kind=code")
    assert all(r["severity"] == "low" for r in await problems(client, admin, "?severity=low"))
    assert await problems(client, admin, "?severity=all&kind=all") == listed
    assert await problems(client, admin, "?kind=site") == []
    assert await problems(client, admin, f"?site={gem_site + 1000}") == []

    # A limited user may not propose.
    assert_refused(await client.post("/api/fixes", json={"problemId": row["problemId"]}, headers=viewer), 403)

    proposing = await propose(client, admin, row["problemId"])
    assert proposing["status"] == "proposing" and proposing["problemId"] == row["problemId"]
    assert proposing["jobId"] and proposing["createdAt"].endswith("Z") and proposing["served"] is True
    fix_id = proposing["id"]
    fix = await until(client, admin, fix_id, "proposed")
    assert fix["diff"].startswith(f"--- a/{DEMO_EVAL}\n+++ b/{DEMO_EVAL}\n") and "(carats * 1200 + clarity * 300)" in fix["diff"]
    assert fix["explanation"] and fix["risk"] and fix["provider"] == "offline" and fix["error"] is None
    assert {r["problemId"]: r["state"] for r in await problems(client, admin)}[row["problemId"]] == "proposed"
    assert_refused(
        await client.post("/api/fixes", json={"problemId": str(row["problemId"])}, headers=admin), 409, "already has fix"
    )
    listed_fixes = (await client.get(f"/api/fixes?problemId={row['problemId']}", headers=viewer)).json()
    assert [f["id"] for f in listed_fixes] == [fix_id]

    # The patch: a download anyone signed in may take, exactly the diff, and `git apply` accepts it.
    for who in (admin, viewer):
        patch = await client.get(f"/api/fixes/{fix_id}/patch", headers=who)
        assert patch.status_code == 200, patch.text
        assert patch.headers["content-type"] == "text/x-diff; charset=utf-8"
        assert patch.headers["content-disposition"] == f'attachment; filename="secdash-fix-{fix_id}-appraise-js.patch"'
        assert patch.text == fix["diff"]
    check = await asyncio.to_thread(git_apply_check, code_dir, patch.content, tmp_path / "repo")
    assert check.returncode == 0, check.stderr

    # Reads are open to a limited user; every change is not.
    assert (await client.get(f"/api/fixes/{fix_id}", headers=viewer)).json()["status"] == "proposed"
    for action in ("apply", "reject", "revert"):
        assert_refused(await client.post(f"/api/fixes/{fix_id}/{action}", headers=viewer), 403)
    assert (await client.get(f"/api/fixes/{fix_id}", headers=admin)).json()["status"] == "proposed"

    original = (code_dir / DEMO_EVAL).read_bytes()
    applied = await client.post(f"/api/fixes/{fix_id}/apply", headers=admin)
    assert applied.status_code == 202, applied.text
    assert applied.json()["status"] == "applied" and applied.json()["appliedAt"]
    fix = await until(client, admin, fix_id, "verified")
    assert fix["verification"]["fixed"] is True and fix["verification"]["files"] == [DEMO_EVAL] and fix["verifiedAt"]
    assert b"(carats * 1200 + clarity * 300)" in (code_roots.workspace_for(code_dir) / DEMO_EVAL).read_bytes()
    assert (code_dir / DEMO_EVAL).read_bytes() == original
    assert row["problemId"] not in {r["problemId"] for r in await problems(client, admin)}
    assert_refused(await client.post(f"/api/fixes/{fix_id}/apply", headers=admin), 409, "only a proposed fix")
    assert_refused(await client.post("/api/fixes", json={"problemId": row["problemId"]}, headers=admin), 400, "already resolved")

    reverted = await client.post(f"/api/fixes/{fix_id}/revert", headers=admin)
    assert reverted.status_code == 200, reverted.text
    assert reverted.json()["status"] == "reverted"
    assert (code_roots.workspace_for(code_dir) / DEMO_EVAL).read_bytes() == original
    back = {r["problemId"]: r for r in await problems(client, admin)}[row["problemId"]]
    assert back["state"] == "reverted" and back["fixId"] == fix_id
    assert_refused(await client.post(f"/api/fixes/{fix_id}/revert", headers=admin), 409)


async def test_one_open_fix_per_problem_reject_and_a_diff_that_no_longer_applies(client, session, code_dir):
    (code_dir / "gem" / "check.py").write_text("def check(x):\n    assert x\n    return x\n")
    admin = await signed_in(client, session, "root@example.com", "admin")
    await full_scan(client, admin)
    problem = await problem_id(client, admin, DEMO_EVAL, "js:eval")

    first = await until(client, admin, (await propose(client, admin, problem))["id"], "proposed")
    assert_refused(
        await client.post("/api/fixes", json={"problemId": problem}, headers=admin), 409, f"already has fix #{first['id']}"
    )
    rejected = await client.post(f"/api/fixes/{first['id']}/reject", headers=admin)
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    for action in ("reject", "apply", "revert"):
        assert_refused(await client.post(f"/api/fixes/{first['id']}/{action}", headers=admin), 409, "is rejected")

    second = await until(client, admin, (await propose(client, admin, problem))["id"], "proposed")
    newest = (await client.get(f"/api/fixes?problemId={problem}", headers=admin)).json()
    assert [fix["id"] for fix in newest] == [second["id"], first["id"]]
    assert [fix["id"] for fix in (await client.get("/api/fixes?limit=1", headers=admin)).json()] == [second["id"]]
    target = code_dir / DEMO_EVAL
    target.write_text(target.read_text().replace("eval(", "eval (", 1))  # someone edits the file meanwhile
    assert_refused(await client.post(f"/api/fixes/{second['id']}/apply", headers=admin), 409, "no longer applies")
    assert (await client.get(f"/api/fixes/{second['id']}", headers=admin)).json()["status"] == "proposed"
    assert not code_roots.workspace_for(code_dir).exists()

    # A fix that failed (the offline engine has no recipe) has no patch to download.
    failed_id = (await propose(client, admin, await problem_id(client, admin, "gem/check.py", "bandit:B101")))["id"]
    failed = await until(client, admin, failed_id, "failed")
    assert "no recipe for bandit:B101" in failed["error"]
    assert_refused(await client.get(f"/api/fixes/{failed_id}/patch", headers=admin), 404, "has no diff")


async def test_problems_that_cannot_be_fixed_are_refused(client, session):
    admin = await signed_in(client, session, "root@example.com", "admin")
    attack = SecurityEvent(event_type=EventType.attack_detected, severity=EventSeverity.high, description="SQL injection")
    session.add(attack)
    await session.commit()
    assert_refused(await client.post("/api/fixes", json={"problemId": attack.id}, headers=admin), 400, "cannot be fixed")
    assert await problems(client, admin) == []


@pytest.mark.parametrize("fix_id", ["abc", "0", "-1", "1.5", "9" * 20, str(2**31)])
async def test_bad_fix_ids_in_the_path_are_400(client, session, fix_id):
    admin = await signed_in(client, session, "root@example.com", "admin")
    for method, path in (("GET", ""), ("GET", "/patch"), ("POST", "/apply"), ("POST", "/reject"), ("POST", "/revert")):
        assert_refused(await client.request(method, f"/api/fixes/{fix_id}{path}", headers=admin), 400, "fix_id")


async def test_unknown_fixes_and_problems_are_404(client, session):
    admin = await signed_in(client, session, "root@example.com", "admin")
    for method, path in (("GET", ""), ("GET", "/patch"), ("POST", "/apply"), ("POST", "/reject"), ("POST", "/revert")):
        assert_refused(await client.request(method, f"/api/fixes/999999{path}", headers=admin), 404, "No fix")
    assert_refused(await client.post("/api/fixes", json={"problemId": 999999}, headers=admin), 404, "No problem")
    # RequestBody's convention: fields the body does not define are ignored.
    assert_refused(await client.post("/api/fixes", json={"problemId": 999999, "force": True}, headers=admin), 404)
    assert (await client.get("/api/fixes", headers=admin)).json() == []


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, ("problemId",)),
        ({"problemId": None}, ("problemId",)),
        ({"problemId": True}, ("problemId",)),
        ({"problemId": 1.5}, ("problemId",)),
        ({"problemId": [1]}, ("problemId",)),
        ({"problemId": {"id": 1}}, ("problemId",)),
        ({"problemId": -1}, ("problemId", "positive")),
        ({"problemId": 0}, ("problemId", "positive")),
        ({"problemId": "abc"}, ("problemId", "positive")),
        ({"problemId": "1.5"}, ("problemId", "positive")),
        ({"problemId": 10**30}, ("problemId", "positive")),
        ({"problemId": 2**31}, ("problemId", "at most")),  # PostgreSQL would refuse it as an INTEGER (a 500)
        ({"problemId": "9" * 40}, ("problemId", "positive")),
        ([1], ()),
        ("1", ()),
    ],
)
async def test_bad_propose_bodies_are_400(client, session, body, words):
    admin = await signed_in(client, session, "root@example.com", "admin")
    assert_refused(await client.post("/api/fixes", json=body, headers=admin), 400, *words)


async def test_malformed_and_oversized_bodies(client, session, settings):
    admin = await signed_in(client, session, "root@example.com", "admin")
    json_headers = {**admin, "Content-Type": "application/json"}
    assert_refused(await client.post("/api/fixes", content=b'{"problemId": ', headers=json_headers), 400, "not valid JSON")
    big = b'{"problemId": "' + b"1" * (settings.API_MAX_BODY_BYTES + 1) + b'"}'
    assert_refused(await client.post("/api/fixes", content=big, headers=json_headers), 413, "too large")


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("/api/fixes/problems?severity=critical", ("severity",)),
        ("/api/fixes/problems?severity=HIGH", ("severity",)),
        ("/api/fixes/problems?kind=docs", ("kind",)),
        ("/api/fixes/problems?site=abc", ("site", "positive")),
        ("/api/fixes/problems?site=-1", ("site", "positive")),
        ("/api/fixes/problems?site=0", ("site", "positive")),
        ("/api/fixes/problems?site=1.5", ("site", "positive")),
        ("/api/fixes/problems?site=" + "9" * 13, ("site",)),
        ("/api/fixes/problems?severity=" + "x" * 500, ("severity",)),
        ("/api/fixes?problemId=x", ("problemId", "positive")),
        ("/api/fixes?problemId=0", ("problemId", "positive")),
        ("/api/fixes?limit=0", ("limit", "positive")),
        ("/api/fixes?limit=many", ("limit", "positive")),
    ],
)
async def test_bad_filters_are_400(client, session, query, words):
    viewer = await signed_in(client, session, "viewer@example.com", "limited")
    assert_refused(await client.get(query, headers=viewer), 400, *words)
