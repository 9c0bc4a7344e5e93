"""Battle Station's active-threat panel: "<label> Attack in Progress", the AI Defense Active badge, the drill's
progress, its live execution log and the defense code (or, after a failed defend request, the fallback code)."""

import reflex as rx

from secdash.components.job_log import log_line
from secdash.state.battle import BattleState

BADGE = "inline-flex items-center gap-1.5 rounded-md border px-2.5 py-1 text-xs font-bold tracking-wide"


def _execution_log() -> rx.Component:
    # column-reverse keeps the scroll position at the newest line while lines arrive (no script needed)
    return rx.el.div(
        rx.el.h3("Live execution log", class_name="mb-1 text-xs font-semibold text-slate-400"),
        rx.el.div(
            rx.el.ol(
                rx.cond(
                    BattleState.log.length() > 0,
                    rx.foreach(BattleState.log, log_line),
                    rx.el.li("Waiting for the drill to start...", class_name="text-slate-400"),
                ),
                class_name="flex flex-col gap-0.5",
            ),
            class_name="flex h-56 flex-col-reverse overflow-y-auto rounded-md border border-slate-800 bg-slate-950/80 "
            "p-2 font-mono text-xs",
            aria_live="polite",
            tab_index=0,
            aria_label="Live execution log",
            data_testid="execution-log",
        ),
    )


def _code_block(text, testid: str) -> rx.Component:
    return rx.el.pre(
        text,
        class_name="max-h-64 overflow-auto whitespace-pre-wrap break-words rounded-md border border-slate-800 "
        "bg-slate-950/80 p-2 font-mono text-xs text-emerald-200",
        tab_index=0,
        data_testid=testid,
    )


def _progress(percent) -> rx.Component:
    return rx.el.div(
        rx.el.div(class_name="h-full rounded-full bg-red-500 transition-all", style={"width": percent.to_string() + "%"}),
        class_name="h-2 w-full overflow-hidden rounded-full bg-slate-800",
        role="progressbar",
        aria_label="Drill progress",
        aria_valuenow=percent,
        aria_valuemin=0,
        aria_valuemax=100,
        data_testid="drill-progress",
    )


def active_panel() -> rx.Component:
    failed = BattleState.fallback_code != ""
    drill = rx.el.div(
        rx.el.div(
            rx.el.span(
                BattleState.active_site,
                " · ",
                BattleState.active_phase,
                rx.cond(BattleState.active_simulated, " · simulated threat", ""),
                class_name="text-xs text-slate-400",
            ),
            rx.el.span(
                BattleState.active_percent.to_string() + "%",
                class_name="font-mono text-xs text-slate-300",
                data_testid="drill-percent",
            ),
            class_name="flex items-center justify-between gap-2",
        ),
        _progress(BattleState.active_percent),
        rx.el.div(
            _execution_log(),
            rx.el.div(
                rx.el.h3("Defense code", class_name="mb-1 text-xs font-semibold text-slate-400"),
                rx.cond(
                    BattleState.active_code != "",
                    _code_block(BattleState.active_code, "defense-code"),
                    rx.el.p(
                        "The agent writes the defense after the baseline run.",
                        class_name="rounded-md border border-dashed border-slate-700 p-2 text-xs text-slate-400",
                    ),
                ),
            ),
            class_name="grid grid-cols-1 gap-3 lg:grid-cols-2",
        ),
        class_name="flex flex-col gap-3",
    )
    fallback = rx.el.div(
        rx.el.h3("Defense code", class_name="mb-1 text-xs font-semibold text-slate-400"),
        _code_block(BattleState.fallback_code, "fallback-code"),
    )
    return rx.el.section(
        rx.el.div(
            rx.el.h2(
                rx.cond(failed, BattleState.fallback_label, BattleState.active_label),
                " Attack in Progress",
                class_name="flex items-center gap-2 text-lg font-semibold text-red-200",
            ),
            rx.el.span(
                rx.icon("shield", class_name="h-3.5 w-3.5"),
                "AI Defense Active",
                class_name=f"{BADGE} border-cyan-500/50 bg-cyan-500/10 text-cyan-300",
            ),
            class_name="mb-3 flex flex-wrap items-center justify-between gap-2",
        ),
        rx.cond(failed, fallback, drill),
        class_name="rounded-xl border border-red-500/40 bg-red-950/30 p-4",
        aria_label="Active threat",
        data_testid="active-threat",
    )
