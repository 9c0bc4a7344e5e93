"""The Admin Access Portal form."""

from __future__ import annotations

import json

import reflex as rx

from secdash.core.client_address import client_address
from secdash.core.config import get_settings
from secdash.routes import DASHBOARD_ROUTE
from secdash.services import auth
from secdash.services.errors import DomainError
from secdash.services.scoped import in_session
from secdash.state.auth import ROTATE_CLIENT_TOKEN_JS, reset_signed_in_states


def _store_token_and_enter(token: str) -> rx.event.EventSpec:
    """Store the token in the browser only, exchange it for the HttpOnly cookie, then load the app
    afresh with a new client token (the server-side state of this tab never holds the token)."""
    token_js = json.dumps(token)
    home_js = json.dumps(DASHBOARD_ROUTE)
    return rx.call_script(
        f"localStorage.setItem('auth_token', {token_js}); {ROTATE_CLIENT_TOKEN_JS}"
        f"fetch('/api/auth/session-cookie', {{method: 'POST', credentials: 'same-origin',"
        f" headers: {{Authorization: 'Bearer ' + {token_js}}}}})"
        f".catch(() => null).finally(() => window.location.assign({home_js}));"
    )


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
            yield rx.toast.error("Validation Error", description="Please enter both email and password")
            return
        self.is_submitting = True
        yield
        try:
            result = await in_session(
                auth.login,
                settings=get_settings(),
                email=email,
                password=password,
                ip=client_address(self.router.session.client_ip,
                                  self.router.headers.raw_headers.get("x-forwarded-for"),
                                  get_settings().trusted_proxies),
                user_agent=self.router.headers.user_agent,
            )
        except DomainError as exc:
            self.is_submitting = False
            yield rx.toast.error("Login Failed", description=exc.message or "Invalid credentials")
            return
        # Whatever this tab showed before (another user, a dead session) is forgotten, this form included.
        await reset_signed_in_states(self)
        self.is_submitting = True  # until the page is left; the new page load starts a fresh state
        yield _store_token_and_enter(result.token)
