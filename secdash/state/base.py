"""One base for protected states: the session check of every event, and the in-flight guard of streams.

Any websocket client can call any public handler with any arguments, so every public handler of a
protected state (a subclass of `AuthState`) is declared with one of the decorators below; the
handler census test (tests/state/test_handler_guard.py) fails for a handler that is not.

    @protected                        # changes stored data: the session is verified on this event
    async def save_site(self, user: UserPublic, form: dict): ...

    @protected(reads_only=True)       # changes nothing stored: a verification at most
    async def set_tab(self, tab: str): ...     # VERIFY_CACHE_SECONDS old will do

    @protected(reads_only=True, background=True)   # a follow loop; re-check with _still_signed_in()
    async def follow_changes(self): ...

    @protected_stream                 # the background half of a streamed reply (see StreamGuard)
    async def stream_reply(self, user: UserPublic, text: str, agent_id: str): ...

A handler whose first parameter is named `user` receives the verified user; the client never sees
that parameter (the public signature leaves it out). On a dead session the handler does not run:
the tab gets the "Unauthorized" toast and goes to the landing page.

The verification cache: a successful check is remembered per token, in this process, for
VERIFY_CACHE_SECONDS. Handlers that change nothing stored (keystrokes, tab switches, filters, live
refreshes) accept a remembered check, so typing costs at most one query per token every few
seconds; handlers that change data, start a model call or sign in/out always query. A session
revoked elsewhere (logout in another tab or worker, a password change, deactivation) is therefore
refused by every handler within VERIFY_CACHE_SECONDS; a logout in this process forgets the token at
once. Refused checks are never remembered.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable
from typing import Any

import reflex as rx

from secdash.models import UserPublic
from secdash.routes import DASHBOARD_ROUTE
from secdash.services.errors import AuthFailed
from secdash.services.identity import verified_sessions as verified
from secdash.state.browser_actions import toast

VERIFY_CACHE_SECONDS = verified.VERIFY_CACHE_SECONDS
GUARD_MARKER = "__secdash_guard__"  # "write", "read" or "stream" on every guarded handler
clock: Callable[[], float] = time.monotonic  # tests move time forward instead of sleeping


def forget_session(token: str) -> None:
    """Drop what this process remembers about a token (on logout, or when it was refused)."""
    verified.verified_sessions.forget(token)


def clear_verification_cache() -> None:
    verified.verified_sessions.clear()


async def verify_session(token: str, *, touch: bool = True, cached: bool = False) -> UserPublic | None:
    """The user behind the token, checked against its session row; None when signed out.

    cached=True accepts a successful check at most VERIFY_CACHE_SECONDS old (services/identity/verified_sessions.py,
    shared with the API). touch=False for live refreshes: they do not keep an idle session alive.
    """
    if not token:
        return None
    try:
        return await verified.verified_sessions.verify(token, now=clock(), touch=touch, cached=cached)
    except AuthFailed:
        return None


def unauthorized_toast() -> rx.event.EventSpec:
    return toast.error("Unauthorized", description="Please log in to access the dashboard.", id="unauthorized")


def refusal_events() -> list[rx.event.EventSpec]:
    """What a handler answers when its session is gone: the toast, then the landing page.

    The landing page's check_auth clears the stored token, so background tasks (which may not
    change state outside `async with self`) can refuse with these events alone.
    """
    return [unauthorized_toast(), rx.redirect(DASHBOARD_ROUTE)]


def _takes_user(fn: Callable) -> bool:
    params = list(inspect.signature(fn).parameters)
    return len(params) > 1 and params[1] == "user"


def _public_signature(wrapper: Callable, fn: Callable, hide: set[str]) -> None:
    """What the client may send: fn's parameters without the ones the guard fills in."""
    signature = inspect.signature(fn)
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[p for p in signature.parameters.values() if p.name not in hide]
    )
    wrapper.__annotations__ = {k: v for k, v in fn.__annotations__.items() if k not in hide}


