"""AI Systems (/ai-systems): summary cards, the systems badge, one card per platform, Training Data Overview.

Measured figures are shown plainly; figures from the platform profiles carry the "profile" mark.
"""

import reflex as rx

from secdash.components.badges import agent_status_badge
from secdash.components.cards import CARD, card, stat_card
from secdash.components.screens import page_header
from secdash.state.ai_systems import ActivityRow, AiSystemsState, PlatformView, TrainingView


def profile_mark() -> rx.Component:
    """Every figure nothing measures carries this mark."""
    return rx.el.span(
        "profile",
        class_name="rounded border border-slate-600 bg-slate-500/10 px-1 text-[10px] font-normal leading-4 text-slate-400",
    )


def _systems_badge() -> rx.Component:
    base = "inline-flex items-center gap-2 rounded-full border px-3 py-1 text-sm font-semibold"
    return rx.el.span(
        rx.cond(
            AiSystemsState.operational,
            rx.icon("circle-check", class_name="h-4 w-4"),
            rx.icon("triangle-alert", class_name="h-4 w-4"),
        ),
        AiSystemsState.status_label,
        class_name=rx.cond(
            AiSystemsState.operational,
            f"{base} border-emerald-500/40 bg-emerald-500/10 text-emerald-300",
            f"{base} border-amber-500/40 bg-amber-500/10 text-amber-300",
        ),
        role="status",
        data_testid="systems-badge",
    )


def _summary() -> rx.Component:
    return rx.el.div(
        stat_card(
            "Total Data",
            AiSystemsState.total_data,
            "database",
            "text-cyan-300",
            note=rx.el.div(profile_mark(), class_name="mt-1"),
        ),
        stat_card(
            "Code Lines",
            AiSystemsState.code_lines_millions,
            "code",
            "text-emerald-300",
            note=rx.el.p(AiSystemsState.code_lines, class_name="mt-1 text-xs text-slate-400"),
        ),
        stat_card(
            "AI Models",
            AiSystemsState.ai_models.to_string(),
            "brain",
            "text-violet-300",
            note=rx.el.p("one agent per platform", class_name="mt-1 text-xs text-slate-400"),
        ),
        stat_card(
            "Active Users",
            AiSystemsState.active_users,
            "users",
            "text-amber-300",
            note=rx.el.div(profile_mark(), class_name="mt-1"),
        ),
        class_name="grid grid-cols-2 gap-3 lg:grid-cols-4",
        data_testid="ai-summary",
    )


def _figure(label: str, value, profile: bool = False, testid: str = "", note=None) -> rx.Component:
    return rx.el.div(
        rx.el.dt(
            label, profile_mark() if profile else rx.fragment(), class_name="flex items-center gap-1 text-xs text-slate-400"
        ),
        rx.el.dd(value, class_name="font-semibold text-slate-100 tabular-nums", data_testid=testid or None),
        rx.el.dd(note, class_name="text-[11px] text-slate-400") if note is not None else rx.fragment(),
        class_name="min-w-0",
    )


def _bar(label: str, percent, text, colour: str, profile: bool = False) -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.span(label, profile_mark() if profile else rx.fragment(), class_name="flex items-center gap-1"),
            rx.el.span(text, class_name="tabular-nums"),
            class_name="flex items-center justify-between text-xs text-slate-400",
        ),
        rx.el.div(
            rx.el.div(class_name=f"h-full rounded-full {colour}", style={"width": percent.to_string() + "%"}),
            class_name="mt-1 h-2 w-full overflow-hidden rounded-full bg-slate-800",
            role="progressbar",
            aria_label=label,
            aria_valuenow=percent,
            aria_valuemin=0,
            aria_valuemax=100,
        ),
    )


def _activity(row: ActivityRow) -> rx.Component:
    return rx.el.li(
        rx.el.span(row.kind, class_name="rounded bg-slate-800 px-1.5 py-0.5 text-[10px] uppercase text-cyan-300"),
        rx.el.span(row.description, class_name="min-w-0 flex-1 break-words text-slate-300"),
        rx.el.span(row.time_label, class_name="whitespace-nowrap font-mono text-[11px] text-slate-400"),
        class_name="flex flex-wrap items-start gap-2 text-xs",
    )


def _online_dot(state) -> rx.Component:
    return rx.el.span(
        class_name=rx.match(
            state,
            ("up", "h-2.5 w-2.5 rounded-full bg-emerald-400"),
            ("down", "h-2.5 w-2.5 rounded-full bg-red-500"),
            "h-2.5 w-2.5 rounded-full bg-slate-500",
        )
    )


