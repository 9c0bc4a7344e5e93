"""Fix Mode (/fix-mode): the open fixable problems grouped by site (filters by site, severity and kind), and the
fix panel: explanation, risk, the diff (unified and side by side), the header change of a site fix, the
verification, the live job log, and the admins' Apply / Reject / Revert.

Everything a model wrote (explanation, risk, diff, log lines) is shown as text, never as markup.
"""

import reflex as rx
from reflex_components_code.code import Theme

from secdash.components.badges import event_severity_badge, pill
from secdash.components.cards import card
from secdash.components.job_log import log_line
from secdash.components.screens import page_header
from secdash.components.styles import BADGE as _BADGE
from secdash.components.styles import DANGER as _DANGER
from secdash.components.styles import FOCUS as _FOCUS
from secdash.components.styles import PRIMARY as _PRIMARY
from secdash.components.styles import QUIET as _QUIET
from secdash.routes import DASHBOARD_ROUTE
from secdash.state.auth import AuthState
from secdash.state.fix_mode import DiffRow, FixModeState, FixRow, HeaderChange, ProblemRow, SiteGroup, SiteOption

_SELECT = "rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-200"
_PRE = "overflow-x-auto whitespace-pre rounded-md border border-slate-800 bg-slate-950/80 p-2 font-mono text-xs text-slate-200"
STATE_CLASSES = (
    ("open", "bg-slate-500/15 text-slate-300 border-slate-500/40"),
    ("proposing", "bg-cyan-500/15 text-cyan-300 border-cyan-500/40"),
    ("applied", "bg-cyan-500/15 text-cyan-300 border-cyan-500/40"),
    ("proposed", "bg-amber-500/15 text-amber-300 border-amber-500/40"),
    ("verified", "bg-emerald-500/15 text-emerald-300 border-emerald-500/40"),
    ("not_verified", "bg-orange-500/15 text-orange-300 border-orange-500/40"),
    ("failed", "bg-red-500/15 text-red-300 border-red-500/40"),
    ("reverted", "bg-violet-500/15 text-violet-300 border-violet-500/40"),
)
# On a phone the panel is under the list: opening a problem scrolls to it (compiled into the bundle, no eval).
_SCROLL_TO_PANEL = rx.call_function(
    rx.vars.FunctionStringVar.create(
        "() => { if (window.matchMedia('(max-width: 1023px)').matches) "
        "document.getElementById('fix-panel')?.scrollIntoView({block: 'start'}); }"
    )
)


