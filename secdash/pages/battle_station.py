"""Battle Station (/battle-station): the header with its clock and DEFENDING/SECURE badge, the six attack
buttons, the active-threat panel (progress, live execution log, defense code), the Defense History and the
four demo sites' current defenses (the panel and the lists are battle_station_panel.py and battle_station_history.py).

Every figure on this page is measured by a drill against a bundled demo site (services/battle/drills.py).
"""

import reflex as rx

from secdash.components.cards import card
from secdash.components.clock import utc_clock
from secdash.components.screens import page_header
from secdash.pages.battle_station_history import defenses, history
from secdash.pages.battle_station_panel import BADGE, active_panel
from secdash.services.battle.attacks import ATTACKS
from secdash.services.battle.traffic import Attack
from secdash.state.auth import AuthState
from secdash.state.battle import BattleState


def _status_badge() -> rx.Component:
    return rx.cond(
        BattleState.defending,
        rx.el.span(
            rx.el.span(class_name="h-2 w-2 rounded-full bg-red-400 animate-pulse"),
            "DEFENDING",
            class_name=f"{BADGE} border-red-500/50 bg-red-500/15 text-red-300",
            role="status",
            data_testid="battle-status",
        ),
        rx.el.span(
            rx.icon("shield-check", class_name="h-3.5 w-3.5"),
            "SECURE",
            class_name=f"{BADGE} border-emerald-500/50 bg-emerald-500/15 text-emerald-300",
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


def battle_station_content() -> rx.Component:
    return rx.el.div(
        _header(),
        rx.cond(
            BattleState.loading,
            rx.el.p("Initializing Battle Station...", class_name="p-6 text-center text-slate-400", role="status"),
            rx.el.div(
                _attack_card(),
                rx.cond(BattleState.defending, active_panel(), rx.fragment()),
                rx.el.div(
                    rx.el.div(history(), class_name="min-w-0 lg:col-span-2"),
                    rx.el.div(defenses(), class_name="min-w-0"),
                    class_name="grid grid-cols-1 gap-4 lg:grid-cols-3",
                ),
                class_name="flex flex-col gap-4",
            ),
        ),
        on_mount=BattleState.load,
        on_unmount=BattleState.stop_following,
        class_name="flex flex-col",
    )
