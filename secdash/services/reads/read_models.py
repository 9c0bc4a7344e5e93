"""Read models: the views every viewer shares, read once per change per worker and served to all.

The overview figures, the sites with their recent checks, the open alerts, the activity feed, the
simulated traffic and the platform agents look the same to every signed-in viewer. Each is read from
the database once after a change of its topics (the change feed calls `invalidate`) and every open
page and every API request in this worker is served from that read, however many there are. Readers
that arrive while a read is under way wait for it (one read, not one per reader).

Without Redis the change feed is in-process and complete, so a cached view is exact. With Redis a
message can be lost while the listener reconnects (it then invalidates everything); as a second
guard a view is never older than REDIS_MAX_AGE_SECONDS there.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core import notify
from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.models import AgentRecord, SecurityEvent, Site, SiteCheck
from secdash.services.agents import activities, agents
from secdash.services.monitoring import simulation, sites
from secdash.services.problems import events
from secdash.services.reads import dashboard, site_list
from secdash.services.traffic import ingest, live

T = TypeVar("T")
HISTORY_POINTS = 120  # checks per site on the dashboard's response-time chart
REDIS_MAX_AGE_SECONDS = 5.0


class ReadModel(Generic[T]):
    """One shared view: `load(session)` run once per change of `topics` (exact, or `prefix*`)."""

    def __init__(
        self,
        name: str,
        topics: tuple[str, ...],
        load: Callable[[AsyncSession], Awaitable[T]],
        *,
        max_age: float | None = None,
        min_interval: float = 0.0,
    ) -> None:
        """`max_age`: a view of a sliding window (the last minute's requests) is read again once this old, change
        or not. `min_interval`: a view whose topic changes many times a second (every request logged) is read at
        most this often; the change after the last read shows at the next read (followers read every few
        seconds)."""
        self.name, self.topics, self._load = name, topics, load
        self.max_age, self.min_interval = max_age, min_interval
        self.loads = 0  # how many times the view was read from the database (tests, diagnostics)
        self._generation = 0  # bumped by every invalidation
        self._value: T | None = None
        self._value_generation = -1
        self._loaded_at = 0.0
        self._version = 0  # bumped by every load: derived values are kept per version
        self._derived: dict[Hashable, Any] = {}
        self._pending: asyncio.Task | None = None

    def matches(self, topic: str) -> bool:
        if topic == "*":
            return True
        return any(topic.startswith(t[:-1]) if t.endswith(notify.PREFIX_MARK) else topic == t for t in self.topics)

    def invalidate(self) -> None:
        self._generation += 1

    @property
    def version(self) -> int:
        return self._version

    def _fresh(self) -> bool:
        if self._value_generation < 0:
            return False
        age = time.monotonic() - self._loaded_at
        if age < self.min_interval:
            return True
        if self._value_generation != self._generation:
            return False
        if self.max_age is not None and age >= self.max_age:
            return False
        if notify.ensure_listener():  # Redis: a lost message must not keep a view stale for long
            return age < REDIS_MAX_AGE_SECONDS
        return True

    async def get(self) -> T:
        """The view, read now if a change made it stale (once, however many readers wait)."""
        wanted = self._generation  # a read that began at or after this generation serves this call
        while not self._fresh():
            loop = asyncio.get_running_loop()
            task = self._pending
            if task is None or task.done() or task.get_loop() is not loop:
                task = self._pending = loop.create_task(self._read(), name=f"read model {self.name}")
            # The read is its own task: a reader that goes away (a closed tab) does not cancel it for the others.
            await asyncio.shield(task)
            if self._value_generation >= wanted:
                break  # changed again meanwhile: the next reader reads again
        return self._value  # type: ignore[return-value]

    async def _read(self) -> None:
        generation = self._generation
        async with session_scope() as session:
            value = await self._load(session)
            await session.commit()  # a load may create rows on first read (the agents)
        self.loads += 1
        self._version += 1
        self._derived = {}
        # Changed again while reading: this read is served to who waits now, the next reader reads again.
        self._value, self._value_generation, self._loaded_at = value, generation, time.monotonic()

    async def derived(self, key: Hashable, build: Callable[[T], Any]) -> Any:
        """`build(view)` computed once per read of the view (the API's JSON bytes, say)."""
        value = await self.get()
        version = self._version
        if key not in self._derived:
            self._derived[key] = build(value)
        result = self._derived[key]
        return result if version == self._version else build(value)


_models: list[ReadModel] = []


def _register(model: ReadModel[T]) -> ReadModel[T]:
    _models.append(model)
    return model


def _on_change(topic: str, _seq: int) -> None:
    for model in _models:
        if model.matches(topic):
            model.invalidate()
    if topic == "*":  # everything may have changed (a reconnect, a reset): no previous answer is served meanwhile
        _forget_answers()


notify.add_listener(_on_change)


def invalidate_all() -> None:
    """Forget every cached view (tests; a restore of the database)."""
    _forget_answers()
    for model in _models:
        model.invalidate()
        model._value_generation = -1  # read at the next call, even within a view's min_interval


# --- the shared views ------------------------------------------------------------------------------


async def recent_checks(*, session: AsyncSession, limit: int = HISTORY_POINTS) -> dict[int, list[dict[str, Any]]]:
    """The newest `limit` checks of every site, oldest first, in ONE query (a window per site)."""
    ranked = select(
        SiteCheck,
        func.row_number().over(partition_by=col(SiteCheck.site_id), order_by=col(SiteCheck.checked_at).desc()).label("rn"),
    ).subquery()
    query = (
        select(  # type: ignore[call-overload]  # nine columns: SQLModel's select is typed for up to four
            ranked.c.site_id,
            ranked.c.checked_at,
            ranked.c.response_ms,
            ranked.c.ttfb_ms,
            ranked.c.redirects,
            ranked.c.status,
            ranked.c.status_code,
            ranked.c.grade,
            ranked.c.error,
        )
        .where(ranked.c.rn <= limit)
        .order_by(ranked.c.site_id, ranked.c.checked_at)
    )
    by_site: dict[int, list[dict[str, Any]]] = {}
    for site_id, checked_at, response_ms, ttfb_ms, redirects, status, status_code, grade, error in await session.exec(query):
        by_site.setdefault(site_id, []).append(
            {
                "checkedAt": dashboard._iso(checked_at),
                "responseTime": response_ms,
                "ttfbMs": ttfb_ms,
                "redirects": redirects,
                "status": status,
                "statusCode": status_code,
                "grade": grade,
                "error": error,
            }
        )
    return by_site


async def _load_sites_public(session: AsyncSession) -> list[dict[str, Any]]:
    rows = list(await sites.list_sites(session=session))
    # Their public shapes in a worker thread (the rows are loaded, nothing is read lazily): about 20 ms at 1,000 sites
    # that held the event loop, and every request with it, in one piece.
    return await asyncio.to_thread(lambda: [dashboard.site_public(site) for site in rows])


async def _load_sites(session: AsyncSession) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    listed = await SITES_PUBLIC.get()  # shared with the overview, which needs no checks
    history = await recent_checks(session=session)
    return [(site, history.get(site["id"], [])) for site in listed]


async def _load_alerts(session: AsyncSession) -> dict[str, Any]:
    recent = await events.list_events(session=session, resolved=False, limit=events.ALERTS_SIZE)
    return {
        "alerts": [dashboard.event_public(event, name) for event, name in recent],
        "open_alerts": await events.count_open(session=session),  # the list shows 5; this counts all
        "threats_blocked": await events.count_threats_blocked(session=session),
    }


async def _load_activities(session: AsyncSession) -> list[dict[str, Any]]:
    return [dashboard.activity_public(a) for a in await activities.recent(session=session)]


async def _load_traffic(session: AsyncSession) -> dict[str, Any] | None:
    return await simulation.read_snapshot(session=session)


async def _load_site_list(session: AsyncSession) -> site_list.SiteRows:
    """Every site as a row of the site list, with its open problems counted: two queries, the sites' own columns only
    (not their checks, which the cards' view reads), so a change costs little at 1,000 sites."""
    columns = (Site.id, Site.name, Site.domain, Site.url, Site.status, Site.paused, Site.grade, Site.response_time_ms)
    query = select(*columns, Site.tls_days_left, Site.last_checked_at, Site.tags).order_by(col(Site.id))  # type: ignore[call-overload]
    listed = [
        {
            "id": site_id,
            "name": name,
            "domain": domain,
            "url": url,
            "securityStatus": getattr(status, "value", status),
            "paused": paused,
            "grade": grade,
            "responseTime": response_ms,
            "tlsDaysLeft": tls_days,
            "lastCheckedAt": dashboard._iso(checked_at),
            "tags": tags,
        }
        for site_id, name, domain, url, status, paused, grade, response_ms, tls_days, checked_at, tags in await session.exec(
            query
        )
    ]
    problems = (
        select(SecurityEvent.site_id, func.count())
        .where(SecurityEvent.resolved == False, col(SecurityEvent.site_id).is_not(None))  # noqa: E712
        .group_by(col(SecurityEvent.site_id))
    )
    counts = {int(site_id or 0): int(count) for site_id, count in await session.exec(problems)}
    return site_list.SiteRows.of(listed, counts)


async def _load_agents(session: AsyncSession) -> list[tuple[AgentRecord, int]]:
    return list(await agents.with_threats_blocked(session=session))  # plain rows: not expired on commit


# The sites alone (the overview's), and with their newest checks (the dashboard's cards): the checks are the long
# part of a read (at 1,000 sites, 120,000 rows and 2-3 s on SQLite, against about 0.1 s for the sites).
SITES_PUBLIC = _register(ReadModel("sites-public", (sites.TOPIC, "site:*"), _load_sites_public))
SITES = _register(ReadModel("sites", (sites.TOPIC, "site:*"), _load_sites))
# Event rows carry their site's name: a renamed or removed site changes them too.
ALERTS = _register(ReadModel("alerts", (events.TOPIC, sites.TOPIC), _load_alerts))
# The site list's rows: the sites' own columns and their open problems (no checks: the cards read SITES).
SITE_LIST = _register(ReadModel("site-list", (sites.TOPIC, "site:*", events.TOPIC), _load_site_list))
ACTIVITIES = _register(ReadModel("activities", (activities.TOPIC,), _load_activities))
TRAFFIC = _register(ReadModel("traffic", (simulation.TOPIC,), _load_traffic))
# Live Traffic and User Scan: windows that slide with the clock, over requests logged many times a second.
LIVE_TRAFFIC = _register(ReadModel("traffic-live", (ingest.TOPIC,), live.live_traffic, max_age=3.0, min_interval=1.0))
USER_SCAN = _register(ReadModel("user-scan", (ingest.TOPIC,), live.user_scan, max_age=3.0, min_interval=1.0))
# The monitor and drills move agents; their threats blocked are counted from the events.
AGENTS = _register(ReadModel("agents", (sites.TOPIC, "battle", events.TOPIC), _load_agents))


async def sites_with_history() -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Every site (public shape) with its newest checks, oldest first: the dashboard's site cards."""
    return await SITES.get()


async def alerts() -> dict[str, Any]:
    """The 5 newest open events, how many are open, and the real threats blocked."""
    return await ALERTS.get()


async def recent_activities() -> list[dict[str, Any]]:
    return await ACTIVITIES.get()


async def traffic_snapshot() -> dict[str, Any] | None:
    """The newest simulated figures, or None when the simulated traffic is off (the default) or has not run."""
    if not get_settings().traffic_simulation_enabled:
        return None
    return await TRAFFIC.get()


async def agent_records() -> list[tuple[AgentRecord, int]]:
    """The platform agents' records (shared: read them, never change them)."""
    return await AGENTS.get()


async def agent_rows() -> list[dict[str, str]]:
    """The platform agents as the AI Defense Mode tab lists them."""
    return await AGENTS.derived(
        "rows",
        lambda records: [
            {"id": r.id, "name": r.agent_name, "status": r.status, "blocked": str(blocked)} for r, blocked in records
        ],
    )


async def site_list_rows() -> site_list.SiteRows:
    """Every site as a row of the site list, with its status counts and the tags in use: read once per change of the
    sites or of their open problems, shared by every page (filtering, sorting and paging run over it in memory)."""
    return await SITE_LIST.get()


_overview: dict[str, Any] = {"key": None, "value": None, "json": {}}
GZIP_LEVEL = 6  # 1,000 sites: 2.2 MB of JSON to 36 KB in about 6 ms, once per change


async def overview() -> dict[str, Any]:
    """The overview (the API's shape): built from the shared views, once per change of any of them. The sites come
    without their checks (SITES_PUBLIC): a change reads the sites again, not 120 checks of each."""
    site_rows, alert_data = await SITES_PUBLIC.get(), await ALERTS.get()
    activity_rows, snapshot = await ACTIVITIES.get(), await traffic_snapshot()
    key = (SITES_PUBLIC.version, ALERTS.version, ACTIVITIES.version, TRAFFIC.version, snapshot is None)
    if _overview["key"] != key:
        _overview.update(
            key=key,
            value=dashboard.overview_from(
                sites=site_rows,
                threats_blocked=alert_data["threats_blocked"],
                recent_events=alert_data["alerts"],
                activities=activity_rows,
                snapshot=snapshot,
            ),
            json={},
        )
    return _overview["value"]


@dataclass(frozen=True)
class Encoded:
    """One serialised answer: its JSON, the same gzip-compressed, and a strong validator of the JSON."""

    body: bytes
    gzip: bytes
    etag: str  # quoted, as the ETag header carries it

    @classmethod
    def of(cls, body: bytes) -> Encoded:
        digest = hashlib.blake2b(body, digest_size=16).hexdigest()
        return cls(body=body, gzip=gzip.compress(body, GZIP_LEVEL, mtime=0), etag=f'"{digest}"')


async def _encoded_now(serialize: Callable[[dict[str, Any]], bytes]) -> tuple[Hashable, Encoded]:
    """The overview read now if a change made it stale, then serialised, compressed and hashed once per change in a
    worker thread (at 1,000 sites about 30 ms of work that would otherwise hold the event loop)."""
    value = await overview()
    key = _overview_key_now()  # no await since overview() read the views: the versions its value was built from
    cached: dict[Any, asyncio.Future[Encoded]] = _overview["json"]
    loop = asyncio.get_running_loop()
    pending = cached.get(serialize)
    if pending is None or pending.get_loop() is not loop or (pending.done() and (pending.cancelled() or pending.exception())):
        pending = cached[serialize] = loop.create_task(asyncio.to_thread(lambda: Encoded.of(serialize(value))))
    return key, await asyncio.shield(pending)


def _overview_views() -> tuple[ReadModel, ...]:
    shown = (SITES_PUBLIC, ALERTS, ACTIVITIES)
    return (*shown, TRAFFIC) if get_settings().traffic_simulation_enabled else shown


def _overview_key_now() -> Hashable | None:
    """The key the overview would have now, if every view it is built from is fresh (None: one is stale)."""
    views = _overview_views()
    if not all(view._fresh() for view in views):
        return None
    return (SITES_PUBLIC.version, ALERTS.version, ACTIVITIES.version, TRAFFIC.version, TRAFFIC not in views)


_answers: dict[str, Any] = {"last": {}, "building": {}}  # per serializer: (key, Encoded); its rebuild in flight


async def overview_encoded(serialize: Callable[[dict[str, Any]], bytes]) -> Encoded:
    """The overview serialised by `serialize` (the API's response model), compressed and hashed, as of the last change.

    Between changes a request costs a few comparisons. After a change the first request rebuilds the answer (one
    rebuild, however many ask) and waits for it, so whoever changed something and then asks sees the change; requests
    that arrive while that rebuild runs get the previous answer at once instead of queueing behind it (at 1,000 sites
    a rebuild is about 0.1-0.3 s: every request arriving meanwhile waited that long)."""
    last = _answers["last"].get(serialize)
    if last is not None:
        key, encoded = last
        if key == _overview_key_now():
            return encoded
        building = _answers["building"].get(serialize)
        if building is not None and not building.done() and building.get_loop() is asyncio.get_running_loop():
            return encoded  # being rebuilt: the previous answer meanwhile
    loop = asyncio.get_running_loop()
    building = _answers["building"][serialize] = loop.create_task(_encoded_now(serialize))
    key, encoded = await asyncio.shield(building)
    _answers["last"][serialize] = (key, encoded)
    return encoded


def _forget_answers() -> None:
    _answers["last"].clear()
    _answers["building"].clear()


async def overview_json(serialize: Callable[[dict[str, Any]], bytes]) -> bytes:
    """The overview serialised by `serialize` (the API's response model), once per change."""
    return (await overview_encoded(serialize)).body
