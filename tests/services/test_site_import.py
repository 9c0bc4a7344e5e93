"""Importing and exporting sites (issue 26): reading CSV and JSON files, each row's reason, the limits, duplicates in
the file and against monitored sites, the cap, the DNS checks' bound and budget, and export then import."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from sqlmodel import select

from secdash.models import HistoryLog, Site
from secdash.services.errors import Invalid, PermissionDenied, TooLarge
from secdash.services.monitoring import site_export, site_import, site_tags, sites
from secdash.services.monitoring.site_import import RawRow, parse_file
from tests.factories import make_user


async def allow_all(url: str, *, allow_private: bool) -> None:
    return None


async def fake_dns(url: str, *, allow_private: bool) -> None:
    """Hosts under .invalid do not resolve; 10.x is private (the form's messages)."""
    host = url.split("/")[2].split(":")[0]
    if host.endswith(".invalid"):
        raise Invalid(f"url: {host} does not resolve to an address; check the name")
    if host.startswith("10.") and not allow_private:
        raise Invalid(f"url: {host} is a private address; {sites.ALLOW_PRIVATE_HINT}")


# --- tags ---


def test_tags_are_cleaned_by_one_rule():
    assert site_tags.clean_tags(" Prod; eu,prod ,, ") == ["eu", "prod"]
    assert site_tags.clean_tags(["B", "a"]) == ["a", "b"]
    assert site_tags.clean_tags(None) == [] and site_tags.clean_tags("") == []
    with pytest.raises(Invalid, match="^tags: 'a b' may only hold"):
        site_tags.clean_tags("a b")
    with pytest.raises(Invalid, match="at most 10 tags"):
        site_tags.clean_tags([f"t{i}" for i in range(11)])
    with pytest.raises(Invalid, match="longer than 32"):
        site_tags.clean_tags("x" * 33)
    with pytest.raises(Invalid, match="each tag must be a text"):
        site_tags.clean_tags([1])  # type: ignore[list-item]


# --- reading files ---


def test_csv_with_a_bom_semicolons_in_tags_and_quoted_commas():
    data = (
        "\ufeffName,URL,allowPrivate,tags,capacityRpm,signupRoute\r\n"
        '"Shop, EU",https://shop.example/,false,"prod;eu",1200,/account/create\r\n'
        "\r\n"
        "Blog,https://blog.example,,,,\r\n"
    ).encode()
    rows = parse_file(data)
    assert [row.number for row in rows] == [2, 4]  # the spreadsheet's rows: the header is row 1, a blank row counts
    first = site_import.check_row(rows[0])
    assert (first.name, first.url, first.tags, first.traffic.capacity_rpm) == (
        "Shop, EU",
        "https://shop.example/",
        ["eu", "prod"],
        1200,
    )
    second = site_import.check_row(rows[1])
    assert (second.url, second.allow_private, second.tags, second.traffic.signup_route) == (
        "https://blog.example/",
        False,
        [],
        None,
    )


def test_a_semicolon_separated_file_and_missing_optional_columns():
    rows = parse_file(b"url;name\nhttps://a.example/;A\n")
    assert site_import.check_row(rows[0]).name == "A"


def test_json_list_or_sites_object_with_wrong_types_refused_per_row():
    data = json.dumps(
        {
            "sites": [
                {"name": "A", "url": "https://a.example/", "tags": ["x"], "capacityRpm": 5.0, "allowPrivate": True},
                {"name": 5, "url": "https://b.example/"},
                "not an object",
                {"name": "C", "url": "https://c.example/", "allowPrivate": "maybe"},
                {"name": "D", "url": "https://d.example/", "capacityRpm": "many"},
                {"name": "E", "url": "https://e.example/", "tags": "a b"},
            ]
        }
    ).encode()
    refused, candidates = site_import.plan(parse_file(data), existing={})
    assert [c.number for c in candidates] == [1] and candidates[0].traffic.capacity_rpm == 5
    assert candidates[0].allow_private is True
    assert refused[2].reason == "name must be a text"
    assert refused[3].reason == "not an object with name and url"
    assert refused[4].reason == "allowPrivate must be true or false"
    assert refused[5].reason.startswith("capacityRpm must be a whole number")
    assert refused[6].reason.startswith("tags: 'a b'")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the file is empty"),
        (b"\xff\xfen\x00a\x00", "UTF-16"),
        (b"name,url\nA,https://a.example/\xe9\n", "not UTF-8"),
        (b"[{", "not valid JSON (line 1"),
        (b'{"name": "A"}', "must hold a list of sites"),
        (b"title,link\nA,https://a.example/\n", "header naming the columns: name and url"),
        (b'name,url\n"A,https://a.example/\n', "not valid CSV"),
        (b"name,url,name\nA,https://a.example/,B\n", "names the column name twice"),
        (b"name,url\n", "holds no sites"),
        (b"a\x00b", "NUL"),
    ],
)
def test_a_file_that_cannot_be_read_gets_one_message(data, message):
    with pytest.raises(Invalid, match=re.escape(message)):
        parse_file(data)


