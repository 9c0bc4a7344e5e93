"""User accounts: creating, listing, changing passwords, deactivating, first-admin bootstrap."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import email_validator
from email_validator import EmailNotValidError, validate_email
from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import Settings, read_or_create_secret_file
from secdash.core.security import hash_password_async
from secdash.core.unit import commit
from secdash.models import LogCategory, LogSeverity, Role, User, UserPublic, utcnow
from secdash.services import audit
from secdash.services.errors import Conflict, Invalid, NotFound
from secdash.services.identity.sessions import revoke_user_sessions

# Admin consoles often live on internal domains; email_validator documents pruning this list.
email_validator.SPECIAL_USE_DOMAIN_NAMES = [
    name for name in email_validator.SPECIAL_USE_DOMAIN_NAMES if name not in {"local", "localhost", "test"}
]

MIN_PASSWORD_LENGTH = 12
MAX_PASSWORD_LENGTH = 256
DEFAULT_ADMIN_EMAIL = "admin@secdash.local"


def normalize_email(email: str) -> str:
    """Lower-cased, trimmed e-mail; raise Invalid when it is not an address."""
    email = (email or "").strip().lower()
    try:
        validate_email(email, check_deliverability=False)
    except EmailNotValidError:
        raise Invalid("email is not a valid e-mail address") from None
    return email


def check_password_strength(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise Invalid(f"password must be at least {MIN_PASSWORD_LENGTH} characters")
    if len(password) > MAX_PASSWORD_LENGTH:
        raise Invalid(f"password must be at most {MAX_PASSWORD_LENGTH} characters")


def parse_role(role: str) -> Role:
    try:
        return Role(role)
    except ValueError:
        raise Invalid("role must be admin or limited") from None


async def get_by_email(*, session: AsyncSession, email: str) -> User | None:
    result = await session.exec(select(User).where(User.email == email.strip().lower()))
    return result.first()


async def create_user(
    *,
    session: AsyncSession,
    email: str,
    password: str,
    role: str = Role.limited.value,
    first_name: str = "",
    actor: UserPublic | None = None,
) -> UserPublic:
    """Create an account (audited); the e-mail must be new."""
    email = normalize_email(email)
    parsed_role = parse_role(role)
    check_password_strength(password)
    if await get_by_email(session=session, email=email):
        raise Conflict("a user with this email already exists")
    first_name = (first_name or "").strip()[:80] or email.split("@")[0].split(".")[0].title()
    user = User(
        email=email,
        password_hash=await hash_password_async(password),
        role=parsed_role,
        first_name=first_name,
        password_changed_at=utcnow(),
    )
    session.add(user)
    await session.flush()
    audit.record(
        session,
        category=LogCategory.user,
        action="User created",
        description=f"Account {email} created with role {parsed_role.value}",
        actor_user_id=actor.id if actor else user.id,
        details={"email": email, "role": parsed_role.value, "by": actor.email if actor else "system"},
    )
    await commit(session)
    return UserPublic.from_user(user)


async def list_users(*, session: AsyncSession) -> list[User]:
    return list(await session.exec(select(User).order_by(col(User.id))))


async def count_users(*, session: AsyncSession) -> int:
    return (await session.exec(select(func.count()).select_from(User))).one()


async def _lock_out(session: AsyncSession, user: User, *, action: str, reason: str, actor: UserPublic | None) -> None:
    """Revoke every session of a changed account, audit the change, commit."""
    revoked = await revoke_user_sessions(session=session, user_id=user.id, reason=reason)
    audit.record(
        session,
        category=LogCategory.user,
        action=action,
        severity=LogSeverity.warning,
        description=f"{action}: {user.email}; {revoked} session(s) revoked",
        actor_user_id=user.id,
        details={"email": user.email, "sessionsRevoked": revoked, "by": actor.email if actor else "cli"},
    )
    await commit(session)


async def _existing(session: AsyncSession, email: str) -> User:
    user = await get_by_email(session=session, email=email)
    if user is None:
        raise NotFound("no user with this email")
    return user


async def set_password(*, session: AsyncSession, email: str, password: str, actor: UserPublic | None = None) -> None:
    """Change a password and revoke every session of that user (audited)."""
    check_password_strength(password)
    user = await _existing(session, email)
    user.password_hash = await hash_password_async(password)
    user.password_changed_at = utcnow()
    session.add(user)
    await _lock_out(session, user, action="Password changed", reason="password changed", actor=actor)


async def deactivate_user(*, session: AsyncSession, email: str, actor: UserPublic | None = None) -> None:
    """Disable an account and revoke its sessions (audited)."""
    user = await _existing(session, email)
    user.is_active = False
    session.add(user)
    await _lock_out(session, user, action="User deactivated", reason="user deactivated", actor=actor)


@dataclass(frozen=True)
class BootstrapResult:
    email: str
    generated_password: str | None  # shown once when we made it up
    password_file: str | None


async def ensure_first_admin(*, session: AsyncSession, settings: Settings) -> BootstrapResult | None:
    """Create the first admin when no user exists; None when users already exist."""
    if await count_users(session=session):
        return None
    email = settings.ADMIN_EMAIL or DEFAULT_ADMIN_EMAIL
    password = settings.ADMIN_PASSWORD
    generated = None
    password_file = None
    if not password:
        path = settings.DATA_DIR / "admin-password.txt"
        password = read_or_create_secret_file(path, lambda: secrets.token_urlsafe(18))
        generated, password_file = password, str(path)
    await create_user(session=session, email=email, password=password, role=Role.admin.value, first_name="Admin")
    return BootstrapResult(email=normalize_email(email), generated_password=generated, password_file=password_file)
