"""What the server asks the browser to do, without sending it JavaScript to evaluate.

Reflex runs events that a handler *returns* as JavaScript text (`rx.toast.*`, `rx.call_script`,
`rx.call_function`, ...) with `eval`, so they need `'unsafe-eval'` in the CSP. The same actions
compiled into the bundle need no eval (shared/REFLEX-SECURITY.md, section 2). So a handler only
changes the state below, and `components/browser_actions.py` (mounted once, on every page) does the
rest from code compiled into the bundle:

- toasts: `return toast.error("Title", description=...)` from any handler (the same arguments as
  `rx.toast.error`). It is an ordinary event for `BrowserActions.show_toast`, so it also works from
  background tasks and where a handler answers with several events; the toast appears once, and is
  then dropped from the state (a reload does not show it again).
- sign-in: `await enter_app(self, token)` stores the token in the browser, exchanges it for the
  HttpOnly cookie and loads the app afresh with a new client token; the token is dropped from this
  state before the page leaves.
- sign-out: `await leave_app(self)` clears the stored token and the client token and leaves through
  the full-page logout.

This state is public (a signed-out visitor gets toasts too): its handlers only change what this tab
shows itself.
"""

from __future__ import annotations

import dataclasses

import reflex as rx

TOAST_KINDS = ("success", "error", "warning", "info")
MAX_PENDING_TOASTS = 5
MAX_TOAST_TEXT = 500  # a toast is a line or two; longer text is cut


@dataclasses.dataclass
class PendingToast:
    """A toast the browser has not shown yet."""

    seq: int = 0
    kind: str = "info"
    title: str = ""
    description: str = ""
    toast_id: str = ""  # toasts with the same id replace each other ("unauthorized")


class BrowserActions(rx.State):
    """Toasts to show and the sign-in / sign-out hand-over, read by components/browser_actions.py."""

    toasts: list[PendingToast] = []
    enter_token: str = ""  # set for the moment between a sign-in and the page that stores it
    enter_seq: int = 0
    leave_seq: int = 0
    _toast_seq: int = 0

    @rx.event
    def show_toast(self, kind: str, title: str, description: str = "", toast_id: str = ""):
        if kind not in TOAST_KINDS:
            return
        self._toast_seq += 1
        toast = PendingToast(
            seq=self._toast_seq,
            kind=kind,
            title=title[:MAX_TOAST_TEXT],
            description=description[:MAX_TOAST_TEXT],
            toast_id=toast_id[:80],
        )
        self.toasts = [*self.toasts, toast][-MAX_PENDING_TOASTS:]

    @rx.event
    def toast_shown(self, seq: int):
        self.toasts = [t for t in self.toasts if t.seq != seq]

    @rx.event
    def token_stored(self):
        """The page holds the token now (sign-in): this tab's server-side state forgets it."""
        self.enter_token = ""


def _toast(kind: str):
    def make(title: str, description: str = "", id: str = "", **_ignored) -> rx.event.EventSpec:  # noqa: A002
        return BrowserActions.show_toast(kind, str(title), str(description or ""), str(id or ""))

    make.__name__ = kind
    make.__doc__ = f"A {kind} toast, shown by code in the bundle (no eval): return it from a handler."
    return make


class _Toasts:
    """`toast.error(...)` etc.: the eval-free stand-in for `rx.toast.error(...)` in handlers."""

    success = staticmethod(_toast("success"))
    error = staticmethod(_toast("error"))
    warning = staticmethod(_toast("warning"))
    info = staticmethod(_toast("info"))


toast = _Toasts()


async def enter_app(state: rx.State, token: str) -> None:
    """Sign-in: hand the token to the browser (see the module docstring). Call after any state reset."""
    actions = await state.get_state(BrowserActions)
    actions.enter_token = token
    actions.enter_seq += 1


async def leave_app(state: rx.State) -> None:
    """Sign-out: leave through the full-page logout. Call after resetting the tab's states."""
    actions = await state.get_state(BrowserActions)
    actions.leave_seq += 1
