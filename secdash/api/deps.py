"""Dependencies shared by the routes: a database session and the signed-in user."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import Settings, get_settings
from secdash.core.db import session_scope
from secdash.models import UserPublic
from secdash.services import auth

SESSION_COOKIE = "secdash_session"


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
    return request.client.host if request.client else ""


DbSession = Annotated[AsyncSession, Depends(get_db)]
AppSettings = Annotated[Settings, Depends(get_settings)]


async def get_current_user(request: Request, session: DbSession, settings: AppSettings) -> UserPublic:
    return await auth.authenticate(session=session, settings=settings, token=request_token(request))


CurrentUser = Annotated[UserPublic, Depends(get_current_user)]
