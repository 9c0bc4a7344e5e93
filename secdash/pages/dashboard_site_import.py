"""The Dashboard's Import / export dialog (admins): a file of sites checked row by row before anything is created, and
every site downloaded as CSV or JSON. `site_import_button()` is the one piece dashboard_overview.py places."""

from typing import Any

import reflex as rx
from reflex.vars import ArrayVar, ObjectVar

from secdash.components.focus import dialog_content
from secdash.services.monitoring.site_import_file import MAX_FILE_BYTES, MAX_ROWS
from secdash.state.auth import AuthState
from secdash.state.site_import import UPLOAD_ID, ImportRowView, SiteImportState

S = SiteImportState
_QUIET = "rounded-md border border-slate-700 px-3 py-2 text-sm hover:bg-slate-800 disabled:opacity-50"
_PRIMARY = "rounded-md bg-cyan-500 px-3 py-2 text-sm font-medium text-slate-950 disabled:opacity-50"
_RESULT_CLASS = {
    "added": "bg-emerald-500/15 text-emerald-300",
    "ready": "bg-cyan-500/15 text-cyan-300",
    "refused": "bg-red-500/15 text-red-300",
}


def site_import_button() -> rx.Component:
    """For admins: the "Import / export" button and its dialog."""
    return rx.cond(
        AuthState.is_admin,
        rx.el.div(
            rx.el.button(
                rx.icon("file-up", class_name="w-4 h-4"),
                "Import / export",
                type="button",
                on_click=S.open_dialog,
                class_name="flex items-center gap-1 rounded-md border border-slate-700 px-2 py-1 text-xs hover:bg-slate-800",
                data_testid="site-import-open",
            ),
            _dialog(),
            class_name="flex",
        ),
        rx.fragment(),
    )


def _result(row: ImportRowView) -> rx.Component:
    return rx.el.span(
        row.label,
        class_name=rx.match(
            row.result,
            *((result, f"rounded px-1.5 py-0.5 text-xs font-medium {cls}") for result, cls in _RESULT_CLASS.items()),
            "rounded px-1.5 py-0.5 text-xs",
        ),
    )


def _row(row: ImportRowView) -> rx.Component:
    return rx.el.tr(
        rx.el.td(row.row, class_name="py-1.5 pr-2 align-top tabular-nums text-slate-400"),
        rx.el.td(
            rx.el.div(row.name, class_name="font-medium text-slate-100 break-words"),
            rx.el.div(row.url, class_name="text-xs text-slate-400 break-all"),
            class_name="py-1.5 pr-2 align-top",
        ),
        rx.el.td(
            _result(row),
            rx.cond(row.reason != "", rx.el.div(row.reason, class_name="mt-1 text-xs text-red-200 break-words")),
            class_name="py-1.5 align-top",
        ),
        class_name="border-t border-slate-800",
        data_testid="site-import-row",
    )


def _report() -> rx.Component:
    return rx.cond(
        S.summary != "",
        rx.el.div(
            rx.el.p(
                rx.el.span(S.file_name, class_name="font-medium text-slate-100 break-all"),
                ": ",
                S.summary,
                class_name="text-sm text-slate-300",
                data_testid="site-import-summary",
            ),
            rx.el.div(
                rx.el.table(
                    rx.el.thead(
                        rx.el.tr(
                            rx.el.th("Row", scope="col", class_name="w-12 py-1 pr-2 text-left font-normal"),
                            rx.el.th("Site", scope="col", class_name="py-1 pr-2 text-left font-normal"),
                            rx.el.th("Result", scope="col", class_name="w-[40%] py-1 text-left font-normal"),
                            class_name="text-xs text-slate-400",
                        )
                    ),
                    rx.el.tbody(rx.foreach(S.rows, _row)),
                    class_name="w-full table-fixed text-sm",
                ),
                class_name="mt-2 max-h-[45vh] overflow-y-auto rounded-md border border-slate-800 px-2",
                data_testid="site-import-report",
            ),
            rx.cond(
                S.rows_not_shown > 0,
                rx.el.p("and ", S.rows_not_shown, " more rows that are not refused", class_name="mt-1 text-xs text-slate-400"),
            ),
            class_name="mt-3",
        ),
    )


def _working() -> rx.Component:
    return rx.el.p(
        rx.cond(
            S.working != "",
            rx.el.span(
                rx.icon("loader-circle", class_name="h-4 w-4 animate-spin"),
                rx.match(
                    S.working,
                    ("checking", "Checking each row (addresses are looked up; a large file takes a while)…"),
                    ("importing", "Importing…"),
                    "Working…",
                ),
                class_name="flex items-center gap-2",
            ),
        ),
        aria_live="polite",
        class_name="mt-2 text-sm text-cyan-300",
    )


