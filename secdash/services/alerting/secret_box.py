"""Channel URLs at rest: Fernet (AES-128-CBC + HMAC-SHA256) with a key derived from the app's secret key by HKDF,
so a database dump alone does not reveal them. Changing the secret key makes stored URLs unreadable: the channel
then reports that its URL must be entered again."""

from __future__ import annotations

import base64
from functools import cache

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from secdash.core.config import get_settings

INFO = b"secdash notification channel urls v1"


@cache
def _fernet(secret_key: str) -> Fernet:
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=INFO).derive(secret_key.encode())
    return Fernet(base64.urlsafe_b64encode(key))


def seal(text: str) -> str:
    return _fernet(get_settings().secret_key()).encrypt(text.encode()).decode()


class Unreadable(Exception):
    """The stored value was sealed with another secret key (or altered)."""


def open_sealed(token: str) -> str:
    try:
        return _fernet(get_settings().secret_key()).decrypt(token.encode()).decode()
    except (InvalidToken, ValueError):
        raise Unreadable("the channel's URL cannot be decrypted (was the secret key changed?): enter it again") from None
