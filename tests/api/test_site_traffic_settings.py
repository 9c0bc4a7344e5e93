"""A site's traffic settings: its capacity (Live Traffic's share of it) and its signup route (what counts as a
signup), set through the site's API, checked, audited with the change, left alone when an update omits them."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from secdash.core.db import session_scope
from secdash.models import Site, utcnow
from secdash.models.audit import HistoryLog
from secdash.services.traffic import ingest, live
from tests.api.conftest import signed_in


def _line(n: int, method: str = "GET", path: str = "/", status: int = 200) -> str:
    stamp = (utcnow() - timedelta(seconds=5)).strftime("%d/%b/%Y:%H:%M:%S +0000")
    return f'203.0.113.{n} - - [{stamp}] "{method} {path} HTTP/1.1" {status} 100 "-" "Mozilla/5.0"'


async def _site(session) -> int:
    site = Site(name="Shop", domain="shop.example", url="https://shop.example/")
    session.add(site)
    await session.commit()
    assert site.id is not None
    return site.id


def _body(**extra):
    return {"name": "Shop", "url": "https://shop.example/", **extra}


async def test_capacity_and_signup_route_shape_live_traffic(client, session):
    site_id = await _site(session)
    admin = await signed_in(client, session, "root@example.com", "admin")
    saved = await client.put(f"/api/sites/{site_id}", json=_body(capacityRpm=40, signupRoute="/account/create/"), headers=admin)
    assert saved.status_code == 200, saved.text
    assert (saved.json()["capacityRpm"], saved.json()["signupRoute"]) == (40, "/account/create")

    lines = [_line(n) for n in range(8)]
    lines += [_line(20, "POST", "/account/create?ref=ad"), _line(21, "POST", "/account/create/"), _line(22, "POST", "/signup")]
    lines += [_line(23, "POST", "/account/create", status=422)]  # refused: not a signup
    async with session_scope() as own:
        await ingest.ingest_lines(own, site_id, lines)
    async with session_scope() as own:
        figures = await live.live_traffic(own)
    [mine] = [part for part in figures["sites"] if part["id"] == site_id]
    assert (mine["requestsPerMinute"], mine["capacityRpm"], mine["capacityPercent"]) == (12, 40, 30)
    assert mine["signupsToday"] == 2  # the site's route only; /signup is not this site's
    assert figures["capacityPercent"] == 30

    kept = await client.put(f"/api/sites/{site_id}", json=_body(), headers=admin)  # omitted: unchanged
    assert (kept.json()["capacityRpm"], kept.json()["signupRoute"]) == (40, "/account/create")
    cleared = await client.put(f"/api/sites/{site_id}", json=_body(capacityRpm=None, signupRoute=""), headers=admin)
    assert (cleared.json()["capacityRpm"], cleared.json()["signupRoute"]) == (None, None)
    async with session_scope() as own:
        figures = await live.live_traffic(own)
    assert figures["capacityPercent"] is None and figures["sites"][0]["capacityPercent"] is None

    session.expire_all()
    changes = list(await session.exec(select(HistoryLog).where(HistoryLog.action == "Site changed").order_by(HistoryLog.id)))
    first = changes[0].details
    assert first["before"]["capacityRpm"] is None and first["after"] == {
        "name": "Shop",
        "url": "https://shop.example/",
        "capacityRpm": 40,
        "signupRoute": "/account/create",
    }
    assert "capacityRpm" not in changes[1].details["after"]  # the update that left them out


async def test_bad_traffic_settings_are_refused_with_a_message_and_change_nothing(client, session):
    site_id = await _site(session)
    admin = await signed_in(client, session, "root@example.com", "admin")
    for extra, words in (
        ({"capacityRpm": 0}, "capacityRpm"),
        ({"capacityRpm": "600"}, "capacityRpm"),
        ({"capacityRpm": 10_000_001}, "capacityRpm"),
        ({"signupRoute": "signup"}, "signupRoute must be a path"),
        ({"signupRoute": "/sign up"}, "signupRoute must be a path"),
        ({"signupRoute": "/join?x=1"}, "signupRoute must be a path"),
        ({"signupRoute": "/" + "a" * 300}, "signupRoute"),
    ):
        answer = await client.put(f"/api/sites/{site_id}", json=_body(**extra), headers=admin)
        assert answer.status_code in (400, 422), (extra, answer.text)
        assert words in answer.json()["message"], (extra, answer.text)
    session.expire_all()
    site = await session.get(Site, site_id)
    assert site is not None and (site.capacity_rpm, site.signup_route) == (None, None)

    limited = await signed_in(client, session, "viewer@example.com", "limited")
    refused = await client.put(f"/api/sites/{site_id}", json=_body(capacityRpm=5), headers=limited)
    assert refused.status_code == 403
