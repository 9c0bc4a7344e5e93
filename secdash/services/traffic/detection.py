"""Live detection: one detector per deployment reads the stored requests in the order they were stored.

Ingest only stores (services/traffic/ingest.py), so a client whose requests reach several workers still fills one
bucket: the leader of "traffic-detection" reads every new request by id (ingest transactions take turns on
PostgreSQL, so ids are committed in order and none is skipped), feeds the site's detector (its own buckets per
site, scenario and client) and records each detection, with a decision (services/traffic/decisions.py). The cursor
is stored; a new leader first replays the last WARM_MINUTES of requests into fresh buckets without reporting, so
a bucket half full when the previous leader stopped is not forgotten. A round that fails (its commit, say) starts
the detector again the same way, so what that round found is found again, not lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import func
from sqlalchemy.engine import Row
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.leader import run_as_leader
from secdash.core.unit import commit, mark_changed
from secdash.models import LiveSnapshot, Site, TrafficDetection, TrafficRequest, as_utc, utcnow
from secdash.services.traffic import attacks, decisions, enforcement, exposure
from secdash.services.traffic.detector import DEFAULT_ALLOW, Detection, Detector
from secdash.services.traffic.ingest import TOPIC, client_of
from secdash.services.traffic.logformats import Request
from secdash.services.traffic.scenarios import Scenario, ScenarioError, load_scenarios

log = logging.getLogger(__name__)

CURSOR = "traffic-detection"  # the LiveSnapshot row holding the last request id read
BATCH = 5_000
POLL_SECONDS = 1.0
WARM_MINUTES = 10
SCENARIO_RETRY_SECONDS = 60  # a scenario file that does not load is read again this often


def scenarios() -> list[Scenario]:
    """The bundled scenarios, with the operator's (SECDASH_DATA_DIR/scenarios) added or replacing them."""
    folder = get_settings().DATA_DIR / "scenarios"
    return load_scenarios(folder if folder.is_dir() else None)


def allowed_networks() -> tuple[Any, ...]:
    settings = get_settings()
    return settings.traffic_allow + (() if settings.TRAFFIC_REPORT_PRIVATE else DEFAULT_ALLOW)


# The leader reads stored requests as plain rows of these columns (attribute access, as on the model): building an
# ORM entity per request (identity map, instance state) cost more than reading its columns, on every request read.
STORED_COLUMNS = tuple(TrafficRequest.__table__.columns)  # type: ignore[attr-defined]


def _request(row: Row[Any]) -> Request:
    return Request(
        time=as_utc(row.time),
        address=row.address,
        method=row.method,
        target=row.target,
        status=row.status,
        size=row.size,
        user_agent=row.user_agent,
        referer=row.referer,
    )


