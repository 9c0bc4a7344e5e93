"""POST /api/security-events/{id}/resolve with a disposition; GET /api/security-events?status=&drills= (issue 23)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from secdash.core.unit import commit
from secdash.models import EventSeverity, EventSource, EventType
from secdash.services.problems import events
from tests.api.conftest import signed_in


async def _event(session, description="x", source=EventSource.scanner):
    event = events.record(
        session,
        event_type=EventType.vulnerability_detected,
        severity=EventSeverity.low,
        description=description,
        source=source.value,
    )
    await commit(session)
    return event


async def test_an_accepted_risk_is_recorded_with_its_end_and_reason(client, session):
    headers = await signed_in(client, session, "root@example.com", "admin")
    event = await _event(session)
    until = (datetime.now(UTC) + timedelta(days=30)).isoformat()
    response = await client.post(
        f"/api/security-events/{event.id}/resolve",
        headers=headers,
        json={"disposition": "accepted_risk", "note": "internal only", "acceptedUntil": until},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["disposition"], body["resolutionNote"], body["falsePositive"]) == ("accepted_risk", "internal only", False)
    assert body["acceptedUntil"].startswith(until[:10])


async def test_bad_decisions_are_refused_with_a_reason_and_change_nothing(client, session):
    headers = await signed_in(client, session, "root@example.com", "admin")
    event = await _event(session)
    past = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    far = (datetime.now(UTC) + timedelta(days=800)).isoformat()
    for body, words in (
        ({"disposition": "accepted_risk"}, "reason"),
        ({"disposition": "accepted_risk", "note": "n", "acceptedUntil": past}, "future"),
        ({"disposition": "accepted_risk", "note": "n", "acceptedUntil": far}, "366 days"),
        ({"disposition": "fixed", "acceptedUntil": far}, "only to an accepted risk"),
        ({"disposition": "fixed", "falsePositive": True}, "contradicts"),
        ({"disposition": "ignored"}, "disposition"),
        ({"disposition": "accepted_risk", "note": "n", "acceptedUntil": "soon"}, "acceptedUntil"),
    ):
        response = await client.post(f"/api/security-events/{event.id}/resolve", headers=headers, json=body)
        assert response.status_code == 400, (body, response.text)
        assert words in response.json()["message"], (body, response.json())
    listed = (await client.get("/api/security-events?status=open", headers=headers)).json()
    assert [row["id"] for row in listed] == [event.id]


async def test_the_list_filters_by_status_and_leaves_drills_out_on_request(client, session):
    headers = await signed_in(client, session, "root@example.com", "admin")
    finding = await _event(session, "a finding")
    drill = await _event(session, "a drill record", source=EventSource.drill)
    await client.post(f"/api/security-events/{finding.id}/resolve", headers=headers, json={"disposition": "false_positive"})
    suppressed = (await client.get("/api/security-events?status=suppressed", headers=headers)).json()
    assert [row["id"] for row in suppressed] == [finding.id]
    no_drills = (await client.get("/api/security-events?drills=exclude", headers=headers)).json()
    assert drill.id not in [row["id"] for row in no_drills] and finding.id in [row["id"] for row in no_drills]
    bad = await client.get("/api/security-events?status=closed", headers=headers)
    assert bad.status_code == 400 and "status" in bad.json()["message"]


async def test_a_limited_user_cannot_decide(client, session):
    headers = await signed_in(client, session, "viewer@example.com", "limited")
    event = await _event(session)
    response = await client.post(
        f"/api/security-events/{event.id}/resolve", headers=headers, json={"disposition": "false_positive"}
    )
    assert response.status_code == 403
