"""`python -m secdash detect`: replaying recorded logs as operators do, with JSON lines out."""

from __future__ import annotations

import gzip
import json

from secdash.cli import main

PROBE = '203.0.113.5 - - [05/Mar/2024:10:00:{s:02d} +0000] "GET /missing-{i} HTTP/1.1" 404 10 "-" "Mozilla/5.0"'
BENIGN = '198.51.100.10 - - [05/Mar/2024:10:00:{s:02d} +0000] "GET /index.html HTTP/1.1" 200 900 "-" "Firefox"'


def _log(tmp_path, name="access.log", lines=None, compress=False):
    lines = lines or [PROBE.format(s=i // 5, i=i) for i in range(15)] + [BENIGN.format(s=i) for i in range(30)]
    data = ("\n".join(lines) + "\n").encode()
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def test_json_lines_name_the_address_scenario_times_and_events(tmp_path, capsys):
    assert main(["detect", "--format", "json", str(_log(tmp_path))]) == 0
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["address"], r["scenario"], r["events"]) for r in rows] == [("203.0.113.5", "http-probing", 11)]
    assert rows[0]["firstSeen"] == "2024-03-05T10:00:00Z" and rows[0]["lastSeen"] == "2024-03-05T10:00:02Z"
    assert rows[0]["decision"] == {"type": "ban", "seconds": 14400} and len(rows[0]["samples"]) == 5
    assert "45 lines read" in err


def test_gzip_logs_and_text_output(tmp_path, capsys):
    assert main(["detect", str(_log(tmp_path, "access.log.1.gz", compress=True))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("ADDRESS") and out[1].split()[:3] == ["203.0.113.5", "http-probing", "11"]


def test_unreadable_lines_are_counted_and_shown_and_the_rest_is_used(tmp_path, capsys):
    lines = ["garbage one", *[PROBE.format(s=0, i=i) for i in range(11)], "\x1b[2J garbage two"]
    assert main(["detect", "--format", "json", str(_log(tmp_path, lines=lines))]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1
    assert "2 of 13 lines could not be read:" in err and ":1: not an access-log line" in err
    assert "\x1b" not in err  # a terminal escape from the log is shown written out


def test_a_missing_file_is_exit_1_after_the_others_are_read(tmp_path, capsys):
    assert main(["detect", "--format", "json", str(tmp_path / "nope.log"), str(_log(tmp_path))]) == 1
    out, err = capsys.readouterr()
    assert "nope.log: No such file or directory" in err and len(out.splitlines()) == 1


def test_operator_scenarios_and_allow_lists(tmp_path, capsys):
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "http-probing.yaml").write_text("name: http-probing\nenabled: false\n")  # replaces the bundled one
    assert main(["detect", "--format", "json", "--scenarios", str(folder), str(_log(tmp_path))]) == 0
    assert capsys.readouterr().out == ""
    assert main(["detect", "--format", "json", "--allow", "203.0.113.0/24", str(_log(tmp_path))]) == 0
    assert capsys.readouterr().out == ""
    (folder / "broken.yaml").write_text("name: x\nmatch: {path_smells: a}\n")
    assert main(["detect", "--scenarios", str(folder), str(_log(tmp_path))]) == 2
    assert "broken.yaml (x)" in capsys.readouterr().err
    assert main(["detect", "--allow", "not-a-net", str(_log(tmp_path))]) == 2
