"""The one diff view: the rows of services/diff/rows.py, unified (line numbers, a +/− mark, the line) or side by
side (the old line on the left, the new one on the right). Used by Fix Mode, the Live Code Builder and the HTML
artifacts' compare view. A diff's text is untrusted: every line is shown as text, never as markup.

Test hooks: every line row has `data-testid="diff-row"` and `data-kind` (added, removed, context, hunk, file,
note; a side-by-side cell has the kind of its side: removed, added, context or empty).
"""

from __future__ import annotations

import reflex as rx

from secdash.services.diff.rows import DiffRow

UNIFIED_CLASSES = (
    ("added", "bg-emerald-500/15 text-emerald-100"),
    ("removed", "bg-red-500/15 text-red-100"),
    ("hunk", "bg-slate-800/60 text-cyan-300"),
    ("file", "bg-slate-800/80 font-semibold text-slate-100"),
    ("note", "text-amber-300"),
)
UNIFIED_MARKS = (("added", "+"), ("removed", "−"))
BOX = "overflow-auto rounded-md border border-slate-800 bg-slate-950/80 font-mono text-xs"
_NUMBER = "w-10 shrink-0 select-none pr-2 text-right text-slate-400"


def _unified_row(row: DiffRow) -> rx.Component:
    return rx.el.div(
        rx.el.span(row.old_line, class_name=_NUMBER),
        rx.el.span(row.new_line, class_name=_NUMBER),
        rx.el.span(rx.match(row.kind, *UNIFIED_MARKS, " "), class_name="w-4 shrink-0 select-none", aria_hidden="true"),
        rx.el.span(rx.cond(row.kind == "removed", row.old_text, row.new_text), class_name="whitespace-pre"),
        class_name=rx.match(row.kind, *[(k, f"flex px-1 {v}") for k, v in UNIFIED_CLASSES], "flex px-1 text-slate-300"),
        data_kind=row.kind,
        data_testid="diff-row",
    )


def unified_diff(rows: rx.Var[list[DiffRow]], *, label: str, class_name: str = "max-h-[60vh]", **props) -> rx.Component:
    """The rows one under the other, in a scrollable, focusable region named `label`."""
    return rx.el.div(
        rx.foreach(rows, _unified_row),
        class_name=f"{class_name} py-2 {BOX}",
        tab_index=0,
        role="region",
        aria_label=label,
        **props,
    )


def _cell_kind(row: DiffRow, side: str) -> rx.Var:
    """The kind of one side of a side-by-side row: removed or added (a changed row has both), context, or empty."""
    return rx.match(
        row.kind,
        ("changed", side),
        (side, side),
        ("context", "context"),
        "empty",
    )


def _cell(number, text, kind) -> list[rx.Component]:
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


def _side_by_side_row(row: DiffRow) -> rx.Component:
    return rx.match(
        row.kind,
        (
            "file",
            rx.el.tr(rx.el.td(row.new_text, col_span=4, class_name="bg-slate-800/80 px-2 py-1 font-semibold text-slate-100")),
        ),
        ("hunk", rx.el.tr(rx.el.td(row.new_text, col_span=4, class_name="bg-cyan-950/40 px-2 py-0.5 text-cyan-300"))),
        ("note", rx.el.tr(rx.el.td(row.new_text, col_span=4, class_name="px-2 py-1 text-amber-300"))),
        rx.el.tr(
            *_cell(row.old_line, row.old_text, _cell_kind(row, "removed")),
            *_cell(row.new_line, row.new_text, _cell_kind(row, "added")),
            class_name="align-top",
            data_testid="diff-row",
        ),
    )


def side_by_side_diff(rows: rx.Var[list[DiffRow]], *, label: str = "Side-by-side diff", **props) -> rx.Component:
    """The rows of a side-by-side view (services/diff/rows.side_by_side) as a table: Before | After."""
    return rx.el.div(
        rx.el.table(
            rx.el.thead(
                rx.el.tr(
                    rx.el.th(rx.el.span("Old line", class_name="sr-only"), class_name="w-10"),
                    rx.el.th("Before", class_name="px-1.5 py-1 text-left font-medium text-slate-400"),
                    rx.el.th(rx.el.span("New line", class_name="sr-only"), class_name="w-10"),
                    rx.el.th("After", class_name="px-1.5 py-1 text-left font-medium text-slate-400"),
                )
            ),
            rx.el.tbody(rx.foreach(rows, _side_by_side_row)),
            class_name="w-full min-w-[36rem] table-fixed border-collapse font-mono text-xs",
        ),
        class_name="max-h-[28rem] overflow-auto rounded-md border border-slate-800 bg-slate-950/80",
        tab_index=0,
        role="region",
        aria_label=label,
        **props,
    )
