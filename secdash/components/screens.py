"""Whole-screen pieces: the auth loading screen and the empty state of modules still to come."""

import reflex as rx


def loading_screen() -> rx.Component:
    return rx.el.div(
        "Loading...",
        class_name="min-h-screen flex items-center justify-center bg-slate-950 text-slate-300 text-lg",
    )


def page_header(title: str, subtitle: str = "") -> rx.Component:
    return rx.el.div(
        rx.el.h1(title, class_name="text-2xl font-bold text-slate-100"),
        rx.cond(subtitle != "", rx.el.p(subtitle, class_name="text-slate-400 mt-1"), rx.fragment()),
        class_name="mb-6",
    )


def not_yet_available(title: str, what: str) -> rx.Component:
    """An honest empty state for a route whose feature has not been built yet."""
    return rx.el.div(
        page_header(title),
        rx.el.div(
            rx.icon("construction", class_name="w-10 h-10 text-amber-400"),
            rx.el.h2("Not available yet", class_name="text-lg font-semibold text-slate-100"),
            rx.el.p(what, class_name="text-slate-400 max-w-xl text-center"),
            rx.el.p(
                "No data is shown here until this module is running on real sources.",
                class_name="text-slate-400 text-sm",
            ),
            class_name="flex flex-col items-center gap-3 rounded-xl border border-dashed border-slate-700 bg-slate-900/60 p-10",
        ),
    )
