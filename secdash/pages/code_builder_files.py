"""The Live Code Builder's file list and file viewer: a file's content, or the changes the newest continue made to
it (components/diff.py), and its download. A file's content is shown as text, never as markup."""

import reflex as rx

from secdash.components.cards import card
from secdash.components.diff import unified_diff
from secdash.components.styles import FOCUS as _FOCUS
from secdash.components.styles import PRIMARY as _PRIMARY
from secdash.components.styles import QUIET as _QUIET
from secdash.state.code_builder import CodeBuilderState
from secdash.state.code_builder_view import FileRow

CHANGE_LABELS = (("created", "new"), ("updated", "changed"))


def _file_row(row: FileRow) -> rx.Component:
    selected = CodeBuilderState.selected_file == row.filename
    return rx.el.li(
        rx.el.button(
            rx.el.div(
                rx.el.span(row.filename, class_name="break-all font-mono text-sm text-cyan-200"),
                rx.el.span(row.language, class_name="text-[11px] uppercase text-slate-400"),
                rx.match(
                    row.change,
                    *[(k, rx.el.span(v, class_name="text-[11px] text-emerald-300")) for k, v in CHANGE_LABELS],
                    rx.fragment(),
                ),
                rx.cond(row.writing, rx.el.span("writing...", class_name="text-[11px] text-yellow-300"), rx.fragment()),
                rx.el.span(row.size, class_name="ml-auto text-[11px] text-slate-400"),
                class_name="flex w-full flex-wrap items-center gap-2",
            ),
            rx.cond(
                row.description != "", rx.el.p(row.description, class_name="text-left text-xs text-slate-400"), rx.fragment()
            ),
            on_click=CodeBuilderState.select_file(row.filename),
            type="button",
            aria_pressed=selected,
            class_name=rx.cond(
                selected,
                f"w-full rounded-md bg-cyan-500/10 p-2 ring-1 ring-cyan-500/40 {_FOCUS}",
                f"w-full rounded-md p-2 hover:bg-slate-800 {_FOCUS}",
            ),
        ),
        data_testid="file-row",
        data_file=row.filename,
    )


def files() -> rx.Component:
    return card(
        rx.cond(
            CodeBuilderState.has_files,
            rx.el.ul(rx.foreach(CodeBuilderState.files, _file_row), class_name="flex flex-col gap-1"),
            rx.el.p("No files yet.", class_name="text-sm text-slate-400"),
        ),
        title="Files",
        data_testid="file-list",
    )


def viewer() -> rx.Component:
    mode = CodeBuilderState.viewer_mode
    tabs = rx.el.div(
        rx.cond(
            CodeBuilderState.selected_changed,
            rx.el.div(
                rx.el.button(
                    "Code",
                    on_click=CodeBuilderState.set_viewer_mode("code"),
                    type="button",
                    aria_pressed=mode == "code",
                    class_name=rx.cond(mode == "code", _PRIMARY, _QUIET),
                ),
                rx.el.button(
                    "Changes",
                    on_click=CodeBuilderState.set_viewer_mode("changes"),
                    type="button",
                    aria_pressed=mode == "changes",
                    class_name=rx.cond(mode == "changes", _PRIMARY, _QUIET),
                    data_testid="show-changes",
                ),
                class_name="flex gap-1",
            ),
            rx.fragment(),
        ),
        rx.cond(
            CodeBuilderState.selected_file != "",
            rx.el.button(
                rx.icon("file-down", class_name="h-4 w-4"),
                "Download file",
                on_click=CodeBuilderState.download_file(CodeBuilderState.selected_file),
                type="button",
                class_name=_QUIET,
                data_testid="download-file",
            ),
            rx.fragment(),
        ),
        class_name="flex flex-wrap gap-2",
    )
    body = rx.cond(
        mode == "changes",
        unified_diff(
            CodeBuilderState.viewer_diff, label="Changes to the file", class_name="max-h-[32rem]", data_testid="file-diff"
        ),
        rx.el.pre(
            CodeBuilderState.viewer_content,
            class_name="max-h-[32rem] overflow-auto whitespace-pre rounded-md border border-slate-800 "
            "bg-slate-950/80 p-2 font-mono text-xs text-slate-200",
            data_testid="file-viewer",
            tab_index=0,
            aria_label="File content",
        ),
    )
    return card(
        rx.cond(
            CodeBuilderState.selected_file != "",
            rx.el.div(tabs, body, class_name="flex flex-col gap-2"),
            rx.el.p("Select a file to see its content.", class_name="text-sm text-slate-400"),
        ),
        title="Viewer",
        extra=rx.el.span(CodeBuilderState.selected_file, class_name="break-all font-mono text-xs text-slate-400"),
    )
