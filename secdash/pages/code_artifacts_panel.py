"""The HTML artifacts page's main panel: the Edit / Preview / Compare views of the loaded version, its findings,
the version actions and the downloads. Everything a model wrote is shown as text or in the isolated preview."""

import reflex as rx

from secdash.components.diff import unified_diff
from secdash.components.styles import BADGE as _BADGE
from secdash.components.styles import FOCUS as _FOCUS
from secdash.components.styles import PRIMARY as _PRIMARY
from secdash.components.styles import QUIET as _QUIET
from secdash.state.code_artifacts import CodeArtifactsState
from secdash.state.code_artifacts_view import FindingRow

S = CodeArtifactsState
_CODE_BOX = "rounded-md border border-slate-800 bg-slate-950/80 font-mono text-xs"
_TAG = "inline-flex items-center whitespace-nowrap rounded-md border px-2 py-0.5 text-xs font-semibold"


def generating_badge() -> rx.Component:
    return rx.cond(
        S.generating,
        rx.el.span(
            rx.icon("loader-circle", class_name="h-3.5 w-3.5 animate-spin"),
            "Generating",
            class_name=f"{_BADGE} gap-1 bg-yellow-500/15 text-yellow-300 border-yellow-500/40",
            data_testid="generating-badge",
        ),
        rx.fragment(),
    )


# --- the main panel ------------------------------------------------------------------------------------------------


def _mode_button(mode: str, label: str, icon: str, **props) -> rx.Component:
    on = S.mode == mode
    return rx.el.button(
        rx.icon(icon, class_name="h-4 w-4"),
        label,
        on_click=S.set_mode(mode),
        type="button",
        aria_pressed=on,
        class_name=rx.cond(on, _PRIMARY, _QUIET),
        data_testid=f"mode-{mode}",
        **props,
    )


def _finding(row: FindingRow) -> rx.Component:
    return rx.el.li(
        rx.el.span(
            row.level,
            class_name=rx.cond(
                row.level == "error", "font-semibold uppercase text-red-300", "font-semibold uppercase text-amber-300"
            ),
        ),
        rx.cond(row.line != "", rx.el.span("line ", row.line, class_name="text-slate-400"), rx.fragment()),
        rx.el.span(row.message, class_name="min-w-0 break-words text-slate-200"),
        class_name="flex flex-wrap gap-2 text-xs",
        data_testid="finding",
    )


def _findings() -> rx.Component:
    none = S.findings.length() == 0
    badge = rx.el.span(
        S.findings_label,
        class_name=rx.cond(
            none,
            f"{_TAG} bg-emerald-500/15 text-emerald-300 border-emerald-500/40",
            rx.cond(
                S.findings_have_errors,
                f"{_TAG} bg-red-500/15 text-red-300 border-red-500/40",
                f"{_TAG} bg-amber-500/15 text-amber-300 border-amber-500/40",
            ),
        ),
        data_testid="findings-badge",
    )
    return rx.cond(
        none,
        rx.el.div(
            badge,
            rx.el.span("SecDash's checks found nothing in this version.", class_name="text-xs text-slate-400"),
            class_name="flex items-center gap-2",
        ),
        rx.el.details(
            rx.el.summary(
                badge,
                rx.el.span("SecDash's checks over this version's HTML (show)", class_name="ml-2 text-xs text-slate-400"),
                class_name=f"cursor-pointer rounded-md {_FOCUS}",
            ),
            rx.el.ul(rx.foreach(S.findings, _finding), class_name="mt-2 flex flex-col gap-1"),
            data_testid="findings",
        ),
    )


def _editor() -> rx.Component:
    box = f"h-[60vh] min-h-[20rem] w-full resize-y {_CODE_BOX} p-2 text-slate-200 {_FOCUS}"
    return rx.cond(
        S.generating,
        rx.el.textarea(
            value=S.draft,
            read_only=True,
            aria_label="HTML source (being generated)",
            spell_check=False,
            class_name=box,
            data_testid="artifact-source",
        ),
        rx.el.textarea(
            default_value=S.source,
            key=S.editor_key,
            on_change=S.set_edited.debounce(300),
            on_blur=S.set_edited,
            aria_label="HTML source",
            spell_check=False,
            class_name=box,
            data_testid="artifact-source",
        ),
    )


def _preview() -> rx.Component:
    return rx.el.div(
        rx.el.p(
            "Runs in an isolated sandbox: no access to SecDash, your session or the network.",
            class_name="mb-2 text-xs text-slate-400",
        ),
        rx.cond(
            S.preview_url != "",
            rx.el.iframe(
                src=S.preview_url,
                sandbox="allow-scripts",
                title="Artifact preview",
                referrer_policy="no-referrer",
                class_name="h-[60vh] min-h-[20rem] w-full rounded-md border border-slate-700 bg-white",
                data_testid="artifact-frame",
            ),
            rx.el.p("Preparing the preview...", class_name="text-sm text-slate-400"),
        ),
    )


def _version_select(id_: str, label: str, value, on_change) -> rx.Component:
    return rx.el.div(
        rx.el.label(label, html_for=id_, class_name="text-sm text-slate-300"),
        rx.el.select(
            rx.foreach(S.version_options, lambda v: rx.el.option("v" + v, value=v)),
            id=id_,
            value=value,
            on_change=on_change,
            class_name=f"rounded-md border border-slate-700 bg-slate-950 px-2 py-1 text-sm text-slate-100 {_FOCUS}",
            data_testid=id_,
        ),
        class_name="flex items-center gap-2",
    )