def _platform(p: PlatformView) -> rx.Component:
    return rx.el.article(
        rx.el.header(
            rx.el.div(
                rx.el.h2(p.name, class_name="text-lg font-semibold text-slate-100"),
                rx.el.p(p.agent_name, " · ", p.domain, class_name="break-all text-xs text-slate-400"),
                class_name="min-w-0",
            ),
            rx.el.div(
                rx.el.span(
                    _online_dot(p.online),
                    p.status_label,
                    class_name="flex items-center gap-1.5 text-sm text-slate-200",
                    data_testid="platform-online",
                ),
                agent_status_badge(p.agent_status),
                class_name="flex flex-wrap items-center justify-end gap-2",
            ),
            class_name="flex items-start justify-between gap-2",
        ),
        rx.el.dl(
            _figure("Response time", p.response_time),
            _figure("Uptime", p.uptime_hours, testid="uptime-hours", note=p.uptime_since),
            _figure("Code lines", p.code_lines, testid="code-lines"),
            _figure("Users", p.users, profile=True),
            _figure("Data size", p.data_size, profile=True),
            _figure("Models", p.models, profile=True),
            _figure("Datasets", p.datasets, profile=True),
            _figure("Accuracy", p.accuracy, profile=True),
            class_name="mt-3 grid grid-cols-2 gap-x-4 gap-y-2 sm:grid-cols-4",
        ),
        rx.el.div(
            _bar("Uptime", p.uptime_bar, p.uptime_percent, "bg-emerald-500"),
            _bar("Memory usage", p.memory_percent, p.memory_percent.to_string() + "%", "bg-cyan-500", profile=True),
            class_name="mt-3 flex flex-col gap-2",
        ),
        rx.el.dl(
            _figure("Threats detected", p.threats_detected.to_string(), testid="threats-detected"),
            _figure("Threats blocked", p.threats_blocked.to_string(), testid="threats-blocked"),
            _figure("False positives", p.false_positives.to_string(), testid="false-positives"),
            _figure("Stored checks", p.checks),
            class_name="mt-3 grid grid-cols-2 gap-x-4 gap-y-2 rounded-lg bg-slate-950/60 p-2 sm:grid-cols-4",
        ),
        rx.el.dl(
            _figure("Model calls", p.ai_calls, testid="ai-calls"),
            _figure("Tokens", p.ai_tokens),
            _figure("Avg latency", p.ai_latency),
            class_name="mt-2 grid grid-cols-2 gap-x-4 gap-y-2 sm:grid-cols-3",
        ),
        rx.el.div(
            rx.el.span("ML frameworks", profile_mark(), class_name="flex items-center gap-1 text-xs text-slate-400"),
            rx.el.div(
                rx.foreach(
                    p.frameworks,
                    lambda name: rx.el.span(
                        name,
                        class_name="rounded-md border border-violet-500/40 bg-violet-500/10 px-2 py-0.5 text-xs text-violet-200",
                    ),
                ),
                class_name="flex flex-wrap gap-1",
            ),
            class_name="mt-3 flex flex-col gap-1",
        ),
        rx.el.div(
            rx.el.h3("Recent activities", class_name="text-xs font-semibold text-slate-400"),
            rx.cond(
                p.activities.length() > 0,
                rx.el.ul(rx.foreach(p.activities, _activity), class_name="mt-1 flex flex-col gap-1.5"),
                rx.el.p("No AI activity for this site yet", class_name="mt-1 text-xs text-slate-400"),
            ),
            class_name="mt-3",
        ),
        class_name=CARD + " min-w-0",
        data_testid="platform-card",
        data_platform=p.id,
    )


def _training_row(row: TrainingView) -> rx.Component:
    cell = "px-2 py-2 align-top"
    return rx.el.tr(
        rx.el.td(
            rx.el.div(row.platform, class_name="font-semibold text-slate-100"),
            rx.el.div(row.specialization, class_name="mt-0.5 text-slate-400 sm:hidden"),  # a phone: under the name
            class_name=cell,
        ),
        rx.el.td(row.specialization, class_name=f"{cell} text-slate-300 max-sm:hidden"),
        rx.el.td(row.samples, class_name=f"{cell} tabular-nums text-right"),
        rx.el.td(row.features, class_name=f"{cell} tabular-nums text-right"),
        rx.el.td(row.storage, class_name=f"{cell} tabular-nums text-right"),
        class_name="border-t border-slate-800",
    )


def _training() -> rx.Component:
    head = "px-2 py-1 text-left text-xs font-medium text-slate-400"
    return card(
        rx.el.div(
            rx.el.table(
                rx.el.thead(
                    rx.el.tr(
                        rx.el.th("Platform", class_name=head),
                        rx.el.th("Specialization", class_name=head + " max-sm:hidden"),
                        rx.el.th("Samples", class_name=head + " text-right"),
                        rx.el.th("Features", class_name=head + " text-right"),
                        rx.el.th("Storage", class_name=head + " text-right"),
                    )
                ),
                rx.el.tbody(rx.foreach(AiSystemsState.training, _training_row)),
                class_name="w-full text-xs text-slate-200 sm:text-sm",
            ),
            class_name="overflow-x-auto",
        ),
        title="Training Data Overview",
        extra=profile_mark(),
        data_testid="training-overview",
    )


def ai_systems_content() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            page_header("AI Systems", "The four platform agents: measured where a source exists"),
            _systems_badge(),
            class_name="flex flex-wrap items-start justify-between gap-4",
        ),
        rx.cond(
            AiSystemsState.loading,
            rx.el.p("Loading AI systems...", class_name="p-6 text-center text-slate-400", role="status"),
            rx.el.div(
                _summary(),
                rx.cond(
                    AiSystemsState.platforms.length() > 0,
                    rx.el.div(
                        rx.foreach(AiSystemsState.platforms, _platform), class_name="grid grid-cols-1 gap-4 xl:grid-cols-2"
                    ),
                    rx.el.p("No platforms", class_name="p-6 text-center text-slate-400"),
                ),
                _training(),
                rx.el.p(
                    "Updated ",
                    AiSystemsState.updated_label,
                    ". Figures marked profile are fixed display figures of each platform's profile; everything else is measured.",
                    class_name="text-xs text-slate-400",
                ),
                class_name="flex flex-col gap-4",
            ),
        ),
        on_mount=AiSystemsState.load,
        on_unmount=AiSystemsState.stop_following,
    )
