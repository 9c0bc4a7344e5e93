"""The Dashboard's Problem Database tab: every security event, filtered, with the admins' resolve dialog."""

import reflex as rx

from secdash.components.badges import event_severity_badge, pill
from secdash.components.cards import card, sample_mark
from secdash.components.focus import dialog_content
from secdash.core.demo_sites import NAME_OF
from secdash.routes import FIX_MODE_ROUTE
from secdash.state.auth import AuthState
from secdash.state.dashboard import (
    MAX_NOTE_LENGTH,
    ProblemsTab,
)
from secdash.state.dashboard_views import EventView

SAMPLE_PROBLEMS = (
    ("high", "SQL injection attempt blocked on login form", NAME_OF["stock"], "threat_blocked"),
    ("medium", "Cross-site scripting payload in search query", NAME_OF["tour"], "attack_detected"),
    ("low", "Missing security header patched", NAME_OF["gem"], "vulnerability_fixed"),
)
_SELECT = "rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-200"
# On a phone the table becomes cards: each row wraps to time, site and severity; the problem across
# the card; then type and action.
_TABLE = "w-full max-md:block"
_BODY = "max-md:flex max-md:flex-col max-md:gap-2"
_ROW = (
    "border-b border-slate-800 align-top max-md:flex max-md:flex-wrap max-md:items-center max-md:gap-x-3 "
    "max-md:gap-y-1 max-md:rounded-lg max-md:border max-md:bg-slate-950/60 max-md:p-3"
)
_CELL = "pr-3 max-md:p-0"
_PROBLEM_CELL = "pr-3 max-md:w-full max-md:p-0"


def _problem_row(event: EventView) -> rx.Component:
    return rx.el.tr(
        rx.el.td(event.created, class_name=f"whitespace-nowrap py-2 font-mono text-xs text-slate-400 {_CELL}"),
        rx.el.td(event.site, class_name=f"text-sm {_CELL}"),
        rx.el.td(event_severity_badge(event.severity), class_name=_CELL),
        rx.el.td(
            rx.el.div(event.description, class_name="text-sm text-slate-200"),
            rx.cond(
                event.location != "",
                rx.el.div(event.location, " · ", event.rule, class_name="font-mono text-xs text-slate-400"),
                rx.fragment(),
            ),
            rx.cond(event.resolution != "", rx.el.div(event.resolution, class_name="text-xs text-emerald-400"), rx.fragment()),
            rx.cond(
                event.reopened != "",
                rx.el.div("Reopened: ", event.reopened, class_name="text-xs text-amber-300", data_testid="reopened"),
                rx.fragment(),
            ),
            class_name=_PROBLEM_CELL,
        ),
        rx.el.td(event.event_type, class_name=f"text-xs text-slate-400 {_CELL}"),
        rx.el.td(
            rx.el.div(
                rx.cond(
                    event.resolved,
                    pill("Resolved", "bg-emerald-500/15 text-emerald-300 border-emerald-500/40"),
                    rx.cond(
                        AuthState.is_admin,
                        rx.el.button(
                            "Resolve",
                            on_click=ProblemsTab.open_resolve(event.id),
                            class_name="rounded-md border border-slate-700 px-2 py-1 text-xs hover:bg-slate-800",
                        ),
                        pill("Open", "bg-red-500/15 text-red-300 border-red-500/40"),
                    ),
                ),
                rx.cond(
                    ~event.resolved & (event.event_type == "vulnerability_detected"),
                    rx.link(
                        "Fix",
                        href=FIX_MODE_ROUTE,
                        aria_label="Fix this problem in Fix Mode",
                        class_name="rounded-md border border-cyan-700 px-2 py-1 text-xs text-cyan-300 hover:bg-slate-800",
                    ),
                    rx.fragment(),
                ),
                class_name="flex items-center gap-2",
            ),
            class_name="max-md:ml-auto",
        ),
        class_name=_ROW,
        data_testid="problem-row",
    )


def _sample_problem_rows() -> list[rx.Component]:
    return [
        rx.el.tr(
            rx.el.td(sample_mark(), class_name=f"py-2 {_CELL}"),
            rx.el.td(site, class_name=f"text-sm text-slate-400 {_CELL}"),
            rx.el.td(event_severity_badge(sev), class_name=_CELL),
            rx.el.td(text, class_name=f"text-sm text-slate-400 {_PROBLEM_CELL}"),
            rx.el.td(kind, class_name=f"text-xs text-slate-400 {_CELL}"),
            rx.el.td("", class_name="max-md:hidden"),
            class_name=_ROW,
        )
        for sev, text, site, kind in SAMPLE_PROBLEMS
    ]


DISPOSITION_CHOICES = (
    ("fixed", "Fixed"),
    ("false_positive", "False positive (nothing was wrong)"),
    ("accepted_risk", "Accepted risk (the note gives the reason)"),
)
ACCEPTANCE_CHOICES = (("", "No end date"), ("30", "For 30 days"), ("90", "For 90 days"), ("365", "For a year"))


