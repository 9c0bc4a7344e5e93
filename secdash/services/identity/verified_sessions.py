"""A short memory of successful session checks, shared by the Reflex states and the API of one process.

A token's check costs one SELECT (services/sessions.resolve_token). Requests and events that change
nothing (GET requests, keystrokes, tab switches, live refreshes) may accept a successful check at most
VERIFY_CACHE_SECONDS old, so a session revoked on another worker is refused by them within that many
seconds; anything that changes data checks every time, and a logout in this process forgets the token
at once. Failed checks are never remembered.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

from secdash.core.config import get_settings
from secdash.models import UserPublic
from secdash.services.errors import AuthFailed
from secdash.services.identity import auth
from secdash.services.scoped import in_session

VERIFY_CACHE_SECONDS = 5.0
MAX_REMEMBERED = 10_000  # tokens remembered at once (the oldest is dropped first)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class VerifiedSessions:
    def __init__(self, max_age: float = VERIFY_CACHE_SECONDS, max_remembered: int = MAX_REMEMBERED) -> None:
        self.max_age = max_age
        self.max_remembered = max_remembered
        # (token digest, touching) -> (when the check started, the user). A touching check (a user's own
        # request) also counts for a background refresh; a background check does not count for a user's
        # request, so a user who only reads still moves the session's last-seen time forward.
        self._verified: OrderedDict[tuple[str, bool], tuple[float, UserPublic]] = OrderedDict()

    def forget(self, token: str) -> None:
        digest = _digest(token)
        self._verified.pop((digest, True), None)
        self._verified.pop((digest, False), None)

    def clear(self) -> None:
        self._verified.clear()

    async def verify(self, token: str | None, *, now: float, touch: bool = True, cached: bool = False) -> UserPublic:
        """The user behind the token, or AuthFailed. cached=True accepts a check at most max_age old."""
        if not token:
            raise AuthFailed("No token")
        digest = _digest(token)
        if cached:
            for key in ((digest, True),) if touch else ((digest, False), (digest, True)):
                hit = self._verified.get(key)
                if hit is not None and now - hit[0] < self.max_age:
                    return hit[1]
        try:
            user = await in_session(auth.authenticate, settings=get_settings(), token=token, touch=touch)
        except AuthFailed:
            self.forget(token)
            raise
        key = (digest, touch)
        self._verified[key] = (now, user)
        self._verified.move_to_end(key)
        while len(self._verified) > self.max_remembered:
            self._verified.popitem(last=False)
        return user


verified_sessions = VerifiedSessions()
