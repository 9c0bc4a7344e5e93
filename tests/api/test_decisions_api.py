"""Operators' decisions over the API: admins list, add and lift bans and throttles; bouncers see them."""

from __future__ import annotations

from sqlmodel import select

from secdash.models import HistoryLog
from tests.api.conftest import signed_in


async def test_an_admin_bans_a_range_a_bouncer_sees_it_and_lifting_it_reaches_the_bouncer(client, session):
    admin = await signed_in(client, session, "root@example.com", "admin")
    key = (await client.post("/api/bouncers", json={"name": "fw"}, headers=admin)).json()["apiKey"]
    bouncer = {"X-Api-Key": key}
    await client.get("/v1/decisions/stream", params={"startup": "true"}, headers=bouncer)
    made = await client.post(
        "/api/decisions", json={"value": "203.0.113.77/24", "durationSeconds": 3600, "reason": "office says so"}, headers=admin
    )
    assert made.status_code == 201, made.text
    decision = made.json()
    assert (decision["scope"], decision["value"], decision["type"], decision["origin"]) == (
        "range", "203.0.113.0/24", "ban", "operator",
    )  # fmt: skip
    assert [row["id"] for row in (await client.get("/api/decisions", headers=admin)).json()] == [decision["id"]]
    pulled = (await client.get("/v1/decisions/stream", headers=bouncer)).json()
    assert [item["value"] for item in pulled["new"]] == ["203.0.113.0/24"]
    covered = (await client.get("/v1/decisions", params={"ip": "203.0.113.5"}, headers=bouncer)).json()
    assert [item["value"] for item in covered] == ["203.0.113.0/24"]
    lifted = await client.delete(f"/api/decisions/{decision['id']}", headers=admin)
    assert lifted.status_code == 200 and lifted.json()["deletedAt"]
    assert (await client.get("/api/decisions", headers=admin)).json() == []
    assert len((await client.get("/api/decisions", params={"all": "true"}, headers=admin)).json()) == 1
    removal = (await client.get("/v1/decisions/stream", headers=bouncer)).json()
    assert [item["value"] for item in removal["deleted"]] == ["203.0.113.0/24"]
    actions = [row.action for row in (await session.exec(select(HistoryLog))).all()]
    assert "Decision added" in actions and "Decision removed" in actions


async def test_bad_decisions_get_a_clear_message_and_limited_users_none_at_all(client, session):
    admin = await signed_in(client, session, "root@example.com", "admin")
    for body, message in [
        ({"value": "not-an-address"}, "value"),
        ({"value": "0.0.0.0/0"}, "at most a /8"),
        ({"value": "203.0.113.7", "durationSeconds": 5}, "durationSeconds"),
        ({"value": "203.0.113.7", "type": "nuke"}, "type"),
    ]:
        refused = await client.post("/api/decisions", json=body, headers=admin)
        assert refused.status_code == 400 and message in refused.json()["message"], (body, refused.text)
    limited = await signed_in(client, session, "viewer@example.com", "limited")
    assert (await client.get("/api/decisions", headers=limited)).status_code == 403
    assert (await client.post("/api/decisions", json={"value": "203.0.113.7"}, headers=limited)).status_code == 403
    assert (await client.delete("/api/decisions/1", headers=limited)).status_code == 403
    assert (await client.delete("/api/decisions/999", headers=admin)).status_code == 404
