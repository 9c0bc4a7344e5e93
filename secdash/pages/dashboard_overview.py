"""The Dashboard's first tab: the monitored sites (the list, pages/dashboard_site_list.py, and the cards with their
checks), the newest alerts (samples while there are none), AI activity and the figures. The add/edit site dialog is in
pages/site_dialog.py."""

import reflex as rx

from secdash.components.badges import event_severity_badge, pill
from secdash.components.cards import card, sample_mark, simulated_mark, stat_card, status_badge
from secdash.components.response_chart import response_chart
from secdash.core.demo_sites import NAME_OF
from secdash.pages.dashboard_site_import import site_import_button
from secdash.pages.dashboard_site_list import site_list
from secdash.state.auth import AuthState
from secdash.state.dashboard import OverviewTab
from secdash.state.dashboard_views import ActivityView, EventView, SiteView

# Spec: sample alert rows shown, marked as samples, when there are no events yet.
SAMPLE_ALERTS = (
    ("high", "Brute-force login attempts blocked", NAME_OF["stock"]),
    ("medium", "Suspicious API scraping pattern", NAME_OF["tour"]),
    ("low", "Outdated TLS cipher offered", NAME_OF["gem"]),
)


def _header_test(test: rx.Var) -> rx.Component:
    return rx.el.li(
        rx.el.span(test["title"], class_name="text-slate-200"),
        rx.el.span(test["result"], class_name="text-slate-400 break-all"),
        rx.el.span(
            test["modifier"],
            class_name=rx.cond(test["passed"] == "pass", "text-emerald-300 text-right", "text-red-300 text-right"),
            title=test["passed"],
        ),
        class_name="grid grid-cols-[minmax(0,9rem)_1fr_2.5rem] gap-2 py-0.5",
        data_testid="header-test",
    )


def _header_tests(site: SiteView) -> rx.Component:
    """Every test of the header grade with its result and modifier, as the Observatory's own report lists them."""
    return rx.el.details(
        rx.el.summary(site.tests_summary, class_name="cursor-pointer text-xs text-cyan-300"),
        rx.el.ul(rx.foreach(site.tests, _header_test), class_name="mt-1 text-[11px] divide-y divide-slate-800"),
        class_name="mt-1",
        data_testid="header-tests",
    )


def _site_row(site: SiteView) -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.div(
                rx.el.div(site.name, class_name="font-semibold text-slate-100"),
                rx.el.div(site.address, class_name="text-xs text-slate-400 truncate"),
                class_name="min-w-0",
            ),
            rx.el.div(
                rx.cond(site.paused, status_badge("paused", "PAUSED"), rx.fragment()),
                status_badge(site.status, site.status_label),
                class_name="flex shrink-0 gap-1",
            ),
            class_name="flex items-start justify-between gap-2",
        ),
        rx.el.dl(
            rx.el.div(
                rx.el.dt(
                    "Response",
                    class_name="text-slate-400",
                    title="Total time: every redirect and the whole page, as a visitor waits for it",
                ),
                rx.el.dd(site.response_time, data_testid="site-response"),
            ),
            rx.el.div(
                rx.el.dt("TLS", class_name="text-slate-400"), rx.el.dd(site.tls, title=site.tls_title, data_testid="site-tls")
            ),
            rx.el.div(rx.el.dt("Grade", class_name="text-slate-400"), rx.el.dd(site.grade, class_name="font-bold")),
            rx.el.div(rx.el.dt("Checked", class_name="text-slate-400"), rx.el.dd(site.checked)),
            class_name="mt-2 grid grid-cols-4 gap-2 text-xs text-slate-300",
        ),
        rx.cond(
            site.timing != "",
            rx.el.p(site.timing, class_name="mt-1 text-xs text-slate-400", data_testid="site-timing"),
            rx.fragment(),
        ),
        rx.cond(site.error != "", rx.el.p(site.error, class_name="mt-1 text-xs text-red-300"), rx.fragment()),
        rx.cond(
            site.findings != "",
            rx.el.p(site.findings, class_name="mt-1 text-xs text-slate-400 truncate", title=site.findings),
            rx.fragment(),
        ),
        rx.cond(site.tests_summary != "", _header_tests(site), rx.fragment()),
        rx.el.div(
            response_chart(site.chart, height=90, data_testid="response-chart"),
            class_name="mt-2",
            role="img",
            aria_label=f"Response times of {site.name}, most recent checks",
        ),
        rx.cond(
            AuthState.is_admin,
            rx.el.button(
                "Edit", on_click=OverviewTab.open_site_dialog(site.id), class_name="mt-1 text-xs text-cyan-300 hover:underline"
            ),
            rx.fragment(),
        ),
        id="site-card-" + site.id.to_string(),
        class_name="min-w-0 scroll-mt-4 rounded-lg border border-slate-800 bg-slate-950/60 p-3",
        data_testid="site-row",
    )


