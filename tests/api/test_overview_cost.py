"""What one signed-in read costs when nothing changed: no thread hand-off in its dependencies, the request guard's
route walk not repeated per request, and (for the overview) no statement that grows with the number of sites."""

from __future__ import annotations

import asyncio
import inspect
from datetime import timedelta

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, iter_route_contexts

from secdash.api import main
from secdash.api.routes import dashboard
from secdash.core import notify
from secdash.models import Site, SiteCheck, utcnow
from secdash.services.monitoring import sites
from secdash.services.reads import read_models
from tests.api.conftest import signed_in
from tests.services.test_overview_api_read_model import statements
from tests.support.api_app import shared_api


def _dependencies(dependant: Dependant):
    for sub in dependant.dependencies:
        yield sub
        yield from _dependencies(sub)


def _sync_dependencies(route: APIRoute) -> list[str]:
    """The dependencies FastAPI would run in its thread pool: plain functions (a class instance whose __call__ is a
    coroutine, like the security schemes, is awaited)."""
    found = []
    for sub in _dependencies(route.dependant):
        call = sub.call
        if call is None:
            continue
        target = call if inspect.isfunction(call) or inspect.ismethod(call) else getattr(call, "__call__", call)  # noqa: B004
        if not (inspect.iscoroutinefunction(target) or inspect.isasyncgenfunction(target)):
            found.append(getattr(call, "__name__", repr(call)))
    return found


def test_the_signed_in_user_is_found_without_the_thread_pool():
    # get_settings as a dependency sent every signed-in request through a worker thread and back: on the overview
    # that hand-off cost more than the cached answer itself (107 of 200 us in-process).
    route = next(r for r in dashboard.router.routes if isinstance(r, APIRoute) and r.endpoint is dashboard.read_overview)
    assert _sync_dependencies(route) == []


def test_no_signed_in_route_runs_a_dependency_in_the_thread_pool():
    routes = [c.original_route for c in iter_route_contexts(shared_api().routes) if isinstance(c.original_route, APIRoute)]
    assert len(routes) > 100
    offenders = {r.path: found for r in routes if (found := _sync_dependencies(r))}
    assert offenders == {}


def test_the_methods_of_a_path_are_worked_out_once():
    api = shared_api()
    methods_of = main.methods_by_path(api)
    assert "GET" in methods_of("/api/dashboard/overview")
    walked = methods_of.cache_info().misses  # type: ignore[attr-defined]
    for _ in range(100):
        methods_of("/api/dashboard/overview")
    assert methods_of.cache_info().misses == walked  # type: ignore[attr-defined]
    assert methods_of("/api/sites/7") == methods_of("/api/sites/8")  # templated paths: the same answer per id


# --- the overview: read once per change, without the sites' checks; serialised, compressed and hashed once ---------


async def _sites_with_checks(session, count: int, checks: int, first: int = 0) -> list[Site]:
    """Sites (local addresses, allowed: a save need not resolve a name) with `checks` checks each, announced."""
    now = utcnow()
    made = [
        Site(name=f"Site {n}", url=f"http://127.0.0.1:9/{n}", domain="127.0.0.1", allow_private=True)
        for n in range(first, first + count)
    ]
    session.add_all(made)
    await session.flush()
    session.add_all(
        SiteCheck(site_id=site.id, checked_at=now - timedelta(seconds=30 * i), status="secure", response_ms=10 + i)
        for site in made
        for i in range(checks)
    )
    await session.commit()
    await notify.publish(sites.TOPIC)
    return made


async def _overview_statements(client, headers, count: int) -> tuple[list[str], list[str]]:
    """The statements of one overview request with nothing changed, then of one after a site was saved."""
    await client.get("/api/dashboard/overview", headers=headers)  # read once
    with statements() as unchanged:
        assert (await client.get("/api/dashboard/overview", headers=headers)).json()["sitesCount"] == count
    site = (await client.get("/api/sites", headers=headers)).json()[0]
    saved = await client.put(
        f"/api/sites/{site['id']}", json={"name": "Renamed", "url": site["url"], "allowPrivate": True}, headers=headers
    )
    assert saved.status_code == 200, saved.text
    with statements() as changed:
        body = (await client.get("/api/dashboard/overview", headers=headers)).json()
    assert "Renamed" in {s["name"] for s in body["sites"]}
    return unchanged, changed


async def test_an_overview_costs_the_same_statements_with_3_or_60_sites(client, session):
    headers = await signed_in(client, session, "root@example.com", "admin")
    await _sites_with_checks(session, 3, 5)
    few_unchanged, few_changed = await _overview_statements(client, headers, 3)
    await _sites_with_checks(session, 57, 5, first=3)
    many_unchanged, many_changed = await _overview_statements(client, headers, 60)
    assert few_unchanged == many_unchanged == []  # nothing changed: the session check is remembered, the answer too
    assert len(few_changed) == len(many_changed)
    # A change reads the sites again, never their checks (120 per site: 2-3 s at 1,000 sites on SQLite)
    assert not [s for s in many_changed if "from site_checks" in s]


