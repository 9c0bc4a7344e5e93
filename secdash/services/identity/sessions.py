"""Server-side login sessions: opening, checking, revoking."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy import delete, or_
from sqlmodel import select, update
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.security import InvalidToken, create_access_token, decode_access_token
from secdash.models import AuthSession, LogCategory, LogSeverity, User, UserPublic, as_utc, utcnow
from secdash.services import audit
from secdash.services.errors import AuthFailed

# Writing last_seen on every request would make every read a write; once a minute is plenty.
LAST_SEEN_RESOLUTION = timedelta(seconds=60)


async def open_session(
    *, session: AsyncSession, user: User, ttl_seconds: int, secret: str, ip: str, user_agent: str
) -> tuple[AuthSession, str]:
    """Add a session row for the user and return it with its signed token (caller commits)."""
    assert user.id is not None
    now = utcnow()
    row = AuthSession(
        id=secrets.token_urlsafe(24),
        user_id=user.id,
        created_at=now,
        last_seen_at=now,
        expires_at=now + timedelta(seconds=ttl_seconds),
        ip=(ip or "")[:64],
        user_agent=(user_agent or "")[:512],
    )
    session.add(row)
    token = create_access_token(user_id=user.id, session_id=row.id, ttl_seconds=ttl_seconds, secret=secret)
    return row, token


def _is_live(row: AuthSession, now: datetime, idle_timeout: timedelta | None) -> bool:
    """Not revoked, not expired and, with an idle timeout, used recently enough."""
    if row.revoked_at is not None or as_utc(row.expires_at) <= now:
        return False
    return idle_timeout is None or now - as_utc(row.last_seen_at) <= idle_timeout


async def resolve_token(
    *,
    session: AsyncSession,
    token: str | None,
    secret: str,
    idle_timeout: timedelta | None = None,
    touch: bool = True,
) -> tuple[UserPublic, AuthSession]:
    """The user and session behind a token; AuthFailed if the token or its session is not valid.

    A session unused for longer than `idle_timeout` is refused like an expired one. Only a touching
    call (the user did something) moves last_seen_at forward; background refreshes pass touch=False
    so that an open page left alone still times out.
    """
    if not token:
        raise AuthFailed("No token")
    try:
        claims = decode_access_token(token, secret=secret)
    except InvalidToken:
        raise AuthFailed("Authentication failed") from None
    # One query per check (the session row and its user together): it runs on every UI event.
    found = (
        await session.exec(
            select(AuthSession, User)
            .join(User, User.id == AuthSession.user_id)  # type: ignore[arg-type]
            .where(AuthSession.id == claims.session_id)
        )
    ).first()
    now = utcnow()
    if found is None:
        raise AuthFailed("Authentication failed")
    row, user = found
    if row.user_id != claims.user_id or not _is_live(row, now, idle_timeout) or not user.is_active:
        raise AuthFailed("Authentication failed")
    if touch and now - as_utc(row.last_seen_at) > LAST_SEEN_RESOLUTION:
        row.last_seen_at = now
        session.add(row)
        await session.commit()
    return UserPublic.from_user(user), row


async def revoke_session(*, session: AsyncSession, session_id: str) -> bool:
    """Mark one session revoked (caller commits); False if it was not active."""
    row = await session.get(AuthSession, session_id)
    if row is None or row.revoked_at is not None:
        return False
    row.revoked_at = utcnow()
    session.add(row)
    return True


async def revoke_user_sessions(*, session: AsyncSession, user_id: int | None, reason: str) -> int:
    """Revoke every active session of a user (caller commits); returns how many."""
    active = await session.exec(
        select(AuthSession.id).where(AuthSession.user_id == user_id, AuthSession.revoked_at.is_(None))  # type: ignore[union-attr]
    )
    ids = list(active)
    if ids:
        await session.exec(
            update(AuthSession).where(AuthSession.id.in_(ids)).values(revoked_at=utcnow())  # type: ignore[attr-defined]
        )
        audit.record(
            session,
            category=LogCategory.security,
            action="Session revoked",
            severity=LogSeverity.warning,
            description=f"{len(ids)} session(s) revoked: {reason}",
            actor_user_id=user_id,
            details={"sessions": len(ids), "reason": reason},
        )
    return len(ids)


async def purge_sessions(*, session: AsyncSession, idle_timeout: timedelta | None, limit: int | None = None) -> int:
    """Delete revoked, expired and idle-timed-out session rows (caller commits); returns how many.

    With `limit`, at most that many rows (a bounded piece of work for a request path).
    """
    now = utcnow()
    dead = [AuthSession.revoked_at.is_not(None), AuthSession.expires_at <= now]  # type: ignore[union-attr]
    if idle_timeout is not None:
        dead.append(AuthSession.last_seen_at < now - idle_timeout)
    condition = or_(*dead)
    if limit is not None:
        condition = AuthSession.id.in_(select(AuthSession.id).where(condition).limit(limit))  # type: ignore[attr-defined]
    result = await session.exec(delete(AuthSession).where(condition))  # type: ignore[call-overload]
    return result.rowcount or 0
