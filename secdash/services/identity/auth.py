"""Signing in and out, with brute-force protection and an audit entry for each outcome.

Brute force. Three budgets of failed logins, each a sliding window (Settings, README "Security
model"): per account and client address (fast: 5 in 5 minutes), per client address over every
account (20 a minute), per account over every address (slow: 50 in 15 minutes). An IPv6 client
counts as its /64.

Atomic on SQLite and PostgreSQL without locks: an attempt first reserves its row in login_attempts
and commits it, then counts the committed rows in the window, its own included, and is refused if
that is over the limit. Of any set of concurrent attempts, the k-th to commit its row sees at least
k rows, so at most `limit` of them go on to check a password, whatever the interleaving. A refused
attempt deletes its row (refusals cost the attacker nothing but do not count either), a failed one
keeps it (that is the failure record), a successful one deletes the rows of its account and address.

The per-address budgets are checked first; only an attempt that passed them is marked `admitted`
and counted (the same way) against the account's budget. So one address, however fast it hammers,
adds at most its own small budget to the account's count: locking the account out for everyone
takes failures from many addresses.
"""

from __future__ import annotations

import ipaddress
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, update
from sqlalchemy.exc import OperationalError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import Settings
from secdash.core.security import keyed_hash, verify_password_async
from secdash.core.unit import commit
from secdash.models import AuthSession, LogCategory, LoginAttempt, LogSeverity, UserPublic, as_utc, utcnow
from secdash.services import audit
from secdash.services.alerting import signals
from secdash.services.errors import AuthFailed, Invalid, RateLimited
from secdash.services.identity import sessions
from secdash.services.identity.users import get_by_email, normalize_email

log = logging.getLogger(__name__)

# One message for every failure, so a caller cannot tell which part was wrong.
LOGIN_FAILED = "Invalid credentials"
MAX_EMAIL_LENGTH = 254  # RFC 5321; the UI's sign-in form and the API refuse longer with one message
MAX_PASSWORD_LENGTH = 1024  # what a sign-in accepts (users.py: a new password is at most 256)
# What the audit trail shows for typed text that is not an e-mail address (it may be a password).
NOT_AN_EMAIL = "(not an e-mail address)"
# Rows a successful login deletes on the way (revoked/expired sessions, old attempts), per table.
LOGIN_PURGE_LIMIT = 200


@dataclass(frozen=True)
class LoginResult:
    token: str
    user: UserPublic
    session_id: str


@dataclass(frozen=True)
class PurgeResult:
    sessions: int
    login_attempts: int


@dataclass(frozen=True)
class _Account:
    key: str  # what login_attempts stores and counts
    display: str  # what the audit trail shows
    email: str | None  # the address to look up; None when the typed text is not one


@dataclass(frozen=True)
class _Budget:
    scope: str
    limit: int
    window_seconds: int
    where: tuple[Any, ...]


def _account(typed: str, settings: Settings) -> _Account:
    """The account an attempt is counted against; typed text that is no e-mail address only as a hash."""
    try:
        email = normalize_email(typed)
    except Invalid:
        digest = keyed_hash(typed.strip().lower(), secret=settings.secret_key(), purpose="login-account")
        return _Account(key=digest, display=NOT_AN_EMAIL, email=None)
    return _Account(key=email, display=email, email=email)


