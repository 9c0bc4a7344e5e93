"""GET /api/history-logs: shape, filters, limits and per-role visibility."""

from __future__ import annotations

from tests.api.conftest import bearer
from tests.factories import DEFAULT_PASSWORD, make_user


async def test_requires_a_signed_in_user(client, session):
    response = await client.get("/api/history-logs")
    assert response.status_code == 401
    assert "message" in response.json()


async def test_admin_reads_entries_newest_first_in_the_spec_shape(client, session):
    await make_user(session, "root@example.com", role="admin")
    headers = await bearer(client, "root@example.com", DEFAULT_PASSWORD)
    response = await client.get("/api/history-logs", headers=headers)
    assert response.status_code == 200
    logs = response.json()
    assert logs[0]["action"] == "Login succeeded"
    assert set(logs[0]) == {"id", "category", "action", "severity", "description", "metadata", "timestamp"}
    assert logs[0]["metadata"]["email"] == "root@example.com"
    assert [log["id"] for log in logs] == sorted((log["id"] for log in logs), reverse=True)


async def test_category_filter_and_limit(client, session):
    await make_user(session, "root@example.com", role="admin")
    headers = await bearer(client, "root@example.com", DEFAULT_PASSWORD)
    security = (await client.get("/api/history-logs?category=security", headers=headers)).json()
    assert security and all(log["category"] == "security" for log in security)
    assert (await client.get("/api/history-logs?category=battle", headers=headers)).json() == []
    assert len((await client.get("/api/history-logs?limit=1", headers=headers)).json()) == 1


async def test_bad_category_and_limit_are_400_naming_the_field(client, session):
    await make_user(session, "root@example.com", role="admin")
    headers = await bearer(client, "root@example.com", DEFAULT_PASSWORD)
    for query, field in (("category=hacks", "category"), ("limit=1001", "limit"), ("limit=abc", "limit")):
        response = await client.get(f"/api/history-logs?{query}", headers=headers)
        assert response.status_code == 400, query
        assert field in response.json()["message"]


async def test_limited_user_does_not_see_other_users_entries(client, session):
    await make_user(session, "root@example.com", role="admin")
    await make_user(session, "viewer@example.com", role="limited")
    await bearer(client, "root@example.com", DEFAULT_PASSWORD)
    client.cookies.clear()
    headers = await bearer(client, "viewer@example.com", DEFAULT_PASSWORD)
    logs = (await client.get("/api/history-logs", headers=headers)).json()
    emails = {log["metadata"].get("email") for log in logs}
    assert "viewer@example.com" in emails
    assert "root@example.com" not in emails


async def test_paging_with_before_reaches_older_entries(client, session):
    await make_user(session, "root@example.com", role="admin")
    headers = await bearer(client, "root@example.com", DEFAULT_PASSWORD)
    for _ in range(3):
        await bearer(client, "root@example.com", DEFAULT_PASSWORD)
    first = (await client.get("/api/history-logs?limit=2", headers=headers)).json()
    rest = (await client.get(f"/api/history-logs?limit=100&before={first[-1]['id']}", headers=headers)).json()
    every = (await client.get("/api/history-logs?limit=100", headers=headers)).json()
    assert [e["id"] for e in first + rest] == [e["id"] for e in every]
    bad = await client.get("/api/history-logs?before=abc", headers=headers)
    assert bad.status_code == 400 and "before" in bad.json()["message"]


async def test_q_filters_by_text(client, session):
    await make_user(session, "root@example.com", role="admin")
    headers = await bearer(client, "root@example.com", DEFAULT_PASSWORD)
    logs = (await client.get("/api/history-logs?q=login%20succeeded", headers=headers)).json()
    assert logs and all(e["action"] == "Login succeeded" for e in logs)