def _rejection_codes(rejected: rx.Var) -> rx.Var:
    """Only the error codes of the files the browser refused ("file-too-large"): the rejections hold the files
    themselves, which socket.io would send along as binary (a 2 MB file closes the websocket)."""
    return (
        rejected.to(ArrayVar, list[dict[str, Any]])
        .map(lambda item: item.to(ObjectVar, dict[str, Any])["errors"].to(ArrayVar, list[dict[str, Any]]))
        .to(ArrayVar, list[list[dict[str, Any]]])
        .map(lambda errors: errors.to(ArrayVar, list[dict[str, Any]]).map(lambda e: e.to(ObjectVar, dict[str, Any])["code"]))
        .to(ArrayVar, list[list[str]])
        .map(lambda codes: codes.to(ArrayVar, list[str]).join(","))
    )


def _upload_zone() -> rx.Component:
    zone = rx.upload.root(
        rx.el.div(
            rx.icon("upload", class_name="h-5 w-5 text-cyan-300"),
            rx.el.span("Choose a CSV or JSON file", class_name="font-medium text-slate-100"),
            rx.el.span(
                f"or drop it here: at most {MAX_FILE_BYTES // 1024 // 1024} MB and {MAX_ROWS:,} sites",
                class_name="text-xs text-slate-400",
            ),
            class_name="flex flex-col items-center gap-1 text-center",
        ),
        id=UPLOAD_ID,
        multiple=False,
        max_files=1,
        max_size=MAX_FILE_BYTES,
        accept={"text/csv": [".csv"], "application/json": [".json"], "text/plain": [".txt"]},
        on_drop=S.preview(rx.upload_files(upload_id=UPLOAD_ID)),
        on_drop_rejected=lambda rejected: S.file_refused(_rejection_codes(rejected)),
        disabled=S.working != "",
        aria_label="Choose a CSV or JSON file of sites to import",
        class_name="mt-3 cursor-pointer rounded-lg border border-dashed border-slate-600 p-4 hover:border-cyan-400 "
        "focus-visible:outline focus-visible:outline-2 focus-visible:outline-cyan-400",
        data_testid="site-import-upload",
    )
    # react-dropzone's hidden file input (which Playwright and assistive technology reach) gets a name: rx.upload
    # passes it no props of its own.
    file_input = zone.children[0].children[0]
    file_input.custom_attrs = {**file_input.custom_attrs, "aria-label": "CSV or JSON file of sites to import"}
    return zone


def _dialog() -> rx.Component:
    return rx.dialog.root(
        dialog_content(
            rx.el.div(
                rx.dialog.title("Import / export sites", class_name="text-slate-100"),
                rx.el.button(
                    rx.icon("x", class_name="h-4 w-4"),
                    type="button",
                    aria_label="Close",
                    on_click=S.close_dialog,
                    class_name="rounded-md p-1 hover:bg-slate-800",
                ),
                class_name="flex items-center justify-between gap-2",
            ),
            rx.dialog.description(
                "Columns: name, url, and optionally allowPrivate, tags (separated by ;), capacityRpm and signupRoute, "
                "as Export writes them. Each row is checked as the Add site form checks it; nothing is created until "
                "you press Import.",
                class_name="mt-1 text-xs text-slate-400",
            ),
            _upload_zone(),
            _working(),
            _report(),
            rx.el.div(
                rx.el.button(
                    rx.icon("download", class_name="h-4 w-4"),
                    "Export CSV",
                    type="button",
                    on_click=S.export("csv"),
                    disabled=S.working != "",
                    class_name=_QUIET + " flex items-center gap-1",
                ),
                rx.el.button(
                    rx.icon("download", class_name="h-4 w-4"),
                    "Export JSON",
                    type="button",
                    on_click=S.export("json"),
                    disabled=S.working != "",
                    class_name=_QUIET + " flex items-center gap-1",
                ),
                rx.el.button(
                    rx.cond(
                        S.imported,
                        "Imported",
                        rx.cond(S.ready == 1, "Import 1 site", "Import " + S.ready.to_string() + " sites"),
                    ),
                    type="button",
                    on_click=S.import_sites,
                    disabled=(S.ready == 0) | S.imported | (S.working != ""),
                    class_name=_PRIMARY + " sm:ml-auto",
                    data_testid="site-import-confirm",
                ),
                class_name="mt-4 flex flex-wrap gap-2",
            ),
            class_name="max-w-[min(96vw,760px)] bg-slate-900",
            data_testid="site-import-dialog",
        ),
        open=S.dialog_open,
        on_open_change=lambda _open: S.close_dialog(),
    )