def _guard(fn: Callable, *, kind: str, cached: bool, background: bool) -> Callable:
    takes_user = _takes_user(fn)

    async def _user(self) -> UserPublic | None:
        return await self._verified_user(cached=cached)

    def _refusal(self):
        return refusal_events() if background else self._session_ended()

    if inspect.isasyncgenfunction(fn):

        async def wrapper(self, *args: Any, **kwargs: Any):
            user = await _user(self)
            if user is None:
                yield _refusal(self)
                return
            inner = fn(self, *((user,) if takes_user else ()), *args, **kwargs)
            try:
                async for item in inner:
                    yield item
            finally:
                await inner.aclose()  # closed with the wrapper, not left to the garbage collector

    elif inspect.iscoroutinefunction(fn):

        async def wrapper(self, *args: Any, **kwargs: Any):
            user = await _user(self)
            if user is None:
                return _refusal(self)
            return await fn(self, *((user,) if takes_user else ()), *args, **kwargs)

    else:
        msg = f"{fn.__qualname__}: protected handlers are async (sync handlers would block the event loop)"
        raise TypeError(msg)

    functools.update_wrapper(wrapper, fn)
    _public_signature(wrapper, fn, {"user"} if takes_user else set())
    setattr(wrapper, GUARD_MARKER, kind)
    return rx.event(wrapper, background=background)


def protected(fn: Callable | None = None, *, reads_only: bool = False, background: bool = False):
    """Declare a protected event handler (see the module docstring)."""

    def decorate(inner: Callable) -> Callable:
        return _guard(inner, kind="read" if reads_only else "write", cached=reads_only, background=background)

    return decorate(fn) if fn is not None else decorate


class StreamGuard(rx.State, mixin=True):
    """The server-side in-flight guard of a state that streams (a chat reply today; build and drill
    logs later): one stream at a time per tab and state, started only by the state's own handler.

    A handler arms the stream with `_start_stream(...)` and returns what it gives back; the
    background handler, declared with `protected_stream`, takes the armed arguments once. While a
    stream runs `_start_stream` refuses (returns None), so a second send, or a replayed event, starts
    nothing; a client calling the background handler directly finds nothing armed. `streaming` is
    cleared when the stream ends, however it ends.
    """

    streaming: bool = False
    _stream_args: dict[str, str] = {}
    _stream_seq: int = 0  # which arm the running stream belongs to
    _stop_requested: bool = False

    def _start_stream(self, handler: Any, **args: str) -> Any:
        if self.streaming:
            return None
        self.streaming, self._stop_requested, self._stream_args = True, False, dict(args)
        self._stream_seq += 1
        return handler

    def _end_stream(self) -> None:
        """The stream's last update (under the state lock): the composer frees in the same delta.
        A stream that does not call it is ended by `protected_stream` when it returns."""
        self.streaming, self._stop_requested = False, False

    def _request_stop(self) -> None:
        """Ask the running stream to stop at its next flush (read under the state lock)."""
        if self.streaming:
            self._stop_requested = True


def protected_stream(fn: Callable) -> Callable:
    """The background half of a stream: `fn(self, user, **armed_args)` runs once per arm."""
    if not inspect.isasyncgenfunction(fn):
        msg = f"{fn.__qualname__}: a stream handler is an async generator"
        raise TypeError(msg)

    async def wrapper(self):
        user = await self._verified_user(cached=False)
        if user is None:
            yield refusal_events()
            return
        async with self:
            args, seq, self._stream_args = self._stream_args, self._stream_seq, {}
        if not args:
            return
        inner = fn(self, user, **args)
        try:
            async for item in inner:
                yield item
        finally:
            await inner.aclose()
            async with self:
                if self.streaming and self._stream_seq == seq:  # not a newer stream armed since
                    self._end_stream()

    functools.update_wrapper(wrapper, fn)
    wrapper.__signature__ = inspect.Signature([next(iter(inspect.signature(fn).parameters.values()))])  # type: ignore[attr-defined]
    wrapper.__annotations__ = {}
    setattr(wrapper, GUARD_MARKER, "stream")
    return rx.event(wrapper, background=True)
