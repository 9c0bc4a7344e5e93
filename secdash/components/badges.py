"""Small badges shared by several screens."""

import reflex as rx

SEVERITY_CLASSES = {
    "info": "bg-sky-500/15 text-sky-300 border-sky-500/40",
    "warning": "bg-amber-500/15 text-amber-300 border-amber-500/40",
    "error": "bg-red-500/15 text-red-300 border-red-500/40",
    "critical": "bg-fuchsia-600/20 text-fuchsia-300 border-fuchsia-500/50",
}
_BADGE = "inline-flex items-center rounded-md border px-2 py-0.5 text-xs font-semibold uppercase tracking-wide"


def pill(text, classes: str) -> rx.Component:
    return rx.el.span(text, class_name=f"{_BADGE} {classes}")


def severity_badge(severity: rx.Var[str]) -> rx.Component:
    return rx.el.span(
        severity,
        class_name=rx.match(
            severity,
            *[(name, f"{_BADGE} {classes}") for name, classes in SEVERITY_CLASSES.items()],
            f"{_BADGE} bg-slate-500/15 text-slate-300 border-slate-500/40",
        ),
    )


def role_badge(is_admin: rx.Var[bool]) -> rx.Component:
    """Red "Admin" for admins, green "Active" for limited users (spec: shared shell)."""
    return rx.cond(
        is_admin,
        pill("Admin", "bg-red-600/20 text-red-300 border-red-500/50"),
        pill("Active", "bg-emerald-600/20 text-emerald-300 border-emerald-500/50"),
    )


_EVENT_SEVERITY = (
    ("high", "bg-red-500/15 text-red-300 border-red-500/40"),
    ("medium", "bg-amber-500/15 text-amber-300 border-amber-500/40"),
)


def event_severity_badge(severity: rx.Var[str]) -> rx.Component:
    """Security-event severity: high red, medium amber, low blue."""
    return rx.el.span(
        severity,
        class_name=rx.match(
            severity,
            *[(k, f"{_BADGE} {v}") for k, v in _EVENT_SEVERITY],
            f"{_BADGE} bg-sky-500/15 text-sky-300 border-sky-500/40",
        ),
    )


_AGENT_STATUS = (
    ("fighting", "bg-red-500/15 text-red-300 border-red-500/40"),
    ("analyzing", "bg-amber-500/15 text-amber-300 border-amber-500/40"),
    ("secured", "bg-sky-500/15 text-sky-300 border-sky-500/40"),
)


def agent_status_badge(status: rx.Var[str]) -> rx.Component:
    """Agent status: monitoring green (also when there is no record), fighting red, analyzing yellow, secured blue."""
    return rx.el.span(
        status,
        class_name=rx.match(
            status,
            *[(k, f"{_BADGE} {v}") for k, v in _AGENT_STATUS],
            f"{_BADGE} bg-emerald-500/15 text-emerald-300 border-emerald-500/40",
        ),
    )
