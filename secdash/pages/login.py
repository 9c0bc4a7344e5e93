"""The Admin Access Portal (/login)."""

import reflex as rx

from secdash.state.login import LoginState

_INPUT = (
    "w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2 text-slate-100 "
    "placeholder:text-slate-500 focus:outline-none focus:ring-2 focus:ring-cyan-500"
)


def login_page() -> rx.Component:
    return rx.el.div(
        rx.el.form(
            rx.el.div(
                rx.icon("shield-alert", class_name="w-10 h-10 text-cyan-400"),
                rx.el.h1("Admin Access Portal", class_name="text-2xl font-bold text-slate-50"),
                class_name="flex flex-col items-center gap-2 mb-2",
            ),
            rx.el.label("Email", html_for="email", class_name="text-sm text-slate-300"),
            rx.el.input(
                id="email",
                name="email",
                type="email",
                placeholder="admin@example.com",
                auto_complete="username",
                class_name=_INPUT,
            ),
            rx.el.label("Password", html_for="password", class_name="text-sm text-slate-300"),
            rx.el.div(
                rx.el.input(
                    id="password",
                    name="password",
                    placeholder="Password",
                    auto_complete="current-password",
                    type=rx.cond(LoginState.show_password, "text", "password"),
                    class_name=_INPUT + " pr-10",
                ),
                rx.el.button(
                    rx.cond(
                        LoginState.show_password, rx.icon("eye-off", class_name="w-4 h-4"), rx.icon("eye", class_name="w-4 h-4")
                    ),
                    type="button",
                    on_click=LoginState.toggle_password,
                    aria_label=rx.cond(LoginState.show_password, "Hide password", "Show password"),
                    class_name="absolute right-2 top-1/2 -translate-y-1/2 text-slate-400 hover:text-slate-200",
                ),
                class_name="relative",
            ),
            rx.el.button(
                rx.cond(LoginState.is_submitting, "Logging in...", "Access System"),
                type="submit",
                disabled=LoginState.is_submitting,
                class_name="mt-2 rounded-lg bg-cyan-500 px-4 py-2 font-semibold text-slate-950 "
                "hover:bg-cyan-400 disabled:opacity-60",
            ),
            on_submit=LoginState.login,
            reset_on_submit=False,
            class_name="flex w-full max-w-sm flex-col gap-2 rounded-2xl border border-slate-800 bg-slate-900/80 p-8 shadow-2xl",
        ),
        class_name="min-h-screen flex items-center justify-center bg-slate-950 p-4",
    )