def state_badge(state, label, **props) -> rx.Component:
    return rx.el.span(
        label,
        class_name=rx.match(
            state,
            *[(k, f"{_BADGE} {v}") for k, v in STATE_CLASSES],
            f"{_BADGE} bg-slate-500/15 text-slate-300 border-slate-500/40",
        ),
        **props,
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


# --- the fix panel ------------------------------------------------------------------------------------------


def _section(title: str, *children, **props) -> rx.Component:
    return rx.el.div(
        rx.el.h3(title, class_name="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-400"), *children, **props
    )


def _progress() -> rx.Component:
    percent = FixModeState.progress_percent
    return rx.el.div(
        rx.el.div(
            rx.el.span(
                rx.cond(FixModeState.fix.status == "applied", "Verifying", "Writing the fix"),
                " · ",
                FixModeState.progress_phase,
                class_name="text-xs text-slate-400",
            ),
            rx.el.span(percent.to_string() + "%", class_name="font-mono text-xs text-slate-300", data_testid="fix-percent"),
            class_name="flex items-center justify-between gap-2",
        ),
        rx.el.div(
            rx.el.div(class_name="h-full rounded-full bg-cyan-500 transition-all", style={"width": percent.to_string() + "%"}),
            class_name="h-2 w-full overflow-hidden rounded-full bg-slate-800",
            role="progressbar",
            aria_label="Fix job progress",
            aria_valuenow=percent,
            aria_valuemin=0,
            aria_valuemax=100,
            data_testid="fix-progress",
        ),
        class_name="flex flex-col gap-1",
    )


def _job_log() -> rx.Component:
    # column-reverse keeps the newest line in view while lines arrive (no script needed)
    return _section(
        "Job log",
        rx.el.div(
            rx.el.ol(
                rx.cond(
                    FixModeState.log.length() > 0,
                    rx.foreach(FixModeState.log, log_line),
                    rx.el.li("Waiting for the job to start...", class_name="text-slate-400"),
                ),
                class_name="flex flex-col gap-0.5",
            ),
            class_name="flex max-h-48 flex-col-reverse overflow-y-auto rounded-md border border-slate-800 "
            "bg-slate-950/80 p-2 font-mono text-xs",
            aria_live="polite",
            tab_index=0,
            aria_label="Fix job log",
            data_testid="fix-log",
        ),
    )


def _diff_cell(number, text, kind) -> list[rx.Component]:
    sign = rx.match(kind, ("removed", "-"), ("added", "+"), " ")
    number_cell = "w-10 select-none whitespace-nowrap px-1.5 text-right text-slate-400"
    text_cell = "whitespace-pre-wrap break-all px-1.5"
    return [
        rx.el.td(
            number,
            class_name=rx.match(
                kind, ("removed", f"{number_cell} bg-red-500/10"), ("added", f"{number_cell} bg-emerald-500/10"), number_cell
            ),
        ),
        rx.el.td(
            rx.el.span(sign, class_name="mr-1 select-none text-slate-400", aria_hidden="true"),
            text,
            class_name=rx.match(
                kind,
                ("removed", f"{text_cell} bg-red-500/15 text-red-200"),
                ("added", f"{text_cell} bg-emerald-500/15 text-emerald-200"),
                ("empty", f"{text_cell} bg-slate-900/80"),
                f"{text_cell} text-slate-300",
            ),
            data_kind=kind,
        ),
    ]


def _diff_row(row: DiffRow) -> rx.Component:
    return rx.match(
        row.kind,
        (
            "file",
            rx.el.tr(rx.el.td(row.new_text, col_span=4, class_name="bg-slate-800/80 px-2 py-1 font-semibold text-slate-100")),
        ),
        ("hunk", rx.el.tr(rx.el.td(row.new_text, col_span=4, class_name="bg-cyan-950/40 px-2 py-0.5 text-cyan-300"))),
        ("note", rx.el.tr(rx.el.td(row.new_text, col_span=4, class_name="px-2 py-1 text-amber-300"))),
        rx.el.tr(
            *_diff_cell(row.old_number, row.old_text, row.old_kind),
            *_diff_cell(row.new_number, row.new_text, row.new_kind),
            class_name="align-top",
            data_testid="diff-row",
        ),
    )


def _diff_tab(key: str, label: str) -> rx.Component:
    active = FixModeState.diff_mode == key
    return rx.el.button(
        label,
        on_click=FixModeState.set_diff_mode(key),
        type="button",
        role="tab",
        aria_selected=active,
        class_name=rx.cond(
            active,
            f"rounded-md bg-cyan-500/15 px-2.5 py-1 text-xs text-cyan-300 ring-1 ring-cyan-500/40 {_FOCUS}",
            f"rounded-md px-2.5 py-1 text-xs text-slate-300 hover:bg-slate-800 {_FOCUS}",
        ),
    )


def _diff() -> rx.Component:
    side_by_side = rx.el.div(
        rx.el.table(
            rx.el.thead(
                rx.el.tr(
                    rx.el.th(rx.el.span("Old line", class_name="sr-only"), class_name="w-10"),
                    rx.el.th("Before", class_name="px-1.5 py-1 text-left font-medium text-slate-400"),
                    rx.el.th(rx.el.span("New line", class_name="sr-only"), class_name="w-10"),
                    rx.el.th("After", class_name="px-1.5 py-1 text-left font-medium text-slate-400"),
                )
            ),
            rx.el.tbody(rx.foreach(FixModeState.diff_rows, _diff_row)),
            class_name="w-full min-w-[36rem] table-fixed border-collapse font-mono text-xs",
        ),
        class_name="max-h-[28rem] overflow-auto rounded-md border border-slate-800 bg-slate-950/80",
        tab_index=0,
        role="region",
        aria_label="Side-by-side diff",
        data_testid="diff-side-by-side",
    )
    unified = rx.el.div(
        rx.code_block(
            FixModeState.fix.diff,
            language="diff",
            theme=Theme.one_dark,
            wrap_long_lines=True,
            custom_style={"margin": "0", "fontSize": "12px", "maxHeight": "28rem", "background": "#0b1220"},
        ),
        class_name="overflow-auto rounded-md border border-slate-800",
        tab_index=0,
        role="region",
        aria_label="Unified diff",
        data_testid="diff-unified",
    )
    return _section(
        "Diff",
        rx.el.div(
            rx.el.div(
                _diff_tab("unified", "Unified"),
                _diff_tab("split", "Side by side"),
                role="tablist",
                aria_label="Diff view",
                class_name="flex gap-1",
            ),
            rx.cond(
                FixModeState.fix.patch_url != "",
                rx.el.a(
                    rx.icon("download", class_name="h-4 w-4"),
                    "Download patch",
                    href=FixModeState.fix.patch_url,
                    download=True,
                    reload_document=True,  # the browser downloads; no client-side route
                    class_name=_QUIET,
                    data_testid="download-patch",
                ),
                rx.fragment(),
            ),
            class_name="mb-2 flex flex-wrap items-center justify-between gap-2",
        ),
        rx.cond(FixModeState.diff_mode == "split", side_by_side, unified),
    )


def _header_row(change: HeaderChange) -> rx.Component:
    return rx.el.tr(
        rx.el.td(change.name, class_name="whitespace-nowrap px-2 py-1 align-top font-semibold text-slate-100"),
        rx.el.td(change.value, class_name="break-all px-2 py-1 font-mono text-emerald-200"),
        class_name="border-t border-slate-800",
    )


def _header_change() -> rx.Component:
    return _section(
        "Header change",
        rx.el.div(
            rx.el.table(
                rx.el.thead(
                    rx.el.tr(
                        rx.el.th("Header", class_name="px-2 py-1 text-left font-medium text-slate-400"),
                        rx.el.th("Value", class_name="px-2 py-1 text-left font-medium text-slate-400"),
                    )
                ),
                rx.el.tbody(rx.foreach(FixModeState.headers, _header_row)),
                class_name="w-full text-xs",
            ),
            class_name="overflow-x-auto rounded-md border border-slate-800 bg-slate-950/60",
        ),
        rx.cond(
            ~FixModeState.fix.served,
            rx.el.p(
                "SecDash does not serve this site: set these headers on its server, then Apply to have a probe verify them.",
                class_name="mt-1 text-xs text-slate-400",
            ),
            rx.fragment(),
        ),
        data_testid="header-change",
    )


def _text_list(items, classes: str) -> rx.Component:
    return rx.el.ul(
        rx.foreach(items, lambda item: rx.el.li(item, class_name="break-words")), class_name=f"list-disc pl-5 text-xs {classes}"
    )


def _verification() -> rx.Component:
    fix = FixModeState.fix
    outcome = rx.cond(
        fix.verified,
        rx.el.p(
            rx.icon("circle-check", class_name="h-4 w-4 shrink-0"),
            rx.cond(
                fix.method == "probe",
                "Fixed: a probe of the site no longer sees it",
                "Fixed: the re-scan no longer finds it, and the code works as before",
            ),
            rx.cond(fix.grade != "", rx.el.span(" · site grade ", fix.grade, data_testid="fix-grade"), ""),
            class_name="flex items-center gap-1.5 text-sm font-semibold text-emerald-300",
        ),
        rx.cond(
            fix.fixed,
            rx.el.p(
                rx.icon("circle-alert", class_name="h-4 w-4 shrink-0"),
                "Not verified: the finding is gone, but the fix breaks something or adds a finding",
                class_name="flex items-center gap-1.5 text-sm font-semibold text-orange-300",
            ),
            rx.el.p(
                rx.icon("circle-alert", class_name="h-4 w-4 shrink-0"),
                "Still seen after the fix",
                class_name="flex items-center gap-1.5 text-sm font-semibold text-orange-300",
            ),
        ),
    )
    return _section(
        "Verification",
        rx.cond(
            fix.status == "applied",
            rx.el.p("Verifying: re-checking the problem now...", class_name="text-sm text-cyan-300"),
            rx.cond(
                fix.checked,
                rx.el.div(
                    outcome,
                    rx.cond(
                        FixModeState.still_seen.length() > 0,
                        _text_list(FixModeState.still_seen, "text-orange-200"),
                        rx.fragment(),
                    ),
                    rx.cond(
                        FixModeState.broken.length() > 0,
                        rx.el.div(
                            rx.el.p(
                                rx.icon("circle-x", class_name="h-4 w-4 shrink-0"),
                                "Broken by this fix",
                                class_name="flex items-center gap-1.5 text-sm font-semibold text-red-300",
                            ),
                            _text_list(FixModeState.broken, "text-red-200"),
                            class_name="rounded-md border border-red-500/40 bg-red-500/10 p-2",
                            data_testid="broken-by-fix",
                        ),
                        rx.fragment(),
                    ),
                    rx.cond(
                        fix.verification_error != "",
                        rx.el.p(fix.verification_error, class_name="text-xs text-red-300"),
                        rx.fragment(),
                    ),
                    rx.cond(
                        FixModeState.new_findings.length() > 0,
                        rx.el.div(
                            rx.el.p(
                                rx.icon("triangle-alert", class_name="h-4 w-4 shrink-0"),
                                "New findings introduced by this fix",
                                class_name="flex items-center gap-1.5 text-sm font-semibold text-amber-300",
                            ),
                            _text_list(FixModeState.new_findings, "text-amber-200"),
                            class_name="rounded-md border border-amber-500/40 bg-amber-500/10 p-2",
                            data_testid="new-findings",
                        ),
                        rx.fragment(),
                    ),
                    class_name="flex flex-col gap-1.5",
                ),
                rx.el.p("Not applied yet: Apply writes the fix and checks it at once.", class_name="text-sm text-slate-400"),
            ),
        ),
        data_testid="verification",
    )


def _actions() -> rx.Component:
    fix = FixModeState.fix
    return rx.cond(
        AuthState.is_admin,
        rx.el.div(
            rx.cond(
                fix.can_apply,
                rx.el.button(
                    rx.icon("check", class_name="h-4 w-4"),
                    "Apply",
                    on_click=FixModeState.apply_fix,
                    type="button",
                    class_name=_PRIMARY,
                ),
                rx.fragment(),
            ),
            rx.cond(
                fix.can_reject,
                rx.el.button(
                    rx.icon("x", class_name="h-4 w-4"),
                    "Reject",
                    on_click=FixModeState.reject_fix,
                    type="button",
                    class_name=_QUIET,
                ),
                rx.fragment(),
            ),
            rx.cond(
                fix.can_revert,
                rx.el.button(
                    rx.icon("undo-2", class_name="h-4 w-4"),
                    "Revert",
                    on_click=FixModeState.revert_fix,
                    type="button",
                    class_name=_DANGER,
                ),
                rx.fragment(),
            ),
            rx.cond(
                FixModeState.can_propose,
                rx.el.button(
                    rx.icon("wand-sparkles", class_name="h-4 w-4"),
                    "Propose a new fix",
                    on_click=FixModeState.propose(FixModeState.selected_problem),
                    type="button",
                    class_name=_QUIET,
                ),
                rx.fragment(),
            ),
            class_name="flex flex-wrap gap-2",
            data_testid="fix-actions",
        ),
        rx.el.p("Read-only: administrators propose, apply, reject and revert fixes.", class_name="text-xs text-slate-400"),
    )


def _fix_details() -> rx.Component:
    fix = FixModeState.fix
    return rx.el.div(
        rx.el.div(
            rx.el.div(
                rx.el.h2("Fix #", fix.id, class_name="text-lg font-semibold text-slate-100"),
                state_badge(fix.status, fix.status_label, data_testid="fix-status"),
                class_name="flex items-center gap-2",
            ),
            rx.el.span(fix.engine, class_name="text-xs text-slate-400"),
            class_name="flex flex-wrap items-center justify-between gap-2",
        ),
        rx.el.p(
            rx.el.span(fix.site, class_name="text-cyan-300"),
            " · ",
            rx.cond(fix.kind == "code", rx.el.span(fix.file, class_name="font-mono"), "response headers"),
            " · ",
            fix.rule,
            class_name="break-words text-sm text-slate-300",
        ),
        rx.cond(fix.running, _progress(), rx.fragment()),
        rx.cond(
            fix.error != "",
            rx.el.p(
                fix.error,
                class_name="rounded-md border border-red-500/40 bg-red-500/10 p-2 text-sm text-red-200",
                role="alert",
                data_testid="fix-error",
            ),
            rx.fragment(),
        ),
        rx.cond(
            fix.explanation != "",
            _section(
                "Explanation",
                rx.el.p(fix.explanation, class_name="whitespace-pre-wrap break-words text-sm text-slate-200"),
                data_testid="fix-explanation",
            ),
            rx.fragment(),
        ),
        rx.cond(
            fix.risk != "",
            _section(
                "Risk",
                rx.el.p(fix.risk, class_name="whitespace-pre-wrap break-words text-sm text-slate-200"),
                data_testid="fix-risk",
            ),
            rx.fragment(),
        ),
        rx.cond(FixModeState.headers.length() > 0, _header_change(), rx.fragment()),
        rx.cond(fix.diff != "", _diff(), rx.fragment()),
        rx.cond(fix.status != "proposing", rx.cond(fix.status != "failed", _verification(), rx.fragment()), rx.fragment()),
        _actions(),
        rx.cond(fix.running | (FixModeState.log.length() > 0), _job_log(), rx.fragment()),
        class_name="flex flex-col gap-3",
    )


def _problem_details() -> rx.Component:
    row = FixModeState.problem
    return rx.el.div(
        rx.el.div(
            event_severity_badge(row.severity), state_badge(row.state, row.state_label), class_name="flex items-center gap-2"
        ),
        rx.el.h2(row.title, class_name="break-words text-base font-semibold text-slate-100"),
        rx.el.p(
            rx.el.span(row.site, class_name="text-cyan-300"),
            " · ",
            rx.cond(row.kind == "code", rx.el.span(row.location, class_name="font-mono"), "response headers"),
            " · ",
            row.rule,
            class_name="break-words text-sm text-slate-300",
        ),
        rx.cond(
            row.snippet != "",
            rx.el.pre(row.snippet, class_name=_PRE, tab_index=0, aria_label="Code around the finding"),
            rx.fragment(),
        ),
        rx.el.p(
            rx.cond(
                row.recipe,
                "The offline engine has a recipe for this rule.",
                "The offline engine has no recipe for this rule: a configured model can try it.",
            ),
            class_name="text-xs text-slate-400",
        ),
        rx.cond(
            AuthState.is_admin,
            rx.el.div(
                rx.el.button(
                    rx.icon("wand-sparkles", class_name="h-4 w-4"),
                    "Propose fix",
                    on_click=FixModeState.propose(row.problem_id),
                    type="button",
                    disabled=row.busy,
                    class_name=_PRIMARY,
                )
            ),
            rx.el.p("Read-only: administrators propose fixes.", class_name="text-xs text-slate-400"),
        ),
        class_name="flex flex-col gap-3",
    )


def _panel() -> rx.Component:
    return rx.el.section(
        rx.cond(
            FixModeState.has_fix,
            _fix_details(),
            rx.cond(
                FixModeState.has_problem,
                _problem_details(),
                rx.el.div(
                    rx.icon("mouse-pointer-click", class_name="h-6 w-6 text-slate-400"),
                    rx.el.p(
                        "Choose a problem or a recent fix to see its fix here.", class_name="text-center text-sm text-slate-400"
                    ),
                    class_name="flex flex-col items-center gap-2 p-6",
                ),
            ),
        ),
        id="fix-panel",
        # Beside the list on a desktop it stays in view, scrolling on its own when taller than the window.
        class_name="scroll-mt-20 rounded-xl border border-slate-800 bg-slate-900/60 p-4 lg:sticky lg:top-20 "
        "lg:max-h-[calc(100vh-6rem)] lg:overflow-y-auto",
        aria_label="Fix",
        data_testid="fix-panel",
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
                rx.el.div(_panel(), class_name="min-w-0 lg:col-span-7"),
                class_name="grid grid-cols-1 gap-4 lg:grid-cols-12",
            ),
        ),
        on_mount=FixModeState.load,
        on_unmount=FixModeState.stop_following,
        class_name="flex flex-col",
    )
