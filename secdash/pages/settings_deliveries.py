"""Settings: the live delivery log (the newest deliveries with their outcome, attempts and error)."""

import reflex as rx

from secdash.components.cards import card
from secdash.components.styles import BADGE as _BADGE
from secdash.state.settings_deliveries import SettingsDeliveriesState
from secdash.state.settings_view import DeliveryRow

D = SettingsDeliveriesState
OUTCOME_CLASSES = (
    ("sent", "bg-emerald-500/15 text-emerald-300 border-emerald-500/40"),
    ("failed", "bg-red-500/15 text-red-300 border-red-500/40"),
    ("retrying", "bg-amber-500/15 text-amber-300 border-amber-500/40"),
    ("pending", "bg-cyan-500/15 text-cyan-300 border-cyan-500/40"),
)


def outcome_badge(outcome, label=None, **props) -> rx.Component:
    return rx.el.span(
        label if label is not None else outcome,
        class_name=rx.match(
            outcome,
            *[(key, f"{_BADGE} {value}") for key, value in OUTCOME_CLASSES],
            f"{_BADGE} bg-slate-500/15 text-slate-300 border-slate-500/40",
        ),
        **props,
    )


# --- delivery log -------------------------------------------------------------------------------------------


def _delivery(row: DeliveryRow) -> rx.Component:
    return rx.el.li(
        rx.el.span(row.time, class_name="font-mono text-xs text-slate-400 md:col-span-3"),
        rx.el.span(row.channel, class_name="break-words text-sm text-slate-200 md:col-span-2"),
        rx.el.span(row.kind, class_name="text-sm text-slate-300 md:col-span-1"),
        rx.el.span(row.title, class_name="break-words text-sm text-slate-100 md:col-span-3"),
        rx.el.span(
            outcome_badge(row.outcome, data_testid="delivery-outcome"),
            rx.el.span(row.attempts, rx.cond(row.attempts == 1, " attempt", " attempts"), class_name="text-xs text-slate-400"),
            class_name="flex flex-wrap items-center gap-2 md:col-span-3",
        ),
        rx.cond(
            row.error != "",
            rx.el.span(row.error, class_name="break-words text-xs text-red-300 md:col-span-12", data_testid="delivery-error"),
            rx.fragment(),
        ),
        class_name="grid grid-cols-1 gap-1 border-b border-slate-800 py-2 last:border-b-0 md:grid-cols-12 md:gap-3",
        data_testid="delivery-row",
    )


def log_section() -> rx.Component:
    head = "text-xs font-semibold uppercase tracking-wide text-slate-400"
    return card(
        rx.cond(
            D.deliveries.length() > 0,
            rx.el.div(
                rx.el.div(
                    rx.el.span("Time", class_name=f"{head} md:col-span-3"),
                    rx.el.span("Channel", class_name=f"{head} md:col-span-2"),
                    rx.el.span("Kind", class_name=f"{head} md:col-span-1"),
                    rx.el.span("Title", class_name=f"{head} md:col-span-3"),
                    rx.el.span("Outcome", class_name=f"{head} md:col-span-3"),
                    class_name="hidden border-b border-slate-800 pb-2 md:grid md:grid-cols-12 md:gap-3",
                    aria_hidden="true",
                ),
                rx.el.ul(rx.foreach(D.deliveries, _delivery), aria_label="Deliveries, newest first"),
            ),
            rx.el.p("Nothing sent yet.", class_name="text-sm text-slate-400", data_testid="no-deliveries"),
        ),
        title="Delivery log",
        extra=rx.el.span("newest first · live", class_name="text-xs text-slate-400"),
        aria_label="Delivery log",
        data_testid="delivery-log",
    )
