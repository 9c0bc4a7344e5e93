"""Dependencies shared by the routes: a database session and the signed-in user."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyCookie, HTTPAuthorizationCredentials, HTTPBearer
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.client_address import client_address
from secdash.core.config import Settings, get_settings
from secdash.core.db import session_scope
from secdash.models import UserPublic
from secdash.services.identity.verified_sessions import verified_sessions

SESSION_COOKIE = "secdash_session"
clock = time.monotonic  # tests move time forward instead of sleeping


async def get_db() -> AsyncIterator[AsyncSession]:
    async with session_scope() as session:
        yield session


def request_token(request: Request) -> str | None:
    """The bearer token if sent, else the session cookie."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.cookies.get(SESSION_COOKIE) or None


def client_ip(request: Request) -> str:
    """The client's address: the peer, or, when the peer is one of SECDASH_TRUSTED_PROXIES, the
    right-most X-Forwarded-For address that is not a trusted proxy (else the header is ignored)."""
    peer = request.client.host if request.client else ""
    return client_address(peer, request.headers.getlist("x-forwarded-for"), get_settings().trusted_proxies)


async def app_settings() -> Settings:
    """The settings, as an async dependency: FastAPI runs a plain function dependency (get_settings itself) in its
    thread pool, a thread hand-off per request that cost more than the cached overview it guarded."""
    return get_settings()


DbSession = Annotated[AsyncSession, Depends(get_db)]
AppSettings = Annotated[Settings, Depends(app_settings)]


# Documentation of the two ways to send the token (OpenAPI `security`); request_token reads them.
bearer_scheme = HTTPBearer(auto_error=False, description="The token from POST /api/auth/login")
cookie_scheme = APIKeyCookie(name=SESSION_COOKIE, auto_error=False, description="The HttpOnly session cookie")


async def get_current_user(
    request: Request,
    _bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)] = None,
    _cookie: Annotated[str | None, Depends(cookie_scheme)] = None,
) -> UserPublic:
    """The signed-in user, checked in a session of its own that is closed before the route runs:
    a request never holds this connection while it waits for another one or for a model.

    A GET or HEAD changes nothing: it accepts a successful check of the same token at most
    VERIFY_CACHE_SECONDS old (services/identity/verified_sessions.py, shared with the UI), so a session revoked
    on another worker is refused by reads within that many seconds and by every write at once."""
    reads_only = request.method in ("GET", "HEAD")
    return await verified_sessions.verify(request_token(request), now=clock(), cached=reads_only)


CurrentUser = Annotated[UserPublic, Depends(get_current_user)]
