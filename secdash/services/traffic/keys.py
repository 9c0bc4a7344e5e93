"""The secrets machines present (site ingest tokens, bouncer API keys): 256 random bits after a prefix that tells
them apart in a config file or a secret scanner, shown once, stored as SHA-256 (a slow hash adds nothing to a
random secret of that size), listed by their first characters."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import TypeGuard

SHOWN_CHARS = 10
MAX_LENGTH = 100


@dataclass(frozen=True)
class NewKey:
    secret: str  # shown to the administrator once, never stored
    digest: str
    shown: str  # the first characters, to tell keys apart in a list


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_key(prefix: str) -> NewKey:
    secret = prefix + secrets.token_urlsafe(32)
    return NewKey(secret=secret, digest=digest(secret), shown=secret[:SHOWN_CHARS])


def plausible(secret: str | None, prefix: str) -> TypeGuard[str]:
    """Worth a lookup: present, with the prefix, not absurdly long."""
    return secret is not None and secret.startswith(prefix) and len(secret) <= MAX_LENGTH
