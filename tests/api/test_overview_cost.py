"""What one signed-in read costs when nothing changed: no thread hand-off in its dependencies, the request guard's
route walk not repeated per request, and (for the overview) no statement that grows with the number of sites."""

from __future__ import annotations

import inspect

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, iter_route_contexts

from secdash.api import main
from secdash.api.routes import dashboard
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
