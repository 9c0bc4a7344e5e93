"""Log ingest over HTTP: a site's token appends that site's logs and nothing else; bad input gets a clear answer
and valid lines are never lost because of the others."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime

from sqlmodel import func, select

from secdash.models import IngestToken, Site, TrafficMinute, TrafficRequest
from tests.api.conftest import signed_in

LINE = '203.0.113.{n} - - [05/Mar/2024:10:00:{s:02d} +0000] "GET /page-{n} HTTP/1.1" {status} 512 "-" "Mozilla/5.0"'


def _lines(count: int, status: int = 200) -> str:
    return "\n".join(LINE.format(n=i % 250, s=i % 60, status=status) for i in range(count)) + "\n"


async def _site(session, name: str = "Shop") -> Site:
    site = Site(name=name, domain=f"{name.lower()}.example", url=f"https://{name.lower()}.example/")
    session.add(site)
    await session.commit()
    return site


async def _token(client, session, site_id: int) -> tuple[str, dict[str, str]]:
    admin = await signed_in(client, session, "root@example.com", "admin")
    made = await client.post(f"/api/sites/{site_id}/ingest-tokens", headers=admin)
    assert made.status_code == 201, made.text
    return made.json()["token"], admin


async def _stored(session, site_id: int | None = None) -> int:
    query = select(func.count()).select_from(TrafficRequest)
    if site_id is not None:
        query = query.where(TrafficRequest.site_id == site_id)
    return (await session.exec(query)).one()


async def test_a_sites_token_appends_its_logs_and_the_minute_figures_add_up(client, session):
    site = await _site(session)
    token, _admin = await _token(client, session, site.id)
    auth = {"Authorization": f"Bearer {token}"}
    first = await client.post("/api/traffic/ingest", content=_lines(30), headers=auth)
    assert first.status_code == 200, first.text
    assert first.json() == {"lines": 30, "accepted": 30, "unreadable": 0, "samples": [], "message": "30 requests stored"}
    blocked = _lines(5, status=403).encode()
    second = await client.post("/api/traffic/ingest", content=gzip.compress(blocked), headers=auth | {"Content-Encoding": "gzip"})
    assert second.json()["accepted"] == 5
    assert await _stored(session, site.id) == 35
    minute = (await session.exec(select(TrafficMinute).where(TrafficMinute.site_id == site.id))).one()
    assert minute.minute.replace(tzinfo=UTC) == datetime(2024, 3, 5, 10, 0, tzinfo=UTC)
    assert (minute.requests, minute.status_2xx, minute.status_4xx, minute.blocked, minute.bytes) == (35, 30, 5, 5, 35 * 512)


async def test_unreadable_lines_are_counted_and_shown_and_the_valid_ones_kept(client, session):
    site = await _site(session)
    token, _admin = await _token(client, session, site.id)
    body = "garbage\n" + _lines(10) + "<script>alert(1)</script>\n"
    answer = await client.post("/api/traffic/ingest", content=body, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200
    data = answer.json()
    assert (data["lines"], data["accepted"], data["unreadable"]) == (12, 10, 2)
    assert data["message"].startswith("10 requests stored; 2 of 12 lines could not be read: line 1: not an access-log")
    assert await _stored(session, site.id) == 10
    nothing = await client.post("/api/traffic/ingest", content="junk\nmore junk\n", headers={"Authorization": f"Bearer {token}"})
    assert nothing.status_code == 400 and nothing.json()["message"].startswith("none of the 2 lines could be read")


async def test_no_token_a_wrong_one_or_a_revoked_one_is_401_and_stores_nothing(client, session):
    site = await _site(session)
    token, admin = await _token(client, session, site.id)
    for headers in ({}, {"Authorization": "Bearer sdi_not-a-real-token"}, {"Authorization": "Bearer " + "x" * 5000}):
        refused = await client.post("/api/traffic/ingest", content=_lines(3), headers=headers)
        assert refused.status_code == 401 and "ingest token" in refused.json()["message"]
    token_id = (await session.exec(select(IngestToken.id))).one()
    revoked = await client.delete(f"/api/sites/{site.id}/ingest-tokens/{token_id}", headers=admin)
    assert revoked.status_code == 200
    after = await client.post("/api/traffic/ingest", content=_lines(3), headers={"Authorization": f"Bearer {token}"})
    assert after.status_code == 401
    assert await _stored(session) == 0


async def test_a_token_only_reaches_its_own_site(client, session):
    shop, blog = await _site(session, "Shop"), await _site(session, "Blog")
    token, _admin = await _token(client, session, shop.id)
    await client.post("/api/traffic/ingest", content=_lines(4), headers={"Authorization": f"Bearer {token}"})
    assert (await _stored(session, shop.id), await _stored(session, blog.id)) == (4, 0)


async def test_oversized_bodies_bombs_and_bad_encodings_are_refused_with_a_message(client, session, monkeypatch):
    from secdash.services.traffic import ingest

    site = await _site(session)
    token, _admin = await _token(client, session, site.id)
    auth = {"Authorization": f"Bearer {token}"}
    bomb = gzip.compress(b"A" * (80 * 1024 * 1024))  # 80 MB of one letter: about 80 KB packed
    answer = await client.post("/api/traffic/ingest", content=bomb, headers=auth | {"Content-Encoding": "gzip"})
    assert answer.status_code == 413 and "unpacked body is larger" in answer.json()["message"]
    odd = await client.post("/api/traffic/ingest", content=b"x", headers=auth | {"Content-Encoding": "br"})
    assert odd.status_code == 415 and "plain text or gzip" in odd.json()["message"]
    packed = {"Content-Encoding": "gzip"}
    cut = await client.post("/api/traffic/ingest", content=gzip.compress(b"abc" * 1000)[:40], headers=auth | packed)
    assert cut.status_code == 400 and "gzip" in cut.json()["message"]
    monkeypatch.setattr(ingest, "MAX_LINES_PER_BATCH", 10)
    many = await client.post("/api/traffic/ingest", content=_lines(11), headers=auth)
    assert many.status_code == 413 and "at most 10 lines" in many.json()["message"]
    assert await _stored(session) == 0


async def test_tokens_are_for_admins_shown_once_and_listed_by_prefix(client, session):
    site = await _site(session)
    limited = await signed_in(client, session, "viewer@example.com", "limited")
    assert (await client.post(f"/api/sites/{site.id}/ingest-tokens", headers=limited)).status_code == 403
    assert (await client.get(f"/api/sites/{site.id}/ingest-tokens", headers=limited)).status_code == 403
    assert (await client.post(f"/api/sites/{site.id}/ingest-tokens")).status_code == 401
    token, admin = await _token(client, session, site.id)
    assert token.startswith("sdi_") and len(token) > 40
    listed = (await client.get(f"/api/sites/{site.id}/ingest-tokens", headers=admin)).json()
    assert [row["prefix"] for row in listed] == [token[:10]] and "token" not in listed[0]
    stored = (await session.exec(select(IngestToken))).one()
    assert token not in stored.token_hash and stored.token_hash != token  # only its hash is kept
    assert (await client.post("/api/sites/999/ingest-tokens", headers=admin)).status_code == 404
    assert (await client.delete(f"/api/sites/{site.id}/ingest-tokens/999", headers=admin)).status_code == 404


async def test_live_traffic_and_clients_show_what_was_ingested_to_any_signed_in_user(client, session):
    from secdash.models import utcnow
    from secdash.services.reads import read_models

    site = await _site(session)
    token, _admin = await _token(client, session, site.id)
    stamp = utcnow().strftime("%d/%b/%Y:%H:%M:%S +0000")
    body = "\n".join(
        f'198.51.100.{n} - - [{stamp}] "GET /<script>alert(1)</script>?n={n} HTTP/1.1" 200 600 "-" "<b>bot</b>"' for n in range(3)
    )
    sent = await client.post("/api/traffic/ingest", content=body, headers={"Authorization": f"Bearer {token}"})
    assert sent.status_code == 200, sent.text
    read_models.invalidate_all()  # the view is read at most once a second: this test reads at once
    assert (await client.get("/api/traffic/live")).status_code == 401
    viewer = await signed_in(client, session, "viewer@example.com", "limited")
    live = (await client.get("/api/traffic/live", headers=viewer)).json()
    assert live["requestsPerMinute"] == 3 and live["activeClients"] == 3 and live["bytesPerSecond"] == 30
    assert live["lastHour"]["requests"] == 3 and live["lastHour"]["status2xx"] == 3
    assert live["topPaths"] == [{"path": "/<script>alert(1)</script>", "requests": 3}]  # text, as logged
    assert [site["name"] for site in live["sites"]] == ["Shop"] and len(live["feed"]) == 3
    clients = (await client.get("/api/traffic/clients", headers=viewer)).json()
    assert clients["counts"] == {"clean": 3, "suspicious": 0, "blocked": 0}
    assert {row["client"] for row in clients["recent"]} == {"198.51.100.0", "198.51.100.1", "198.51.100.2"}