async def test_many_requests_build_the_answer_once(client, session, monkeypatch):
    headers = await signed_in(client, session, "root@example.com", "admin")
    await _sites_with_checks(session, 4, 3)
    built = []
    encode = read_models.Encoded.of
    monkeypatch.setattr(read_models.Encoded, "of", classmethod(lambda cls, body: built.append(body) or encode(body)))
    read_models.invalidate_all()
    answers = await asyncio.gather(*(client.get("/api/dashboard/overview", headers=headers) for _ in range(50)))
    assert {a.status_code for a in answers} == {200} and len({a.content for a in answers}) == 1
    assert len(built) == 1


async def test_the_overview_is_sent_gzip_when_asked_and_matches_the_plain_one(client, session):
    headers = await signed_in(client, session, "root@example.com", "admin")
    await _sites_with_checks(session, 4, 3)
    plain = await client.get("/api/dashboard/overview", headers=headers | {"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.headers["vary"] == "Accept-Encoding"
    packed = await client.get("/api/dashboard/overview", headers=headers | {"Accept-Encoding": "br;q=1, gzip;q=0.5"})
    assert packed.headers["content-encoding"] == "gzip"
    assert int(packed.headers["content-length"]) < len(plain.content)
    assert packed.json() == plain.json()  # httpx undid the gzip
    assert packed.headers["etag"] != plain.headers["etag"]  # one strong validator per representation


async def test_an_unchanged_overview_is_not_sent_again(client, session):
    headers = await signed_in(client, session, "root@example.com", "admin")
    [site, *_] = await _sites_with_checks(session, 2, 3)
    first = await client.get("/api/dashboard/overview", headers=headers)
    etag = first.headers["etag"]
    again = await client.get("/api/dashboard/overview", headers=headers | {"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    renamed = await client.put(
        f"/api/sites/{site.id}", json={"name": "Renamed", "url": site.url, "allowPrivate": True}, headers=headers
    )
    assert renamed.status_code == 200, renamed.text
    changed = await client.get("/api/dashboard/overview", headers=headers | {"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag
    assert "Renamed" in {s["name"] for s in changed.json()["sites"]}


async def test_no_overview_without_a_signed_in_user(client, session):
    await _sites_with_checks(session, 2, 3)
    assert (await client.get("/api/dashboard/overview", headers={"If-None-Match": "*"})).status_code == 401


def test_which_accept_encodings_take_gzip():
    takes = dashboard._accepts_gzip
    assert takes("gzip") and takes("gzip, deflate, br") and takes("br;q=1.0, gzip;q=0.8") and takes("*")
    assert takes("GZIP") and takes("x-gzip")
    assert not takes("") and not takes("identity") and not takes("gzip;q=0") and not takes("br, *;q=0")
    assert not takes("gzip;q=zero")


async def test_while_the_answer_is_rebuilt_other_requests_get_the_previous_one(client, session, monkeypatch):
    """The request that finds the overview changed waits for the rebuild (so a writer reads its own write); requests
    arriving meanwhile are answered at once with the previous answer instead of queueing behind it."""
    import threading

    headers = await signed_in(client, session, "root@example.com", "admin")
    [site, *_] = await _sites_with_checks(session, 3, 2)
    before = await client.get("/api/dashboard/overview", headers=headers)
    renamed = await client.put(
        f"/api/sites/{site.id}", json={"name": "Renamed", "url": site.url, "allowPrivate": True}, headers=headers
    )
    assert renamed.status_code == 200
    release = threading.Event()
    encode = read_models.Encoded.of

    def slow(cls, body: bytes):
        assert release.wait(10)
        return encode(body)

    monkeypatch.setattr(read_models.Encoded, "of", classmethod(slow))
    rebuilding = asyncio.create_task(client.get("/api/dashboard/overview", headers=headers))
    for _ in range(200):
        if any(not task.done() for task in read_models._answers["building"].values()):
            break
        await asyncio.sleep(0.01)
    meanwhile = await asyncio.wait_for(client.get("/api/dashboard/overview", headers=headers), 5)
    assert meanwhile.headers["etag"] == before.headers["etag"] and meanwhile.content == before.content
    release.set()
    after = await rebuilding
    assert after.headers["etag"] != before.headers["etag"]
    assert "Renamed" in {s["name"] for s in after.json()["sites"]}
    again = await client.get("/api/dashboard/overview", headers=headers)
    assert again.headers["etag"] == after.headers["etag"]  # built once: the next request is the new answer
