"""Live Code Builder (/code-mode), as shared/SPEC.md section 2 lays it out: a header (Save, Preview, Download,
Clear All, New Project, the status badge), the build log and the prompt on the left (Ctrl+Enter sends), the
project card, the file list and the file viewer on the right (pages/code_builder_files.py); below them the list
of the user's projects and saved snapshots (pages/code_projects.py); the preview dialog and the Clear All dialog.

Everything a model wrote (file contents, log lines) is shown as text, never as markup; the preview is a frame
with `sandbox="allow-scripts"` (no same-origin) on the isolated /preview/ route, whose own CSP makes it an opaque
origin too.
"""

import reflex as rx

from secdash import routes
from secdash.components.cards import card
from secdash.components.code_mode_tabs import code_mode_tabs
from secdash.components.focus import alert_dialog_content, dialog_content
from secdash.components.prompt_box import prompt_box
from secdash.components.styles import BADGE as _BADGE
from secdash.components.styles import DANGER as _DANGER
from secdash.components.styles import PRIMARY as _PRIMARY
from secdash.components.styles import QUIET as _QUIET
from secdash.pages.code_builder_files import files, viewer
from secdash.pages.code_projects import PROJECT_LIST_ID, STATUS_CLASSES, project_list
from secdash.state.code_builder import CodeBuilderState
from secdash.state.code_builder_view import BuildLine

LOG_CLASSES = (
    ("error", "text-red-300"),
    ("success", "text-emerald-300"),
    ("code", "font-mono text-slate-200"),
)
_LOG_TEXT = "min-w-0 whitespace-pre-wrap break-words"
EMPTY_LOG = "Connected to secure development environment..."


def status_badge() -> rx.Component:
    status = CodeBuilderState.project.status
    return rx.el.span(
        status.upper(),
        class_name=rx.match(
            status,
            *[(k, f"{_BADGE} {v}") for k, v in STATUS_CLASSES],
            f"{_BADGE} bg-slate-500/15 text-slate-300 border-slate-500/40",
        ),
        data_testid="project-status",
    )


def _header() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.h1("Live Code Builder", class_name="text-2xl font-bold text-slate-100"),
            rx.cond(CodeBuilderState.has_project, status_badge(), rx.fragment()),
            class_name="flex flex-wrap items-center gap-3",
        ),
        rx.el.div(
            rx.cond(
                CodeBuilderState.has_project,
                rx.el.button(
                    rx.icon("save", class_name="h-4 w-4"),
                    "Save",
                    on_click=CodeBuilderState.save,
                    type="button",
                    disabled=CodeBuilderState.building,
                    class_name=_QUIET,
                ),
                rx.fragment(),
            ),
            rx.cond(
                CodeBuilderState.has_files,
                rx.fragment(
                    rx.el.button(
                        rx.icon("eye", class_name="h-4 w-4"),
                        "Preview",
                        on_click=CodeBuilderState.open_preview,
                        type="button",
                        class_name=_QUIET,
                    ),
                    rx.el.button(
                        rx.icon("download", class_name="h-4 w-4"),
                        "Download",
                        on_click=CodeBuilderState.download_all,
                        type="button",
                        class_name=_QUIET,
                    ),
                ),
                rx.fragment(),
            ),
            rx.el.a(
                rx.icon("folder-open", class_name="h-4 w-4"), "Projects", href="#" + PROJECT_LIST_ID, class_name=_QUIET
            ),  # the list is below the builder: on a phone, a long way down
            rx.el.button(
                rx.icon("trash-2", class_name="h-4 w-4"),
                "Clear All",
                on_click=CodeBuilderState.open_clear_dialog,
                type="button",
                class_name=_DANGER,
            ),
            rx.el.button(
                rx.icon("plus", class_name="h-4 w-4"),
                "New Project",
                on_click=CodeBuilderState.new_project,
                type="button",
                class_name=_PRIMARY,
            ),
            class_name="flex flex-wrap gap-2",
        ),
        class_name="mb-4 flex flex-wrap items-center justify-between gap-3",
    )


# --- left: the log and the prompt ------------------------------------------------------------------------------


def _log_line(line: BuildLine) -> rx.Component:
    return rx.el.li(
        rx.el.span(line.time, class_name="mr-2 shrink-0 text-slate-400"),
        rx.el.span(
            line.message,
            class_name=rx.match(line.type, *[(k, f"{v} {_LOG_TEXT}") for k, v in LOG_CLASSES], f"text-slate-300 {_LOG_TEXT}"),
        ),
        class_name="flex gap-1",
        data_testid="log-line",
        data_type=line.type,
    )


def _log() -> rx.Component:
    building_badge = rx.cond(
        CodeBuilderState.building,
        rx.el.span(
            rx.icon("loader-circle", class_name="h-3.5 w-3.5 animate-spin"),
            "BUILDING",
            class_name=f"{_BADGE} gap-1 bg-yellow-500/15 text-yellow-300 border-yellow-500/40",
            data_testid="building-badge",
        ),
        rx.fragment(),
    )
    return card(
        rx.el.div(  # column-reverse keeps the newest line in view as lines arrive (no script needed)
            rx.el.ol(
                rx.cond(
                    CodeBuilderState.log.length() > 0,
                    rx.foreach(CodeBuilderState.log, _log_line),
                    rx.el.li(EMPTY_LOG, class_name="text-slate-400"),
                ),
                class_name="flex flex-col gap-1",
                aria_live="polite",
                aria_label="Build log",
                data_testid="build-log",
            ),
            class_name="flex h-72 flex-col-reverse overflow-y-auto rounded-md border border-slate-800 bg-slate-950/80 "
            "p-2 font-mono text-xs lg:h-[26rem]",
            tab_index=0,
            role="region",
            aria_label="Build progress log",
        ),
        title="Build Progress",
        extra=building_badge,
    )