def _compare() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            _version_select("compare-from", "From", S.compare_from, S.set_compare_from),
            _version_select("compare-to", "To", S.compare_to, S.set_compare_to),
            rx.el.span(S.diff_summary, class_name="text-sm text-slate-300", data_testid="diff-summary", aria_live="polite"),
            class_name="flex flex-wrap items-center gap-3",
        ),
        unified_diff(S.diff, label="Line diff of the two versions", data_testid="artifact-diff"),
        class_name="flex flex-col gap-2",
    )


def _panel_head() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.h2(
                S.artifact.name,
                class_name="min-w-0 break-words text-lg font-semibold text-slate-100",
                data_testid="artifact-name",
            ),
            rx.cond(
                S.has_versions,
                rx.el.span(
                    "v",
                    S.loaded_version,
                    class_name=f"{_TAG} bg-cyan-500/15 text-cyan-200 border-cyan-500/40",
                    data_testid="artifact-version",
                ),
                rx.fragment(),
            ),
            rx.cond(S.is_older, rx.el.span("of v", S.artifact.version, class_name="text-xs text-slate-400"), rx.fragment()),
            generating_badge(),
            class_name="flex min-w-0 flex-wrap items-center gap-2",
            aria_live="polite",
        ),
        rx.cond(
            S.has_versions,
            rx.el.div(
                _mode_button("edit", "Edit", "code"),
                _mode_button("preview", "Preview", "eye", disabled=S.generating),
                rx.cond(
                    S.history.length() > 1,
                    _mode_button("compare", "Compare", "git-compare", disabled=S.generating),
                    rx.fragment(),
                ),
                class_name="flex flex-wrap gap-1",
                role="group",
                aria_label="View",
            ),
            rx.fragment(),
        ),
        class_name="flex flex-wrap items-center justify-between gap-2",
    )


def _actions() -> rx.Component:
    return rx.el.div(
        rx.el.button(
            rx.icon("download", class_name="h-4 w-4"),
            "Download HTML",
            on_click=S.download,
            type="button",
            disabled=~S.has_versions,
            class_name=_QUIET,
            data_testid="download-html",
        ),
        rx.el.button(
            rx.icon("file-archive", class_name="h-4 w-4"),
            "Download all versions",
            on_click=S.download_all,
            type="button",
            disabled=~S.has_versions,
            class_name=_QUIET,
            data_testid="download-all",
        ),
        rx.cond(
            S.is_older & ~S.generating,
            rx.el.button(
                rx.icon("history", class_name="h-4 w-4"),
                "Restore as new version",
                on_click=S.restore,
                type="button",
                class_name=_PRIMARY,
                data_testid="restore-version",
            ),
            rx.fragment(),
        ),
        rx.cond(
            S.dirty & (S.mode == "edit"),
            rx.el.div(
                rx.el.label("Change note (optional)", html_for="edit-note", class_name="sr-only"),
                rx.el.input(
                    id="edit-note",
                    value=S.edit_note,
                    on_change=S.set_edit_note,
                    placeholder="Change note (optional)",
                    max_length=300,
                    class_name="min-w-0 flex-1 rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 "
                    f"text-sm text-slate-100 {_FOCUS}",
                    data_testid="edit-note",
                ),
                rx.el.button(
                    rx.icon("save", class_name="h-4 w-4"),
                    "Save as new version",
                    on_click=S.save_edit,
                    type="button",
                    class_name=_PRIMARY,
                    data_testid="save-edit",
                ),
                class_name="flex w-full flex-wrap gap-2 sm:w-auto",
            ),
            rx.fragment(),
        ),
        class_name="flex flex-wrap gap-2",
    )


def _panel_body() -> rx.Component:
    return rx.cond(
        S.generating | (S.mode == "edit"),
        _editor(),
        rx.cond(
            S.has_versions,
            rx.match(S.mode, ("compare", _compare()), _preview()),
            rx.el.p("No version yet: describe the page and press Create HTML.", class_name="text-sm text-slate-400"),
        ),
    )


def panel() -> rx.Component:
    return rx.el.section(
        rx.cond(
            S.has_artifact,
            rx.el.div(
                _panel_head(),
                rx.cond(
                    S.artifact.engine != "",
                    rx.el.p("Engine: ", S.artifact.engine, class_name="text-xs text-slate-400"),
                    rx.fragment(),
                ),
                rx.cond(
                    (S.artifact.status == "failed") & (S.artifact.error != ""),
                    rx.cond(
                        S.artifact.error == "Stopped",
                        rx.el.p(
                            "Stopped: no new version was made.",
                            class_name="text-sm text-slate-300",
                            role="status",
                            data_testid="artifact-error",
                        ),
                        rx.el.p(
                            "Generation failed: ",
                            S.artifact.error,
                            class_name="text-sm text-red-300",
                            role="alert",
                            data_testid="artifact-error",
                        ),
                    ),
                    rx.fragment(),
                ),
                rx.cond(S.has_versions & ~S.generating, rx.fragment(_findings(), _actions()), rx.fragment()),
                _panel_body(),
                class_name="flex flex-col gap-3",
            ),
            rx.el.div(
                rx.icon("file-code", class_name="h-10 w-10 text-slate-500"),
                rx.el.p("Create your first HTML artifact", class_name="text-lg font-semibold text-slate-200"),
                rx.el.p(
                    "Describe a page above: SecDash writes it, checks it and keeps every version.",
                    class_name="text-sm text-slate-400",
                ),
                class_name="flex flex-col items-center gap-2 py-16 text-center",
                data_testid="artifact-empty",
            ),
        ),
        class_name="min-w-0 rounded-xl border border-slate-800 bg-slate-900/60 p-4",
        data_testid="artifact-panel",
        aria_label="Artifact",
    )
