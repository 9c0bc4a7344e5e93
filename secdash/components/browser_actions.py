"""Mounted once on every page (the app overlay): does what `state/browser_actions.py` asks for, with
code compiled into the bundle, so the CSP needs no 'unsafe-eval'.

Each pending toast mounts a small component (keyed by the toast's number, so a new toast always
mounts afresh) that shows it and tells the server it was shown. The sign-in and
sign-out hand-overs work the same way, keyed by their counters.
"""

from __future__ import annotations

import json

import reflex as rx

from secdash.routes import DASHBOARD_ROUTE, LOGOUT_URL
from secdash.state.browser_actions import BrowserActions, PendingToast

# sessionStorage "token" is Reflex's client token: without it the next page load gets a fresh
# server-side state instead of the signed-out (or signed-in) one. The token is stored in the same
# step as the page leaves: until then this page still applies updates from the server, and an
# update that writes auth_token (a check queued before the sign-in) would replace it.
_ENTER_JS = (
    "() => {{ const token = {token}; sessionStorage.removeItem('token'); "
    "fetch('/api/auth/session-cookie', {{method: 'POST', credentials: 'same-origin', "
    "headers: {{Authorization: 'Bearer ' + token}}}}).catch(() => null)"
    ".finally(() => {{ localStorage.setItem('auth_token', token); window.location.assign({home}); }}); }}"
)
_LEAVE_JS = (
    "() => { localStorage.removeItem('auth_token'); sessionStorage.removeItem('token'); "
    f"window.location.assign({json.dumps(LOGOUT_URL)}); }}"
)


_TOAST = """
function SecdashToast({ seq, kind, title, description, toastId, onShown }) {
  useEffect(() => {
    const options = { id: toastId || `secdash-toast-${seq}` };  // one id: they replace each other
    if (description) options.description = description;
    refs["__toast"]?.[kind]?.(title, options);
    onShown?.(seq);
  }, []);
  return null;
}
"""


class _Toast(rx.Component):
    """Shows one toast when it mounts, then reports it shown (the state drops it)."""

    tag = "SecdashToast"

    seq: rx.Var[int]
    kind: rx.Var[str]
    title: rx.Var[str]
    description: rx.Var[str]
    toast_id: rx.Var[str]
    on_shown: rx.EventHandler[lambda seq: [seq]]

    def add_imports(self) -> dict:
        return {"react": ["useEffect"], "$/utils/state": ["refs"]}

    def add_custom_code(self) -> list[str]:
        return [_TOAST]


def _show(item: PendingToast) -> rx.Component:
    return _Toast.create(
        seq=item.seq,
        kind=item.kind,
        title=item.title,
        description=item.description,
        toast_id=item.toast_id,
        on_shown=BrowserActions.toast_shown,
        key=item.seq,
    )


def _enter() -> rx.Component:
    token = BrowserActions.enter_token
    store_and_enter = rx.vars.FunctionStringVar.create(
        _ENTER_JS.format(token=token._js_expr, home=json.dumps(DASHBOARD_ROUTE)), _var_data=token._get_all_var_data()
    )
    return rx.fragment(
        rx.cond(
            BrowserActions.enter_token != "",
            # The server forgets the token first; the function then uses the value this element mounted with.
            rx.el.span(on_mount=[BrowserActions.token_stored, rx.call_function(store_and_enter)], hidden=True),
            rx.fragment(),
        ),
        key="enter-" + BrowserActions.enter_seq.to_string(),
    )


def _leave() -> rx.Component:
    return rx.fragment(
        rx.cond(
            BrowserActions.leave_seq > 0,
            rx.el.span(on_mount=rx.call_function(rx.vars.FunctionStringVar.create(_LEAVE_JS)), hidden=True),
            rx.fragment(),
        ),
        key="leave-" + BrowserActions.leave_seq.to_string(),
    )


def browser_actions() -> rx.Component:
    """The app overlay (rxconfig `extra_overlay_function`)."""
    return rx.fragment(rx.foreach(BrowserActions.toasts, _show), _enter(), _leave())
