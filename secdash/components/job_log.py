"""One line of a job's live log: its time, then its message in the colour of its level."""

from __future__ import annotations

import reflex as rx

from secdash.state.job_log_view import LogLine

LOG_COLOURS = {"success": "text-emerald-300", "warning": "text-amber-300", "error": "text-red-300"}


def log_line(line: LogLine, *, wrap: str = "whitespace-pre-wrap break-words") -> rx.Component:
    return rx.el.li(
        rx.el.span(line.time, class_name="mr-2 text-slate-400"),
        rx.el.span(line.message, class_name=rx.match(line.level, *LOG_COLOURS.items(), "text-slate-300")),
        class_name=wrap,
    )
