"""Keyboard focus helpers compiled into the bundle (no eval, no server round trip): a dialog gives the focus back to
the control that opened it, and a tab list follows the WAI-ARIA tabs pattern.

Radix gives focus back to a dialog's `Trigger` only; SecDash opens its dialogs from the server (controlled `open`),
so without this the focus fell to <body> when a dialog closed (Escape, Cancel or done).
"""

from __future__ import annotations

import reflex as rx

# Spread into a dialog's content: `rx.dialog.content(..., custom_attrs=RETURN_FOCUS)`.
RETURN_FOCUS = {
    # The focus scope mounts while the opener still has the focus.
    "onOpenAutoFocus": rx.Var(
        "((_e) => { const el = document.activeElement; window.__secdashOpener = el && el !== document.body ? el : null; })"
    ),
    "onCloseAutoFocus": rx.Var(
        "((e) => { const el = window.__secdashOpener; window.__secdashOpener = null;"
        " if (el && el.isConnected) { e.preventDefault(); el.focus(); } })"
    ),
}

# Spread into a role="tablist" element whose children are role="tab" buttons: Left/Right (and Up/Down, for the
# vertical layout) move to the previous/next tab, Home/End to the first/last; the tab reached is focused and
# activated (its click), wrapping around at the ends.
TABLIST_KEYS = {
    "onKeyDown": rx.Var(
        "((e) => { const tabs = Array.from(e.currentTarget.querySelectorAll('[role=\"tab\"]'));"
        " const i = tabs.indexOf(document.activeElement); if (i < 0) return;"
        " const n = {ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0,"
        " End: tabs.length - 1}[e.key]; if (n === undefined) return;"
        " e.preventDefault(); const tab = tabs[(n + tabs.length) % tabs.length]; tab.focus(); tab.click(); })"
    ),
}


def dialog_content(*children, **props) -> rx.Component:
    """`rx.dialog.content` that gives the focus back to its opener when it closes."""
    return rx.dialog.content(*children, custom_attrs=RETURN_FOCUS, **props)


def alert_dialog_content(*children, **props) -> rx.Component:
    """`rx.alert_dialog.content` that gives the focus back to its opener when it closes."""
    return rx.alert_dialog.content(*children, custom_attrs=RETURN_FOCUS, **props)


_FOCUS_RETURN = """
function SecdashFocusReturn({ target, fallback, children }) {
  const ids = useRef([target, fallback]);
  ids.current = [target, fallback];
  useEffect(() => () => {
    setTimeout(() => {
      const active = document.activeElement;
      if (active && active !== document.body) return;
      const [first, second] = ids.current;
      const el = document.getElementById(first) || document.getElementById(second);
      if (el) el.focus();
    }, 0);
  }, []);
  return children;
}
"""


class FocusReturn(rx.Component):
    """Wraps a part that appears in place (an inline form, a confirmation): when it goes and the focus went with it
    (to <body>), the element with id `target` gets the focus, or `fallback` if `target` went too."""

    tag = "SecdashFocusReturn"

    target: rx.Var[str]
    fallback: rx.Var[str]

    def add_imports(self) -> dict:
        return {"react": ["useEffect", "useRef"]}

    def add_custom_code(self) -> list[str]:
        return [_FOCUS_RETURN]


focus_return = FocusReturn.create
