"""Site-scoped ingest tokens: an administrator creates one for a site (shown once, stored as services/traffic/keys.py
says), the site's log shipper sends it with each batch, and it can only append that site's logs; revoking is
immediate; rotating is creating a new one and revoking the old."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit
from secdash.models import IngestToken, LogCategory, Site, UserPublic, as_utc, utcnow
from secdash.services import audit
from secdash.services.errors import Conflict, NotFound
from secdash.services.identity.permissions import require_admin
from secdash.services.traffic import keys

PREFIX = "sdi_"  # SecDash ingest
MAX_TOKENS_PER_SITE = 10
LAST_USED_EVERY = timedelta(minutes=1)  # last_used_at is written at most this often


@dataclass(frozen=True)
class NewToken:
    token: IngestToken
    secret: str  # shown to the administrator once, never stored


async def _site(session: AsyncSession, site_id: int) -> Site:
    site = await session.get(Site, site_id)
    if site is None:
        raise NotFound("Site not found")
    return site


async def create_token(*, session: AsyncSession, actor: UserPublic, site_id: int) -> NewToken:
    """A new ingest token for a site (admins only; audited); its secret is in the answer and nowhere else."""
    require_admin(actor, "create ingest tokens")
    site = await _site(session, site_id)
    active = await list_tokens(session=session, actor=actor, site_id=site_id)
    if len([token for token in active if token.revoked_at is None]) >= MAX_TOKENS_PER_SITE:
        raise Conflict(f"a site has at most {MAX_TOKENS_PER_SITE} active ingest tokens; revoke one first")
    key = keys.new_key(PREFIX)
    token = IngestToken(site_id=site_id, token_hash=key.digest, prefix=key.shown, created_by_user_id=actor.id)
    session.add(token)
    await session.flush()
    audit.record(
        session,
        category=LogCategory.system,
        admin_only=True,
        action="Ingest token created",
        actor_user_id=actor.id,
        description=f"{actor.email} created an ingest token ({token.prefix}…) for {site.name}",
        details={"siteId": site_id, "tokenId": token.id},
    )
    await commit(session)
    return NewToken(token=token, secret=key.secret)


async def list_tokens(*, session: AsyncSession, actor: UserPublic, site_id: int) -> list[IngestToken]:
    require_admin(actor, "see ingest tokens")
    await _site(session, site_id)
    rows = await session.exec(select(IngestToken).where(IngestToken.site_id == site_id).order_by(col(IngestToken.id).desc()))
    return list(rows)


async def revoke_token(*, session: AsyncSession, actor: UserPublic, site_id: int, token_id: int) -> IngestToken:
    """Revoke at once (admins only; audited); revoking a revoked token changes nothing."""
    require_admin(actor, "revoke ingest tokens")
    site = await _site(session, site_id)
    token = await session.get(IngestToken, token_id)
    if token is None or token.site_id != site_id:
        raise NotFound("Ingest token not found")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        session.add(token)
        audit.record(
            session,
            category=LogCategory.system,
            admin_only=True,
            action="Ingest token revoked",
            actor_user_id=actor.id,
            description=f"{actor.email} revoked the ingest token {token.prefix}… of {site.name}",
            details={"siteId": site_id, "tokenId": token.id},
        )
        await commit(session)
    return token


async def site_for_token(session: AsyncSession, secret: str | None) -> Site | None:
    """The site an active token belongs to, or None (unknown, malformed or revoked: the caller answers 401)."""
    if not keys.plausible(secret, PREFIX):
        return None
    token = (await session.exec(select(IngestToken).where(IngestToken.token_hash == keys.digest(secret)))).first()
    if token is None or token.revoked_at is not None:
        return None
    now = utcnow()
    if token.last_used_at is None or now - as_utc(token.last_used_at) > LAST_USED_EVERY:
        token.last_used_at = now
        session.add(token)
    return await session.get(Site, token.site_id)
