"""The Dashboard screen: top bar, tab list and the six tabs (the overview tab and its site dialog are
pages/dashboard_overview.py; the others pages/dashboard_tabs.py and pages/dashboard_problems.py)."""

import reflex as rx

from secdash.components.clock import utc_clock
from secdash.components.focus import TABLIST_KEYS
from secdash.pages.dashboard_overview import dashboard_tab
from secdash.pages.dashboard_problems import problems_tab
from secdash.pages.dashboard_tabs import defense_tab, scan_tab
from secdash.pages.dashboard_traffic import traffic_tab, users_tab
from secdash.pages.site_dialog import site_dialog
from secdash.state.auth import AuthState
from secdash.state.dashboard import DashboardState

TAB_LIST = (
    ("dashboard", "Dashboard", "layout-dashboard"),
    ("traffic", "Live Traffic", "activity"),
    ("users", "User Scan", "scan-search"),
    ("scan", "Security Scan", "shield-check"),
    ("defense", "AI Defense Mode", "bot"),
    ("problems", "Problem Database", "database"),
)


def top_bar() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.h1("SecDash Security Command", class_name="text-xl font-bold text-slate-50"),
            rx.el.span(
                rx.el.span(class_name="h-2 w-2 rounded-full bg-red-500 animate-pulse"),
                "LIVE",
                class_name="flex items-center gap-1.5 rounded-md border border-red-500/40 bg-red-500/10 px-2 py-0.5 "
                "text-xs font-bold text-red-300",
            ),
            rx.el.span(
                rx.icon("lock", class_name="w-3 h-3"),
                "Encrypted",
                class_name="flex items-center gap-1 rounded-md border border-emerald-500/40 bg-emerald-500/10 "
                "px-2 py-0.5 text-xs font-semibold text-emerald-300",
            ),
            class_name="flex flex-wrap items-center gap-3",
        ),
        rx.el.div(
            rx.el.span(
                utc_clock(), " UTC", class_name="whitespace-nowrap font-mono text-sm text-cyan-300", data_testid="utc-clock"
            ),
            rx.el.span("Welcome, ", AuthState.display_first_name, class_name="whitespace-nowrap text-sm text-slate-300"),
            rx.el.button(
                rx.icon("log-out", class_name="w-4 h-4"),
                "Logout",
                on_click=AuthState.logout,
                class_name="flex items-center gap-1 rounded-md border border-slate-700 px-3 py-1.5 text-sm hover:bg-slate-800",
            ),
            class_name="flex flex-wrap items-center gap-x-4 gap-y-2",
        ),
        class_name="mb-4 flex flex-wrap items-center justify-between gap-3 rounded-xl border border-slate-800 "
        "bg-slate-900/60 px-4 py-3",
    )


TABPANEL_ID = "dashboard-tabpanel"


def _tab_id(key: str) -> str:
    return f"dashboard-tab-{key}"


def tab_list() -> rx.Component:
    """The WAI-ARIA tabs pattern: one tab stop (roving tabindex), arrows/Home/End move and activate."""
    return rx.el.nav(
        *[
            rx.el.button(
                rx.icon(icon, class_name="w-4 h-4 shrink-0"),
                label,
                on_click=DashboardState.set_tab(key),
                role="tab",
                id=_tab_id(key),
                aria_selected=DashboardState.tab == key,
                aria_controls=TABPANEL_ID,
                tab_index=rx.cond(DashboardState.tab == key, 0, -1),
                class_name=rx.cond(
                    DashboardState.tab == key,
                    "flex items-center gap-2 whitespace-nowrap rounded-md bg-cyan-500/15 px-3 py-2 text-sm text-cyan-300 "
                    "ring-1 ring-cyan-500/40",
                    "flex items-center gap-2 whitespace-nowrap rounded-md px-3 py-2 text-sm text-slate-300 hover:bg-slate-800",
                ),
            )
            for key, label, icon in TAB_LIST
        ],
        role="tablist",
        aria_label="Dashboard sections",
        custom_attrs=TABLIST_KEYS,
        class_name="flex gap-1 overflow-x-auto lg:flex-col lg:overflow-visible lg:w-52 shrink-0",
    )


def dashboard_screen() -> rx.Component:
    """Loads when it appears (only signed-in users see it) and stops following changes when it goes."""
    return rx.el.div(
        top_bar(),
        rx.cond(
            DashboardState.loading,
            rx.el.p("Loading security dashboard...", class_name="p-10 text-center text-slate-400"),
            rx.el.div(
                tab_list(),
                rx.el.div(
                    rx.match(
                        DashboardState.tab,
                        ("traffic", traffic_tab()),
                        ("users", users_tab()),
                        ("scan", scan_tab()),
                        ("defense", defense_tab()),
                        ("problems", problems_tab()),
                        dashboard_tab(),
                    ),
                    class_name="min-w-0 flex-1",
                    role="tabpanel",
                    id=TABPANEL_ID,
                    aria_labelledby="dashboard-tab-" + DashboardState.tab,
                ),
                class_name="flex flex-col gap-4 lg:flex-row",
            ),
        ),
        site_dialog(),
        on_mount=DashboardState.load,
        on_unmount=DashboardState.stop_following,
    )
