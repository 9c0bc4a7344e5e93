"""User Scan's Decisions card (administrators): the bans and throttles in force, an address or range to add, and
a way to lift each. The server reads the decisions only for administrators and refuses changes from anyone else."""

import reflex as rx

from secdash.components.cards import card
from secdash.pages.settings_styles import HELP, INPUT, SELECT
from secdash.state.dashboard import UserScanTab
from secdash.state.traffic_views import DECISION_DURATIONS, DecisionView

_FIELD = "flex min-w-0 flex-col gap-1"
_LABEL = "text-xs text-slate-400"


def _decision_row(row: DecisionView) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.span(row.value, class_name="font-mono text-sm"),
            rx.el.span(row.type, class_name="text-sm font-semibold uppercase text-red-300"),
            rx.el.span(row.origin, class_name="text-xs text-slate-400"),
            rx.el.span(row.ends, class_name="text-xs text-slate-400"),
            rx.el.button(
                "Lift",
                on_click=UserScanTab.lift_decision(row.id),
                aria_label="Lift the decision on " + row.value,
                class_name="ml-auto rounded-md border border-slate-700 px-2 py-1 text-xs hover:border-red-400",
            ),
            class_name="flex flex-wrap items-center gap-3",
        ),
        rx.el.p(row.why, class_name="break-all text-xs text-slate-400"),
        class_name="border-b border-slate-800 py-1.5 last:border-0",
        data_testid="decision-row",
    )


def _add_form() -> rx.Component:
    return rx.el.form(
        rx.el.div(
            rx.el.label("Address or range", html_for="decision-value", class_name=_LABEL),
            rx.el.input(
                id="decision-value",
                name="value",
                placeholder="203.0.113.7 or 203.0.113.0/24",
                value=UserScanTab.decision_value,
                on_change=UserScanTab.set_decision_value,
                max_length=60,
                auto_complete="off",
                class_name=INPUT,
            ),
            class_name=_FIELD + " sm:col-span-2",
        ),
        rx.el.div(
            rx.el.label("Type", html_for="decision-type", class_name=_LABEL),
            rx.el.select(
                rx.el.option("Ban", value="ban"),
                rx.el.option("Throttle", value="throttle"),
                id="decision-type",
                value=UserScanTab.decision_type,
                on_change=UserScanTab.set_decision_type,
                class_name=SELECT,
            ),
            class_name=_FIELD,
        ),
        rx.el.div(
            rx.el.label("For", html_for="decision-duration", class_name=_LABEL),
            rx.el.select(
                *[rx.el.option(label, value=seconds) for seconds, label in DECISION_DURATIONS.items()],
                id="decision-duration",
                value=UserScanTab.decision_duration,
                on_change=UserScanTab.set_decision_duration,
                class_name=SELECT,
            ),
            class_name=_FIELD,
        ),
        rx.el.div(
            rx.el.label("Reason", html_for="decision-reason", class_name=_LABEL),
            rx.el.input(
                id="decision-reason",
                name="reason",
                placeholder="optional",
                value=UserScanTab.decision_reason,
                on_change=UserScanTab.set_decision_reason,
                max_length=300,
                class_name=INPUT,
            ),
            class_name=_FIELD + " sm:col-span-3",
        ),
        rx.el.button(
            rx.cond(UserScanTab.deciding, "Adding…", "Add decision"),
            type="submit",
            disabled=UserScanTab.deciding,
            class_name="self-end rounded-md bg-cyan-500 px-3 py-2 text-sm font-medium text-slate-950 disabled:opacity-60",
        ),
        on_submit=lambda _form: UserScanTab.add_decision(),
        prevent_default=True,
        class_name="mt-3 grid grid-cols-1 gap-2 border-t border-slate-800 pt-3 sm:grid-cols-4",
    )


def decisions_card() -> rx.Component:
    return rx.cond(
        UserScanTab.shows_decisions,
        card(
            rx.cond(
                UserScanTab.decisions.length() > 0,
                rx.el.ul(rx.foreach(UserScanTab.decisions, _decision_row)),
                rx.el.p("No decision in force.", class_name="text-slate-400"),
            ),
            _add_form(),
            rx.el.p(
                "CrowdSec bouncers registered with POST /api/bouncers enforce these on their next pull; a lifted "
                "decision reaches them as removed.",
                class_name=HELP + " mt-2",
            ),
            title="Decisions",
            class_name="mt-4 rounded-xl border border-slate-800 bg-slate-900/60 p-4",
        ),
    )
