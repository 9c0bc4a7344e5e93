"""Enforced blocks: requests a site answered 403 or 429 while a decision covered their client (after it was made),
and decisions bouncers took.

A bouncer on the site's server (or the site's own rules fed by SecDash's decisions) answers a banned client with
403 or 429, and the site's log shows it. The detection leader reads every stored request once, so it counts them
here: per decision, one Threats Blocked record (services/problems/events.py `record_blocked_threat`) whose
`blocked_requests` grows with each batch, instead of one record per request. A drill's requests are left out (the
drill records its own blocks), and so is a 403 or 429 to a client no decision covers (a site forbids things for
reasons of its own).

A bouncer on a firewall blocks before the site: its blocked requests never reach the log. So a decision also
counts once when a bouncer first fetches it (the stream: it is enforced from then on), and once for each request a
live-mode bouncer asks about and is told to block (`GET /v1/decisions?ip=`: it asks as a request arrives). They add
to the same record, which names the bouncers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.engine import Row
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import mark_changed
from secdash.models import DecisionOrigin, EventSeverity, SecurityEvent, TrafficDecision, as_utc
from secdash.services.problems import events
from secdash.services.traffic import decisions
from secdash.services.traffic.ingest import BLOCKED_STATUSES

SOURCE = "monitor"  # what recorded it: SecDash, reading the site's log or answering its bouncers
MAX_NAMED_BOUNCERS = 10


def _description(decision: TrafficDecision) -> str:
    return (
        f"Requests from {decision.value} answered 403/429 while its {decision.type.value} was in force"
        f" ({decisions.why(decision)})"
    )[:300]


async def count(session: AsyncSession, rows: Sequence[Row[Any]]) -> int:
    """Add the batch's enforced blocks to their decisions' Threats Blocked records; with the caller's commit. The rows
    hold TrafficRequest's columns (as detection reads them). Returns how many requests were counted."""
    answered = [row for row in rows if row.status in BLOCKED_STATUSES and row.operation_id is None]
    if not answered:
        return 0
    covering = await decisions.cover(session)
    blocked: dict[int, tuple[TrafficDecision, Row[Any], int]] = {}
    for row in answered:
        decision = covering.of(row.client)
        if decision is None or decision.id is None or as_utc(row.time) < as_utc(decision.created_at):
            continue  # no decision, or the site answered so before the decision was made: not because of it
        _decision, first, seen = blocked.get(decision.id, (decision, row, 0))
        blocked[decision.id] = (decision, first, seen + 1)
    for decision, first, seen in blocked.values():
        event = await session.get(SecurityEvent, decision.blocked_event_id) if decision.blocked_event_id else None
        if event is not None:
            event.blocked_requests = (event.blocked_requests or 0) + seen
            session.add(event)
            continue
        event = events.record_blocked_threat(
            session,
            description=_description(decision),
            source=SOURCE,
            site_id=first.site_id,
            target=decision.value,
            severity=EventSeverity.medium,
            source_ip=first.address,
            user_agent=first.user_agent[:512] or None,
            details={"decisionId": decision.id, "via": "the site's access log"},
            blocked_requests=seen,
            resolved_note="Blocked by a decision in force; nothing to act on",
        )
        await session.flush()
        decision.blocked_event_id = event.id
        session.add(decision)
    if blocked:
        mark_changed(session, events.TOPIC)
    return sum(seen for _decision, _first, seen in blocked.values())


async def _record_of(session: AsyncSession, decision: TrafficDecision, description: str) -> tuple[SecurityEvent, bool]:
    """The decision's Threats Blocked record, made (with no request counted yet) if it has none; (record, made)."""
    event = await session.get(SecurityEvent, decision.blocked_event_id) if decision.blocked_event_id else None
    if event is not None:
        return event, False
    event = events.record_blocked_threat(
        session,
        description=description,
        source=SOURCE,
        site_id=decision.site_id,
        target=decision.value,
        severity=EventSeverity.medium,
        source_ip=decision.value if decision.scope == "ip" else None,
        details={"decisionId": decision.id, "via": "a bouncer"},
        resolved_note="Blocked by a decision in force; nothing to act on",
    )
    event.blocked_requests = 0
    await session.flush()
    decision.blocked_event_id = event.id
    session.add(decision)
    return event, True


async def by_bouncer(session: AsyncSession, name: str, taken: Sequence[TrafficDecision], *, asked: bool) -> int:
    """Count what a bouncer took (see the module docstring): `asked` for a live-mode query (one request each time),
    else a stream pull (each decision once, the first time any bouncer fetches it). With the caller's commit;
    returns how much was added. A drill's decisions are left out (the drill records its own blocks)."""
    added = 0
    for decision in taken:
        if decision.origin == DecisionOrigin.drill or decision.id is None:
            continue
        what = f"{decision.value}: its {decision.type.value} enforced by bouncer {name!r} ({decisions.why(decision)})"
        event, _made = await _record_of(session, decision, what[:300])
        details = dict(event.details or {})
        named = list(details.get("bouncers") or [])
        if name not in named and len(named) < MAX_NAMED_BOUNCERS:
            details["bouncers"] = [*named, name]
        counted = asked or not details.get("fetched")
        details["fetched"] = True
        event.details = details
        session.add(event)
        if not counted:
            continue
        event.blocked_requests = (event.blocked_requests or 0) + 1
        session.add(event)
        added += 1
        if asked:
            break  # one request: the first decision that covers it
    if added:
        mark_changed(session, events.TOPIC)
    return added
