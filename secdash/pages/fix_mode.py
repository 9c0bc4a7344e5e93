"""Fix Mode (/fix-mode): the open fixable problems grouped by site (filters by site, severity and kind), and the
fix panel: explanation, risk, the diff (unified and side by side), the header change of a site fix, the
verification, the live job log, and the admins' Apply / Reject / Revert.

Everything a model wrote (explanation, risk, diff, log lines) is shown as text, never as markup.
"""

import reflex as rx

from secdash.components.badges import event_severity_badge, pill
from secdash.components.cards import card
from secdash.components.screens import page_header
from secdash.components.styles import FOCUS as _FOCUS
from secdash.components.styles import PRIMARY as _PRIMARY
from secdash.components.styles import QUIET as _QUIET
from secdash.pages.fix_mode_panel import panel
from secdash.pages.fix_mode_parts import PRE as _PRE
from secdash.pages.fix_mode_parts import state_badge
from secdash.routes import DASHBOARD_ROUTE
from secdash.state.auth import AuthState
from secdash.state.fix_mode import FixModeState
from secdash.state.fix_mode_view import FixRow, ProblemRow, SiteGroup, SiteOption

_SELECT = "rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-200"
# On a phone the panel is under the list: opening a problem scrolls to it (compiled into the bundle, no eval).
_SCROLL_TO_PANEL = rx.call_function(
    rx.vars.FunctionStringVar.create(
        "() => { if (window.matchMedia('(max-width: 1023px)').matches) "
        "document.getElementById('fix-panel')?.scrollIntoView({block: 'start'}); }"
    )
)


# --- filters and the list -----------------------------------------------------------------------------------


def _site_option(option: SiteOption) -> rx.Component:
    return rx.el.option(option.label, value=option.value)


def _filters() -> rx.Component:
    return rx.el.div(
        rx.el.select(
            rx.el.option("All sites", value="all"),
            rx.foreach(FixModeState.site_options, _site_option),
            value=FixModeState.filter_site,
            on_change=FixModeState.set_filter_site,
            aria_label="Site",
            class_name=_SELECT,
            data_testid="filter-site",
        ),
        rx.el.select(
            *[
                rx.el.option(label, value=value)
                for value, label in (("all", "All severities"), ("high", "High"), ("medium", "Medium"), ("low", "Low"))
            ],
            value=FixModeState.filter_severity,
            on_change=FixModeState.set_filter_severity,
            aria_label="Severity",
            class_name=_SELECT,
            data_testid="filter-severity",
        ),
        rx.el.select(
            *[
                rx.el.option(label, value=value)
                for value, label in (("all", "Code and site"), ("code", "Code"), ("site", "Site headers"))
            ],
            value=FixModeState.filter_kind,
            on_change=FixModeState.set_filter_kind,
            aria_label="Kind",
            class_name=_SELECT,
            data_testid="filter-kind",
        ),
        rx.el.span(
            FixModeState.problem_count,
            " open",
            class_name="ml-auto self-center text-xs text-slate-400",
            aria_live="polite",
            data_testid="problem-count",
        ),
        class_name="mb-3 flex flex-wrap gap-2",
    )


def _problem_row(row: ProblemRow) -> rx.Component:
    selected = FixModeState.selected_problem == row.problem_id
    return rx.el.li(
        rx.el.div(
            event_severity_badge(row.severity),
            pill(row.kind, "bg-slate-500/10 text-slate-300 border-slate-600 normal-case"),
            state_badge(row.state, row.state_label, data_testid="problem-state"),
            rx.cond(
                row.recipe,
                rx.el.span(
                    "offline recipe",
                    class_name="text-[11px] text-emerald-300",
                    title="The offline engine has a fix for this rule",
                ),
                rx.el.span(
                    "no offline recipe",
                    class_name="text-[11px] text-slate-400",
                    title="A configured model can try it; the offline engine cannot",
                ),
            ),
            class_name="flex flex-wrap items-center gap-1.5",
        ),
        rx.el.p(row.title, class_name="break-words text-sm font-medium text-slate-100"),
        rx.cond(
            row.kind == "code",
            rx.el.p(
                rx.el.span(row.location, class_name="font-mono text-cyan-300"),
                " · ",
                row.rule,
                class_name="break-all text-xs text-slate-300",
                data_testid="problem-location",
            ),
            rx.el.p(
                "Header finding: ", row.rule, class_name="break-words text-xs text-slate-300", data_testid="problem-location"
            ),
        ),
        rx.cond(
            row.snippet != "",
            rx.el.pre(row.snippet, class_name=f"{_PRE} max-h-40", tab_index=0, aria_label="Code around the finding"),
            rx.fragment(),
        ),
        rx.el.div(
            rx.el.button(
                rx.cond(row.fix_id > 0, "Show fix", "Details"),
                on_click=[FixModeState.select_problem(row.problem_id), _SCROLL_TO_PANEL],
                type="button",
                aria_label=rx.cond(row.fix_id > 0, "Show the fix of: ", "Details of: ") + row.title,
                aria_pressed=selected,
                class_name=_QUIET,
            ),
            rx.cond(
                AuthState.is_admin,
                rx.el.button(
                    rx.icon("wand-sparkles", class_name="h-4 w-4"),
                    "Propose fix",
                    on_click=[FixModeState.propose(row.problem_id), _SCROLL_TO_PANEL],
                    type="button",
                    disabled=row.busy,
                    aria_label="Propose a fix for: " + row.title,
                    title=rx.cond(row.busy, "A fix of this problem is open: apply, reject or revert it first", ""),
                    class_name=_PRIMARY,
                    data_testid="propose-fix",
                ),
                rx.fragment(),
            ),
            class_name="flex flex-wrap gap-2",
        ),
        class_name=rx.cond(
            selected,
            "flex flex-col gap-2 rounded-lg border border-cyan-500/60 bg-cyan-950/20 p-3",
            "flex flex-col gap-2 rounded-lg border border-slate-800 bg-slate-950/40 p-3",
        ),
        data_testid="problem-row",
        data_problem=row.problem_id,
    )


