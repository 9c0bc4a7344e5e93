"""Defense Command (/defense-command) and the Defense Command Center (/defense-command/center)."""

import reflex as rx

from secdash import routes
from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS, TOTAL_DATA
from secdash.components.badges import agent_status_badge
from secdash.components.cards import card, simulated_mark
from secdash.components.chat import bubble, composer, streaming_bubble
from secdash.components.screens import page_header
from secdash.state.defense_command import DefenseCenterState, DefenseCommandState

# These pages have no floating chat widget (components/shell.py: OWN_CHAT_ROUTES), so nothing covers the composer.
_COMPOSER_ROW = "border-t border-slate-800 p-3"
_CENTER_COMPOSER_ROW = _COMPOSER_ROW


def _system_button(agent_id: str) -> rx.Component:
    agent = AGENTS[agent_id]
    return rx.el.button(
        rx.el.div(
            rx.el.span(agent.platform, class_name="font-semibold text-slate-100"),
            rx.el.span(
                "Active",
                class_name="rounded-md border border-emerald-500/40 bg-emerald-500/15 px-2 py-0.5 text-xs text-emerald-300",
            ),
            class_name="flex items-center justify-between",
        ),
        rx.el.p(agent.specialization, class_name="text-left text-xs text-slate-400"),
        rx.el.p(agent.data_size, class_name="text-left text-xs font-mono text-cyan-300"),
        on_click=DefenseCommandState.select(agent_id),
        aria_pressed=DefenseCommandState.selected == agent_id,
        class_name=rx.cond(
            DefenseCommandState.selected == agent_id,
            "flex w-full flex-col gap-1 rounded-lg border border-cyan-500 bg-cyan-500/10 p-3",
            "flex w-full flex-col gap-1 rounded-lg border border-slate-800 bg-slate-900/60 p-3 hover:border-slate-600",
        ),
    )


def defense_command_content() -> rx.Component:
    chat = rx.el.div(
        rx.cond(
            DefenseCommandState.selected == "",
            rx.el.p("Select defense system to communicate", class_name="m-auto text-slate-400"),
            rx.fragment(
                rx.auto_scroll(
                    rx.cond(
                        DefenseCommandState.lines.length() == 0,
                        rx.el.p(
                            "Start a conversation with ",
                            DefenseCommandState.selected_name,
                            class_name="m-auto p-6 text-slate-400",
                        ),
                        rx.fragment(),
                    ),
                    rx.foreach(DefenseCommandState.lines, lambda line: bubble(line)),
                    rx.cond(DefenseCommandState.streaming, streaming_bubble(DefenseCommandState.partial), rx.fragment()),
                    class_name="flex flex-1 flex-col gap-2 overflow-y-auto p-3",
                    tab_index=0,
                    role="region",
                    aria_label="Conversation",
                ),
                rx.el.div(
                    composer(
                        state=DefenseCommandState,
                        busy=DefenseCommandState.streaming,
                        can_send=(DefenseCommandState.draft.strip() != "") & ~DefenseCommandState.streaming,
                        placeholder="Type a secure message",
                        input_id="command-input",
                    ),
                    class_name=_COMPOSER_ROW,
                ),
            ),
        ),
        class_name="flex h-[600px] flex-col rounded-xl border border-slate-800 bg-slate-900/40",
    )
    return rx.el.div(
        rx.el.div(
            page_header("Defense Command", "Secure communication with encrypted defense systems"),
            rx.link("Open the Defense Command Center", href=routes.DEFENSE_CENTER_ROUTE, class_name="text-sm text-cyan-300"),
            class_name="flex flex-wrap items-start justify-between gap-3",
        ),
        rx.el.div(
            rx.el.div(
                *[_system_button(agent_id) for agent_id in PLATFORM_AGENT_IDS],
                card(
                    rx.el.p(TOTAL_DATA, class_name="text-2xl font-bold text-cyan-300"),
                    rx.el.p("across four platform knowledge bases", class_name="text-xs text-slate-400"),
                    title="Knowledge Database",
                ),
                class_name="flex flex-col gap-3",
            ),
            rx.el.div(chat, class_name="lg:col-span-2"),
            class_name="grid gap-4 lg:grid-cols-3",
        ),
    )