def test_limits_file_size_row_count_and_cells():
    with pytest.raises(TooLarge, match="at most 2 MB"):
        parse_file(b"name,url\n" + b"x" * site_import.MAX_FILE_BYTES)
    many = "name,url\n" + "".join(f"s{i},https://s{i}.example/\n" for i in range(site_import.MAX_ROWS + 1))
    with pytest.raises(Invalid, match="at most 10,000 sites per file"):
        parse_file(many.encode())
    with pytest.raises(Invalid, match="at most 10,000 sites per file"):
        parse_file(json.dumps([{}] * (site_import.MAX_ROWS + 1)).encode())
    refused, _ = site_import.plan([RawRow(2, {"name": "A" * 5000, "url": "https://a.example/"})], {})
    assert refused[2].reason == "name: at most 4,096 characters in a cell"
    refused, _ = site_import.plan(parse_file(b"name,url\nA,https://a.example/,extra\n"), {})
    assert refused[2].reason == "has 3 cells; the header names 2 columns"


def test_each_row_gets_the_single_site_forms_reason_and_duplicates_are_refused():
    data = (
        b"name,url\n"
        b"Good,https://good.example/\n"
        b",https://noname.example/\n"
        b"Bad URL,ftp://x.example/\n"
        b"Again,https://GOOD.example/\n"
        b"Known,https://known.example\n"
    )
    refused, candidates = site_import.plan(parse_file(data), existing={"https://known.example/": "Known site"})
    assert [c.name for c in candidates] == ["Good"]
    assert refused[3].reason == "name is required"
    assert refused[4].reason == "url: only http and https URLs can be monitored"
    assert refused[5].reason == "the same URL as row 2"
    assert refused[6].reason == "already monitored as Known site"


# --- DNS checks ---


async def test_dns_checks_run_concurrently_once_per_host_and_within_a_budget():
    calls: list[str] = []
    running = peak = 0

    async def slow(url: str, *, allow_private: bool) -> None:
        nonlocal running, peak
        calls.append(url)
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.05)
        running -= 1

    candidates = [
        site_import.check_row(RawRow(i, {"name": f"s{i}", "url": f"https://h{i % 40}.example/p{i}"})) for i in range(100)
    ]
    checked = await site_import.check_targets(candidates, room=1000, check=slow, concurrency=8)
    assert len(calls) == 40 and peak <= 8  # one lookup per host, at most 8 at a time
    assert all(reason is None for reason in checked.reasons.values()) and len(checked.reasons) == 100

    async def hangs(url: str, *, allow_private: bool) -> None:
        await asyncio.sleep(30)

    checked = await site_import.check_targets(candidates, room=1000, check=hangs, budget=0.2)
    assert checked.out_of_time and not checked.reasons


# --- the import ---


