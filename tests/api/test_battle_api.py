"""Battle Station over HTTP: the defend request (admins; 409 per site; 400 on bad input), operations with their
counts and MITRE technique, active drills, defenses and their reset; signed out 401, limited 403."""

from __future__ import annotations

import pytest

from secdash.jobs import runner
from secdash.services.battle import drills, scoring
from tests.api.conftest import signed_in
from tests.factories import make_user
from tests.support.battle import in_process_demo_sites

ROUTES = [
    ("GET", "/api/battle-station", None),
    ("GET", "/api/battle-station/active", None),
    ("GET", "/api/battle-station/operations/1", None),
    ("POST", "/api/battle-station/defend", {"attackType": "xss"}),
    ("GET", "/api/battle-station/defenses/stock", None),
    ("POST", "/api/battle-station/defenses/stock/reset", None),
]


@pytest.fixture
async def demo(session, monkeypatch, settings):
    return await in_process_demo_sites(session, monkeypatch, settings)


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_signed_out_callers_get_401(client, method, path, body):
    response = await client.request(method, path, json=body)
    assert response.status_code == 401 and response.json()["message"]


async def test_an_admin_defends_and_the_operation_is_listed_with_its_counts(client, session, demo):
    admin = await signed_in(client, session, "root@example.com", "admin")
    response = await client.post(
        "/api/battle-station/defend",
        headers=admin,
        json={"attackType": "sql_injection", "attackSource": "203.0.113.77", "aiAgentId": "shares"},
    )
    assert response.status_code == 200, response.text
    reply = response.json()
    assert reply["defenseCode"] == reply["code"] and reply["code"]
    assert reply["status"] == "defended" and reply["effectiveness"] >= scoring.DEFENDED_SCORE

    listed = (await client.get("/api/battle-station", headers=admin)).json()
    assert len(listed) == 1
    op = listed[0]
    assert op["id"] == reply["operationId"] and op["attackType"] == "sql_injection" and op["status"] == "defended"
    assert op["attackSource"] == "203.0.113.77" and op["defenseStrategy"] and op["defenseCode"] == reply["code"]
    assert op["mitre"]["id"] == "T1190" and op["timestamp"].endswith("Z") and op["site"] == "shares"
    after = op["after"]
    assert after["attackSent"] > 0 and after["benignSent"] > 0
    # Anyone can recompute the score from the stored counts.
    blocked = after["attackBlocked"] / after["attackSent"]
    served = (after["benignSent"] - after["benignBlocked"]) / after["benignSent"]
    assert op["effectiveness"] == round(100 * blocked * served)
    assert op["baseline"]["attackSent"] == after["attackSent"] and op["baseline"]["damage"]
    assert (await client.get("/api/battle-station/active", headers=admin)).json() == []
    one = await client.get(f"/api/battle-station/operations/{op['id']}", headers=admin)
    assert one.status_code == 200 and one.json()["id"] == op["id"]

    defense = (await client.get("/api/battle-station/defenses/shares", headers=admin)).json()
    assert defense["source"] == "drill" and defense["config"]["patterns"]
    reset = await client.post("/api/battle-station/defenses/shares/reset", headers=admin)
    assert reset.status_code == 200 and reset.json()["source"] == "reset" and reset.json()["config"]["patterns"] == []


async def test_a_second_drill_on_the_same_site_gets_409_and_the_active_list_shows_the_first(client, session, demo):
    admin = await signed_in(client, session, "root@example.com", "admin")
    root = await make_user(session, "ops@example.com", role="admin")
    running = await drills.start_drill(session=session, actor=root, attack_type="ddos", agent_id="tour")
    job_id = running.job_id
    conflict = await client.post("/api/battle-station/defend", headers=admin, json={"attackType": "xss", "aiAgentId": "tour"})
    assert conflict.status_code == 409 and "already running against Tour" in conflict.json()["message"]
    active = (await client.get("/api/battle-station/active", headers=admin)).json()
    assert [(a["attackType"], a["duration"]) for a in active] == [("ddos", 300)] and active[0]["startTime"].endswith("Z")
    await runner.wait_for(job_id, timeout=120)


@pytest.mark.parametrize(
    "body",
    [
        {"attackType": "nuke"},
        {"attackType": "XSS"},
        {},
        {"attackType": "xss", "aiAgentId": "general"},
        {"attackType": "xss", "aiAgentId": "../../etc"},
        {"attackType": "xss", "attackSource": "x" * 65},
        {"attackType": "xss", "attackSource": 5},
        {"attackType": ["xss"]},
    ],
)
async def test_bad_defend_requests_get_400_with_a_message(client, session, demo, body):
    admin = await signed_in(client, session, "root@example.com", "admin")
    response = await client.post("/api/battle-station/defend", headers=admin, json=body)
    assert response.status_code == 400 and response.json()["message"]
    assert (await client.get("/api/battle-station", headers=admin)).json() == []


async def test_limited_users_watch_but_cannot_start_drills_or_reset_defenses(client, session, demo):
    limited = await signed_in(client, session, "viewer@example.com", "limited")
    refused = await client.post("/api/battle-station/defend", headers=limited, json={"attackType": "xss"})
    assert refused.status_code == 403 and refused.json()["message"]
    assert (await client.post("/api/battle-station/defenses/gem/reset", headers=limited)).status_code == 403
    assert (await client.get("/api/battle-station", headers=limited)).status_code == 200
    assert (await client.get("/api/battle-station/active", headers=limited)).status_code == 200


async def test_unknown_sites_operations_and_limits(client, session, demo):
    admin = await signed_in(client, session, "root@example.com", "admin")
    assert (await client.get("/api/battle-station/defenses/example", headers=admin)).status_code == 404
    assert (await client.post("/api/battle-station/defenses/example/reset", headers=admin)).status_code == 404
    assert (await client.get("/api/battle-station/operations/999", headers=admin)).status_code == 404
    for limit in ("0", "abc", "201"):
        bad = await client.get(f"/api/battle-station?limit={limit}", headers=admin)
        assert bad.status_code == 400 and "limit" in bad.json()["message"]