def _cards() -> rx.Component:
    """Every site as a card with its chart, in a small deployment."""
    grid = rx.el.div(rx.foreach(OverviewTab.sites, _site_row), class_name="grid grid-cols-1 gap-3 md:grid-cols-2")
    return rx.cond(OverviewTab.all_cards, rx.el.div(grid, class_name="mt-4"), rx.fragment())


def _chosen_card() -> rx.Component:
    """With many sites, the one chosen in the list: its card, above the list's rows."""
    return rx.cond(
        ~OverviewTab.all_cards & (OverviewTab.sites.length() > 0),
        rx.el.div(
            rx.el.div(
                rx.el.h4("Chosen site", class_name="text-sm font-semibold text-slate-300"),
                rx.el.button(
                    "Close",
                    type="button",
                    on_click=OverviewTab.close_chosen_site,
                    auto_focus=True,  # mounted afresh for each chosen site (its key): the focus brings it into view
                    aria_label="Close the chosen site's card",
                    class_name="text-xs text-cyan-300 hover:underline",
                ),
                class_name="flex items-center justify-between",
            ),
            rx.foreach(OverviewTab.sites, _site_row),
            key=OverviewTab.chosen_site_id.to_string(),
            class_name="flex flex-col gap-2 rounded-lg border border-cyan-500/30 p-2 md:max-w-xl",
            data_testid="chosen-site",
        ),
        rx.fragment(),
    )


def _activity_row(activity: ActivityView) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            pill(activity.activity_type, "bg-cyan-500/10 text-cyan-300 border-cyan-500/30"),
            rx.el.span(activity.target, class_name="text-sm font-medium text-slate-200"),
            rx.cond(activity.simulated, simulated_mark(), rx.fragment()),
            rx.el.span(activity.created, class_name="ml-auto font-mono text-xs text-slate-400"),
            class_name="flex flex-wrap items-center gap-2",
        ),
        rx.el.p(activity.description, class_name="mt-1 text-sm text-slate-400"),
        class_name="border-b border-slate-800 py-2 last:border-0",
    )


def _alert_row(alert: EventView) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            event_severity_badge(alert.severity),
            rx.el.span(alert.site, class_name="text-sm text-slate-300"),
            rx.cond(alert.resolved, pill("Resolved", "bg-emerald-500/15 text-emerald-300 border-emerald-500/40"), rx.fragment()),
            rx.el.span(alert.created, class_name="ml-auto font-mono text-xs text-slate-400"),
            class_name="flex flex-wrap items-center gap-2",
        ),
        rx.el.p(alert.description, class_name="mt-1 text-sm text-slate-300"),
        class_name="border-b border-slate-800 py-2 last:border-0",
        data_testid="alert-row",
    )


def _sample_alerts() -> rx.Component:
    return rx.el.ul(
        *[
            rx.el.li(
                rx.el.div(
                    event_severity_badge(sev),
                    rx.el.span(site, class_name="text-sm text-slate-400"),
                    sample_mark(),
                    class_name="flex items-center gap-2",
                ),
                rx.el.p(text, class_name="mt-1 text-sm text-slate-400"),
                class_name="border-b border-slate-800 py-2 last:border-0",
            )
            for sev, text, site in SAMPLE_ALERTS
        ],
    )


