"""The signed-in user: token in local storage, checked against its server session on every event."""

from __future__ import annotations

import reflex as rx

from secdash.core.config import get_settings
from secdash.models import Role, UserPublic
from secdash.routes import DASHBOARD_ROUTE, LANDING_ROUTE, LOGIN_ROUTE
from secdash.services.identity import auth
from secdash.services.scoped import in_session
from secdash.state.base import forget_session, refusal_events, unauthorized_toast, verify_session
from secdash.state.browser_actions import leave_app

__all__ = ["AuthState", "app_state_classes", "refusal_events", "reset_signed_in_states", "unauthorized_toast"]

PUBLIC_ROUTES = {DASHBOARD_ROUTE, LANDING_ROUTE, LOGIN_ROUTE}


def app_state_classes(parent: type[rx.State] = rx.State) -> list[type[rx.State]]:
    """Every state class SecDash defines (shared, linked states excluded), parents before children."""
    found: list[type[rx.State]] = []
    for cls in parent.get_substates():
        if cls.__module__.startswith("secdash.") and not issubclass(cls, rx.SharedState):
            found.append(cls)
        found.extend(app_state_classes(cls))
    return found


async def reset_signed_in_states(state: rx.BaseState) -> None:
    """Forget everything this tab's states hold (on sign-in, sign-out and a dead session), so the
    next hydrate of the tab cannot deliver the previous user's data. Never the root state: that
    would also reset shared states for every viewer."""
    for cls in app_state_classes():
        (await state.get_state(cls)).reset()


class AuthState(rx.State):
    """Base of every protected page state; their public handlers are declared with `state.base.protected`."""

    auth_token: str = rx.LocalStorage("", name="auth_token")
    auth_checked: bool = False
    user_id: int = 0
    user_email: str = ""
    user_role: str = ""
    user_first_name: str = ""

    @rx.var
    def is_authenticated(self) -> bool:
        return self.user_id > 0

    @rx.var
    def is_admin(self) -> bool:
        return self.user_role == Role.admin.value

    @rx.var
    def display_first_name(self) -> str:
        return self.user_first_name or "Admin"

    async def _current_user(self, touch: bool = True) -> UserPublic | None:
        """The user behind the stored token, verified against its session row now; None if signed out.

        touch=False for live-update loops: they do not keep an idle session alive.
        """
        return await verify_session(self.auth_token, touch=touch)

    async def _verified_user(self, *, cached: bool) -> UserPublic | None:
        """The check of `protected` handlers: cached=True accepts a check a few seconds old (state.base)."""
        return await verify_session(self.auth_token, cached=cached)

    async def _still_signed_in(self) -> UserPublic | None:
        """The re-check of a live-follow loop before each refresh (not counted as user activity)."""
        return await verify_session(self.auth_token, touch=False, cached=True)

    def _remember(self, user: UserPublic) -> None:
        self.user_id = user.id
        self.user_email = user.email
        self.user_role = user.role
        self.user_first_name = user.first_name
        self.auth_checked = True

    def _forget(self) -> None:
        # Assigning auth_token writes it to the browser's storage, even an unchanged "". A state that holds
        # no token writes nothing: a check queued before a sign-in and run after it (a quick user, a busy
        # server) must not empty the token that sign-in has just stored (the app then loaded signed out).
        if self.auth_token:
            self.auth_token = ""
        self.user_id = 0
        self.user_email = ""
        self.user_role = ""
        self.user_first_name = ""
        self.auth_checked = True

    def _session_ended(self) -> list[rx.event.EventSpec]:
        """Sign out locally and leave the protected page: what every handler returns on a bad session."""
        self._forget()
        return refusal_events()

    @rx.event
    async def check_auth(self):
        """on_load of every page: learn who is signed in; leave protected pages when nobody is."""
        had_token = bool(self.auth_token)
        user = await self._current_user()
        if user is not None:
            self._remember(user)
            if self.router.url.path.rstrip("/") == LOGIN_ROUTE:
                return rx.redirect(DASHBOARD_ROUTE)
            return None
        if self.user_id or had_token:
            await reset_signed_in_states(self)
        self._forget()
        on_public_page = self.router.url.path.rstrip("/") in {r.rstrip("/") for r in PUBLIC_ROUTES}
        # One rule: a protected page refused, or a dead token, says "Unauthorized"; a signed-out visit to a
        # public page (the landing page at /, /landing, /login) is just that page.
        events: list[rx.event.EventSpec] = []
        if had_token or not on_public_page:
            events.append(unauthorized_toast())
        if not on_public_page:
            events.append(rx.redirect(DASHBOARD_ROUTE))
        return events

    @rx.event
    async def logout(self):
        """Revoke this session and forget this tab's signed-in data; a full-page logout then clears the
        token, the cookie and the tab's client token."""
        token = self.auth_token
        if token:
            await in_session(auth.logout, settings=get_settings(), token=token)
            forget_session(token)  # refused at once in this process, not after the cache window
        await reset_signed_in_states(self)
        self.auth_checked = True
        # The page clears the stored token and the tab's client token, then leaves through the full-page
        # logout: the server clears the HttpOnly cookie and sends it to the landing page.
        await leave_app(self)
