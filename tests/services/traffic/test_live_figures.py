"""Live Traffic and User Scan from the logged requests: every figure equals a count of the lines sent, and a client
is blocked, suspicious or clean because of a decision or a detection the page names."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from secdash.core.db import session_scope
from secdash.models import Site, utcnow
from secdash.services.traffic import decisions, ingest, live
from secdash.services.traffic.detection import LiveDetection
from tests.factories import make_user


def _line(
    address: str, target: str, status: int, size: int, when: datetime, method: str = "GET", agent: str = "Mozilla/5.0"
) -> str:
    stamp = when.strftime("%d/%b/%Y:%H:%M:%S +0000")
    return f'{address} - - [{stamp}] "{method} {target} HTTP/1.1" {status} {size} "-" "{agent}"'


async def _site(session, name: str) -> Site:
    site = Site(name=name, domain=f"{name.lower()}.example", url=f"https://{name.lower()}.example/")
    session.add(site)
    await session.commit()
    await session.refresh(site)
    return site


async def test_the_figures_are_counts_of_the_logged_lines(session):
    shop, blog = await _site(session, "Shop"), await _site(session, "Blog")
    now = utcnow().replace(microsecond=0)
    recent, older = now - timedelta(seconds=20), now - timedelta(minutes=3)
    shop_lines = [
        _line("198.51.100.1", "/", 200, 1000, recent),
        _line("198.51.100.1", "/products?id=1", 200, 2000, recent),
        _line("198.51.100.2", "/products?id=2", 404, 300, recent),
        _line("198.51.100.3", "/admin", 403, 100, recent),
        _line("198.51.100.4", "/signup", 302, 50, recent, method="POST"),
        _line("198.51.100.5", "/", 200, 1000, older),  # active, but not in the last minute
    ]
    blog_lines = [_line("2001:db8::1", "/post", 500, 600, recent), _line("2001:db8::2", "/post", 429, 0, recent)]
    async with session_scope() as own:
        await ingest.ingest_lines(own, shop.id, shop_lines)
        await ingest.ingest_lines(own, blog.id, blog_lines)
    figures = await live.live_traffic(session, now=now)
    assert figures["requestsPerMinute"] == 7
    assert figures["bytesPerSecond"] == round((1000 + 2000 + 300 + 100 + 50 + 600) / 60)
    # five IPv4 clients, and the two IPv6 addresses are one client (their /64)
    assert figures["activeClients"] == 6
    assert figures["lastHour"] == {
        "requests": 8,
        "status_2xx": 3,
        "status_3xx": 1,
        "status_4xx": 3,
        "status_5xx": 1,
        "blocked": 2,
        "signups": 1,
    }
    assert figures["signupsToday"] == 1
    assert figures["topPaths"][:2] == [{"path": "/", "requests": 2}, {"path": "/post", "requests": 2}]
    assert {"path": "/products", "requests": 2} in figures["topPaths"]  # the query is not part of the path
    assert [entry["path"] for entry in figures["feed"][:2]] == ["/post", "/post"]  # newest stored first
    by_name = {site["name"]: site for site in figures["sites"]}
    assert by_name["Shop"]["requestsPerMinute"] == 5 and by_name["Shop"]["activeClients"] == 5
    assert by_name["Blog"]["lastHour"]["blocked"] == 1 and len(by_name["Blog"]["feed"]) == 2


async def test_a_site_with_no_traffic_has_zeros_and_an_empty_feed(session):
    await _site(session, "Quiet")
    figures = await live.live_traffic(session)
    assert figures["requestsPerMinute"] == 0 and figures["activeClients"] == 0 and figures["feed"] == []
    assert figures["sites"][0]["feed"] == [] and figures["sites"][0]["lastHour"]["requests"] == 0


async def test_user_scan_names_why_a_client_is_blocked_suspicious_or_clean(session):
    site = await _site(session, "Shop")
    now = utcnow().replace(microsecond=0)
    probing = [_line("203.0.113.5", f"/missing-{n}", 404, 10, now - timedelta(minutes=1)) for n in range(11)]
    lines = [*probing, _line("198.51.100.7", "/", 200, 500, now), _line("198.51.100.8", "/", 200, 500, now)]
    detection = LiveDetection()
    async with session_scope() as own:
        await detection.start(own)
    async with session_scope() as own:
        await ingest.ingest_lines(own, site.id, lines)
    async with session_scope() as own:
        await detection.step(own)
    admin = await make_user(session, "root@example.com", role="admin")
    async with session_scope() as own:  # an operator bans another client
        await decisions.add_decision(
            session=own, actor=admin, value="198.51.100.8", type_="ban", seconds=3600, reason="seen in the firewall log"
        )
    scanned = await live.user_scan(session)
    assert scanned["counts"] == {"clean": 1, "suspicious": 0, "blocked": 2}
    # the blocked first (though seen before the clean one), each verdict most recently seen first
    assert [row["verdict"] for row in scanned["recent"]] == ["blocked", "blocked", "clean"]
    rows = {row["client"]: row for row in scanned["recent"]}
    assert rows["203.0.113.5"]["verdict"] == "blocked" and "http-probing" in rows["203.0.113.5"]["reason"]
    assert rows["203.0.113.5"]["requests"] == 11
    assert rows["198.51.100.8"]["verdict"] == "blocked" and "seen in the firewall log" in rows["198.51.100.8"]["reason"]
    assert rows["198.51.100.7"] | {"lastSeen": ""} == {
        "client": "198.51.100.7",
        "site": "Shop",
        "verdict": "clean",
        "reason": "no scenario fired",
        "requests": 1,
        "lastSeen": "",
    }


async def test_the_monitors_own_probes_are_counted_but_not_listed(session):
    site = await _site(session, "Shop")
    now = utcnow().replace(microsecond=0)
    lines = [_line("198.51.100.1", "/visitor", 200, 100, now)]
    lines += [_line("192.0.2.9", "/", 200, 100, now, agent="SecDash-Monitor/1.0") for _ in range(15)]
    async with session_scope() as own:
        await ingest.ingest_lines(own, site.id, lines)
    figures = await live.live_traffic(session, now=now)
    assert figures["requestsPerMinute"] == 16
    assert [entry["path"] for entry in figures["feed"]] == ["/visitor"]
    assert [entry["path"] for entry in figures["sites"][0]["feed"]] == ["/visitor"]


async def test_live_traffic_reads_the_recent_requests_from_indexes_not_every_stored_one(session):
    """Found by `python -m bench ingest`: with 200,000 requests of one site stored, its five newest took 121 ms of a
    170 ms Live Traffic read (read every second while logs arrive), because SQLite sorted all the site's requests by
    id, and the last minute's rate and the active clients scanned every stored request's index entry; all of it grew
    with every request kept. Now a site's newest are read backwards from (site_id, id) and the time windows are
    searched in the time index, whatever is stored."""
    from sqlalchemy import event

    assert session.bind is not None
    if session.bind.dialect.name != "sqlite":
        pytest.skip("the plans are read with SQLite's EXPLAIN QUERY PLAN")
    site = await _site(session, "Shop")
    async with session_scope() as own:
        await ingest.ingest_lines(own, site.id, [_line("203.0.113.5", f"/{n}", 200, 10, utcnow()) for n in range(3)])
    statements: list[tuple[str, tuple]] = []

    def grab(_conn, _cursor, statement, parameters, _context, _many) -> None:  # noqa: ANN001
        if "FROM traffic_requests" in statement:
            statements.append((statement, parameters))

    engine = session.bind.sync_engine if hasattr(session.bind, "sync_engine") else session.bind
    event.listen(engine, "before_cursor_execute", grab)
    try:
        await live.live_traffic(session)
    finally:
        event.remove(engine, "before_cursor_execute", grab)
    connection = await session.connection()
    for statement, parameters in statements:
        plan = " | ".join(str(row[-1]) for row in await connection.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters))
        if "traffic_requests.time >=" in statement:
            assert "SEARCH traffic_requests USING INDEX ix_traffic_requests_time (time>?)" in plan, (statement, plan)
        elif "traffic_requests.site_id =" in statement:
            assert "ix_traffic_requests_site_id" in plan and "TEMP B-TREE" not in plan, (statement, plan)
        elif "traffic_requests_1.site_id = sites.id" in statement:  # every site's newest, one statement
            # per site, its newest ids backwards from (site_id, id); only those few rows are sorted for the answer
            assert "SCAN sites" in plan and "SEARCH traffic_requests_1 USING INDEX ix_traffic_requests_site_id" in plan, (
                statement,
                plan,
            )
            assert "SCAN traffic_requests" not in plan, (statement, plan)
    assert len(statements) == 6  # the rate, the active clients (two), the top paths, the feed and the sites' feeds


async def test_the_sites_feeds_are_one_statement_however_many_sites(session):
    """Each site's newest requests were one query per site: 1,000 statements per Live Traffic read at 1,000 sites
    (about 300 ms on SQLite against 13 ms for the one statement), read every second while logs arrive."""
    from sqlalchemy import event

    assert session.bind is not None
    engine = session.bind.sync_engine if hasattr(session.bind, "sync_engine") else session.bind
    made = [await _site(session, f"Site{n}") for n in range(30)]
    now = utcnow()
    async with session_scope() as own:
        for n, site in enumerate(made[:20]):
            lines = [_line("203.0.113.5", f"/s{n}/{k}", 200, 10, now) for k in range(7)]
            lines.append(_line("203.0.113.9", f"/s{n}/probe", 200, 10, now, agent=live.MONITOR_AGENT + "/1.0"))
            await ingest.ingest_lines(own, site.id, lines)
    counted: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:  # noqa: ANN001
        counted.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        figures = await live.live_traffic(session)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    feeds = {site["name"]: [entry["path"] for entry in site["feed"]] for site in figures["sites"]}
    assert feeds["Site0"] == [f"/s0/{k}" for k in range(6, 1, -1)]  # the five newest, newest first, no probe
    assert feeds["Site19"] == [f"/s19/{k}" for k in range(6, 1, -1)]
    assert feeds["Site20"] == [] and len(feeds) == 30
    assert {entry["site"] for entry in figures["sites"][3]["feed"]} == {"Site3"}
    assert len([s for s in counted if "FROM traffic_requests" in s]) == 6  # as with one site