async def test_import_creates_the_good_rows_in_one_transaction_and_reports_the_others(session):
    admin = await make_user(session, "root@example.com", role="admin")
    session.add(Site(name="Known", url="https://known.example/", domain="known.example"))
    await session.commit()
    data = (
        b"name,url,allowPrivate,tags\n"
        b"A,https://a.example/,,prod\n"
        b"Gone,https://gone.invalid/,,\n"
        b"Inside,http://10.0.0.5/,,\n"
        b"Inside ok,http://10.0.0.6/,true,lan\n"
        b"Known again,https://known.example/,,\n"
    )
    preview = await site_import.import_sites(session=session, actor=admin, data=data, dry_run=True, check=fake_dns)
    assert (preview.added, preview.refused) == (2, 3) and preview.message.endswith("(nothing created yet)")
    assert len(list(await session.exec(select(Site)))) == 1

    report = await site_import.import_sites(session=session, actor=admin, data=data, check=fake_dns)
    by_row = {row.row: row for row in report.rows}
    assert [by_row[n].result for n in range(2, 7)] == ["added", "refused", "refused", "added", "refused"]
    assert by_row[3].reason == "url: gone.invalid does not resolve to an address; check the name"
    assert by_row[4].reason.startswith("url: 10.0.0.5 is a private address; tick")
    assert by_row[6].reason == "already monitored as Known"
    created = {site.name: site for site in await session.exec(select(Site))}
    assert created["A"].tags == ["prod"] and created["Inside ok"].allow_private and by_row[2].site_id == created["A"].id
    log = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Sites imported"))).one()
    assert log.description.startswith("Sites imported: 2 added, 3 refused")


async def test_rows_past_the_cap_are_refused(session, monkeypatch):
    admin = await make_user(session, "root@example.com", role="admin")
    monkeypatch.setattr(sites, "MAX_SITES", 3)
    session.add(Site(name="Known", url="https://known.example/", domain="known.example"))
    await session.commit()
    data = "name,url\n" + "".join(f"s{i},https://s{i}.example/\n" for i in range(4))
    report = await site_import.import_sites(session=session, actor=admin, data=data.encode(), check=allow_all)
    assert [row.result for row in report.rows] == ["added", "added", "refused", "refused"]
    assert report.rows[2].reason == "the limit of 3 monitored sites is reached"


async def test_only_admins_import_and_export(session):
    analyst = await make_user(session, "analyst@example.com", role="limited")
    with pytest.raises(PermissionDenied):
        await site_import.import_sites(session=session, actor=analyst, data=b"name,url\nA,https://a.example/\n")
    with pytest.raises(PermissionDenied):
        await site_export.export_sites(session=session, actor=analyst, fmt="csv")


@pytest.mark.parametrize("fmt", ["csv", "json"])
async def test_export_then_import_into_an_empty_install_recreates_the_sites(session, fmt):
    admin = await make_user(session, "root@example.com", role="admin")
    originals = [
        Site(name="=Formula, Inc", url="https://a.example/x?y=1", domain="a.example", tags=["-x", "prod"], capacity_rpm=60),
        Site(name="'quoted", url="https://q.example/", domain="q.example"),
        Site(name="'=kept", url="https://k.example/", domain="k.example"),
        Site(name="Lan", url="http://10.0.0.7:8080/", domain="10.0.0.7:8080", allow_private=True, signup_route="/join"),
        Site(name="Demo", url="http://127.0.0.1:3000/demo/stock/", domain="127.0.0.1:3000", is_demo=True),
    ]
    session.add_all(originals)
    await session.commit()
    exported = await site_export.export_sites(session=session, actor=admin, fmt=fmt)
    assert exported.count == 4 and "Demo" not in exported.content and "token" not in exported.content.lower()
    if fmt == "csv":
        assert exported.content.splitlines()[1].startswith("\"'=Formula")  # not a formula in a spreadsheet
    before = [site_export.site_row(site) for site in originals[:4]]
    for site in list(await session.exec(select(Site))):
        await session.delete(site)
    await session.commit()
    report = await site_import.import_sites(session=session, actor=admin, data=exported.content.encode(), check=fake_dns)
    assert report.refused == 0
    after = [site_export.site_row(site) for site in await session.exec(select(Site).order_by(Site.id))]
    assert after == before
