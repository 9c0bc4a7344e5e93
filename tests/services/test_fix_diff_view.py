"""The side-by-side rows of a unified diff: removed and added lines paired, context on both sides, line numbers
from the hunk headers, the no-newline marker dropped, several files and hunks."""

from __future__ import annotations

from secdash.services.fix.diff_view import MAX_ROWS, DiffRow, side_by_side
from secdash.services.fix.patches import unified_diff


def _cells(rows: list[DiffRow]) -> list[tuple]:
    return [(r.kind, r.old_number, r.old_text, r.old_kind, r.new_number, r.new_text, r.new_kind) for r in rows]


def test_a_changed_line_sits_beside_its_replacement_with_context_on_both_sides():
    before = "a\nb\nc\nd\n"
    after = "a\nB\nc\nd\ne\n"
    rows = side_by_side(unified_diff("x/file.js", before, after))
    assert rows[0] == DiffRow(kind="file", new_text="x/file.js")
    assert rows[1].kind == "hunk" and rows[1].new_text.startswith("@@ -1,4 +1,5 @@")
    assert _cells(rows[2:]) == [
        ("line", "1", "a", "context", "1", "a", "context"),
        ("line", "2", "b", "removed", "2", "B", "added"),
        ("line", "3", "c", "context", "3", "c", "context"),
        ("line", "4", "d", "context", "4", "d", "context"),
        ("line", "", "", "empty", "5", "e", "added"),
    ]


def test_uneven_runs_leave_empty_cells_and_a_removal_after_additions_starts_a_new_pair():
    diff = "--- a/f\n+++ b/f\n@@ -10,3 +10,2 @@\n-one\n-two\n+uno\n-three\n+tres\n"
    assert _cells(side_by_side(diff)[2:]) == [
        ("line", "10", "one", "removed", "10", "uno", "added"),
        ("line", "11", "two", "removed", "", "", "empty"),
        ("line", "12", "three", "removed", "11", "tres", "added"),
    ]


def test_lines_that_look_like_headers_inside_a_hunk_are_lines():
    diff = "--- a/f.sql\n+++ b/f.sql\n@@ -1,2 +1,2 @@\n--- old comment\n+++ new comment\n keep\n"
    rows = side_by_side(diff)
    assert [r.kind for r in rows] == ["file", "hunk", "line", "line"]
    assert (rows[2].old_text, rows[2].new_text) == ("-- old comment", "++ new comment")


def test_no_newline_marker_two_files_and_hunks_without_counts():
    diff = (
        "--- a/one\n+++ b/one\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"
        "--- a/two\n+++ b/two\n@@ -5,2 +5,2 @@\n ctx\n-old\n+new\n"
    )
    rows = side_by_side(diff)
    assert [(r.kind, r.new_text) for r in rows if r.kind != "line"] == [
        ("file", "one"),
        ("hunk", "@@ -1 +1 @@"),
        ("file", "two"),
        ("hunk", "@@ -5,2 +5,2 @@"),
    ]
    assert _cells([r for r in rows if r.kind == "line"]) == [
        ("line", "1", "x", "removed", "1", "y", "added"),
        ("line", "5", "ctx", "context", "5", "ctx", "context"),
        ("line", "6", "old", "removed", "6", "new", "added"),
    ]


def test_markup_stays_text_and_an_empty_or_odd_text_gives_no_rows():
    rows = side_by_side(unified_diff("p.html", "<b>x</b>\n", "<img src=x onerror=alert(1)>\n"))
    assert rows[-1].old_text == "<b>x</b>" and rows[-1].new_text == "<img src=x onerror=alert(1)>"
    assert side_by_side("") == [] and side_by_side("not a diff\n+at all") == []


def test_a_huge_diff_is_cut_with_a_note():
    body = "".join(f"+line {n}\n" for n in range(MAX_ROWS + 50))
    rows = side_by_side(f"--- a/f\n+++ b/f\n@@ -0,0 +1,{MAX_ROWS + 50} @@\n{body}")
    assert len(rows) == MAX_ROWS + 1 and rows[-1].kind == "note"