def _agent_card(agent_id: str) -> rx.Component:
    agent = AGENTS[agent_id]
    status = DefenseCenterState.statuses.get(agent_id, "monitoring")
    return rx.el.button(
        rx.el.div(
            rx.el.span(agent.name, class_name="font-semibold text-slate-100"),
            agent_status_badge(status),
            class_name="flex items-center justify-between gap-2",
        ),
        rx.el.dl(
            rx.el.div(rx.el.dt("Data", class_name="text-slate-400"), rx.el.dd(agent.data_size)),
            rx.el.div(rx.el.dt("Code lines", class_name="text-slate-400"), rx.el.dd(f"{agent.code_lines:,}")),
            rx.el.div(rx.el.dt("Users", class_name="text-slate-400"), rx.el.dd(f"{agent.users:,}")),
            rx.el.div(
                rx.el.dt("Blocked", class_name="text-slate-400"), rx.el.dd(DefenseCenterState.threats_blocked.get(agent_id, 0))
            ),
            class_name="mt-2 grid grid-cols-4 gap-1 text-left text-xs text-slate-300",
        ),
        rx.el.p(agent.specialization, class_name="mt-1 text-left text-xs text-slate-400"),
        on_click=DefenseCenterState.select(agent_id),
        aria_pressed=DefenseCenterState.selected == agent_id,
        class_name=rx.cond(
            DefenseCenterState.selected == agent_id,
            "rounded-lg border border-cyan-500 bg-cyan-500/10 p-3",
            "rounded-lg border border-slate-800 bg-slate-900/60 p-3 hover:border-slate-600",
        ),
    )


def defense_center_content() -> rx.Component:
    chat = rx.el.div(
        rx.auto_scroll(
            rx.foreach(DefenseCenterState.current_lines, lambda line: bubble(line, show_threat=True)),
            rx.cond(DefenseCenterState.streaming, streaming_bubble(DefenseCenterState.partial), rx.fragment()),
            class_name="flex flex-1 flex-col gap-2 overflow-y-auto p-3",
            tab_index=0,
            role="region",
            aria_label="Conversation",
        ),
        rx.el.div(
            composer(
                state=DefenseCenterState,
                busy=DefenseCenterState.streaming,
                can_send=(DefenseCenterState.draft.strip() != "") & ~DefenseCenterState.streaming,
                placeholder="Command the selected agent",
                stop=DefenseCenterState.stop,
                waiting=DefenseCenterState.streaming,
                input_id="center-input",
            ),
            class_name=_CENTER_COMPOSER_ROW,
        ),
        class_name="flex h-[560px] flex-col rounded-xl border border-slate-800 bg-slate-900/40",
    )
    capabilities = rx.match(
        DefenseCenterState.selected,
        *[
            (
                agent_id,
                rx.el.ul(
                    *[rx.el.li(c) for c in AGENTS[agent_id].capabilities], class_name="list-disc pl-5 text-sm text-slate-300"
                ),
            )
            for agent_id in PLATFORM_AGENT_IDS
        ],
        rx.fragment(),
    )
    return rx.el.div(
        rx.el.div(
            rx.el.h1("Defense Command Center", class_name="text-2xl font-bold text-slate-100"),
            rx.el.span(
                "System Active",
                class_name="rounded-md border border-emerald-500/40 bg-emerald-500/15 px-2 py-0.5 text-sm text-emerald-300",
            ),
            rx.link(
                rx.el.span(rx.icon("house", class_name="w-4 h-4"), "Go Home", class_name="flex items-center gap-1"),
                href=routes.DASHBOARD_ROUTE,
                class_name="ml-auto rounded-md border border-slate-700 px-3 py-1.5 text-sm text-slate-200",
            ),
            class_name="mb-4 flex flex-wrap items-center gap-3",
        ),
        rx.el.div(
            *[_agent_card(agent_id) for agent_id in PLATFORM_AGENT_IDS],
            class_name="mb-4 grid gap-3 md:grid-cols-2 xl:grid-cols-4",
        ),
        rx.el.div(
            rx.el.div(chat, class_name="lg:col-span-2"),
            rx.el.div(
                card(capabilities, title="Capabilities"),
                card(
                    rx.el.p("Connections: ", DefenseCenterState.connections, class_name="text-sm"),
                    rx.el.p("CPU: ", DefenseCenterState.cpu_percent, "%", class_name="text-sm"),
                    title="Real-Time Metrics",
                    extra=simulated_mark(),
                ),
                card(
                    rx.el.ul(
                        rx.el.li("Firewall: active"),
                        rx.el.li("Monitoring: real-time"),
                        rx.el.li("Threat level: medium"),
                        rx.el.li("Defense mode: active"),
                        class_name="text-sm text-slate-300",
                    ),
                    title="Defense Status",
                ),
                class_name="flex flex-col gap-3",
            ),
            class_name="grid gap-4 lg:grid-cols-3",
        ),
    )
