"""History Logs (/history): the audit trail."""

import reflex as rx

from secdash.components.badges import severity_badge
from secdash.components.screens import page_header
from secdash.state.history import HistoryState, LogEntryView

CATEGORY_ICONS = {"security": "shield", "ai": "bot", "battle": "swords", "user": "user", "system": "settings"}
TAB_SPECS = (
    ("all", "All Events", HistoryState.all_entries, "No logs available"),
    ("security", "Security", HistoryState.security_entries, "No security logs"),
    ("ai", "AI Actions", HistoryState.ai_entries, "No AI action logs"),
    ("battle", "Battle Station", HistoryState.battle_entries, "No battle station logs"),
)


def _category_icon(category: rx.Var[str]) -> rx.Component:
    return rx.match(
        category,
        *[(name, rx.icon(icon, class_name="w-5 h-5 text-cyan-300")) for name, icon in CATEGORY_ICONS.items()],
        rx.icon("circle-dot", class_name="w-5 h-5 text-slate-400"),
    )


def _entry(entry: LogEntryView) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.div(_category_icon(entry.category), class_name="self-start rounded-md bg-slate-800 p-2"),
            rx.el.div(
                rx.el.div(
                    rx.el.span(entry.action, class_name="font-semibold text-slate-100"),
                    severity_badge(entry.severity),
                    rx.el.span(entry.time_label, class_name="ml-auto text-xs text-slate-400 font-mono"),
                    class_name="flex flex-wrap items-center gap-2",
                ),
                rx.el.p(entry.description, class_name="text-sm text-slate-300 mt-1"),
                rx.el.pre(
                    entry.metadata_json,
                    # Wrapped, not a scroll box of its own: readable on a phone and no extra tab stop.
                    class_name="mt-2 whitespace-pre-wrap break-all rounded-md bg-slate-950 p-2 text-xs text-slate-400",
                ),
                class_name="min-w-0 flex-1",
            ),
            class_name="flex gap-3",
        ),
        class_name="rounded-lg border border-slate-800 bg-slate-900/60 p-3",
        data_testid="history-entry",
    )


def _more(key: str) -> rx.Component:
    """How much of the tab is shown, and the next page of older entries."""
    shown, total = HistoryState.shown.get(key, 0), HistoryState.counts.get(key, 0)
    return rx.el.div(
        rx.el.span("Showing ", shown.to_string(), " of ", total.to_string(), class_name="text-xs text-slate-400"),
        rx.cond(
            shown < total,
            rx.el.button(
                "Load older entries",
                type="button",
                on_click=HistoryState.load_more(key),
                class_name="rounded-md border border-slate-700 px-3 py-1.5 text-sm text-slate-200 hover:border-cyan-500",
            ),
            rx.fragment(),
        ),
        class_name="mt-3 flex flex-wrap items-center justify-between gap-2",
        data_testid="history-more",
    )


def _tab_list(key: str, entries: rx.Var[list[LogEntryView]], empty_text: str) -> rx.Component:
    return rx.el.div(
        rx.cond(
            HistoryState.loading,
            rx.el.p("Loading history logs...", class_name="p-6 text-center text-slate-400"),
            rx.cond(
                entries.length() > 0,
                rx.el.div(rx.el.ul(rx.foreach(entries, _entry), class_name="flex flex-col gap-2"), _more(key)),
                rx.el.p(empty_text, class_name="p-6 text-center text-slate-400"),
            ),
        ),
        class_name="h-[600px] overflow-y-auto pr-1",
        tab_index=0,
        role="region",
        aria_label="Log entries",
    )


def history_content() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            page_header("History Logs", "Complete audit trail of all system activities"),
            rx.el.span(
                rx.el.span(class_name="h-2 w-2 rounded-full bg-emerald-400 animate-pulse"),
                "Real-time updates",
                class_name="flex items-center gap-2 rounded-full border border-emerald-500/40 px-3 py-1 text-sm text-emerald-300",
            ),
            class_name="flex flex-wrap items-start justify-between gap-4",
        ),
        rx.el.section(
            rx.el.div(
                rx.el.h2("System Activity Log", class_name="text-lg font-semibold text-slate-100"),
                rx.el.input(
                    type="search",
                    placeholder="Filter by text...",
                    default_value=HistoryState.search,
                    on_change=HistoryState.set_search.debounce(300),
                    aria_label="Filter logs by text",
                    class_name="w-full max-w-xs rounded-md border border-slate-700 bg-slate-950 px-3 py-1.5 "
                    "text-sm text-slate-100",
                ),
                class_name="mb-3 flex flex-wrap items-center justify-between gap-2",
            ),
            rx.tabs.root(
                rx.tabs.list(
                    *[
                        rx.tabs.trigger(
                            f"{label} (",
                            HistoryState.counts.get(key, 0).to_string(),
                            ")",
                            value=key,
                        )
                        for key, label, _entries, _empty in TAB_SPECS
                    ],
                    class_name="overflow-x-auto",
                ),
                *[
                    rx.tabs.content(_tab_list(key, entries, empty), value=key, class_name="pt-3")
                    for key, _label, entries, empty in TAB_SPECS
                ],
                value=HistoryState.active_tab,
                on_change=HistoryState.set_active_tab,
            ),
            class_name="rounded-xl border border-slate-800 bg-slate-900/40 p-4",
        ),
        on_unmount=HistoryState.stop_following,
    )
