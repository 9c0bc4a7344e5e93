"""The CrowdSec Local API's bouncer endpoints over SecDash's decisions, and the bouncer registry."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from secdash.models import DecisionOrigin, DecisionType, EventType, SecurityEvent, TrafficDecision, utcnow
from secdash.services.problems import events
from secdash.services.traffic.bouncers import go_duration
from tests.api.conftest import signed_in


async def _bouncer(client, session, name="nginx-1") -> str:
    admin = await signed_in(client, session, "root@example.com", "admin")
    made = await client.post("/api/bouncers", json={"name": name}, headers=admin)
    assert made.status_code == 201, made.text
    return made.json()["apiKey"]


async def _decision(session, value: str, *, hours: float = 4, scope: str = "ip", deleted: bool = False, **extra):
    row = TrafficDecision(
        scope=scope, value=value, type=extra.pop("type", DecisionType.ban), origin=DecisionOrigin.scenario,
        scenario="http-probing", until=utcnow() + timedelta(hours=hours), deleted_at=utcnow() if deleted else None,
        **extra,
    )  # fmt: skip
    session.add(row)
    await session.commit()
    return row


def _values(part) -> list[str]:
    return sorted(item["value"] for item in part or [])


async def test_a_bouncer_starts_with_everything_in_force_then_gets_deltas(client, session):
    key = await _bouncer(client, session)
    auth = {"X-Api-Key": key}
    await _decision(session, "203.0.113.5")
    await _decision(session, "198.51.100.1", hours=-1)  # ended an hour ago
    first = await client.get("/v1/decisions/stream", params={"startup": "true"}, headers=auth)
    assert first.status_code == 200, first.text
    body = first.json()
    assert _values(body["new"]) == ["203.0.113.5"] and _values(body["deleted"]) == ["198.51.100.1"]
    ban = body["new"][0]
    assert (ban["scope"], ban["type"], ban["origin"], ban["scenario"]) == ("Ip", "ban", "scenario", "http-probing")
    assert ban["duration"].startswith("3h59m")
    assert (await client.get("/v1/decisions/stream", headers=auth)).json() == {"new": None, "deleted": None}
    await _decision(session, "192.0.2.0/24", scope="range", type=DecisionType.throttle)
    later = await _decision(session, "203.0.113.77")
    delta = (await client.get("/v1/decisions/stream", headers=auth)).json()
    assert _values(delta["new"]) == ["192.0.2.0/24", "203.0.113.77"] and delta["deleted"] is None
    assert [item["type"] for item in delta["new"] if item["scope"] == "Range"] == ["captcha"]
    later.deleted_at = utcnow()  # an operator removed it
    session.add(later)
    await session.commit()
    removal = (await client.get("/v1/decisions/stream", headers=auth)).json()
    assert removal == {"new": None, "deleted": removal["deleted"]} and _values(removal["deleted"]) == ["203.0.113.77"]


async def test_an_ended_decision_is_not_a_removal_while_a_longer_one_holds(client, session):
    key = await _bouncer(client, session)
    auth = {"X-Api-Key": key}
    await _decision(session, "203.0.113.9", hours=-0.01)
    await _decision(session, "203.0.113.9", hours=4)
    body = (await client.get("/v1/decisions/stream", params={"startup": "true"}, headers=auth)).json()
    assert _values(body["new"]) == ["203.0.113.9"] and body["deleted"] is None


async def test_query_by_ip_or_range_covers_ranges_and_answers_null_when_clear(client, session):
    key = await _bouncer(client, session)
    auth = {"X-Api-Key": key}
    await _decision(session, "203.0.113.5")
    await _decision(session, "192.0.2.0/24", scope="range")
    assert _values((await client.get("/v1/decisions", params={"ip": "203.0.113.5"}, headers=auth)).json()) == ["203.0.113.5"]
    assert _values((await client.get("/v1/decisions", params={"ip": "192.0.2.7"}, headers=auth)).json()) == ["192.0.2.0/24"]
    clear = await client.get("/v1/decisions", params={"ip": "203.0.113.6"}, headers=auth)
    assert clear.status_code == 200 and clear.json() is None
    bad = await client.get("/v1/decisions", params={"ip": "not-an-ip"}, headers=auth)
    assert bad.status_code == 400 and "ip" in bad.json()["message"]


async def test_keys_are_checked_and_revocable_and_the_registry_is_for_admins(client, session):
    key = await _bouncer(client, session)
    for headers in ({}, {"X-Api-Key": "sdb_wrong"}, {"X-Api-Key": "x" * 500}):
        refused = await client.get("/v1/decisions/stream", headers=headers)
        assert refused.status_code == 403 and refused.json() == {"message": "access forbidden"}
    admin = await signed_in(client, session, "root2@example.com", "admin")
    listed = (await client.get("/api/bouncers", headers=admin)).json()
    assert [row["name"] for row in listed] == ["nginx-1"] and "apiKey" not in listed[0]
    assert listed[0]["prefix"] == key[:10]
    assert (await client.delete(f"/api/bouncers/{listed[0]['id']}", headers=admin)).status_code == 200
    assert (await client.get("/v1/decisions", headers={"X-Api-Key": key})).status_code == 403
    limited = await signed_in(client, session, "viewer@example.com", "limited")
    assert (await client.post("/api/bouncers", json={"name": "x"}, headers=limited)).status_code == 403
    assert (await client.get("/api/bouncers")).status_code == 401
    duplicate = await client.post("/api/bouncers", json={"name": "nginx-1"}, headers=admin)
    assert duplicate.status_code == 409
    bad_name = await client.post("/api/bouncers", json={"name": "<script>"}, headers=admin)
    assert bad_name.status_code == 400


def test_durations_are_written_as_go_writes_them():
    assert go_duration(4 * 3600 - 1.5) == "3h59m58.5s"
    assert go_duration(720) == "12m0s"
    assert go_duration(-303) == "-5m3s"
    assert go_duration(0.25) == "0.25s"


async def _threats_blocked(session) -> tuple[int, list]:
    """The Threats Blocked figure (what the overview sums), and its records."""
    session.expire_all()
    rows = await session.exec(select(SecurityEvent).where(SecurityEvent.event_type == EventType.threat_blocked.value))
    return await events.count_threats_blocked(session=session), list(rows)


async def test_a_firewall_bouncer_taking_a_decision_counts_in_threats_blocked(client, session):
    """Its blocked requests never reach the site's log: a decision counts once when a bouncer first fetches it, and
    a live-mode bouncer's question about a client it is told to block counts that request."""
    admin = await signed_in(client, session, "root@example.com", "admin")
    keys = []
    for name in ("fw-1", "fw-2"):
        made = await client.post("/api/bouncers", json={"name": name}, headers=admin)
        keys.append(made.json()["apiKey"])
    first_key, second_key = keys
    ban_id = (await _decision(session, "203.0.113.5")).id
    drill = TrafficDecision(
        scope="ip", value="203.0.113.9", type=DecisionType.ban, origin=DecisionOrigin.drill, scenario="drill",
        until=utcnow() + timedelta(hours=1),
    )  # fmt: skip
    session.add(drill)
    await session.commit()
    before, none = await _threats_blocked(session)
    assert none == []

    for key in (first_key, second_key, first_key):  # two bouncers start, one pulls again
        await client.get("/v1/decisions/stream", params={"startup": "true"}, headers={"X-Api-Key": key})
    counted, [record] = await _threats_blocked(session)
    assert counted == before + 1  # the ban, once; the drill's decision is the drill's to count
    assert record.details["decisionId"] == ban_id and record.details["bouncers"] == ["fw-1", "fw-2"]
    assert "enforced by bouncer 'fw-1'" in record.description and record.resolved

    for _ in range(3):  # three requests from the banned client reach a live-mode bouncer
        asked = await client.get("/v1/decisions", params={"ip": "203.0.113.5"}, headers={"X-Api-Key": second_key})
        assert asked.json()[0]["value"] == "203.0.113.5"
    await client.get("/v1/decisions", params={"ip": "198.51.100.3"}, headers={"X-Api-Key": second_key})  # clean
    counted, [record] = await _threats_blocked(session)
    assert counted == before + 4 and record.blocked_requests == 4
