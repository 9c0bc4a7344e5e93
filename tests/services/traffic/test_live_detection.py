"""Live detection over stored requests: one detector for every worker's ingest, a detection opens a decision,
and a new leader neither forgets a half-full bucket nor reports twice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlmodel import select

from secdash.core.db import session_scope
from secdash.models import DecisionOrigin, Site, TrafficDecision, TrafficDetection, as_utc, utcnow
from secdash.services.traffic import ingest
from secdash.services.traffic.detection import LiveDetection


def _line(n: int, address: str = "203.0.113.5", when: datetime | None = None) -> str:
    stamp = (when or utcnow()).strftime("%d/%b/%Y:%H:%M:%S +0000")
    return f'{address} - - [{stamp}] "GET /missing-{n} HTTP/1.1" 404 10 "-" "Mozilla/5.0"'


async def _site(session, name="Shop") -> Site:
    site = Site(name=name, domain=f"{name.lower()}.example", url=f"https://{name.lower()}.example/")
    session.add(site)
    await session.commit()
    await session.refresh(site)
    return site


async def _ingest(site: Site, lines: list[str]) -> None:
    async with session_scope() as own:  # each batch as its own request (possibly another worker)
        await ingest.ingest_lines(own, site.id, lines)


async def _step(live: LiveDetection) -> int:
    async with session_scope() as own:
        return await live.step(own)


async def _detections(session) -> list[tuple[str, str, int]]:
    rows = await session.exec(select(TrafficDetection).order_by(TrafficDetection.id))
    return [(row.address, row.scenario, row.events) for row in rows]


async def test_requests_split_across_batches_fill_one_bucket_and_open_a_ban(session):
    site = await _site(session)
    live = LiveDetection()
    async with session_scope() as own:
        await live.start(own)
    await _ingest(site, [_line(i) for i in range(6)])  # one worker
    await _ingest(site, [_line(i) for i in range(6, 11)])  # the other
    assert await _step(live) == 11
    assert await _detections(session) == [("203.0.113.5", "http-probing", 11)]
    decision = (await session.exec(select(TrafficDecision))).one()
    assert (decision.value, decision.type, decision.origin, decision.site_id) == (
        "203.0.113.5",
        "ban",
        DecisionOrigin.scenario,
        site.id,
    )
    assert timedelta(hours=3, minutes=59) < as_utc(decision.until) - utcnow() <= timedelta(hours=4)
    detection = (await session.exec(select(TrafficDetection))).one()
    assert detection.decision_id == decision.id and detection.severity == "low" and len(detection.samples) == 5


async def test_a_second_detection_on_a_banned_address_reuses_its_decision(session):
    site = await _site(session)
    live = LiveDetection()
    async with session_scope() as own:
        await live.start(own)
    lines = [_line(i) for i in range(11)]
    lines += [_line(0).replace("/missing-0", f"/.env{i}").replace(" 404 ", " 200 ") for i in range(1)]
    sensitive = [_line(0).replace("GET /missing-0", f"GET /backup{i}.sql") for i in range(5)]
    await _ingest(site, lines + sensitive)
    await _step(live)
    scenarios = {scenario for _address, scenario, _events in await _detections(session)}
    assert {"http-probing", "http-sensitive-files"} <= scenarios
    assert len((await session.exec(select(TrafficDecision))).all()) == 1


async def test_a_new_leader_remembers_half_full_buckets_and_does_not_report_twice(session):
    site = await _site(session)
    first = LiveDetection()
    async with session_scope() as own:
        await first.start(own)
    await _ingest(site, [_line(i) for i in range(8)])
    await _step(first)
    assert await _detections(session) == []
    second = LiveDetection()  # the first leader stopped; its buckets are gone with it
    async with session_scope() as own:
        await second.start(own)
    await _ingest(site, [_line(i) for i in range(8, 11)])
    await _step(second)
    assert await _detections(session) == [("203.0.113.5", "http-probing", 11)]
    third = LiveDetection()
    async with session_scope() as own:
        await third.start(own)
    assert await _step(third) == 0 and len(await _detections(session)) == 1


async def test_private_and_allowed_addresses_are_not_detected(session, monkeypatch):
    from secdash.core.config import get_settings

    site = await _site(session)
    monkeypatch.setenv("SECDASH_TRAFFIC_ALLOW", "198.51.100.0/24")
    get_settings.cache_clear()
    try:
        live = LiveDetection()
        async with session_scope() as own:
            await live.start(own)
        await _ingest(site, [_line(i, "10.0.0.7") for i in range(20)] + [_line(i, "198.51.100.9") for i in range(20)])
        await _step(live)
    finally:
        monkeypatch.delenv("SECDASH_TRAFFIC_ALLOW")
        get_settings.cache_clear()
    assert await _detections(session) == []


async def test_each_site_has_its_own_buckets(session):
    shop, blog = await _site(session, "Shop"), await _site(session, "Blog")
    live = LiveDetection()
    async with session_scope() as own:
        await live.start(own)
    await _ingest(shop, [_line(i) for i in range(6)])
    await _ingest(blog, [_line(i) for i in range(6, 12)])
    await _step(live)
    assert await _detections(session) == []  # six misses on each site: per-site probing does not add them up


async def test_old_requests_beyond_retention_are_pruned(session):
    site = await _site(session)
    old = datetime.now(UTC) - timedelta(hours=30)
    await _ingest(site, [_line(1, when=old), _line(2)])
    async with session_scope() as own:
        requests, _minutes = await ingest.prune(own)
    assert requests == 1


async def test_a_broken_operator_scenario_turns_detection_off_with_a_message_not_the_server(session, settings, caplog):
    from secdash.services.traffic.detection import start_live

    folder = settings.DATA_DIR / "scenarios"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mine.yaml").write_text("name: mine\nmatch: {path_smells: x}\n")
    try:
        assert await start_live() is None
        assert "traffic detection is off until the scenarios load: mine.yaml (mine)" in caplog.text
        (folder / "mine.yaml").write_text("name: mine\ncapacity: 1\nmatch: {path_contains: ['/x']}\n")
        live = await start_live()
        assert live is not None and "mine" in {scenario.name for scenario in live.scenarios}
    finally:
        (folder / "mine.yaml").unlink()


async def test_a_round_that_fails_to_commit_is_read_again_not_lost(session, monkeypatch, caplog):
    """A step fed its buckets and moved its cursor before its commit failed (a database blip, or two detectors
    racing for the stored cursor): the detections it made were rolled back. The leader starts again from the stored
    cursor, so they are made once more, not lost until the next leader."""
    import asyncio

    from secdash.models import LiveSnapshot
    from secdash.services.traffic import detection

    site = await _site(session)
    session.add(LiveSnapshot(name=detection.CURSOR, data={"cursor": 0}))  # the leader takes up this cursor
    await session.commit()
    await _ingest(site, [_line(i) for i in range(11)])
    failures = []
    real_commit = detection.commit

    async def commit_failing_once(own) -> None:
        if not failures:
            failures.append(1)
            raise RuntimeError("the database went away")
        await real_commit(own)

    monkeypatch.setattr(detection, "commit", commit_failing_once)
    monkeypatch.setattr(detection, "POLL_SECONDS", 0.05)
    leader = asyncio.create_task(detection.run_detection())
    try:
        async with asyncio.timeout(10):
            while not await _detections(session) and not leader.done():
                await asyncio.sleep(0.05)
    except TimeoutError:
        pass
    finally:
        leader.cancel()
        await asyncio.gather(leader, return_exceptions=True)
    assert failures and "traffic detection failed" in caplog.text
    assert await _detections(session) == [("203.0.113.5", "http-probing", 11)]


async def test_a_leader_that_cannot_start_for_a_database_error_tries_again(session, monkeypatch, caplog):
    """Taking up the cursor reads the database: an error there (as while it restarts) is retried, it does not end
    detection for the life of the process."""
    import asyncio

    from secdash.models import LiveSnapshot
    from secdash.services.traffic import detection

    site = await _site(session)
    session.add(LiveSnapshot(name=detection.CURSOR, data={"cursor": 0}))
    await session.commit()
    await _ingest(site, [_line(i) for i in range(11)])
    failures = []
    real_start = LiveDetection.start

    async def start_failing_once(self, own) -> None:
        if not failures:
            failures.append(1)
            raise RuntimeError("the database is restarting")
        await real_start(self, own)

    monkeypatch.setattr(LiveDetection, "start", start_failing_once)
    monkeypatch.setattr(detection, "POLL_SECONDS", 0.05)
    leader = asyncio.create_task(detection.run_detection())
    try:
        async with asyncio.timeout(10):
            while not await _detections(session) and not leader.done():
                await asyncio.sleep(0.05)
    finally:
        leader.cancel()
        results = await asyncio.gather(leader, return_exceptions=True)
    assert failures and not isinstance(results[0], RuntimeError), results
    assert await _detections(session) == [("203.0.113.5", "http-probing", 11)]


async def test_the_leader_reads_stored_requests_as_plain_rows_not_one_orm_object_each(session):
    """Found by `python -m bench ingest`: building a TrafficRequest entity (identity map, instance state) for every
    request read cost about as much as reading its columns twice over and held detection below the ingest rate."""
    from sqlalchemy import event

    from secdash.models import TrafficRequest

    site = await _site(session)
    loaded: list[object] = []

    def count(target: object, _context: object) -> None:
        loaded.append(target)

    event.listen(TrafficRequest, "load", count)
    try:
        live = LiveDetection()
        async with session_scope() as own:
            await live.start(own)
        await _ingest(site, [_line(i) for i in range(11)])
        assert await _step(live) == 11
        restarted = LiveDetection()  # a new leader warms its buckets from the same rows
        async with session_scope() as own:
            await restarted.start(own)
    finally:
        event.remove(TrafficRequest, "load", count)
    assert await _detections(session) == [("203.0.113.5", "http-probing", 11)]
    assert loaded == []
