"""A monitor round of many sites is split into shards that both workers run, and each site is probed once per shard
run that has it (the real server; in CI with 2 workers, Redis and PostgreSQL: .ci/run).

200 sites at a local target are added through the API. The server's rounds are 2 s (SECDASH_MONITOR_INTERVAL in the
browser fixture), so two slices of about 100 sites each: the leader enqueues each as a `probe-shard` job and saq hands
it to either worker; the job records which process ran it (`worker`, host:pid) and what it applied. The test reads
the jobs and the sites' checks from the server's database, and counts at the target the GETs each site received (a
check row is stored only for a change or every 5 minutes, so rows no longer count probes).
"""

from __future__ import annotations

import os
import secrets
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD, SERVER_ENV
from tests.support.web_servers import STRONG_HEADERS, LocalSite

SEVERAL_WORKERS = bool(os.environ.get("SECDASH_E2E_REDIS_URL")) and os.environ.get("SECDASH_E2E_WORKERS", "2") != "1"
SITES = 200


def _rows(query: str, *params: Any) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(SERVER_ENV["SECDASH_DATABASE_URL"]) as conn:
        return conn.execute(query, params).fetchall()


def _execute(query: str, *params: Any) -> None:
    import psycopg

    with psycopg.connect(SERVER_ENV["SECDASH_DATABASE_URL"]) as conn:
        conn.execute(query, params)


def _shards(since: datetime) -> list[tuple[Any, ...]]:
    return _rows(
        "SELECT id, worker, status, params, result, started_at, finished_at FROM jobs "
        "WHERE kind = 'probe-shard' AND (finished_at IS NULL OR finished_at >= %s) ORDER BY id",
        since,
    )


def _quiet(ids: list[int]) -> None:
    """Pause the sites (and forget the probe each save asked for), then wait until every shard job queued so far
    has ended and the save-probes in flight are over: nothing of them is recorded after this."""
    _execute("UPDATE sites SET paused = true, probe_requested_at = NULL WHERE id = ANY(%s)", ids)
    moment = _rows("SELECT now()")[0][0]
    deadline = time.monotonic() + 120
    while _rows(
        "SELECT count(*) FROM jobs WHERE kind = 'probe-shard' AND status IN ('queued', 'running', 'stopping') "
        "AND created_at <= %s",
        moment,
    )[0][0]:
        assert time.monotonic() < deadline, "shard jobs still running 120 s after the sites were paused"
        time.sleep(0.5)
    time.sleep(3)


@pytest.mark.skipif(not SEVERAL_WORKERS, reason="shards go to several workers only with Redis (CI's 2-worker run)")
def test_a_round_of_200_sites_is_sharded_over_both_workers_each_site_checked_once(server: str):
    target = LocalSite({f"/p{n}": (200, STRONG_HEADERS, b"ok", 0.0) for n in range(SITES)})
    login = httpx.post(f"{server}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    headers = {"Authorization": f"Bearer {login.json()['token']}"}
    tag = secrets.token_hex(3)
    ids: list[int] = []
    try:
        with httpx.Client(base_url=server, headers=headers, timeout=30) as client:

            def add(n: int) -> int:
                body = {"name": f"shard-{tag}-{n}", "url": f"{target.base}/p{n}", "allowPrivate": True}
                created = client.post("/api/sites", json=body)
                assert created.status_code == 201, created.text
                return created.json()["id"]

            with ThreadPoolExecutor(4) as pool:
                ids = list(pool.map(add, range(SITES)))
        ours = set(ids)
        # Quiet start: our sites paused (and no probe asked for) until every probe of them in flight is over.
        _quiet(ids)
        since = _rows("SELECT now()")[0][0]
        first_request = len(target.requests)
        _execute("UPDATE sites SET paused = false WHERE id = ANY(%s)", ids)

        # Shard runs that recorded our sites, until both workers have run some and every site was recorded twice.
        deadline = time.monotonic() + 120
        while True:
            done = [s for s in _shards(since) if s[2] == "done" and s[4].get("appliedIds")]
            recorded = Counter(site_id for s in done for site_id in s[4]["appliedIds"] if site_id in ours)
            workers = {s[1] for s in done if ours & set(s[4]["appliedIds"])}
            if len(workers) >= 2 and len(recorded) == SITES and min(recorded.values()) >= 2:
                break
            assert time.monotonic() < deadline, f"after 120 s: {len(done)} shards by {workers}, {len(recorded)} sites recorded"
            time.sleep(1)
        _quiet(ids)  # and a quiet end: every run that could still record our sites is over

        done = [s for s in _shards(since) if s[2] == "done"]
        assert all(s[4]["worker"] == s[1] for s in done)  # the result names the process the claim gave it to
        rounds: dict[int, list[tuple[Any, ...]]] = {}
        for s in done:
            rounds.setdefault(s[3]["round"], []).append(s)
        for shards_of_round in rounds.values():  # within a round the shards are disjoint
            in_round = Counter(site_id for s in shards_of_round for site_id in s[3]["siteIds"])
            assert max(in_round.values()) == 1, "a site was in two shards of one round"
        recorded = Counter(site_id for s in done for site_id in s[4].get("appliedIds", []) if site_id in ours)
        by_worker = Counter(s[1] for s in done if ours & set(s[4].get("appliedIds", [])))
        assert len(by_worker) >= 2, by_worker

        # Each run that recorded a site probed it once: the target saw one GET of the site's path per such run, never
        # more GETs than runs that had the site (a shard is claimed by one worker, so never run twice). A run that
        # started after the final pause had the sites in its parameters but probed none of them (paused sites are
        # left out), so the exact count is against the runs that recorded the site.
        path_of = {site_id: f"/p{n}" for n, site_id in enumerate(ids)}
        gets = Counter(path for path, _headers in target.requests[first_request:])
        had = Counter(site_id for s in done if not s[4].get("skipped") for site_id in s[3]["siteIds"] if site_id in ours)
        more = {site_id: (gets[path_of[site_id]], had[site_id]) for site_id in ids if gets[path_of[site_id]] > had[site_id]}
        assert not more, f"sites probed more often than the shard runs that had them: {more}"
        # and every recorded probe was a GET (a run that probed a site just before the final pause records nothing of it)
        fewer = {
            site_id: (gets[path_of[site_id]], recorded[site_id]) for site_id in ids if gets[path_of[site_id]] < recorded[site_id]
        }
        assert not fewer, f"sites recorded more often than the target was asked: {fewer}"
        exact = sum(1 for site_id in ids if gets[path_of[site_id]] == recorded[site_id])
        checks = Counter(
            site_id
            for (site_id,) in _rows("SELECT site_id FROM site_checks WHERE site_id = ANY(%s) AND checked_at >= %s", ids, since)
        )
        twice = {site_id: (checks[site_id], recorded[site_id]) for site_id in ids if checks[site_id] > recorded[site_id]}
        assert not twice, f"sites with more checks than shard runs recorded them: {twice}"
        print(
            f"{len(done)} shard runs over {len(rounds)} rounds, by {dict(by_worker)}; {sum(gets.values())} GETs for "
            f"{sum(recorded.values())} recorded probes; {exact} of {SITES} sites exactly one GET per run"
        )
    finally:
        with httpx.Client(base_url=server, headers=headers, timeout=30) as client:
            with ThreadPoolExecutor(4) as pool:
                list(pool.map(lambda site_id: client.delete(f"/api/sites/{site_id}"), ids))
        target.close()
