"""The site list's selection bar (admins): how many are chosen, "Select all N matching", pause, resume, and remove
after a confirmation naming how many. The server checks the role (services/monitoring/site_bulk.py)."""

import reflex as rx

from secdash.state.auth import AuthState
from secdash.state.dashboard import OverviewTab

BUTTON = "rounded-md border border-slate-700 px-2 py-1 text-xs hover:bg-slate-800 disabled:opacity-40"


def bulk_bar() -> rx.Component:
    count = OverviewTab.selected_count
    return rx.cond(
        AuthState.is_admin & (count > 0),
        rx.el.div(
            rx.el.div(
                rx.el.span(count, " selected", class_name="font-semibold text-slate-100", data_testid="selected-count"),
                rx.cond(
                    ~OverviewTab.select_all_matching & (OverviewTab.list_matching > count),
                    rx.el.button(
                        "Select all ",
                        OverviewTab.list_matching,
                        " matching",
                        type="button",
                        on_click=OverviewTab.select_all_matching_sites,
                        class_name=BUTTON + " text-cyan-300",
                    ),
                    rx.fragment(),
                ),
                rx.el.button(
                    "Pause monitoring",
                    type="button",
                    on_click=OverviewTab.pause_selected,
                    disabled=OverviewTab.bulk_busy,
                    class_name=BUTTON,
                ),
                rx.el.button(
                    "Resume monitoring",
                    type="button",
                    on_click=OverviewTab.resume_selected,
                    disabled=OverviewTab.bulk_busy,
                    class_name=BUTTON,
                ),
                rx.el.button("Remove", type="button", on_click=OverviewTab.ask_bulk_remove, class_name=BUTTON + " text-red-300"),
                rx.el.button("Clear selection", type="button", on_click=OverviewTab.clear_selection, class_name=BUTTON),
                class_name="flex flex-wrap items-center gap-2 text-sm",
            ),
            rx.cond(
                OverviewTab.confirm_bulk_remove,
                rx.el.div(
                    rx.el.p("Remove ", count, " sites?", class_name="font-semibold text-red-300"),
                    rx.el.p(
                        "Their monitoring stops and their check history is deleted. Their security events stay in the "
                        "Problem Database.",
                        class_name="text-sm text-slate-300",
                    ),
                    rx.el.div(
                        rx.el.button("Keep them", type="button", on_click=OverviewTab.keep_selected, class_name=BUTTON),
                        rx.el.button(
                            "Remove ",
                            count,
                            " sites",
                            type="button",
                            on_click=OverviewTab.remove_selected,
                            disabled=OverviewTab.bulk_busy,
                            class_name="rounded-md bg-red-600 px-3 py-1 text-sm font-semibold text-white hover:bg-red-500",
                        ),
                        class_name="flex flex-wrap gap-2",
                    ),
                    role="alert",
                    class_name="mt-2 flex flex-col gap-2 rounded-md border border-red-500/50 bg-red-500/10 p-3",
                ),
                rx.fragment(),
            ),
            class_name="rounded-md border border-cyan-500/30 bg-cyan-500/5 p-2",
            data_testid="bulk-bar",
        ),
        rx.fragment(),
    )
