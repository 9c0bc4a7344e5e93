"""Tokens: only untampered, unexpired HS256 tokens of a live session identify a user."""

from __future__ import annotations

import base64
import json
import time

import jwt
import pytest

from secdash.core.security import InvalidToken, create_access_token, decode_access_token, keyed_hash
from secdash.services.errors import AuthFailed
from secdash.services.identity import auth, sessions
from tests.factories import make_user, sign_in

SECRET = "test-secret-key-that-is-long-enough-for-hs256-0123456789"


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def test_round_trip_keeps_the_claims():
    token = create_access_token(user_id=7, session_id="abc", ttl_seconds=60, secret=SECRET)
    claims = decode_access_token(token, secret=SECRET)
    assert (claims.user_id, claims.session_id) == (7, "abc")
    assert claims.expires_at - claims.issued_at == 60


def test_tampered_payload_is_refused():
    token = create_access_token(user_id=7, session_id="abc", ttl_seconds=60, secret=SECRET)
    header, _payload, signature = token.split(".")
    forged = ".".join([header, _b64({"sub": "1", "sid": "abc", "iat": 1, "exp": 9999999999}), signature])
    with pytest.raises(InvalidToken):
        decode_access_token(forged, secret=SECRET)


def test_expired_token_is_refused():
    now = int(time.time())
    token = jwt.encode({"sub": "7", "sid": "abc", "iat": now - 100, "exp": now - 10}, SECRET, algorithm="HS256")
    with pytest.raises(InvalidToken):
        decode_access_token(token, secret=SECRET)


def test_alg_none_token_is_refused():
    now = int(time.time())
    unsigned = f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64({'sub': '7', 'sid': 'abc', 'iat': now, 'exp': now + 60})}."
    with pytest.raises(InvalidToken):
        decode_access_token(unsigned, secret=SECRET)


def test_token_signed_with_another_key_is_refused():
    token = create_access_token(user_id=7, session_id="abc", ttl_seconds=60, secret="another-key-" * 4)
    with pytest.raises(InvalidToken):
        decode_access_token(token, secret=SECRET)


@pytest.mark.parametrize("missing", ["sub", "sid", "iat", "exp"])
def test_token_without_a_required_claim_is_refused(missing):
    now = int(time.time())
    claims = {"sub": "7", "sid": "abc", "iat": now, "exp": now + 60}
    del claims[missing]
    with pytest.raises(InvalidToken):
        decode_access_token(jwt.encode(claims, SECRET, algorithm="HS256"), secret=SECRET)


async def test_revoked_session_token_is_refused(session, settings):
    await make_user(session, "ops@example.com")
    token = await sign_in(session, "ops@example.com")
    assert (await auth.authenticate(session=session, settings=settings, token=token)).email == "ops@example.com"
    assert await auth.logout(session=session, settings=settings, token=token)
    with pytest.raises(AuthFailed):
        await auth.authenticate(session=session, settings=settings, token=token)


async def test_valid_signature_for_unknown_session_is_refused(session, settings):
    user = await make_user(session, "ops@example.com")
    token = create_access_token(user_id=user.id, session_id="never-opened", ttl_seconds=60, secret=SECRET)
    with pytest.raises(AuthFailed):
        await auth.authenticate(session=session, settings=settings, token=token)


async def test_session_of_another_user_is_refused(session, settings):
    await make_user(session, "ops@example.com")
    other = await make_user(session, "other@example.com")
    token = await sign_in(session, "ops@example.com")
    sid = decode_access_token(token, secret=SECRET).session_id
    forged = create_access_token(user_id=other.id, session_id=sid, ttl_seconds=60, secret=SECRET)
    with pytest.raises(AuthFailed):
        await auth.authenticate(session=session, settings=settings, token=forged)


async def test_expired_session_row_is_refused(session, settings):
    await make_user(session, "ops@example.com")
    token = await sign_in(session, "ops@example.com")
    claims = decode_access_token(token, secret=SECRET)
    from datetime import timedelta

    from secdash.models import AuthSession, utcnow

    row = await session.get(AuthSession, claims.session_id)
    row.expires_at = utcnow() - timedelta(seconds=1)
    session.add(row)
    await session.commit()
    with pytest.raises(AuthFailed):
        await sessions.resolve_token(session=session, token=token, secret=SECRET)


async def test_idle_session_row_is_refused_and_not_refreshed(session, settings):
    await make_user(session, "ops@example.com")
    token = await sign_in(session, "ops@example.com")
    claims = decode_access_token(token, secret=SECRET)
    from datetime import timedelta

    from secdash.models import AuthSession, as_utc, utcnow

    row = await session.get(AuthSession, claims.session_id)
    idle_since = utcnow() - timedelta(minutes=31)
    row.last_seen_at = idle_since
    session.add(row)
    await session.commit()
    with pytest.raises(AuthFailed):
        await sessions.resolve_token(session=session, token=token, secret=SECRET, idle_timeout=timedelta(minutes=30))
    await session.refresh(row)
    assert as_utc(row.last_seen_at) == idle_since
    # Without an idle timeout (the old call) the row is still a live session.
    user, _row = await sessions.resolve_token(session=session, token=token, secret=SECRET, touch=False)
    assert user.email == "ops@example.com"


def test_keyed_hash_hides_the_value_and_depends_on_the_key():
    typed = "my-password-typed-into-the-email-field"
    digest = keyed_hash(typed, secret=SECRET, purpose="login-account")
    assert digest == keyed_hash(typed, secret=SECRET, purpose="login-account")
    assert typed not in digest and len(digest) < 64
    assert digest != keyed_hash(typed, secret="another-key-" * 4, purpose="login-account")
    assert digest != keyed_hash(typed, secret=SECRET, purpose="something-else")
    assert keyed_hash("\ud800", secret=SECRET, purpose="login-account").startswith("hmac:")