def _address_key(ip: str) -> str:
    """What the per-address budgets count: the address, or for IPv6 its /64 (one subscriber's network,
    whose 2^64 addresses would otherwise each get a fresh budget)."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip[:64]
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def _retry_after(oldest: datetime | None, window_seconds: int) -> int:
    if oldest is None:
        return window_seconds
    remaining = (oldest + timedelta(seconds=window_seconds) - utcnow()).total_seconds()
    return max(1, int(remaining + 0.999))


async def _reserve(session: AsyncSession, account: _Account, ip: str) -> LoginAttempt:
    attempt = LoginAttempt(email=account.key, ip=_address_key(ip) if ip else "", attempted_at=utcnow())
    session.add(attempt)
    await session.commit()
    return attempt


async def _within_budget(session: AsyncSession, attempt: LoginAttempt, budget: _Budget) -> int:
    """Count the committed attempts in the budget's window (this one included); over the limit,
    withdraw this attempt and raise RateLimited. Returns the count."""
    since = utcnow() - timedelta(seconds=budget.window_seconds)
    query = select(func.count(), func.min(LoginAttempt.attempted_at)).where(*budget.where, LoginAttempt.attempted_at >= since)
    count, oldest = (await session.exec(query)).one()
    if count <= budget.limit:
        return count
    await session.exec(delete(LoginAttempt).where(col(LoginAttempt.id) == attempt.id))
    await session.commit()
    wait = _retry_after(as_utc(oldest) if oldest else None, budget.window_seconds)
    raise RateLimited(f"Too many failed login attempts. Try again in {wait} seconds.", retry_after=wait)


async def _admit(session: AsyncSession, settings: Settings, attempt: LoginAttempt) -> dict[str, int]:
    """Check the reserved attempt against every budget; RateLimited if one is spent. Returns the counts."""
    per_address = [
        _Budget(
            "account_ip",
            settings.LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_IP,
            settings.LOGIN_ACCOUNT_AND_IP_WINDOW_SECONDS,
            (LoginAttempt.email == attempt.email, LoginAttempt.ip == attempt.ip),
        )
    ]
    if attempt.ip:
        per_address.append(
            _Budget("ip", settings.LOGIN_MAX_FAILURES_PER_IP, settings.LOGIN_IP_WINDOW_SECONDS, (LoginAttempt.ip == attempt.ip,))
        )
    counts = {budget.scope: await _within_budget(session, attempt, budget) for budget in per_address}
    await session.exec(update(LoginAttempt).where(col(LoginAttempt.id) == attempt.id).values(admitted=True))
    await session.commit()
    account = _Budget(
        "account",
        settings.LOGIN_MAX_FAILURES_PER_ACCOUNT,
        settings.LOGIN_ACCOUNT_WINDOW_SECONDS,
        (LoginAttempt.email == attempt.email, LoginAttempt.admitted.is_(True)),  # type: ignore[attr-defined]
    )
    counts["account"] = await _within_budget(session, attempt, account)
    return counts


def _record_failure(
    session: AsyncSession,
    settings: Settings,
    account: _Account,
    ip: str,
    attempt: LoginAttempt,
    counts: dict[str, int],
    reason: str,
) -> list[str]:
    """Audit the failure, and a lockout when this failure spent a budget (caller commits); the lockouts' texts."""
    audit.record(
        session,
        category=LogCategory.security,
        action="Login failed",
        severity=LogSeverity.warning,
        description=f"Failed login for {account.display}",
        details={"email": account.display, "ip": ip, "reason": reason},
    )
    address = attempt.ip or "an unknown address"  # what the budgets count (an IPv6 address's /64)
    said: list[str] = []
    lockouts = []
    if counts.get("account_ip") == settings.LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_IP:
        window = settings.LOGIN_ACCOUNT_AND_IP_WINDOW_SECONDS
        lockouts.append(
            (
                f"Too many failed logins for {account.display} from {address}; that address is locked out of"
                f" this account for {window} seconds",
                {"email": account.display, "ip": attempt.ip, "scope": "account and address", "windowSeconds": window},
            )
        )
    if attempt.ip and counts.get("ip") == settings.LOGIN_MAX_FAILURES_PER_IP:
        window = settings.LOGIN_IP_WINDOW_SECONDS
        lockouts.append(
            (
                f"Too many failed logins from {address}; that address is locked out for {window} seconds",
                {"ip": attempt.ip, "scope": "address", "windowSeconds": window},
            )
        )
    if counts.get("account") == settings.LOGIN_MAX_FAILURES_PER_ACCOUNT:
        window = settings.LOGIN_ACCOUNT_WINDOW_SECONDS
        lockouts.append(
            (
                f"Too many failed logins for {account.display} from all addresses; the account is locked for {window} seconds",
                {"email": account.display, "scope": "account", "windowSeconds": window},
            )
        )
    for description, details in lockouts:
        said.append(description)
        audit.record(
            session,
            category=LogCategory.security,
            action="Login locked out",
            severity=LogSeverity.critical,
            description=description,
            details=details,
        )
    return said


