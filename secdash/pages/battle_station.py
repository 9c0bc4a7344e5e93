"""Battle Station (/battle-station): the header with its clock and DEFENDING/SECURE badge, the six attack
buttons, the active-threat panel (progress, live execution log, defense code), the Defense History and the
four demo sites' current defenses.

Every figure on this page is measured by a drill against a bundled demo site (services/battle/drills.py).
"""

import reflex as rx

from secdash.components.cards import card
from secdash.components.clock import utc_clock
from secdash.components.job_log import log_line
from secdash.components.screens import page_header
from secdash.services.battle.attacks import ATTACKS
from secdash.services.battle.traffic import Attack
from secdash.state.auth import AuthState
from secdash.state.battle import BattleState, DefenseRow, OperationView

_BADGE = "inline-flex items-center gap-1.5 rounded-md border px-2.5 py-1 text-xs font-bold tracking-wide"


def _status_badge() -> rx.Component:
    return rx.cond(
        BattleState.defending,
        rx.el.span(
            rx.el.span(class_name="h-2 w-2 rounded-full bg-red-400 animate-pulse"),
            "DEFENDING",
            class_name=f"{_BADGE} border-red-500/50 bg-red-500/15 text-red-300",
            role="status",
            data_testid="battle-status",
        ),
        rx.el.span(
            rx.icon("shield-check", class_name="h-3.5 w-3.5"),
            "SECURE",
            class_name=f"{_BADGE} border-emerald-500/50 bg-emerald-500/15 text-emerald-300",
            role="status",
            data_testid="battle-status",
        ),
    )


def _header() -> rx.Component:
    return rx.el.div(
        page_header("Battle Station", "Real drills against the bundled demo sites, defended by the platform agents"),
        rx.el.div(
            rx.el.span(
                utc_clock(), " UTC", class_name="whitespace-nowrap font-mono text-sm text-cyan-300", data_testid="battle-clock"
            ),
            _status_badge(),
            class_name="flex items-center gap-3 max-sm:mb-4",
        ),
        class_name="flex flex-wrap items-start justify-between gap-x-4",
    )


ATTACK_REASON_ID = "attack-reason"
ATTACK_REASON = "Read-only: only administrators may start Battle Station drills."


def _attack_button(attack: Attack) -> rx.Component:
    return rx.el.button(
        rx.icon(attack.icon, class_name="h-4 w-4 shrink-0"),
        attack.label,
        on_click=BattleState.trigger(attack.id),
        # A limited user sees why the attacks are off (the server refuses them anyway: drills.start_drill).
        disabled=BattleState.defending | BattleState.pending | ~AuthState.is_admin,
        aria_describedby=rx.cond(AuthState.is_admin, None, ATTACK_REASON_ID),
        title=rx.cond(AuthState.is_admin, "", ATTACK_REASON),
        type="button",
        class_name="flex items-center justify-center gap-2 rounded-lg border border-red-500/40 bg-red-500/10 px-3 py-2.5 "
        "text-sm font-semibold text-red-200 transition-colors hover:bg-red-500/20 focus-visible:outline-none "
        "focus-visible:ring-2 focus-visible:ring-cyan-400 disabled:cursor-not-allowed disabled:border-slate-700 "
        "disabled:bg-slate-800/60 disabled:text-slate-400",
        data_testid=f"attack-{attack.id}",
    )


def _attack_card() -> rx.Component:
    return card(
        rx.el.p(
            "Each button runs a bounded drill against one demo site: a baseline attack, the agent's defense, "
            "and the same attack again to measure it.",
            class_name="mb-3 text-sm text-slate-400",
        ),
        rx.el.div(*[_attack_button(attack) for attack in ATTACKS], class_name="grid grid-cols-2 gap-2 sm:grid-cols-3"),
        rx.cond(
            AuthState.is_admin,
            rx.fragment(),
            rx.el.p(ATTACK_REASON, id=ATTACK_REASON_ID, class_name="mt-3 text-xs text-slate-400", data_testid="attack-reason"),
        ),
        title="Real-Time Attack Response",
        data_testid="attack-card",
    )


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


def _active_panel() -> rx.Component:
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
                class_name=f"{_BADGE} border-cyan-500/50 bg-cyan-500/10 text-cyan-300",
            ),
            class_name="mb-3 flex flex-wrap items-center justify-between gap-2",
        ),
        rx.cond(failed, fallback, drill),
        class_name="rounded-xl border border-red-500/40 bg-red-950/30 p-4",
        aria_label="Active threat",
        data_testid="active-threat",
    )


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


def _history() -> rx.Component:
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


def _defenses() -> rx.Component:
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


def battle_station_content() -> rx.Component:
    return rx.el.div(
        _header(),
        rx.cond(
            BattleState.loading,
            rx.el.p("Initializing Battle Station...", class_name="p-6 text-center text-slate-400", role="status"),
            rx.el.div(
                _attack_card(),
                rx.cond(BattleState.defending, _active_panel(), rx.fragment()),
                rx.el.div(
                    rx.el.div(_history(), class_name="min-w-0 lg:col-span-2"),
                    rx.el.div(_defenses(), class_name="min-w-0"),
                    class_name="grid grid-cols-1 gap-4 lg:grid-cols-3",
                ),
                class_name="flex flex-col gap-4",
            ),
        ),
        on_mount=BattleState.load,
        on_unmount=BattleState.stop_following,
        class_name="flex flex-col",
    )
