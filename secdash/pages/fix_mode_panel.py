"""Fix Mode's fix panel (the right-hand column of /fix-mode): the explanation, risk, the diff (unified and side by
side), the header change of a site fix, the verification, the live job log, the admins' Apply / Reject / Revert,
and an open problem's details before a fix exists. Everything a model wrote is shown as text, never as markup."""

import reflex as rx

from secdash.components.badges import event_severity_badge
from secdash.components.styles import DANGER as _DANGER
from secdash.components.styles import PRIMARY as _PRIMARY
from secdash.components.styles import QUIET as _QUIET
from secdash.pages.fix_mode_parts import PRE, diff, header_change, job_log, progress, section, state_badge
from secdash.state.auth import AuthState
from secdash.state.fix_mode import FixModeState


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
    return section(
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
        rx.cond(fix.running, progress(), rx.fragment()),
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
            section(
                "Explanation",
                rx.el.p(fix.explanation, class_name="whitespace-pre-wrap break-words text-sm text-slate-200"),
                data_testid="fix-explanation",
            ),
            rx.fragment(),
        ),
        rx.cond(
            fix.risk != "",
            section(
                "Risk",
                rx.el.p(fix.risk, class_name="whitespace-pre-wrap break-words text-sm text-slate-200"),
                data_testid="fix-risk",
            ),
            rx.fragment(),
        ),
        rx.cond(FixModeState.headers.length() > 0, header_change(), rx.fragment()),
        rx.cond(fix.diff != "", diff(), rx.fragment()),
        rx.cond(fix.status != "proposing", rx.cond(fix.status != "failed", _verification(), rx.fragment()), rx.fragment()),
        _actions(),
        rx.cond(fix.running | (FixModeState.log.length() > 0), job_log(), rx.fragment()),
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
            rx.el.pre(row.snippet, class_name=PRE, tab_index=0, aria_label="Code around the finding"),
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


def panel() -> rx.Component:
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
