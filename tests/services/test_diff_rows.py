"""The one diff row type: a unified diff read (with unidiff) into rows, and the side-by-side view made from them:
removed and added lines paired, context on both sides, line numbers from the hunk headers, the no-newline marker
dropped, several files and hunks."""

from __future__ import annotations

from secdash.services.diff.patch import unified_diff
from secdash.services.diff.rows import CUT_NOTE, DIFF_ROWS, DiffRow, parse, side_by_side


def _cells(rows: list[DiffRow]) -> list[tuple]:
    return [(r.kind, r.old_line, r.old_text, r.new_line, r.new_text) for r in rows]


def test_a_changed_line_sits_beside_its_replacement_with_context_on_both_sides():
    before = "a\nb\nc\nd\n"
    after = "a\nB\nc\nd\ne\n"
    rows = side_by_side(parse(unified_diff("x/file.js", before, after)))
    assert rows[0] == DiffRow(kind="file", new_text="x/file.js")
    assert rows[1].kind == "hunk" and rows[1].new_text.startswith("@@ -1,4 +1,5 @@")
    assert _cells(rows[2:]) == [
        ("context", 1, "a", 1, "a"),
        ("changed", 2, "b", 2, "B"),
        ("context", 3, "c", 3, "c"),
        ("context", 4, "d", 4, "d"),
        ("added", None, "", 5, "e"),
    ]


def test_the_unified_rows_keep_every_line_with_its_numbers():
    rows = parse(unified_diff("x/file.js", "a\nb\nc\n", "a\nB\nc\n"))
    assert [(r.kind, r.old_line, r.new_line, r.text) for r in rows] == [
        ("file", None, None, "x/file.js"),
        ("hunk", None, None, "@@ -1,3 +1,3 @@"),
        ("context", 1, 1, "a"),
        ("removed", 2, None, "b"),
        ("added", None, 2, "B"),
        ("context", 3, 3, "c"),
    ]
    assert [r.unified for r in rows[1:]] == ["@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"]


def test_uneven_runs_leave_empty_cells_and_a_removal_after_additions_starts_a_new_pair():
    diff = "--- a/f\n+++ b/f\n@@ -10,3 +10,2 @@\n-one\n-two\n+uno\n-three\n+tres\n"
    assert _cells(side_by_side(parse(diff))[2:]) == [
        ("changed", 10, "one", 10, "uno"),
        ("removed", 11, "two", None, ""),
        ("changed", 12, "three", 11, "tres"),
    ]


def test_lines_that_look_like_headers_inside_a_hunk_are_lines():
    diff = "--- a/f.sql\n+++ b/f.sql\n@@ -1,2 +1,2 @@\n--- old comment\n+++ new comment\n keep\n"
    rows = side_by_side(parse(diff))
    assert [r.kind for r in rows] == ["file", "hunk", "changed", "context"]
    assert (rows[2].old_text, rows[2].new_text) == ("-- old comment", "++ new comment")


def test_no_newline_marker_two_files_and_hunks_without_counts():
    diff = (
        "--- a/one\n+++ b/one\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"
        "--- a/two\n+++ b/two\n@@ -5,2 +5,2 @@\n ctx\n-old\n+new\n"
    )
    rows = side_by_side(parse(diff))
    assert [(r.kind, r.new_text) for r in rows if r.kind in ("file", "hunk")] == [
        ("file", "one"),
        ("hunk", "@@ -1 +1 @@"),
        ("file", "two"),
        ("hunk", "@@ -5,2 +5,2 @@"),
    ]
    assert _cells([r for r in rows if r.kind not in ("file", "hunk")]) == [
        ("changed", 1, "x", 1, "y"),
        ("context", 5, "ctx", 5, "ctx"),
        ("changed", 6, "old", 6, "new"),
    ]


def test_windows_line_endings_are_not_part_of_the_text():
    rows = parse("--- a/f\r\n+++ b/f\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n")
    assert [(r.kind, r.text) for r in rows] == [("file", "f"), ("hunk", "@@ -1 +1 @@"), ("removed", "a"), ("added", "b")]


def test_markup_stays_text_and_an_empty_or_odd_text_gives_no_rows():
    rows = side_by_side(parse(unified_diff("p.html", "<b>x</b>\n", "<img src=x onerror=alert(1)>\n")))
    assert rows[-1].old_text == "<b>x</b>" and rows[-1].new_text == "<img src=x onerror=alert(1)>"
    assert parse("") == [] and parse("not a diff\n+at all") == []


def test_a_diff_that_cannot_be_read_says_so_in_a_note():
    rows = parse("--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n-a\n+b\n")
    assert [r.kind for r in rows] == ["note"] and rows[0].text.startswith("The diff could not be read")


def test_a_huge_diff_is_cut_with_a_note():
    body = "".join(f"+line {n}\n" for n in range(DIFF_ROWS + 50))
    rows = side_by_side(parse(f"--- a/f\n+++ b/f\n@@ -0,0 +1,{DIFF_ROWS + 50} @@\n{body}"))
    assert len(rows) == DIFF_ROWS + 1 and rows[-1] == DiffRow(kind="note", new_text=CUT_NOTE)
