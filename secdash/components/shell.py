"""The signed-in shell: navigation bar (seven entries, and Settings for administrators), user e-mail, role badge and Logout."""

import reflex as rx

from secdash import routes
from secdash.components.badges import role_badge
from secdash.components.chat_widget import chat_widget, widget_closer
from secdash.components.screens import loading_screen
from secdash.state.auth import AuthState

NAV_ITEMS = (
    (routes.DASHBOARD_ROUTE, "Dashboard", "layout-dashboard"),
    (routes.HISTORY_ROUTE, "History Logs", "history"),
    (routes.DEFENSE_COMMAND_ROUTE, "Defense Command", "shield"),
    (routes.AI_SYSTEMS_ROUTE, "AI Systems", "cpu"),
    (routes.BATTLE_STATION_ROUTE, "Battle Station", "swords"),
    (routes.FIX_MODE_ROUTE, "Fix Mode", "wrench"),
    (routes.CODE_MODE_ROUTE, "Code Mode", "code"),
)
# Pages with a chat of their own (Defense Command and its Center): the floating widget would cover it, so it closes
# there and its button is not shown.
OWN_CHAT_ROUTES = (routes.DEFENSE_COMMAND_ROUTE,)
MOBILE_MENU_ID = "mobile-menu"  # while it is open the chat widget's panel steps aside (components/chat_widget.py)
ADMIN_NAV_ITEMS = ((routes.SETTINGS_ROUTE, "Settings", "settings"),)  # shown to administrators only
_LINK = "flex items-center gap-2 whitespace-nowrap rounded-md px-2.5 py-2 text-sm font-medium transition-colors"
_ACTIVE = f"{_LINK} bg-cyan-500/15 text-cyan-300 ring-1 ring-cyan-500/40"
_IDLE = f"{_LINK} text-slate-300 hover:bg-slate-800 hover:text-white"


def _nav_link(route: str, label: str, icon: str, active_route: str, vertical: bool) -> rx.Component:
    return rx.link(
        rx.icon(icon, class_name="w-4 h-4" if vertical else "w-4 h-4 hidden 2xl:inline"),
        label,
        href=route,
        class_name=_ACTIVE if route == active_route else _IDLE,
        aria_current="page" if route == active_route else None,
        underline="none",
    )


def _nav_links(active_route: str, vertical: bool = False) -> rx.Component:
    return rx.el.nav(
        *[_nav_link(route, label, icon, active_route, vertical) for route, label, icon in NAV_ITEMS],
        *[
            rx.cond(AuthState.is_admin, _nav_link(route, label, icon, active_route, vertical), rx.fragment())
            for route, label, icon in ADMIN_NAV_ITEMS
        ],
        aria_label="Main navigation",
        class_name="flex flex-col gap-1" if vertical else "hidden xl:flex items-center gap-0.5",
    )


def _user_box() -> rx.Component:
    return rx.el.div(
        rx.el.span(
            AuthState.user_email,
            title=AuthState.user_email,
            class_name="hidden sm:inline min-w-0 max-w-[200px] truncate text-sm text-slate-300",
        ),
        rx.el.span(role_badge(AuthState.is_admin), class_name="shrink-0"),
        rx.el.button(
            rx.icon("log-out", class_name="w-4 h-4"),
            "Logout",
            on_click=AuthState.logout,
            class_name="flex shrink-0 items-center gap-1 whitespace-nowrap rounded-md border border-slate-700 px-3 py-1.5 "
            "text-sm text-slate-200 hover:bg-slate-800",
        ),
        # The e-mail gives way first: at 1280 px a long address is cut short, never Logout.
        class_name="flex min-w-0 items-center justify-end gap-3",
    )


def nav_bar(active_route: str) -> rx.Component:
    return rx.el.header(
        rx.el.div(
            rx.el.div(
                # Mobile menu: a native disclosure, so it needs no server round-trip.
                rx.el.details(
                    rx.el.summary(
                        rx.icon("menu", class_name="w-5 h-5"),
                        aria_label="Toggle navigation menu",
                        class_name="list-none cursor-pointer rounded-md p-2 text-slate-200 hover:bg-slate-800",
                    ),
                    rx.el.div(
                        _nav_links(active_route, vertical=True),
                        class_name="absolute left-2 right-2 top-14 z-40 rounded-lg border border-slate-700 "
                        "bg-slate-900 p-2 shadow-xl",
                    ),
                    id=MOBILE_MENU_ID,
                    class_name="xl:hidden",
                ),
                rx.link(
                    rx.icon("shield-check", class_name="w-6 h-6 text-cyan-400"),
                    rx.el.span("SecDash", class_name="font-bold text-slate-100"),
                    href=routes.DASHBOARD_ROUTE,
                    underline="none",
                    class_name="flex items-center gap-2",
                ),
                _nav_links(active_route),
                class_name="flex shrink-0 items-center gap-4",
            ),
            _user_box(),
            class_name="mx-auto flex max-w-7xl items-center justify-between gap-4 px-4 py-3",
        ),
        class_name="sticky top-0 z-30 border-b border-slate-800 bg-slate-950/95 backdrop-blur",
    )


def shell(content: rx.Component, active_route: str) -> rx.Component:
    """A signed-in page: the bar above the content; "Loading..." until the session is confirmed."""
    return rx.cond(
        AuthState.is_authenticated,
        rx.el.div(
            nav_bar(active_route),
            # Room below the content for the floating chat button on small screens.
            rx.el.main(
                content,
                class_name="mx-auto max-w-7xl px-4 pt-6 pb-6"
                if active_route in OWN_CHAT_ROUTES
                else "mx-auto max-w-7xl px-4 pt-6 pb-24 lg:pb-6",
            ),
            widget_closer() if active_route in OWN_CHAT_ROUTES else chat_widget(),
            class_name="min-h-screen bg-slate-950 text-slate-100",
        ),
        loading_screen(),
    )
