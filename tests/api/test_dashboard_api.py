"""Sites, overview and security events through the API."""

from __future__ import annotations

import pytest

from secdash.core.unit import commit
from secdash.models import EventSeverity, EventType
from secdash.services.monitoring import sites
from secdash.services.problems import events
from tests.api.conftest import signed_in


@pytest.fixture
async def admin_headers(client, session):
    return await signed_in(client, session, "root@example.com", "admin")


@pytest.fixture
async def limited_headers(client, session):
    return await signed_in(client, session, "viewer@example.com", "limited")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/init-sites"),
        ("GET", "/api/dashboard/overview"),
        ("GET", "/api/security-events"),
        ("GET", "/api/sites"),
        ("POST", "/api/sites"),
        ("POST", "/api/security-events/1/resolve"),
    ],
)
async def test_dashboard_routes_need_a_user(client, session, method, path):
    response = await client.request(method, path, json={})
    assert response.status_code == 401
    assert "message" in response.json()


async def test_init_sites_creates_four_defaults_once(client, admin_headers):
    first = await client.post("/api/init-sites", headers=admin_headers)
    assert first.status_code == 200
    assert [s["name"] for s in first.json()] == ["Stock", "Tour", "Gem", "Shares"]
    assert all("/demo/" in s["url"] and s["isDemo"] for s in first.json())
    second = await client.post("/api/init-sites", headers=admin_headers)
    assert [s["id"] for s in second.json()] == [s["id"] for s in first.json()]


async def test_overview_shape(client, admin_headers):
    await client.post("/api/init-sites", headers=admin_headers)
    body = (await client.get("/api/dashboard/overview", headers=admin_headers)).json()
    assert set(body) == {"sitesCount", "threatsBlocked", "sites", "aiActivities", "trafficData", "userStats", "recentEvents"}
    assert body["sitesCount"] == 4
    site = body["sites"][0]
    assert {"id", "name", "domain", "securityStatus", "responseTime"} <= set(site)
    assert site["securityStatus"] in ("secure", "warning", "critical")


async def test_security_events_empty_is_an_empty_array_then_filters(client, session, admin_headers):
    assert (await client.get("/api/security-events", headers=admin_headers)).json() == []
    events.record(session, event_type=EventType.threat_blocked, severity=EventSeverity.high, description="blocked")
    events.record(session, event_type=EventType.attack_detected, severity=EventSeverity.low, description="probe")
    await commit(session)
    rows = (await client.get("/api/security-events", headers=admin_headers)).json()
    assert [r["description"] for r in rows] == ["probe", "blocked"]
    assert set(rows[0]) >= {
        "id",
        "createdAt",
        "siteId",
        "eventType",
        "severity",
        "description",
        "resolved",
        "aiAction",
        "sourceIp",
        "userAgent",
        "site",
    }
    high = (await client.get("/api/security-events?severity=high", headers=admin_headers)).json()
    assert [r["description"] for r in high] == ["blocked"]
    overview = (await client.get("/api/dashboard/overview", headers=admin_headers)).json()
    assert overview["threatsBlocked"] == 1 and len(overview["recentEvents"]) == 2


async def test_bad_event_filters_are_400(client, admin_headers):
    response = await client.get("/api/security-events?severity=urgent", headers=admin_headers)
    assert response.status_code == 400 and "severity" in response.json()["message"]


async def test_resolve_is_for_admins(client, session, admin_headers, limited_headers):
    event = events.record(session, event_type=EventType.attack_detected, severity=EventSeverity.high, description="x")
    await commit(session)
    denied = await client.post(f"/api/security-events/{event.id}/resolve", json={"note": "n"}, headers=limited_headers)
    assert denied.status_code == 403
    done = await client.post(f"/api/security-events/{event.id}/resolve", json={"note": "fixed"}, headers=admin_headers)
    assert done.status_code == 200 and done.json()["resolved"] is True
    missing = await client.post("/api/security-events/9999/resolve", json={}, headers=admin_headers)
    assert missing.status_code == 404


async def test_site_crud_admin_only_with_clear_errors(client, admin_headers, limited_headers, monkeypatch):
    async def resolve(host: str, port: int) -> list[str]:  # no DNS in tests: the name stands for a public site
        return ["93.184.215.14"]

    monkeypatch.setattr(sites, "resolve", resolve)
    assert (
        await client.post("/api/sites", json={"name": "Blog", "url": "https://blog.example.com"}, headers=limited_headers)
    ).status_code == 403
    bad = await client.post("/api/sites", json={"name": "Blog", "url": "ftp://blog.example.com"}, headers=admin_headers)
    assert bad.status_code == 400 and "url" in bad.json()["message"]
    unnamed = await client.post("/api/sites", json={"name": " ", "url": "https://blog.example.com"}, headers=admin_headers)
    assert unnamed.status_code == 400 and "name" in unnamed.json()["message"]
    created = await client.post("/api/sites", json={"name": "Blog", "url": "https://blog.example.com"}, headers=admin_headers)
    assert created.status_code == 201
    site_id = created.json()["id"]
    updated = await client.put(
        f"/api/sites/{site_id}", json={"name": "Blog 2", "url": "https://blog.example.com/x"}, headers=admin_headers
    )
    assert updated.json()["name"] == "Blog 2"
    assert (await client.get(f"/api/sites/{site_id}/checks", headers=admin_headers)).json() == []
    assert (await client.delete(f"/api/sites/{site_id}", headers=limited_headers)).status_code == 403
    assert (await client.delete(f"/api/sites/{site_id}", headers=admin_headers)).status_code == 200
    assert (await client.get(f"/api/sites/{site_id}/checks", headers=admin_headers)).status_code == 404
