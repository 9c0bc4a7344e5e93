"""The 404 page."""

import reflex as rx


def not_found() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.div(
                rx.icon("circle-alert", class_name="w-8 h-8 text-red-400"),
                rx.el.h1("404 Page Not Found", class_name="text-2xl font-bold text-slate-100"),
                class_name="flex items-center gap-2",
            ),
            rx.el.p("Did you forget to add the page to the router?", class_name="mt-4 text-sm text-slate-400"),
            class_name="w-full max-w-md rounded-xl border border-slate-800 bg-slate-900 p-6",
        ),
        class_name="min-h-screen flex items-center justify-center bg-slate-950 p-4",
    )
