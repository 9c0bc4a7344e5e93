"""The two Code Mode tools side by side: the navigation's "Code Mode" opens the Live Code Builder, and this bar
links it with the HTML artifacts (which the spec's navigation bar does not list)."""

from __future__ import annotations

import reflex as rx

from secdash import routes
from secdash.components.styles import FOCUS

TOOLS = ((routes.CODE_MODE_ROUTE, "Live Code Builder", "blocks"), (routes.CODE_ARTIFACTS_ROUTE, "HTML Artifacts", "file-code"))
_LINK = f"inline-flex items-center gap-1.5 rounded-md px-3 py-1.5 text-sm font-medium {FOCUS}"


def code_mode_tabs(active: str) -> rx.Component:
    links = []
    for route, label, icon in TOOLS:
        current = route == active
        links.append(
            rx.link(
                rx.icon(icon, class_name="h-4 w-4"),
                label,
                href=route,
                class_name=_LINK + (" bg-slate-800 text-cyan-200" if current else " text-slate-300 hover:bg-slate-800/60"),
                aria_current="page" if current else None,
                underline="none",
            )
        )
    return rx.el.nav(
        *links,
        aria_label="Code Mode tools",
        class_name="mb-3 flex w-fit flex-wrap gap-1 rounded-lg border border-slate-800 bg-slate-900/60 p-1",
    )
