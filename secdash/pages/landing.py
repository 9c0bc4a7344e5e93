"""The public provider-login landing page (/ and /landing when signed out)."""

import reflex as rx

from secdash.routes import PROVIDER_LOGIN_URL

FEATURES = (
    ("activity", "Live Traffic Monitoring"),
    ("scan-search", "Real-time User Scanning"),
    ("bot", "AI Defense Capabilities"),
    ("database", "Security Problem Database"),
    ("radar", "Live Threat Detection"),
)


def landing() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.icon("shield-check", class_name="w-14 h-14 text-cyan-400"),
            rx.el.h1("SecDash", class_name="text-4xl font-extrabold tracking-tight text-slate-50"),
            rx.el.p("Advanced Security Monitoring System", class_name="text-lg text-cyan-300"),
            rx.el.ul(
                *[
                    rx.el.li(
                        rx.icon(icon, class_name="w-5 h-5 text-emerald-400"),
                        text,
                        class_name="flex items-center gap-3 text-slate-200",
                    )
                    for icon, text in FEATURES
                ],
                class_name="flex flex-col gap-3 my-4",
            ),
            # A full-page navigation: the provider login is a server route.
            rx.el.a(
                "Access Security Dashboard",
                href=PROVIDER_LOGIN_URL,
                reload_document=True,
                class_name="rounded-lg bg-cyan-500 px-6 py-3 font-semibold text-slate-950 hover:bg-cyan-400",
            ),
            rx.el.p(
                rx.icon("lock", class_name="w-4 h-4"),
                "Authorized Access Only",
                class_name="flex items-center gap-2 text-sm text-amber-300 mt-2",
            ),
            class_name="flex flex-col items-center gap-3 rounded-2xl border border-slate-800 bg-slate-900/70 p-10 shadow-2xl",
        ),
        class_name="min-h-screen flex items-center justify-center bg-slate-950 p-4",
    )
