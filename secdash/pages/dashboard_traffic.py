"""The Live Traffic and User Scan tabs: the requests the sites logged, and the clients they came from (with the
decisions in force for administrators: dashboard_decisions.py)."""

import reflex as rx

from secdash.components.cards import card, simulated_mark, stat_card
from secdash.pages.dashboard_decisions import decisions_card
from secdash.state.dashboard import TrafficTab, UserScanTab
from secdash.state.dashboard_views import FeedView
from secdash.state.traffic_views import ClientView, MixView, RequestView, SiteTrafficView

WIDE_CARD = "rounded-xl border border-slate-800 bg-slate-900/60 p-4 xl:col-span-2 min-w-0"
# SecDash's own monitor's probes count in the figures but are not listed: say so, or "8 req/min" beside an empty
# list reads as a fault.
FEED_EMPTY = "No visitor request yet (SecDash's monitor probes are counted above, not listed)."
NARROW_CARD = "rounded-xl border border-slate-800 bg-slate-900/60 p-4 min-w-0"  # a grid item may shrink below its rows


def _sim_feed_row(entry: FeedView) -> rx.Component:
    return rx.el.li(
        rx.el.span(entry.time, class_name="font-mono text-xs text-slate-400"),
        rx.el.span(entry.ip, class_name="font-mono text-sm text-slate-300"),
        rx.el.span(entry.site, class_name="text-sm text-cyan-300"),
        rx.el.span(entry.action, class_name="text-sm text-slate-400"),
        class_name="flex flex-wrap items-center gap-3 border-b border-slate-800 py-1.5 last:border-0",
    )


def _request_row(entry: RequestView) -> rx.Component:
    """One logged request; the path and client are text from the internet, shown as text only."""
    return rx.el.li(
        rx.el.span(entry.time, class_name="font-mono text-xs text-slate-400"),
        rx.el.span(entry.client, class_name="font-mono text-xs text-slate-300"),
        rx.el.span(entry.site, class_name="text-xs text-cyan-300"),
        rx.el.span(entry.status, class_name="font-mono text-xs font-semibold " + entry.status_class),
        rx.el.span(
            entry.method, " ", entry.path, class_name="min-w-0 flex-1 truncate font-mono text-xs text-slate-200", title=entry.path
        ),
        rx.cond(entry.drill, rx.el.span("drill", class_name="rounded bg-violet-900/60 px-1.5 text-[10px] text-violet-200")),
        class_name="flex min-w-0 items-center gap-2 border-b border-slate-800 py-1.5 last:border-0",
    )


def _feed(rows, empty: str) -> rx.Component:
    return rx.cond(
        rows.length() > 0, rx.el.ul(rx.foreach(rows, _request_row)), rx.el.p(empty, class_name="text-sm text-slate-400")
    )


def _mix_row(row: MixView) -> rx.Component:
    return rx.el.li(
        rx.el.span(class_name="inline-block h-2.5 w-2.5 rounded-sm", style={"background_color": row.color}),
        rx.el.span(row.label, class_name="text-sm text-slate-300"),
        rx.el.span(row.count, class_name="ml-auto font-mono text-sm text-slate-100"),
        class_name="flex items-center gap-2 py-0.5",
    )


def _path_row(row: dict) -> rx.Component:
    return rx.el.li(
        rx.el.span(row["path"], class_name="min-w-0 flex-1 truncate font-mono text-xs text-slate-200", title=row["path"]),
        rx.el.span(row["requests"], class_name="font-mono text-sm text-slate-100"),
        class_name="flex items-center gap-2 py-0.5",
    )


def _site_traffic(site: SiteTrafficView) -> rx.Component:
    return card(
        rx.el.h3(site.name, class_name="mb-1 font-semibold text-slate-100"),
        rx.el.p(
            site.requests_per_minute,
            " req/min · ",
            site.active_clients,
            " clients · ",
            site.bandwidth,
            " · ",
            site.blocked_last_hour,
            " blocked in the last hour",
            rx.cond(site.capacity != "", rx.fragment(" · ", site.capacity)),
            class_name="mb-2 text-xs text-slate-400",
        ),
        _feed(site.feed, FEED_EMPTY),
        class_name=NARROW_CARD,
    )


def _simulated_traffic() -> rx.Component:
    return card(
        rx.el.p(
            TrafficTab.sim_requests_per_minute,
            " requests/min · ",
            TrafficTab.sim_active_users,
            " active users · ",
            TrafficTab.sim_bandwidth,
            " MB/s · capacity ",
            TrafficTab.sim_capacity_percent,
            "% · ",
            TrafficTab.sim_total_signups,
            " signups (",
            TrafficTab.sim_signups_today,
            " today)",
            class_name="mb-2 text-sm text-slate-400",
        ),
        rx.el.ul(rx.foreach(TrafficTab.sim_feed, _sim_feed_row)),
        title="Simulated traffic",
        extra=simulated_mark(),
        class_name="mt-4 rounded-xl border border-dashed border-slate-700 bg-slate-900/40 p-4",
    )


