"""semgrep analyses a file's bytes once: a rescan of unchanged files gives the same matches without starting the
engine, a changed file (or a file under other display paths, rule packs or rules) is analysed afresh, and a file
semgrep could not fully analyse is tried again the next time."""

from __future__ import annotations

import subprocess

import pytest

from secdash.services.code_scan import analysed, semgrep

SERVER = (
    'const express = require("express");\nconst app = express();\napp.post("/c", (req, res) => res.json(eval(req.body.f)));\n'
)
PAGE = '<!doctype html>\n<button onclick="go()">Go</button>\n<script>\n  document.write(location.search);\n</script>\n'


@pytest.fixture
def starts(monkeypatch):
    """The semgrep processes started (each with the files it was given)."""
    started: list[list[str]] = []
    real = subprocess.run

    def counting(command, **kwargs):
        started.append([part for part in command if part.endswith((".js", ".html", ".py"))])
        return real(command, **kwargs)

    monkeypatch.setattr(semgrep.subprocess, "run", counting)
    analysed.forget()
    yield started
    analysed.forget()


def _found(run: semgrep.Run) -> set[tuple[str, int, str]]:
    return {(m.file, m.line, m.rule) for m in run.matches}


def test_a_rescan_of_unchanged_files_starts_no_semgrep_and_finds_the_same(tmp_path, starts):
    (tmp_path / "server.js").write_text(SERVER)
    (tmp_path / "page.html").write_text(PAGE)
    files = [(tmp_path / "server.js", "app/server.js"), (tmp_path / "page.html", "app/page.html")]
    first = semgrep.run(files, ["secdash", "njsscan"], seconds=120)
    assert {rule for _file, _line, rule in _found(first)} >= {"js:eval", "html:inline-event-handler"}
    assert any(file == "app/page.html" and line == 4 for file, line, _rule in _found(first))  # the inline script
    assert len(starts) == 1

    again = semgrep.run(files, ["secdash", "njsscan"], seconds=120)
    assert _found(again) == _found(first) and not again.failed
    assert len(starts) == 1, "unchanged files were given to semgrep again"

    # The same bytes under another name are reported under that name, from memory.
    (tmp_path / "copy.js").write_text(SERVER)
    renamed = semgrep.run([(tmp_path / "copy.js", "lib/copy.js")], ["secdash", "njsscan"], seconds=120)
    assert {(line, rule) for file, line, rule in _found(renamed) if file == "lib/copy.js"} == {
        (line, rule) for file, line, rule in _found(first) if file == "app/server.js"
    }
    assert len(starts) == 1


def test_a_changed_file_or_other_rules_are_analysed_afresh(tmp_path, starts):
    server, page = tmp_path / "server.js", tmp_path / "page.html"
    server.write_text(SERVER)
    page.write_text(PAGE)
    files = [(server, "server.js"), (page, "page.html")]
    semgrep.run(files, ["secdash", "njsscan"], seconds=120)

    server.write_text(SERVER.replace("eval(req.body.f)", "Number(req.body.f)"))
    changed = semgrep.run(files, ["secdash", "njsscan"], seconds=120)
    assert starts[-1] == [str(server)], "only the changed file is analysed again"
    assert "js:eval" not in {m.rule for m in changed.matches if m.file == "server.js"}
    assert "html:inline-event-handler" in {m.rule for m in changed.matches if m.file == "page.html"}

    semgrep.run(files, ["secdash"], seconds=120)  # a quick scan's rules: not what the full scan remembered
    assert len(starts) == 3


def test_a_file_semgrep_could_not_analyse_is_tried_again(tmp_path, starts):
    slow = tmp_path / "slow.js"
    slow.write_text(SERVER)
    stopped = semgrep.run([(slow, "slow.js")], ["secdash", "njsscan"], seconds=0.001)
    assert "slow.js" in stopped.failed and not stopped.matches
    retried = semgrep.run([(slow, "slow.js")], ["secdash", "njsscan"], seconds=120)
    assert len(starts) == 2 and not retried.failed and "js:eval" in {m.rule for m in retried.matches}