def resolve_dialog() -> rx.Component:
    return rx.dialog.root(
        dialog_content(
            rx.dialog.title("Resolve security event"),
            rx.el.textarea(
                placeholder="Note: what was done, or why the risk is accepted",
                value=ProblemsTab.resolve_note,
                on_change=ProblemsTab.set_resolve_note,
                aria_label="Resolution note",
                class_name="mt-2 min-h-24 w-full rounded-md border border-slate-700 bg-slate-950 p-2",
            ),
            rx.el.p(
                ProblemsTab.resolve_note.length().to_string(),
                f" / {MAX_NOTE_LENGTH:,} characters",
                class_name=rx.cond(ProblemsTab.resolve_note.length() > MAX_NOTE_LENGTH, "text-red-300", "text-slate-400")
                + " mt-1 text-right text-xs",
                aria_live="polite",
                data_testid="note-counter",
            ),
            rx.el.fieldset(
                rx.el.legend("How was it closed?", class_name="text-sm text-slate-300"),
                *[
                    rx.el.label(
                        rx.el.input(
                            type="radio",
                            name="disposition",
                            value=value,
                            checked=ProblemsTab.resolve_disposition == value,
                            on_change=ProblemsTab.set_resolve_disposition,
                            class_name="h-4 w-4 accent-cyan-500",
                            data_testid=f"disposition-{value}",
                        ),
                        label,
                        class_name="flex items-center gap-2 text-sm text-slate-300",
                    )
                    for value, label in DISPOSITION_CHOICES
                ],
                class_name="mt-2 flex flex-col gap-1",
            ),
            rx.cond(
                ProblemsTab.resolve_disposition == "accepted_risk",
                rx.el.select(
                    *[rx.el.option(label, value=value) for value, label in ACCEPTANCE_CHOICES],
                    value=ProblemsTab.resolve_until_days,
                    on_change=ProblemsTab.set_resolve_until_days,
                    aria_label="Accepted until",
                    class_name=_SELECT + " mt-2",
                ),
                rx.fragment(),
            ),
            rx.el.p(
                "A later scan keeps a false positive or an accepted risk closed while the flagged code is "
                "unchanged; it reopens, saying why, when that code changes or the acceptance ends.",
                class_name="mt-2 text-xs text-slate-400",
            ),
            rx.el.div(
                rx.el.button(
                    "Cancel",
                    on_click=ProblemsTab.cancel_resolve,
                    class_name="ml-auto rounded-md border border-slate-700 px-3 py-2",
                ),
                rx.el.button(
                    "Mark resolved",
                    on_click=ProblemsTab.confirm_resolve,
                    class_name="rounded-md bg-emerald-500 px-3 py-2 text-slate-950",
                ),
                class_name="mt-3 flex gap-2",
            ),
        ),
        open=ProblemsTab.resolving_id > 0,
        on_open_change=lambda _open: ProblemsTab.cancel_resolve(),
    )


def problems_tab() -> rx.Component:
    filters = rx.el.div(
        rx.el.select(
            *[
                rx.el.option(label, value=value)
                for value, label in (("all", "All severities"), ("high", "High"), ("medium", "Medium"), ("low", "Low"))
            ],
            value=ProblemsTab.filter_severity,
            on_change=ProblemsTab.set_filter_severity,
            aria_label="Severity",
            class_name=_SELECT,
        ),
        rx.el.select(
            *[
                rx.el.option(label, value=value)
                for value, label in (
                    ("all", "Open and resolved"),
                    ("open", "Open"),
                    ("resolved", "Resolved"),
                    ("suppressed", "False positives and accepted risks"),
                )
            ],
            value=ProblemsTab.filter_status,
            on_change=ProblemsTab.set_filter_status,
            aria_label="Status",
            class_name=_SELECT,
        ),
        rx.el.label(
            rx.el.input(
                type="checkbox",
                checked=ProblemsTab.include_drills,
                on_change=ProblemsTab.set_include_drills,
                class_name="h-4 w-4 accent-cyan-500",
                data_testid="include-drills",
            ),
            "Include drills",
            class_name="flex items-center gap-2 text-sm text-slate-300",
        ),
        rx.el.input(
            placeholder="Search descriptions...",
            default_value=ProblemsTab.search,
            max_length=200,
            on_change=ProblemsTab.set_search.debounce(300),
            aria_label="Search",
            class_name=_SELECT + " min-w-48 flex-1",
        ),
        class_name="mb-3 flex flex-wrap gap-2",
    )
    table = rx.el.div(
        rx.el.table(
            rx.el.thead(
                rx.el.tr(
                    *[
                        rx.el.th(h, class_name="pb-2 pr-3 text-left text-xs font-medium text-slate-400")
                        for h in ("Time", "Site", "Severity", "Problem", "Type", "Status")
                    ]
                ),
                class_name="max-md:hidden",
            ),
            rx.el.tbody(
                rx.cond(
                    ProblemsTab.problems.length() > 0,
                    rx.foreach(ProblemsTab.problems, _problem_row),
                    rx.cond(
                        (ProblemsTab.filter_severity == "all")
                        & (ProblemsTab.filter_status == "all")
                        & (ProblemsTab.search == ""),
                        rx.fragment(*_sample_problem_rows()),
                        rx.el.tr(rx.el.td("No events match these filters.", col_span=6, class_name="py-4 text-slate-400")),
                    ),
                ),
                class_name=_BODY,
            ),
            class_name=_TABLE,
        ),
        class_name="max-h-[600px] overflow-auto",
        tab_index=0,
        role="region",
        aria_label="Security problems",
    )
    return card(
        filters,
        rx.cond(
            ProblemsTab.problems_loading,
            rx.el.p("Loading security database...", class_name="p-6 text-center text-slate-400"),
            table,
        ),
        resolve_dialog(),
        title="Problem Database",
    )