async def login(
    *, session: AsyncSession, settings: Settings, email: str, password: str, ip: str = "", user_agent: str = ""
) -> LoginResult:
    """Check the credentials and open a session; AuthFailed, RateLimited or Invalid otherwise."""
    typed = (email or "").strip()
    if not typed:
        raise Invalid("email is required")
    if not password:
        raise Invalid("password is required")
    if len(typed) > MAX_EMAIL_LENGTH:
        raise Invalid(f"email must be at most {MAX_EMAIL_LENGTH} characters")
    if len(password) > MAX_PASSWORD_LENGTH:
        raise Invalid(f"password must be at most {MAX_PASSWORD_LENGTH} characters")
    ip = (ip or "")[:64]
    account = _account(typed, settings)
    attempt = await _reserve(session, account, ip)
    counts = await _admit(session, settings, attempt)
    user = await get_by_email(session=session, email=account.email) if account.email else None
    await session.commit()  # end the read: no connection is held while the password is hashed
    # Always verify a hash, even for an unknown e-mail, so timing does not reveal accounts.
    valid = await verify_password_async(password, user.password_hash if user else None)
    if user is None or not valid or not user.is_active:
        reason = "unknown email" if user is None else ("inactive account" if valid else "wrong password")
        for lockout in _record_failure(session, settings, account, ip, attempt, counts, reason):
            await signals.account_locked(session, lockout)
        await commit(session)  # the reserved row stays: it is this failure's record
        raise AuthFailed(LOGIN_FAILED)
    row, token = await sessions.open_session(
        session=session,
        user=user,
        ttl_seconds=settings.token_ttl_seconds,
        secret=settings.secret_key(),
        ip=ip,
        user_agent=user_agent,
    )
    # A success clears this account's failures from this address (this attempt's row included); the
    # account's failures from other addresses still count towards its global budget.
    await session.exec(delete(LoginAttempt).where(col(LoginAttempt.email) == account.key, col(LoginAttempt.ip) == attempt.ip))
    audit.record(
        session,
        category=LogCategory.security,
        action="Login succeeded",
        description=f"{user.email} signed in",
        actor_user_id=user.id,
        details={"email": user.email, "ip": ip, "userAgent": user_agent[:200], "sessionId": row.id[:8]},
    )
    await commit(session)
    await _purge_on_the_way(session, settings)
    return LoginResult(token=token, user=UserPublic.from_user(user), session_id=row.id)


async def purge_stale(*, session: AsyncSession, settings: Settings, limit: int | None = None) -> PurgeResult:
    """Delete revoked, expired and idle sessions and the login attempts older than every lockout
    window; commits. With `limit`, at most that many rows of each table (call again for more).

    Called (bounded) after each successful login; a periodic task may call it unbounded.
    """
    session_count = await sessions.purge_sessions(session=session, idle_timeout=settings.idle_timeout, limit=limit)
    cutoff = utcnow() - timedelta(seconds=settings.login_attempt_retention_seconds)
    old = col(LoginAttempt.attempted_at) < cutoff
    if limit is not None:
        old = col(LoginAttempt.id).in_(select(LoginAttempt.id).where(old).limit(limit))
    result = await session.exec(delete(LoginAttempt).where(old))
    await session.commit()
    return PurgeResult(sessions=session_count, login_attempts=result.rowcount or 0)


async def _purge_on_the_way(session: AsyncSession, settings: Settings) -> None:
    """A bounded purge after a login; a busy database only postpones it (the login has succeeded)."""
    try:
        await purge_stale(session=session, settings=settings, limit=LOGIN_PURGE_LIMIT)
    except OperationalError:
        await session.rollback()
        log.warning("purging stale sessions and login attempts failed; will retry on a later login", exc_info=True)


async def authenticate(*, session: AsyncSession, settings: Settings, token: str | None, touch: bool = True) -> UserPublic:
    """The signed-in user behind a token, or AuthFailed (also after the idle timeout).

    touch=False for background checks (live updates): they do not count as the user being active.
    """
    user, _row = await sessions.resolve_token(
        session=session, token=token, secret=settings.secret_key(), idle_timeout=settings.idle_timeout, touch=touch
    )
    return user


async def logout(*, session: AsyncSession, settings: Settings, token: str | None) -> bool:
    """Revoke the token's session (audited); False when there was no active session."""
    try:
        user, row = await sessions.resolve_token(
            session=session,
            token=token,
            secret=settings.secret_key(),
            idle_timeout=settings.idle_timeout,
            touch=False,
        )
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


async def active_sessions(*, session: AsyncSession, user_id: int, settings: Settings | None = None) -> list[AuthSession]:
    """The user's sessions that still sign in (not revoked, not expired, not idle when settings are given)."""
    query = select(AuthSession).where(AuthSession.user_id == user_id, AuthSession.revoked_at.is_(None))  # type: ignore[union-attr]
    now = utcnow()
    idle = settings.idle_timeout if settings is not None else None
    return [
        row
        for row in await session.exec(query)
        if as_utc(row.expires_at) > now and (idle is None or now - as_utc(row.last_seen_at) <= idle)
    ]