def _prompt() -> rx.Component:
    return prompt_box(
        CodeBuilderState,
        field_id="builder-prompt",
        label="Describe what to build" + rx.cond(CodeBuilderState.has_project, " or change", ""),
        placeholder=rx.cond(
            CodeBuilderState.has_project,
            "Change something: e.g. make it dark, add a footer...",
            "e.g. a landing page for a coffee shop called Bean There",
        ),
        running=CodeBuilderState.building,
        on_stop=CodeBuilderState.stop_build,
        send_icon="hammer",
        send_label=rx.cond(CodeBuilderState.has_project, "Continue", "Build"),
    )


# --- right: the project, its files, the viewer ------------------------------------------------------------------


def _project_card() -> rx.Component:
    project = CodeBuilderState.project
    return card(
        rx.cond(
            CodeBuilderState.has_project,
            rx.el.div(
                rx.el.h2(project.name, class_name="break-words text-lg font-semibold text-slate-100", data_testid="project-name"),
                rx.el.p(project.description, class_name="break-words text-sm text-slate-300"),
                rx.el.p(
                    "Started ",
                    project.started,
                    rx.cond(project.engine != "", rx.el.span(" · ", project.engine), ""),
                    class_name="text-xs text-slate-400",
                ),
                rx.cond(
                    project.checks != "",
                    rx.el.p("Checks: ", project.checks, class_name="text-xs text-slate-300", data_testid="project-checks"),
                    rx.fragment(),
                ),
                rx.cond(
                    project.error != "", rx.el.p(project.error, class_name="text-sm text-red-300", role="alert"), rx.fragment()
                ),
                class_name="flex flex-col gap-1",
            ),
            rx.el.p("No project yet: describe one and press Build.", class_name="text-sm text-slate-400"),
        ),
        title="Project",
        data_testid="project-card",
    )


# --- dialogs -----------------------------------------------------------------------------------------------------


def _preview_dialog() -> rx.Component:
    return rx.dialog.root(
        dialog_content(
            rx.el.div(
                rx.dialog.title("Preview: ", CodeBuilderState.project.name, class_name="text-slate-100"),
                rx.dialog.close(
                    rx.el.button(rx.icon("x", class_name="h-4 w-4"), type="button", aria_label="Close", class_name=_QUIET)
                ),
                class_name="mb-2 flex items-center justify-between gap-2",
            ),
            rx.el.p(
                "Runs in an isolated sandbox: no access to SecDash, your session or the network.",
                class_name="mb-2 text-xs text-slate-400",
            ),
            rx.cond(
                CodeBuilderState.preview_url != "",
                rx.el.iframe(
                    src=CodeBuilderState.preview_url,
                    sandbox="allow-scripts",
                    title="Project preview",
                    referrer_policy="no-referrer",
                    class_name="h-[70vh] w-full rounded-md border border-slate-700 bg-white",
                    data_testid="preview-frame",
                ),
                rx.fragment(),
            ),
            class_name="max-w-[min(96vw,1100px)] bg-slate-900",
        ),
        open=CodeBuilderState.preview_open,
        on_open_change=CodeBuilderState.set_preview_open,
    )


def _clear_dialog() -> rx.Component:
    return rx.alert_dialog.root(
        alert_dialog_content(
            rx.alert_dialog.title("Clear All Projects?"),
            rx.alert_dialog.description(
                "This action will permanently delete all your code projects and cannot be undone. All files, build "
                "logs, and project data will be removed.",
                class_name="text-sm text-slate-300",
            ),
            rx.el.div(
                rx.alert_dialog.cancel(rx.el.button("Cancel", type="button", class_name=_QUIET)),
                rx.alert_dialog.action(
                    rx.el.button(
                        "Delete All Projects",
                        type="button",
                        on_click=CodeBuilderState.clear_all,
                        class_name=_DANGER,
                        data_testid="confirm-clear",
                    )
                ),
                class_name="mt-4 flex justify-end gap-2",
            ),
            class_name="bg-slate-900",
        ),
        open=CodeBuilderState.clear_dialog_open,
        on_open_change=CodeBuilderState.set_clear_dialog,
    )


def code_builder_content() -> rx.Component:
    return rx.el.div(
        code_mode_tabs(routes.CODE_MODE_ROUTE),
        _header(),
        rx.el.div(
            rx.el.div(_log(), _prompt(), class_name="flex min-w-0 flex-col gap-4"),
            rx.el.div(_project_card(), files(), viewer(), class_name="flex min-w-0 flex-col gap-4"),
            class_name="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]",
        ),
        rx.el.div(project_list(), id=PROJECT_LIST_ID, tab_index=-1, class_name="mt-4 scroll-mt-20 outline-none"),
        _preview_dialog(),
        _clear_dialog(),
        on_mount=CodeBuilderState.load,
        on_unmount=CodeBuilderState.stop_following,
        data_testid="code-builder",
    )
