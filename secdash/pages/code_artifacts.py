"""HTML artifacts (/code-artifacts), as shared/SPEC.md section 2 lays it out: the prompt (Create HTML / Update HTML,
Ctrl+Enter sends), the main panel (name, v{n}, the Generating badge, Edit / Preview / Compare, the checks'
findings, restore, save, downloads), and the side lists Recent Artifacts and Version History.

Everything a model wrote is shown as text, never as markup; the preview is a frame with
`sandbox="allow-scripts"` (no same-origin: a deliberate departure from the spec, see the README) on the isolated
/preview/ route, whose own CSP makes it an opaque origin too.
"""

import reflex as rx

from secdash import routes
from secdash.components.cards import card
from secdash.components.code_mode_tabs import code_mode_tabs
from secdash.components.prompt_box import prompt_box
from secdash.components.styles import FOCUS as _FOCUS
from secdash.components.styles import QUIET as _QUIET
from secdash.pages.code_artifacts_panel import panel
from secdash.state.code_artifacts import CodeArtifactsState
from secdash.state.code_artifacts_view import ArtifactRow, VersionRow

S = CodeArtifactsState
_LIST_BUTTON = f"w-full rounded-md p-2 text-left {_FOCUS}"


def _header() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.h1("Code Mode - HTML Artifacts", class_name="text-2xl font-bold text-slate-100"),
            rx.el.p(
                "Single-page HTML, versioned: compare, restore, preview safely, download.", class_name="text-sm text-slate-400"
            ),
        ),
        rx.cond(
            S.has_artifact,
            rx.el.button(
                rx.icon("plus", class_name="h-4 w-4"),
                "New artifact",
                on_click=S.new_artifact,
                type="button",
                disabled=S.busy,
                class_name=_QUIET,
                data_testid="new-artifact",
            ),
            rx.fragment(),
        ),
        class_name="mb-4 flex flex-wrap items-center justify-between gap-3",
    )


# --- the prompt ----------------------------------------------------------------------------------------------------


def _prompt() -> rx.Component:
    return prompt_box(
        S,
        field_id="artifact-prompt",
        label=rx.cond(S.has_artifact, "Describe the change to make", "Describe the page to create"),
        placeholder=rx.cond(
            S.has_artifact, "e.g. make it dark and add a footer", "e.g. a pricing page for a note-taking app called Jot"
        ),
        running=S.generating,
        on_stop=S.stop,
        send_icon="sparkles",
        send_label=rx.cond(S.busy, "Generating...", rx.cond(S.has_artifact, "Update HTML", "Create HTML")),
        stop_props={"data_testid": "artifact-stop"},
    )


# --- the side lists ------------------------------------------------------------------------------------------------


def _recent_row(row: ArtifactRow) -> rx.Component:
    on = S.artifact.id == row.id
    return rx.el.li(
        rx.el.button(
            rx.el.span(row.name, class_name="block break-words text-sm font-medium text-slate-100"),
            rx.el.span(
                rx.cond(row.version > 0, "v" + row.version.to_string(), "no version"),
                " · ",
                row.updated,
                rx.cond(row.generating, " · generating", ""),
                class_name="block text-xs text-slate-400",
            ),
            on_click=S.open_artifact(row.id),
            type="button",
            aria_current=rx.cond(on, "true", "false"),
            class_name=rx.cond(
                on, f"{_LIST_BUTTON} bg-cyan-500/10 ring-1 ring-cyan-500/40", f"{_LIST_BUTTON} hover:bg-slate-800"
            ),
        ),
        data_testid="recent-artifact",
    )


def _history_row(row: VersionRow) -> rx.Component:
    on = S.loaded_version == row.version
    return rx.el.li(
        rx.el.button(
            rx.el.span(
                rx.el.span("v", row.version, class_name="font-mono text-sm font-semibold text-cyan-200"),
                rx.el.span(row.time, class_name="text-xs text-slate-400"),
                class_name="flex flex-wrap items-baseline justify-between gap-2",
            ),
            rx.el.span(row.note, class_name="block break-words text-xs text-slate-300"),
            rx.el.span(row.source, class_name="block text-[11px] text-slate-400"),
            on_click=S.load_version(row.version),
            type="button",
            aria_pressed=on,
            disabled=S.generating,
            class_name=rx.cond(
                on, f"{_LIST_BUTTON} bg-cyan-500/10 ring-1 ring-cyan-500/40", f"{_LIST_BUTTON} hover:bg-slate-800"
            ),
        ),
        data_testid="history-version",
        data_version=row.version,
    )


def _side() -> rx.Component:
    return rx.el.div(
        card(
            rx.cond(
                S.recent.length() > 0,
                rx.el.ul(rx.foreach(S.recent, _recent_row), class_name="flex max-h-80 flex-col gap-1 overflow-y-auto"),
                rx.el.p("No artifacts yet", class_name="text-sm text-slate-400"),
            ),
            title="Recent Artifacts",
            data_testid="recent-artifacts",
        ),
        card(
            rx.cond(
                S.history.length() > 0,
                rx.el.ul(rx.foreach(S.history, _history_row), class_name="flex max-h-[28rem] flex-col gap-1 overflow-y-auto"),
                rx.el.p("No history yet", class_name="text-sm text-slate-400"),
            ),
            title="Version History",
            data_testid="version-history",
        ),
        class_name="flex min-w-0 flex-col gap-4",
    )


def code_artifacts_content() -> rx.Component:
    return rx.el.div(
        code_mode_tabs(routes.CODE_ARTIFACTS_ROUTE),
        _header(),
        rx.el.div(
            rx.el.div(_prompt(), panel(), class_name="flex min-w-0 flex-col gap-4"),
            _side(),
            class_name="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,1fr)]",
        ),
        on_mount=S.load,
        on_unmount=S.stop_following,
        data_testid="code-artifacts",
    )
