"""The CSP has no 'unsafe-eval', so no handler may send the browser JavaScript to evaluate.

Reflex runs `_call_script` / `_call_function` events that arrive from the server as text with
`eval` (rx.toast.*, rx.call_script, rx.call_function, rx.console_log, rx.window_alert, rx.scroll_to,
rx.set_clipboard, rx.back): under SecDash's CSP they would fail with an EvalError and the toast, the
sign-in or the sign-out would silently not happen. Handlers use state/browser_actions.py instead;
the browser side is tests/security/browser/test_framing.py (no CSP violation on any page).
"""

from __future__ import annotations

import ast
from pathlib import Path

import reflex as rx

import secdash.secdash  # noqa: F401  (registers every state)
from secdash.state.auth import AuthState
from secdash.state.browser_actions import MAX_PENDING_TOASTS, BrowserActions, enter_app, toast
from tests.factories import make_user, sign_in

SECDASH = Path(__file__).resolve().parents[2] / "secdash"
# Code that runs on the server and answers events (components/ compile their events into the bundle).
SERVER_SIDE = [p for p in SECDASH.rglob("*.py") if "components" not in p.parts and "pages" not in p.parts]
EVAL_EVENTS = {
    "toast",
    "call_script",
    "call_function",
    "run_script",
    "console_log",
    "window_alert",
    "scroll_to",
    "set_clipboard",
    "back",
}
TOASTER_SETUP = {"provider", "options"}


def _eval_event_uses(path: Path) -> list[str]:
    found = []

    def is_rx(node: ast.AST, attr: str) -> bool:
        return (
            isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) and node.value.id == "rx"
        )

    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Attribute) and node.attr != "toast" and is_rx(node, node.attr) and node.attr in EVAL_EVENTS:
            found.append(f"{path.relative_to(SECDASH.parent)}:{node.lineno} rx.{node.attr}")
        # rx.toast.error(...) and rx.toast(...) send a toast; rx.toast.provider / .options build the toaster.
        if isinstance(node, ast.Attribute) and is_rx(node.value, "toast") and node.attr not in TOASTER_SETUP:
            found.append(f"{path.relative_to(SECDASH.parent)}:{node.lineno} rx.toast.{node.attr}")
        if isinstance(node, ast.Call) and is_rx(node.func, "toast"):
            found.append(f"{path.relative_to(SECDASH.parent)}:{node.lineno} rx.toast()")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("reflex"):
            found += [
                f"{path.relative_to(SECDASH.parent)}:{node.lineno} {node.module}.{alias.name}"
                for alias in node.names
                if alias.name in EVAL_EVENTS
            ]
    return found


def test_no_server_code_sends_javascript_to_evaluate():
    assert len(SERVER_SIDE) > 20
    uses = [use for path in SERVER_SIDE for use in _eval_event_uses(path)]
    assert uses == [], "use secdash.state.browser_actions (toast, enter_app, leave_app) instead: " + ", ".join(uses)


def _root():
    return rx.State(_reflex_internal_init=True)


def _substate(root, cls):
    return root.get_substate(cls.get_full_name().split("."))


def test_a_toast_is_an_ordinary_event_for_the_page():
    event = toast.error("Login Failed", description="Invalid credentials", id="login")
    assert event.handler.fn is BrowserActions.event_handlers["show_toast"].fn
    assert [str(value) for _name, value in event.args] == ['"error"', '"Login Failed"', '"Invalid credentials"', '"login"']
    assert "_call" not in str(event)


def test_pending_toasts_are_shown_once_and_bounded():
    actions = _substate(_root(), BrowserActions)
    show = BrowserActions.event_handlers["show_toast"].fn
    show(actions, "success", "Site saved", "It is probed on the next monitoring round.", "")
    show(actions, "javascript", "x", "", "")  # not a toast kind: ignored
    assert [(t.kind, t.title) for t in actions.toasts] == [("success", "Site saved")]
    for i in range(MAX_PENDING_TOASTS + 3):
        show(actions, "info", f"toast {i}", "x" * 5000, "")
    assert len(actions.toasts) == MAX_PENDING_TOASTS and actions.toasts[-1].title == f"toast {MAX_PENDING_TOASTS + 2}"
    assert len(actions.toasts[-1].description) == 500
    shown = actions.toasts[0].seq
    BrowserActions.event_handlers["toast_shown"].fn(actions, shown)
    assert shown not in [t.seq for t in actions.toasts] and len(actions.toasts) == MAX_PENDING_TOASTS - 1


async def test_the_sign_in_hand_over_forgets_the_token_on_the_server():
    root = _root()
    await enter_app(_substate(root, BrowserActions), "a.b.c")
    actions = _substate(root, BrowserActions)
    assert (actions.enter_token, actions.enter_seq) == ("a.b.c", 1)
    BrowserActions.event_handlers["token_stored"].fn(actions)
    assert actions.enter_token == ""


async def test_logout_asks_the_page_to_leave_without_a_script(session):
    await make_user(session, "ops@example.com")
    root = _root()
    auth_state = _substate(root, AuthState)
    auth_state.auth_token = await sign_in(session, "ops@example.com")
    result = await AuthState.event_handlers["logout"].fn(auth_state)
    assert "_call_script" not in str(result) and "_call_function" not in str(result)
    assert _substate(root, BrowserActions).leave_seq == 1  # set after the tab's states were reset
    assert auth_state.auth_token == "" and not auth_state.is_authenticated
