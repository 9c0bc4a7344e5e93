"""The FastAPI app mounted into Reflex: routers plus one error shape, {"message": ...}."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from fastapi.routing import iter_route_contexts
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route, compile_path
from starlette.types import ASGIApp

from secdash.ai.base import LLMError
from secdash.api.middleware import RequestGuard, SecurityHeaders
from secdash.api.routes import (
    ai_systems,
    alerting,
    artifacts,
    auth,
    battle,
    bouncers,
    code_project,
    dashboard,
    defense,
    fixes,
    history,
    jobs,
    preview,
    site_bulk,
    traffic,
)
from secdash.api.schemas import COMMON_ERRORS
from secdash.core.config import get_settings
from secdash.demo_sites.routes import router as demo_sites_router
from secdash.models.public import HealthPublic
from secdash.services.errors import DomainError, RateLimited

log = logging.getLogger(__name__)

METHODS_REMEMBERED = 1024  # paths whose methods are remembered (ids make many; the least recently asked is forgotten)
fallback_router = APIRouter()
health_router = APIRouter(responses=COMMON_ERRORS)  # the request guard answers 400/413 on every /api path


@health_router.get("/api/health", response_model=HealthPublic, tags=["health"])
async def health() -> HealthPublic:
    """Liveness for load balancers and benchmarks: no database, no user."""
    return HealthPublic()


@fallback_router.api_route(
    "/api/{rest:path}",
    methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
    include_in_schema=False,
    response_model=None,
    status_code=404,
)
async def unknown_api_path(rest: str) -> JSONResponse:
    """No route has this path (a path with routes but not this method is the request guard's 405)."""
    return JSONResponse({"message": f"Not found: /api/{rest}"}, status_code=404)


def methods_by_path(api: FastAPI) -> Callable[[str], frozenset[str]]:
    """The methods an /api/ path answers, read from the API's routes when first asked: a fixed path's own (it
    shadows the templated ones: /api/artifacts/current is not the artifact "current"), else those of the
    templated paths it matches; none when no route has the path (the catch-all's 404). Remembered per path (the
    newest METHODS_REMEMBERED): the walk matches every route's pattern, about 120 of them, on each request."""
    table: list[tuple[Any, bool, frozenset[str]]] = []

    @functools.lru_cache(maxsize=METHODS_REMEMBERED)
    def methods_of(path: str) -> frozenset[str]:
        if not table:
            for context in iter_route_contexts(api.routes):
                route = context.original_route
                route_path = context.path or ""
                if (
                    isinstance(route, Route)
                    and route.methods
                    and route.endpoint is not unknown_api_path
                    and route_path.startswith("/api/")
                ):
                    regex, _, convertors = compile_path(route_path)
                    table.append((regex, bool(convertors), frozenset(route.methods)))
        fixed: set[str] = set()
        templated: set[str] = set()
        for regex, has_parameters, methods in table:
            if regex.match(path):
                (templated if has_parameters else fixed).update(methods)
        return frozenset(fixed or templated)

    return methods_of


async def _domain_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DomainError)
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, RateLimited) else None
    return JSONResponse({"message": exc.message}, status_code=exc.status_code, headers=headers)


async def _llm_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LLMError)
    # The model upstream failed, not the caller: 503 to retry later, 504 timed out, 502 otherwise.
    status = {"rate_limit": 503, "timeout": 504}.get(exc.kind, 502)
    return JSONResponse({"message": exc.message}, status_code=status)


async def _validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    loc = [str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path")]
    field = ".".join(loc) or "request body"
    if first.get("type") == "json_invalid":
        return JSONResponse({"message": "request body is not valid JSON"}, status_code=400)
    return JSONResponse({"message": f"{field}: {first.get('msg', 'invalid value')}"}, status_code=400)


async def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    return JSONResponse({"message": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers)


async def _unexpected_error(_request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error in API route", exc_info=exc)
    return JSONResponse({"message": "Internal server error"}, status_code=500)


class SecDashAPI(FastAPI):
    """FastAPI with the security headers outside every other layer, so error pages (500) get them too."""

    trusted_proxies: tuple[Any, ...] = ()

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack(), trusted_proxies=self.trusted_proxies)


def _true_openapi(api: FastAPI):
    """The schema as the API behaves: errors are the documented {"message"} statuses, never FastAPI's 422."""

    def openapi() -> dict[str, Any]:
        if api.openapi_schema is None:
            schema = get_openapi(title=api.title, version=api.version, routes=api.routes, description=api.description)
            for path_item in schema.get("paths", {}).values():
                for operation in path_item.values():
                    operation.get("responses", {}).pop("422", None)
            components = schema.get("components", {}).get("schemas", {})
            for unused in ("HTTPValidationError", "ValidationError"):
                components.pop(unused, None)
            api.openapi_schema = schema
        return api.openapi_schema

    return openapi


def create_api() -> FastAPI:
    """A fresh FastAPI app each call (Reflex may build the app more than once)."""
    settings = get_settings()
    api = SecDashAPI(title="SecDash API", docs_url="/api/docs", redoc_url=None, openapi_url="/api/openapi.json")
    api.trusted_proxies = tuple(getattr(settings, "trusted_proxies", ()))
    api.openapi = _true_openapi(api)  # type: ignore[method-assign]
    # Outermost first: SecurityHeaders wraps the whole stack (SecDashAPI), then this guard.
    api.add_middleware(
        RequestGuard,
        max_body_bytes=settings.API_MAX_BODY_BYTES,
        body_caps=artifacts.BODY_CAPS + site_bulk.BODY_CAPS + traffic.body_caps(),
        methods_of=methods_by_path(api),
    )
    api.add_exception_handler(DomainError, _domain_error)
    api.add_exception_handler(LLMError, _llm_error)
    api.add_exception_handler(RequestValidationError, _validation_error)
    api.add_exception_handler(StarletteHTTPException, _http_error)
    api.add_exception_handler(Exception, _unexpected_error)
    routers = (
        health_router,
        auth.router,
        history.router,
        dashboard.router,
        site_bulk.router,
        defense.router,
        jobs.router,
        demo_sites_router,
        ai_systems.router,
        battle.router,
        fixes.router,
        code_project.router,
        artifacts.router,
        preview.router,
        alerting.router,
        traffic.router,
        bouncers.router,
        bouncers.lapi,
    )
    for router in (*routers, fallback_router):  # the JSON 404 catch-all last
        api.include_router(router)
    return api
