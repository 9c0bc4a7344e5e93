"""Battle Station's Defense History (400px list of operations: label, status, effectiveness, strategy, the first
3 lines of the defense code, counts and MITRE technique, source and time) and the demo sites' current defenses."""

import reflex as rx

from secdash.components.cards import card
from secdash.state.auth import AuthState
from secdash.state.battle import BattleState, DefenseRow, OperationView


def _effectiveness(op: OperationView) -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.span("Effectiveness", class_name="text-slate-400"),
            rx.el.span(
                op.effectiveness_label,
                class_name=rx.cond(op.effectiveness_high, "font-semibold text-emerald-300", "font-semibold text-amber-300"),
                data_testid="effectiveness",
            ),
            class_name="flex items-center justify-between text-xs",
        ),
        rx.el.div(
            rx.el.div(
                class_name=rx.cond(
                    op.effectiveness_high, "h-full rounded-full bg-emerald-500", "h-full rounded-full bg-amber-500"
                ),
                style={"width": op.effectiveness_bar.to_string() + "%"},
            ),
            class_name="mt-1 h-1.5 w-full overflow-hidden rounded-full bg-slate-800",
            role="progressbar",
            aria_label="Effectiveness",
            aria_valuenow=op.effectiveness_bar,
            aria_valuemin=0,
            aria_valuemax=100,
        ),
    )


def _operation(op: OperationView) -> rx.Component:
    badge = "rounded-md border px-2 py-0.5 text-xs font-semibold"
    return rx.el.li(
        rx.el.div(
            rx.el.div(
                rx.el.span(op.label, class_name="font-semibold text-slate-100"),
                rx.el.span(op.site, class_name="text-xs text-slate-400"),
                rx.cond(
                    op.simulated,
                    rx.el.span("simulated", class_name="rounded border border-violet-500/40 px-1 text-[10px] text-violet-300"),
                    rx.fragment(),
                ),
                class_name="flex flex-wrap items-baseline gap-2",
            ),
            rx.el.span(
                op.status,
                class_name=rx.cond(
                    op.defended,
                    f"{badge} border-emerald-500/40 bg-emerald-500/15 text-emerald-300",
                    f"{badge} border-amber-500/40 bg-amber-500/15 text-amber-300",
                ),
                data_testid="operation-status",
            ),
            class_name="flex items-start justify-between gap-2",
        ),
        _effectiveness(op),
        rx.el.p(op.strategy, class_name="text-xs text-slate-300"),
        rx.cond(
            op.code_head != "",
            rx.el.pre(
                op.code_head,
                class_name="overflow-x-auto whitespace-pre-wrap break-words "
                "rounded bg-slate-950/80 p-1.5 font-mono text-[11px] text-emerald-200",
            ),
            rx.fragment(),
        ),
        rx.el.p(
            op.counts,
            " · ",
            rx.el.a(
                op.mitre_id,
                href=op.mitre_url,
                target="_blank",
                rel="noopener noreferrer",
                title=op.mitre_name,
                class_name="text-cyan-300 underline underline-offset-2",
            ),
            class_name="text-xs text-slate-300",
            data_testid="operation-counts",
        ),
        rx.el.div(
            rx.el.span("Source: ", op.source),
            rx.el.span(op.time_label, class_name="font-mono"),
            class_name="flex flex-wrap justify-between gap-x-3 text-[11px] text-slate-400",
        ),
        class_name="flex flex-col gap-2 rounded-lg border border-slate-800 bg-slate-950/40 p-3",
        data_testid="operation",
        data_operation=op.id,
    )


def history() -> rx.Component:
    return card(
        rx.cond(
            BattleState.operations.length() > 0,
            rx.el.ol(
                rx.foreach(BattleState.operations, _operation),
                class_name="flex h-[400px] flex-col gap-2 overflow-y-auto pr-1",
                tab_index=0,
                aria_label="Defense operations",
                data_testid="defense-history",
            ),
            rx.el.p("No defense operations yet", class_name="p-6 text-center text-slate-400"),
        ),
        title="Defense History",
    )


def _defense_row(row: DefenseRow) -> rx.Component:
    cell = "px-2 py-1.5 align-middle"
    return rx.el.tr(
        rx.el.td(row.name, class_name=f"{cell} font-semibold text-slate-100"),
        rx.el.td(row.revision, class_name=f"{cell} tabular-nums", data_testid="defense-revision"),
        rx.el.td(
            rx.el.div(row.source),
            rx.el.div(row.updated, class_name="text-[11px] text-slate-400"),
            class_name=f"{cell}",
            data_testid="defense-source",
        ),
        rx.cond(
            AuthState.is_admin,
            rx.el.td(
                rx.el.button(
                    "Reset",
                    on_click=BattleState.reset_defense(row.slug),
                    type="button",
                    disabled=row.source == "default",
                    aria_label="Reset " + row.name + " defense",
                    class_name="rounded-md border border-slate-600 px-2 py-1 text-xs hover:bg-slate-800 "
                    "focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-cyan-400 "
                    "disabled:cursor-not-allowed disabled:text-slate-400",
                ),
                class_name=f"{cell} text-right",
            ),
            rx.fragment(),
        ),
        class_name="border-t border-slate-800",
        data_testid="defense-row",
        data_site=row.slug,
    )


def defenses() -> rx.Component:
    head = "px-2 py-1 text-left text-xs font-medium text-slate-400"
    return card(
        rx.el.div(
            rx.el.table(
                rx.el.thead(
                    rx.el.tr(
                        rx.el.th("Site", class_name=head),
                        rx.el.th("Revision", class_name=head),
                        rx.el.th("Source", class_name=head),
                        rx.cond(
                            AuthState.is_admin,
                            rx.el.th(rx.el.span("Action", class_name="sr-only"), class_name=head),
                            rx.fragment(),
                        ),
                    )
                ),
                rx.el.tbody(rx.foreach(BattleState.defenses, _defense_row)),
                class_name="w-full text-sm text-slate-200",
            ),
            class_name="overflow-x-auto",
        ),
        rx.el.p(
            "A defense stays as the last drill left it; Reset puts the weak default back.",
            class_name="mt-2 text-xs text-slate-400",
        ),
        title="Demo site defenses",
        data_testid="demo-defenses",
    )
