"""The multi-file format: a streaming parser turns it into file events, whatever the chunking."""

from __future__ import annotations

import pytest

from secdash.ai.base import FileContent, FileEnd, FileStart, TextDelta
from secdash.ai.files import FileStreamParser, file_block, safe_path

TEXT = ("Here you go.\n" + file_block("index.html", "<h1>Hi</h1>\n<p>=== not a marker ===</p>")
        + file_block("js/app.js", "let a = 1;") + "That is all.")


def _parse(chunks: list[str]) -> list:
    parser = FileStreamParser()
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    return events + parser.close()


def _summary(events: list) -> tuple[list, dict, str]:
    markers = [(type(e).__name__, e.path) for e in events if isinstance(e, FileStart | FileEnd)]
    files: dict[str, str] = {}
    text = ""
    for event in events:
        if isinstance(event, FileContent):
            files[event.path] = files.get(event.path, "") + event.text
        elif isinstance(event, TextDelta):
            text += event.text
    return markers, files, text


@pytest.mark.parametrize("size", [1, 2, 3, 7, 16, 1000])
def test_the_same_files_come_out_however_the_text_is_cut(size):
    markers, files, text = _summary(_parse([TEXT[i:i + size] for i in range(0, len(TEXT), size)]))
    assert markers == [("FileStart", "index.html"), ("FileEnd", "index.html"),
                       ("FileStart", "js/app.js"), ("FileEnd", "js/app.js")]
    assert files == {"index.html": "<h1>Hi</h1>\n<p>=== not a marker ===</p>\n", "js/app.js": "let a = 1;\n"}
    assert text == "Here you go.\nThat is all."


def test_a_marker_inside_a_line_is_text():
    markers, files, text = _summary(_parse(["see === FILE: a.txt === here\n"]))
    assert markers == [] and files == {} and text == "see === FILE: a.txt === here\n"


@pytest.mark.parametrize("path", ["../etc/passwd", "/etc/passwd", "a/../../b", "a\\b.txt", "a//b", "x" * 201, " "])
def test_an_unsafe_path_is_never_followed(path):
    assert safe_path(path) is None
    markers, files, text = _summary(_parse([f"=== FILE: {path} ===\nroot::0:0\n=== END FILE ===\n"]))
    assert markers == [] and files == {} and "root::0:0" in text


def test_a_file_cut_short_ends_incomplete():
    events = _parse(["=== FILE: a.txt ===\nhalf a li", "ne"])
    assert events[-1] == FileEnd("a.txt", complete=False)
    assert _summary(events)[1] == {"a.txt": "half a line"}
