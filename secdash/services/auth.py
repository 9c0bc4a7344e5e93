"""Signing in and out, with brute-force protection and an audit entry for each outcome."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, func
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import Settings
from secdash.core.security import verify_password
from secdash.models import AuthSession, LogCategory, LoginAttempt, LogSeverity, UserPublic, as_utc, utcnow
from secdash.services import audit, sessions
from secdash.services.errors import AuthFailed, Invalid, RateLimited
from secdash.services.unit import commit
from secdash.services.users import get_by_email

# One message for every failure, so a caller cannot tell which part was wrong.
LOGIN_FAILED = "Invalid credentials"
MAX_INPUT_LENGTH = 1024


@dataclass(frozen=True)
class LoginResult:
    token: str
    user: UserPublic
    session_id: str


async def _failures_since(session: AsyncSession, column, value: str, seconds: int):
    since = utcnow() - timedelta(seconds=seconds)
    query = select(func.count(), func.min(LoginAttempt.attempted_at)).where(
        column == value, LoginAttempt.attempted_at >= since
    )
    count, oldest = (await session.exec(query)).one()
    return count, (as_utc(oldest) if oldest else None)


def _retry_after(oldest, window_seconds: int) -> int:
    remaining = (oldest + timedelta(seconds=window_seconds) - utcnow()).total_seconds()
    return max(1, int(remaining + 0.999))


async def _check_lockout(session: AsyncSession, settings: Settings, email: str, ip: str) -> None:
    """Raise RateLimited while the e-mail or the client IP is over its failure budget."""
    checks = [(LoginAttempt.email, email, settings.LOGIN_MAX_FAILURES_PER_EMAIL, settings.LOGIN_EMAIL_WINDOW_SECONDS)]
    if ip:
        checks.append((LoginAttempt.ip, ip, settings.LOGIN_MAX_FAILURES_PER_IP, settings.LOGIN_IP_WINDOW_SECONDS))
    for column, value, limit, window in checks:
        count, oldest = await _failures_since(session, column, value, window)
        if count >= limit and oldest is not None:
            wait = _retry_after(oldest, window)
            raise RateLimited(f"Too many failed login attempts. Try again in {wait} seconds.", retry_after=wait)


async def _record_failure(session: AsyncSession, settings: Settings, email: str, ip: str, reason: str) -> None:
    session.add(LoginAttempt(email=email, ip=ip))
    await session.flush()
    audit.record(
        session,
        category=LogCategory.security,
        action="Login failed",
        severity=LogSeverity.warning,
        description=f"Failed login for {email}",
        details={"email": email, "ip": ip, "reason": reason},
    )
    email_count, _ = await _failures_since(session, LoginAttempt.email, email, settings.LOGIN_EMAIL_WINDOW_SECONDS)
    ip_count, _ = await _failures_since(session, LoginAttempt.ip, ip, settings.LOGIN_IP_WINDOW_SECONDS) if ip else (0, None)
    locked = []
    if email_count == settings.LOGIN_MAX_FAILURES_PER_EMAIL:
        locked.append(("email", email, settings.LOGIN_EMAIL_WINDOW_SECONDS))
    if ip and ip_count == settings.LOGIN_MAX_FAILURES_PER_IP:
        locked.append(("ip", ip, settings.LOGIN_IP_WINDOW_SECONDS))
    for kind, value, window in locked:
        audit.record(
            session,
            category=LogCategory.security,
            action="Login locked out",
            severity=LogSeverity.critical,
            description=f"Too many failed logins for {kind} {value}; locked for {window} seconds",
            details={kind: value, "windowSeconds": window},
        )
    await commit(session)


async def login(
    *, session: AsyncSession, settings: Settings, email: str, password: str, ip: str = "", user_agent: str = ""
) -> LoginResult:
    """Check the credentials and open a session; AuthFailed, RateLimited or Invalid otherwise."""
    email = (email or "").strip().lower()
    if not email:
        raise Invalid("email is required")
    if not password:
        raise Invalid("password is required")
    if len(email) > MAX_INPUT_LENGTH or len(password) > MAX_INPUT_LENGTH:
        raise AuthFailed(LOGIN_FAILED)
    await _check_lockout(session, settings, email, ip)
    user = await get_by_email(session=session, email=email)
    # Always verify a hash, even for an unknown e-mail, so timing does not reveal accounts.
    valid = await asyncio.to_thread(verify_password, password, user.password_hash if user else None)
    if user is None or not valid or not user.is_active:
        reason = "unknown email" if user is None else ("inactive account" if valid else "wrong password")
        await _record_failure(session, settings, email, ip, reason)
        raise AuthFailed(LOGIN_FAILED)
    row, token = await sessions.open_session(
        session=session, user=user, ttl_seconds=settings.token_ttl_seconds, secret=settings.secret_key(),
        ip=ip, user_agent=user_agent,
    )
    # A success clears this e-mail's failure history.
    await session.exec(delete(LoginAttempt).where(LoginAttempt.email == email))  # type: ignore[arg-type]
    audit.record(
        session,
        category=LogCategory.security,
        action="Login succeeded",
        description=f"{user.email} signed in",
        actor_user_id=user.id,
        details={"email": user.email, "ip": ip, "userAgent": user_agent[:200], "sessionId": row.id[:8]},
    )
    await commit(session)
    return LoginResult(token=token, user=UserPublic.from_user(user), session_id=row.id)


async def authenticate(*, session: AsyncSession, settings: Settings, token: str | None) -> UserPublic:
    """The signed-in user behind a token, or AuthFailed."""
    user, _row = await sessions.resolve_token(session=session, token=token, secret=settings.secret_key())
    return user


async def logout(*, session: AsyncSession, settings: Settings, token: str | None) -> bool:
    """Revoke the token's session (audited); False when there was no active session."""
    try:
        user, row = await sessions.resolve_token(session=session, token=token, secret=settings.secret_key())
    except AuthFailed:
        return False
    await sessions.revoke_session(session=session, session_id=row.id)
    audit.record(
        session,
        category=LogCategory.security,
        action="Logout",
        description=f"{user.email} signed out",
        actor_user_id=user.id,
        details={"email": user.email, "sessionId": row.id[:8]},
    )
    await commit(session)
    return True


async def active_sessions(*, session: AsyncSession, user_id: int) -> list[AuthSession]:
    query = select(AuthSession).where(AuthSession.user_id == user_id, AuthSession.revoked_at.is_(None))  # type: ignore[union-attr]
    return [row for row in await session.exec(query) if as_utc(row.expires_at) > utcnow()]
