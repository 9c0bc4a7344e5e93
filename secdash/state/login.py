"""The Admin Access Portal form."""

from __future__ import annotations

import reflex as rx

from secdash.core.client_address import client_address
from secdash.core.config import get_settings
from secdash.services.errors import DomainError
from secdash.services.identity import auth
from secdash.services.scoped import in_session
from secdash.state.auth import reset_signed_in_states
from secdash.state.browser_actions import enter_app, toast


class LoginState(rx.State):
    """Public: signing in is what a signed-out visitor may do."""

    is_submitting: bool = False
    show_password: bool = False

    @rx.event
    def toggle_password(self):
        self.show_password = not self.show_password

    @rx.event
    async def login(self, form_data: dict):
        email = str(form_data.get("email") or "").strip()
        password = str(form_data.get("password") or "")
        if not email or not password:
            yield toast.error("Validation Error", description="Please enter both email and password")
            return
        self.is_submitting = True
        yield
        try:
            result = await in_session(
                auth.login,
                settings=get_settings(),
                email=email,
                password=password,
                ip=client_address(
                    self.router.session.client_ip,
                    self.router.headers.raw_headers.get("x-forwarded-for"),
                    get_settings().trusted_proxies,
                ),
                user_agent=self.router.headers.user_agent,
            )
        except DomainError as exc:
            self.is_submitting = False
            yield toast.error("Login Failed", description=exc.message or "Invalid credentials")
            return
        # Whatever this tab showed before (another user, a dead session) is forgotten, this form included.
        await reset_signed_in_states(self)
        self.is_submitting = True  # until the page is left; the new page load starts a fresh state
        # The browser stores the token, gets the HttpOnly cookie for it and loads the app afresh with a
        # new client token; this tab's server-side state forgets the token before the page leaves.
        await enter_app(self, result.token)
