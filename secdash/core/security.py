"""Password hashing (argon2 via passlib's API) and access tokens (PyJWT, HS256 pinned)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache

import jwt
from passlib.context import CryptContext

ALGORITHM = "HS256"
_REQUIRED_CLAIMS = ["sub", "sid", "iat", "exp"]

# argon2id with passlib's defaults (64 MiB, 3 passes, 4 lanes: ~0.1-0.3 s a hash here). The test suite swaps in a
# cheap profile for speed (tests/conftest.py) and checks this one separately; nothing in the app can lower it.
PRODUCTION_CONTEXT = CryptContext(schemes=["argon2"], deprecated="auto")
_pwd_context = PRODUCTION_CONTEXT


@cache
def _dummy_hash() -> str:
    """Verified against when the e-mail is unknown, so a login takes as long either way."""
    return _pwd_context.hash("secdash-timing-equaliser")


def hash_password(password: str) -> str:
    return _pwd_context.hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    """Check a password in constant time; with no hash, burn the same time and return False."""
    if not password_hash:
        _pwd_context.verify(password, _dummy_hash())
        return False
    try:
        return _pwd_context.verify(password, password_hash)
    except (ValueError, TypeError):
        return False


# Password hashing has threads of its own: a flood of other work in the shared thread pool (demo-site requests,
# file reads) never makes a sign-in wait. argon2 releases the GIL while it hashes.
_HASHING = ThreadPoolExecutor(max_workers=2, thread_name_prefix="secdash-argon2")


async def hash_password_async(password: str) -> str:
    return await asyncio.get_running_loop().run_in_executor(_HASHING, hash_password, password)


async def verify_password_async(password: str, password_hash: str | None) -> bool:
    return await asyncio.get_running_loop().run_in_executor(_HASHING, verify_password, password, password_hash)


def keyed_hash(value: str, *, secret: str, purpose: str) -> str:
    """A stable, non-reversible stand-in for `value` (HMAC-SHA256 under the secret, per purpose)."""
    message = f"{purpose}\0{value}".encode("utf-8", "surrogatepass")
    digest = hmac.new(secret.encode("utf-8", "surrogatepass"), message, hashlib.sha256).hexdigest()
    return f"hmac:{digest[:40]}"


@dataclass(frozen=True)
class TokenClaims:
    user_id: int
    session_id: str
    issued_at: int
    expires_at: int


class InvalidToken(Exception):
    """The token is malformed, tampered with, expired or signed otherwise."""


def create_access_token(*, user_id: int, session_id: str, ttl_seconds: int, secret: str) -> str:
    now = int(time.time())
    payload = {"sub": str(user_id), "sid": session_id, "iat": now, "exp": now + ttl_seconds}
    return jwt.encode(payload, secret, algorithm=ALGORITHM)


def decode_access_token(token: str, *, secret: str) -> TokenClaims:
    """Verify signature (HS256 only), expiry and required claims; raise InvalidToken otherwise."""
    try:
        payload = jwt.decode(token, secret, algorithms=[ALGORITHM], options={"require": _REQUIRED_CLAIMS})
        return TokenClaims(
            user_id=int(payload["sub"]),
            session_id=str(payload["sid"]),
            issued_at=int(payload["iat"]),
            expires_at=int(payload["exp"]),
        )
    except (jwt.PyJWTError, ValueError, TypeError, KeyError) as exc:
        raise InvalidToken(str(exc)) from exc
