"""Parts of Fix Mode's panel: the state badge, the section frame, the progress bar, the live job log, the diff
(the patch's own text, or side by side in components/diff.py) and a site fix's header change. Everything a model
wrote is shown as text, never as markup."""

import reflex as rx
from reflex_components_code.code import Theme

from secdash.components.diff import side_by_side_diff
from secdash.components.job_log import log_line
from secdash.components.styles import BADGE as _BADGE
from secdash.components.styles import FOCUS as _FOCUS
from secdash.components.styles import QUIET as _QUIET
from secdash.state.fix_mode import FixModeState
from secdash.state.fix_mode_view import HeaderChange

PRE = "overflow-x-auto whitespace-pre rounded-md border border-slate-800 bg-slate-950/80 p-2 font-mono text-xs text-slate-200"
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


# --- the fix panel ------------------------------------------------------------------------------------------


def section(title: str, *children, **props) -> rx.Component:
    return rx.el.div(
        rx.el.h3(title, class_name="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-400"), *children, **props
    )


def progress() -> rx.Component:
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


def job_log() -> rx.Component:
    # column-reverse keeps the newest line in view while lines arrive (no script needed)
    return section(
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


def diff() -> rx.Component:
    side_by_side = side_by_side_diff(FixModeState.diff_rows, data_testid="diff-side-by-side")
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
    return section(
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


def header_change() -> rx.Component:
    return section(
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