def traffic_tab() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.h2("Live Traffic", class_name="text-lg font-semibold"),
            rx.el.span("from the requests the sites' servers logged", class_name="text-xs text-slate-400"),
            class_name="mb-3 flex flex-wrap items-center gap-2",
        ),
        rx.el.div(
            stat_card(
                "Requests / min",
                TrafficTab.requests_per_minute,
                "activity",
                note=rx.cond(
                    TrafficTab.capacity != "",
                    rx.el.p(TrafficTab.capacity, class_name="mt-1 text-xs text-slate-400", data_testid="traffic-capacity"),
                ),
            ),
            stat_card("Active Clients", TrafficTab.active_clients, "users"),
            stat_card("Bandwidth", TrafficTab.bandwidth, "gauge"),
            stat_card("Signups Today", TrafficTab.signups_today, "user-plus"),
            class_name="grid grid-cols-2 gap-3 xl:grid-cols-4",
        ),
        rx.el.div(
            card(
                _feed(TrafficTab.feed, FEED_EMPTY),
                title="Latest Requests",
                class_name=WIDE_CARD,
                data_testid="latest-requests",
            ),
            rx.el.div(
                card(
                    rx.el.ul(rx.foreach(TrafficTab.mix, _mix_row)),
                    rx.el.p(
                        TrafficTab.requests_last_hour, " requests in the last hour", class_name="mt-1 text-xs text-slate-400"
                    ),
                    title="Status Mix",
                ),
                card(
                    rx.cond(
                        TrafficTab.top_paths.length() > 0,
                        rx.el.ul(rx.foreach(TrafficTab.top_paths, _path_row)),
                        rx.el.p("No request in the last 5 minutes.", class_name="text-sm text-slate-400"),
                    ),
                    title="Top Paths (5 min)",
                ),
                class_name="grid gap-4",
            ),
            class_name="mt-4 grid gap-4 xl:grid-cols-3",
        ),
        rx.el.div(rx.foreach(TrafficTab.sites_traffic, _site_traffic), class_name="mt-4 grid gap-4 md:grid-cols-2"),
        rx.cond(TrafficTab.simulation_on, _simulated_traffic()),
    )


def _client_row(row: ClientView) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.span(row.time, class_name="font-mono text-xs text-slate-400"),
            rx.el.span(row.client, class_name="font-mono text-sm"),
            rx.el.span(row.site, class_name="text-sm text-cyan-300"),
            rx.el.span(row.verdict, class_name="text-sm font-semibold uppercase " + row.verdict_class),
            rx.el.span(row.requests, rx.cond(row.requests == 1, " request", " requests"), class_name="text-xs text-slate-400"),
            class_name="flex flex-wrap items-center gap-3",
        ),
        rx.el.p(row.reason, class_name="break-all text-xs text-slate-400"),
        class_name="border-b border-slate-800 py-1.5 last:border-0",
    )


def users_tab() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.h2("User Scan", class_name="text-lg font-semibold"),
            rx.el.span("the clients the sites logged in the last 24 h", class_name="text-xs text-slate-400"),
            class_name="mb-3 flex flex-wrap items-center gap-2",
        ),
        rx.el.div(
            stat_card("Clean", UserScanTab.user_clean, "user-check", "text-emerald-300"),
            stat_card("Suspicious", UserScanTab.user_suspicious, "user-search", "text-amber-300"),
            stat_card("Blocked", UserScanTab.user_blocked, "user-x", "text-red-300"),
            class_name="grid grid-cols-3 gap-3",
        ),
        card(
            rx.cond(
                UserScanTab.recent_clients.length() > 0,
                rx.el.ul(rx.foreach(UserScanTab.recent_clients, _client_row)),
                rx.el.p("No client logged yet.", class_name="text-slate-400"),
            ),
            title="Recent Clients",
            class_name="mt-4 rounded-xl border border-slate-800 bg-slate-900/60 p-4",
        ),
        decisions_card(),
        rx.cond(
            UserScanTab.simulation_on,
            card(
                rx.el.p(
                    UserScanTab.sim_clean,
                    " clean · ",
                    UserScanTab.sim_suspicious,
                    " suspicious · ",
                    UserScanTab.sim_blocked,
                    " blocked",
                    class_name="text-sm text-slate-400",
                ),
                title="Simulated user scans",
                extra=simulated_mark(),
                class_name="mt-4 rounded-xl border border-dashed border-slate-700 bg-slate-900/40 p-4",
            ),
        ),
    )
