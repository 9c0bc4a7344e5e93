"""GET /api/ai-systems: signed-in users only; the figures follow what is recorded."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from secdash.ai.calls import CallRecord
from secdash.core.unit import commit
from secdash.models import EventSeverity, EventType, Site, SiteCheck, utcnow
from secdash.services.agents import ai_calls
from secdash.services.problems import events
from tests.api.conftest import signed_in
from tests.factories import make_user


async def test_signed_out_is_refused(client, session):
    response = await client.get("/api/ai-systems")
    assert response.status_code == 401
    assert "message" in response.json()


async def test_shape_for_a_limited_user(client, session):
    admin = await signed_in(client, session, "root@example.com", "admin")
    await client.post("/api/init-sites", headers=admin)
    headers = await signed_in(client, session, "viewer@example.com", "limited")
    response = await client.get("/api/ai-systems", headers=headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"generatedAt", "summary", "status", "platforms", "training"}
    assert body["summary"]["aiModels"] == 4
    assert body["summary"]["profileFields"] == ["totalDataTb", "activeUsers"]
    assert [p["id"] for p in body["platforms"]] == ["stock", "tour", "gem", "shares"]
    platform = body["platforms"][0]
    assert {
        "agentStatus",
        "siteStatus",
        "responseTime",
        "uptimePercent",
        "uptimeHours",
        "codeLines",
        "threatsDetected",
        "threatsBlocked",
        "falsePositives",
        "recentActivities",
        "ai",
        "profile",
    } <= set(platform)
    assert platform["profile"]["source"] == "profile"
    assert {"users", "dataSize", "datasets", "accuracy", "memoryPercent", "frameworks", "trainingSamples"} <= set(
        platform["profile"]
    )
    assert [row["source"] for row in body["training"]] == ["profile"] * 4


async def test_figures_change_after_real_records(client, session):
    headers = await signed_in(client, session, "root@example.com", "admin")
    await client.post("/api/init-sites", headers=headers)
    before = (await client.get("/api/ai-systems", headers=headers)).json()["platforms"][1]  # Tour
    assert (before["threatsDetected"], before["uptimePercent"], before["ai"]["calls"]) == (0, None, 0)

    site = (await session.exec(select(Site).where(Site.default_slug == "tour"))).one()
    session.add(
        SiteCheck(site_id=site.id, checked_at=utcnow() - timedelta(minutes=5), status="secure", status_code=200, response_ms=30)
    )
    session.add(SiteCheck(site_id=site.id, checked_at=utcnow(), status="critical", error="connection refused"))
    event = events.record(
        session, event_type=EventType.attack_detected, severity=EventSeverity.high, description="probe burst", site_id=site.id
    )
    await commit(session)
    user = await make_user(session, "caller@example.com", role="limited")
    await ai_calls.recorder(user)(
        CallRecord(
            feature="chat",
            task="chat",
            agent="tour",
            user_id=user.id,
            provider="openai",
            model="m",
            outcome="ok",
            total_ms=120,
            prompt_tokens=11,
            completion_tokens=4,
        )
    )
    resolved = await client.post(
        f"/api/security-events/{event.id}/resolve", headers=headers, json={"note": "our own load test", "falsePositive": True}
    )
    assert resolved.status_code == 200 and resolved.json()["falsePositive"] is True

    after = (await client.get("/api/ai-systems", headers=headers)).json()["platforms"][1]
    assert (after["threatsDetected"], after["falsePositives"]) == (1, 1)
    assert (after["checks"], after["uptimePercent"], after["uptimeHours"]) == (2, 50.0, 0.0)
    assert (after["ai"]["calls"], after["ai"]["promptTokens"], after["ai"]["avgLatencyMs"]) == (1, 11, 120)


async def test_resolve_without_the_flag_keeps_the_old_behaviour(client, session):
    headers = await signed_in(client, session, "root@example.com", "admin")
    event = events.record(session, event_type=EventType.attack_detected, severity=EventSeverity.low, description="x")
    await commit(session)
    response = await client.post(f"/api/security-events/{event.id}/resolve", headers=headers, json={"note": "done"})
    assert response.status_code == 200
    assert (response.json()["resolved"], response.json()["falsePositive"]) == (True, False)


async def test_false_positive_must_be_a_boolean(client, session):
    headers = await signed_in(client, session, "root@example.com", "admin")
    event = events.record(session, event_type=EventType.attack_detected, severity=EventSeverity.low, description="x")
    await commit(session)
    response = await client.post(f"/api/security-events/{event.id}/resolve", headers=headers, json={"falsePositive": "yes"})
    assert response.status_code == 400