def _site_group(group: SiteGroup) -> rx.Component:
    return rx.el.section(
        rx.el.h3(
            group.site,
            " ",
            rx.el.span("(", group.problems.length(), ")", class_name="text-slate-400"),
            class_name="mb-2 text-sm font-semibold text-slate-200",
        ),
        rx.el.ul(rx.foreach(group.problems, _problem_row), class_name="flex flex-col gap-2"),
        class_name="flex flex-col",
        data_testid="site-group",
        data_site=group.site,
    )


def _empty_list() -> rx.Component:
    filtered = (FixModeState.filter_site != "all") | (FixModeState.filter_severity != "all") | (FixModeState.filter_kind != "all")
    return rx.cond(
        filtered,
        rx.el.p("No open problems match these filters.", class_name="p-6 text-center text-slate-400"),
        rx.el.div(
            rx.icon("shield-check", class_name="h-8 w-8 text-emerald-400"),
            rx.el.p("No open problems to fix", class_name="font-semibold text-slate-100"),
            rx.el.p(
                "Run a Full scan on the ",
                rx.el.a("Dashboard", href=DASHBOARD_ROUTE, class_name="text-cyan-300 underline underline-offset-2"),
                "'s Security Scan tab to find code problems; the site monitor adds missing security headers as "
                "it probes the sites.",
                class_name="max-w-md text-center text-sm text-slate-400",
            ),
            class_name="flex flex-col items-center gap-2 p-6",
            data_testid="no-problems",
        ),
    )


def _problems() -> rx.Component:
    return card(
        _filters(),
        rx.cond(
            FixModeState.problem_count > 0,
            rx.el.div(rx.foreach(FixModeState.groups, _site_group), class_name="flex flex-col gap-4"),
            _empty_list(),
        ),
        title="Open problems",
        data_testid="problem-list",
    )


def _recent_row(row: FixRow) -> rx.Component:
    return rx.el.li(
        rx.el.button(
            rx.el.span("#", row.id, class_name="font-mono text-xs text-slate-400"),
            state_badge(row.status, row.status_label),
            rx.el.span(row.site, class_name="text-xs text-cyan-300"),
            rx.el.span(row.what, class_name="min-w-0 break-all text-left text-xs text-slate-300"),
            on_click=[FixModeState.select_fix(row.id), _SCROLL_TO_PANEL],
            type="button",
            aria_label="Open fix #" + row.id.to_string() + ": " + row.what + " (" + row.status_label + ")",
            class_name=rx.cond(
                FixModeState.fix.id == row.id,
                f"flex w-full flex-wrap items-center gap-2 rounded-md bg-cyan-500/10 px-2 py-1.5 ring-1 ring-cyan-500/40 "
                f"{_FOCUS}",
                f"flex w-full flex-wrap items-center gap-2 rounded-md px-2 py-1.5 hover:bg-slate-800 {_FOCUS}",
            ),
        ),
        data_testid="recent-fix",
    )


def _recent() -> rx.Component:
    return card(
        rx.cond(
            FixModeState.recent.length() > 0,
            rx.el.ul(rx.foreach(FixModeState.recent, _recent_row), class_name="flex flex-col gap-1"),
            rx.el.p("No fixes yet.", class_name="text-sm text-slate-400"),
        ),
        title="Recent fixes",
        data_testid="recent-fixes",
    )


def fix_mode_content() -> rx.Component:
    return rx.el.div(
        page_header(
            "Fix Mode",
            "An agent proposes a fix for an open problem, an administrator reviews and applies "
            "it, and a re-scan or probe verifies it.",
        ),
        rx.cond(
            FixModeState.loading,
            rx.el.p("Loading fixable problems...", class_name="p-6 text-center text-slate-400", role="status"),
            rx.el.div(
                rx.el.div(_problems(), _recent(), class_name="flex min-w-0 flex-col gap-4 lg:col-span-5"),
                # The panel's column is as tall as the list (the grid stretches it), so the sticky panel has room
                # to stay in view while the list scrolls by.
                rx.el.div(panel(), class_name="min-w-0 lg:col-span-7"),
                class_name="grid grid-cols-1 gap-4 lg:grid-cols-12",
            ),
        ),
        on_mount=FixModeState.load,
        on_unmount=FixModeState.stop_following,
        class_name="flex flex-col",
    )