def dashboard_tab() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            stat_card("Sites Monitored", OverviewTab.sites_count, "globe"),
            stat_card(
                "Threats Blocked",
                OverviewTab.threats_blocked,
                "shield-ban",
                "text-emerald-300",
                note=rx.el.p(
                    "Real blocks only (simulated activity is not counted)",
                    title="Requests a defense really blocked. Simulated AI activity is marked simulated and never counted.",
                    class_name="mt-1 text-xs text-slate-400",
                    data_testid="threats-blocked-note",
                ),
            ),
            stat_card("Defense System", "ACTIVE", "shield-check", "text-emerald-300"),
            stat_card("System Health", "99.9%", "heart-pulse", "text-cyan-300"),
            class_name="grid grid-cols-2 gap-3 xl:grid-cols-4",
        ),
        rx.el.div(
            card(
                rx.cond(
                    OverviewTab.sites_count > 0,
                    rx.fragment(site_list(_chosen_card()), _cards()),
                    rx.el.p("No sites yet.", class_name="text-slate-400"),
                ),
                title="Monitored Sites",
                extra=rx.cond(
                    AuthState.is_admin,
                    rx.el.div(
                        site_import_button(),
                        rx.el.button(
                            rx.icon("plus", class_name="w-4 h-4"),
                            "Add site",
                            on_click=OverviewTab.open_site_dialog(0),
                            class_name="flex items-center gap-1 rounded-md border border-slate-700 px-2 py-1 text-xs "
                            "hover:bg-slate-800",
                        ),
                        class_name="flex items-center gap-2",
                    ),
                    rx.fragment(),
                ),
                class_name="min-w-0 rounded-xl border border-slate-800 bg-slate-900/60 p-4 xl:col-span-2",
            ),
            card(
                rx.cond(
                    OverviewTab.activities.length() > 0,
                    rx.el.ul(rx.foreach(OverviewTab.activities, _activity_row)),
                    rx.el.p("No AI activity yet.", class_name="text-slate-400"),
                ),
                title="AI Activity",
            ),
            class_name="mt-4 grid grid-cols-1 gap-4 xl:grid-cols-3",
        ),
        rx.el.div(
            card(
                rx.el.p(OverviewTab.requests_per_minute, " requests/min", class_name="text-lg text-slate-100"),
                rx.el.p(
                    OverviewTab.active_clients,
                    " active clients · ",
                    OverviewTab.bandwidth,
                    class_name="text-sm text-slate-400",
                ),
                title="Traffic",
                extra=rx.el.span("from the sites' logs", class_name="text-xs text-slate-400"),
            ),
            card(
                rx.el.div(
                    rx.el.span(OverviewTab.user_clean, " clean", class_name="text-emerald-300"),
                    rx.el.span(OverviewTab.user_suspicious, " suspicious", class_name="text-amber-300"),
                    rx.el.span(OverviewTab.user_blocked, " blocked", class_name="text-red-300"),
                    class_name="flex flex-wrap gap-4 text-sm",
                ),
                title="User Scan",
                extra=rx.el.span("clients of the last 24 h", class_name="text-xs text-slate-400"),
            ),
            card(
                rx.cond(OverviewTab.alerts.length() > 0, rx.el.ul(rx.foreach(OverviewTab.alerts, _alert_row)), _sample_alerts()),
                title="Security Alerts",
                extra=rx.el.span(
                    OverviewTab.active_alerts,
                    " active",
                    class_name="text-xs text-red-300",
                    title="Open (unresolved) events; the list shows the 5 newest",
                    data_testid="active-alerts",
                ),
            ),
            class_name="mt-4 grid grid-cols-1 gap-4 xl:grid-cols-3",
        ),
    )
