"""Many sites through the API (issue 26): import with a report per row, export, pause, resume and remove; admins only."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from secdash.models import HistoryLog, Site
from secdash.services.monitoring import site_import, sites
from tests.api.conftest import signed_in

GOOD_AND_BAD = (
    "name,url,tags\n"
    "Shop,https://shop.example/,prod;eu\n"
    "Bad,ftp://bad.example/,\n"
    "Blog,https://blog.example/,\n"
    "Again,https://shop.example/,\n"
)


@pytest.fixture
async def admin_headers(client, session):
    return await signed_in(client, session, "root@example.com", "admin")


@pytest.fixture
async def limited_headers(client, session):
    return await signed_in(client, session, "viewer@example.com", "limited")


@pytest.fixture(autouse=True)
def no_dns(monkeypatch):
    async def resolve(host: str, port: int) -> list[str]:  # no DNS in tests: the name stands for a public site
        return [] if host.endswith(".invalid") else ["93.184.215.14"]

    monkeypatch.setattr(sites, "resolve", resolve)


async def _names(session) -> list[str]:
    session.expire_all()
    return sorted(site.name for site in await session.exec(select(Site)))


async def test_an_uploaded_csv_creates_the_good_rows_and_reports_the_others(client, session, admin_headers):
    files = {"file": ("sites.csv", GOOD_AND_BAD.encode(), "text/csv")}
    preview = await client.post("/api/sites/import?dryRun=true", files=files, headers=admin_headers)
    assert preview.status_code == 200, preview.text
    assert preview.json()["dryRun"] is True and preview.json()["added"] == 2 and await _names(session) == []

    answer = await client.post("/api/sites/import", files=files, headers=admin_headers)
    body = answer.json()
    assert answer.status_code == 200 and (body["added"], body["refused"]) == (2, 2)
    assert body["message"] == "Sites imported: 2 added, 2 refused"
    rows = {row["row"]: row for row in body["rows"]}
    assert rows[2]["result"] == "added" and rows[2]["siteId"] and rows[2]["reason"] is None
    assert rows[3] == {
        "row": 3,
        "name": "Bad",
        "url": "ftp://bad.example/",
        "result": "refused",
        "reason": "url: only http and https URLs can be monitored",
        "siteId": None,
    }
    assert rows[5]["reason"] == "the same URL as row 2"
    assert await _names(session) == ["Blog", "Shop"]
    log = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Sites imported"))).one()
    assert log.description.startswith("Sites imported: 2 added, 2 refused")

    again = await client.post("/api/sites/import", files=files, headers=admin_headers)
    assert {row["reason"] for row in again.json()["rows"] if row["name"] == "Blog"} == {"already monitored as Blog"}


async def test_a_json_body_or_a_csv_body(client, session, admin_headers):
    sites_json = [{"name": "A", "url": "https://a.example/", "tags": ["x"]}, {"name": "B", "url": "https://b.invalid/"}]
    answer = await client.post("/api/sites/import", json=sites_json, headers=admin_headers)
    assert answer.status_code == 200
    assert [row["result"] for row in answer.json()["rows"]] == ["added", "refused"]
    assert answer.json()["rows"][1]["reason"] == "url: b.invalid does not resolve to an address; check the name"
    csv_body = await client.post(
        "/api/sites/import",
        content=b"name,url\nC,https://c.example/\n",
        headers={**admin_headers, "Content-Type": "text/csv"},
    )
    assert csv_body.json()["added"] == 1 and await _names(session) == ["A", "C"]


@pytest.mark.parametrize(
    ("content", "content_type", "message"),
    [
        (b'[{"name": "A", "url": ', "application/json", "the file is not valid JSON"),
        (b"name,url\nA,https://a.example/\xff\n", "text/csv", "the file is not UTF-8 text"),
        (b"title,link\nA,https://a.example/\n", "text/csv", "the first row must be a header"),
        (b'{"name": "A"}', "application/json", "a JSON file must hold a list of sites"),
    ],
)
async def test_a_malformed_file_is_refused_whole(client, session, admin_headers, content, content_type, message):
    answer = await client.post("/api/sites/import", content=content, headers={**admin_headers, "Content-Type": content_type})
    assert answer.status_code == 400 and answer.json()["message"].startswith(message)
    assert await _names(session) == []


async def test_an_oversized_file_and_an_unknown_body_type(client, admin_headers):
    big = b"name,url\n" + b"x" * (site_import.MAX_FILE_BYTES + 10)
    over = await client.post("/api/sites/import", files={"file": ("s.csv", big, "text/csv")}, headers=admin_headers)
    assert over.status_code == 413 and "at most 2 MB" in over.json()["message"]
    far_over = await client.post("/api/sites/import", files={"file": ("s.csv", big * 2, "text/csv")}, headers=admin_headers)
    assert far_over.status_code == 413 and "too large" in far_over.json()["message"]
    xml = await client.post("/api/sites/import", content=b"<x/>", headers={**admin_headers, "Content-Type": "text/xml"})
    assert xml.status_code == 415
    no_file = await client.post("/api/sites/import", files={"other": ("s.csv", b"x", "text/csv")}, headers=admin_headers)
    assert no_file.status_code == 400 and "form field 'file'" in no_file.json()["message"]


async def test_the_dashboards_upload_is_capped_as_the_import(client):
    """Reflex's /_upload (the dialog's rx.upload) reads any body to disk before a handler runs: the guard caps it."""
    big = b"x" * (site_import.MAX_FILE_BYTES + 128 * 1024)
    answer = await client.post("/_upload", files={"files": ("s.csv", big, "text/csv")})
    assert answer.status_code == 413 and "too large" in answer.json()["message"]


async def test_export_in_both_formats_reads_back(client, session, admin_headers):
    await client.post(
        "/api/sites/import", json=[{"name": "A", "url": "https://a.example/", "tags": ["b", "a"]}], headers=admin_headers
    )
    as_csv = await client.get("/api/sites/export", headers=admin_headers)
    assert as_csv.status_code == 200 and as_csv.headers["content-type"].startswith("text/csv")
    assert 'filename="secdash-sites.csv"' in as_csv.headers["content-disposition"]
    assert as_csv.text.splitlines() == ["name,url,allowPrivate,tags,capacityRpm,signupRoute", "A,https://a.example/,false,a;b,,"]
    as_json = await client.get("/api/sites/export?format=json", headers=admin_headers)
    assert json.loads(as_json.text) == [
        {
            "name": "A",
            "url": "https://a.example/",
            "allowPrivate": False,
            "tags": ["a", "b"],
            "capacityRpm": None,
            "signupRoute": None,
        }
    ]
    bad = await client.get("/api/sites/export?format=xml", headers=admin_headers)
    assert bad.status_code == 400 and bad.json()["message"] == "format must be csv or json"


async def test_pause_resume_and_remove_chosen_sites(client, session, admin_headers):
    await client.post(
        "/api/sites/import",
        json=[{"name": n, "url": f"https://{n}.example/"} for n in ("a", "b", "c")],
        headers=admin_headers,
    )
    ids = [site.id for site in await session.exec(select(Site).order_by(Site.id))]
    paused = await client.post("/api/sites/pause", json={"ids": [ids[0], ids[1], 999]}, headers=admin_headers)
    assert paused.json() == {"changed": 2, "unchanged": 0, "missing": 1, "message": "2 sites paused, 1 not found"}
    resumed = await client.post("/api/sites/resume", json={"ids": ids}, headers=admin_headers)
    assert (resumed.json()["changed"], resumed.json()["unchanged"]) == (2, 1)
    removed = await client.post("/api/sites/delete", json={"ids": ids[:2]}, headers=admin_headers)
    assert removed.json()["message"] == "2 sites removed" and await _names(session) == ["c"]
    empty = await client.post("/api/sites/delete", json={"ids": []}, headers=admin_headers)
    assert empty.status_code == 400 and empty.json()["message"] == "choose at least one site"
    text_ids = await client.post("/api/sites/pause", json={"ids": ["1"]}, headers=admin_headers)
    assert text_ids.status_code == 400


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("POST", "/api/sites/import", {"json": [{"name": "A", "url": "https://a.example/"}]}),
        ("GET", "/api/sites/export", {}),
        ("POST", "/api/sites/pause", {"json": {"ids": [1]}}),
        ("POST", "/api/sites/resume", {"json": {"ids": [1]}}),
        ("POST", "/api/sites/delete", {"json": {"ids": [1]}}),
    ],
)
async def test_limited_users_get_403_and_signed_out_401(client, session, limited_headers, method, path, kwargs):
    denied = await client.request(method, path, headers=limited_headers, **kwargs)
    assert denied.status_code == 403 and denied.json()["message"].startswith("Only administrators may")
    assert (await client.request(method, path, **kwargs)).status_code == 401
    assert await _names(session) == []