class LiveDetection:
    """The leader's detectors (one per site) and cursor."""

    def __init__(self, loaded: Sequence[Scenario] | None = None) -> None:
        self.scenarios = list(loaded if loaded is not None else scenarios())
        self.allow = allowed_networks()
        self.detectors: dict[int, Detector] = {}
        self.cursor = 0

    def _detector(self, site_id: int) -> Detector:
        detector = self.detectors.get(site_id)
        if detector is None:
            detector = self.detectors[site_id] = Detector(self.scenarios, allow=self.allow, site=str(site_id))
        return detector

    async def start(self, session: AsyncSession) -> None:
        """Take up the stored cursor (or begin at the newest request), and warm the buckets without reporting."""
        stored = await session.get(LiveSnapshot, CURSOR)
        newest = (await session.exec(select(func.max(TrafficRequest.id)))).one() or 0
        self.cursor = int(stored.data.get("cursor", 0)) if stored else newest
        self.cursor = min(self.cursor, newest)
        since = utcnow() - timedelta(minutes=WARM_MINUTES)
        rows = await session.execute(
            select(*STORED_COLUMNS)
            .where(col(TrafficRequest.id) <= self.cursor, col(TrafficRequest.time) >= since)
            .order_by(col(TrafficRequest.id))
            .limit(200_000)
        )
        for row in rows:
            self._detector(row.site_id).feed(_request(row))

    async def step(self, session: AsyncSession) -> int:
        """Read the next batch of stored requests; record what they complete. Returns how many were read."""
        query = select(*STORED_COLUMNS).where(col(TrafficRequest.id) > self.cursor).order_by(col(TrafficRequest.id)).limit(BATCH)
        rows = (await session.execute(query)).all()
        if not rows:
            return 0
        found: list[tuple[Row[Any], Detection]] = []
        for row in rows:
            found.extend((row, detection) for detection in self._detector(row.site_id).feed(_request(row)))
        assert rows[-1].id is not None
        self.cursor = rows[-1].id
        for row, detection in found:
            await record(session, row.site_id, detection, operation_id=row.operation_id)
        await enforcement.count(session, rows)
        snapshot = await session.get(LiveSnapshot, CURSOR) or LiveSnapshot(name=CURSOR)
        snapshot.data = {"cursor": self.cursor}
        snapshot.updated_at = utcnow()
        session.add(snapshot)
        if found:
            mark_changed(session, TOPIC)
        await commit(session)
        return len(rows)


async def record(session: AsyncSession, site_id: int, detection: Detection, operation_id: str | None = None) -> TrafficDetection:
    """A detection, its severity (raised when it is aimed at a hole the site has open: services/traffic/exposure.py)
    and the decision it opens (an active one on the same address is reused); a drill's request (operation_id) makes
    it the drill's: its decision's origin is "drill" and it opens no problem (the drill records its own results).
    Another one opens or adds to the site's attack problem (services/traffic/attacks.py). With the caller's commit."""
    decision = await decisions.open_for(session, site_id=site_id, detection=detection, drill=operation_id is not None)
    family = detection.scenario.family
    severity, raised_because = exposure.assess(family, detection.samples, await exposure.open_findings(session, site_id))
    row = TrafficDetection(
        site_id=site_id,
        scenario=detection.scenario.name,
        family=family,
        description=detection.scenario.description[:300],
        address=detection.address,
        client=client_of(detection.address),
        first_seen=detection.first_seen,
        last_seen=detection.last_seen,
        events=detection.events,
        samples=list(detection.samples),
        severity=severity,
        raised_because=raised_because,
        decision_id=decision.id if decision else None,
        operation_id=operation_id,
    )
    session.add(row)
    await session.flush()
    site = await session.get(Site, site_id)
    if operation_id is None and site is not None:
        await attacks.report(session, site, row)
    return row


async def start_live() -> LiveDetection | None:
    """A started detector, or None (logged, without a traceback) when the scenarios cannot be loaded: a bad file in
    the operator's folder stops detection until it is fixed, not the server."""
    try:
        live = LiveDetection()
    except (ScenarioError, OSError) as exc:
        log.error("traffic detection is off until the scenarios load: %s", exc)
        return None
    async with session_scope() as session:
        await live.start(session)
    return live


async def run_detection() -> None:
    """Lifespan task: one detector per deployment, reading new requests every POLL_SECONDS."""

    async def lead(lost: asyncio.Event) -> None:
        live: LiveDetection | None = None
        while not lost.is_set():
            try:
                if live is None:
                    live = await start_live()  # reads the database: its errors are retried like a step's
                    if live is None:
                        await asyncio.sleep(SCENARIO_RETRY_SECONDS)
                        continue
                async with session_scope() as session:
                    read = await live.step(session)
            except Exception:
                log.exception("traffic detection failed; reading again from the stored cursor")
                # A step feeds its buckets and moves its cursor before its commit: when that fails, what it found
                # was rolled back. Start again as a new leader does (replay to the stored cursor, then report).
                live = None
                read = 0
            if read < BATCH:
                await asyncio.sleep(POLL_SECONDS)

    await run_as_leader("traffic-detection", lead)
