"""`python -m secdash scan PATH`: JSON and SARIF 2.1.0 output, CI exit codes."""

from __future__ import annotations

import json

from secdash.cli import main
from secdash.services.code_scan import report
from secdash.services.code_scan.project import ProjectScan


def _write(root, name, text):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_exit_code_follows_fail_on(tmp_path, capsys):
    _write(tmp_path, "conf.py", "import yaml\n\n\ndef load(text):\n    return yaml.load(text, Loader=yaml.Loader)\n")
    assert main(["scan", str(tmp_path), "--fail-on", "high"]) == 0  # only a medium finding
    out = json.loads(capsys.readouterr().out)
    assert [(f["rule"], f["severity"], f["cwe"], f["engine"]) for f in out["findings"]] == [
        ("bandit:B506", "medium", "CWE-20", "bandit")
    ]
    assert out["complete"] is True and out["scanType"] == "full"
    assert main(["scan", str(tmp_path), "--quick", "--fail-on", "medium"]) == 1
    assert main(["scan", str(tmp_path), "--fail-on", "never"]) == 0


def test_a_clean_folder_passes_and_skips_are_said(tmp_path, capsys):
    _write(tmp_path, "app.js", "export const add = (a, b) => a + b;\n")
    _write(tmp_path, "node_modules/x/index.js", "eval(x)\n")
    assert main(["scan", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["findings"] == [] and out["skipped"] == [
        {
            "file": "node_modules/x/index.js",
            "category": "vendored",
            "why": "third-party code installed or copied into the project",
        }
    ]
    assert "skipped 1 files (1 vendored)" in captured.err


def test_an_incomplete_scan_never_passes_as_clean():
    broken = ProjectScan(scan_type="full", targets=[], problems=["semgrep did not run: semgrep-core is not installed"])
    assert report.exit_code(broken, "low") == 2
    assert report.exit_code(ProjectScan(scan_type="full", targets=[]), "low") == 0


def test_sarif_has_rule_ids_relative_files_lines_and_cwe_tags(tmp_path, capsys):
    _write(tmp_path, "web/app.js", "const f = document.getElementById('f');\n\nconst v = eval(f.value);\n")
    assert main(["scan", str(tmp_path), "--format", "sarif"]) == 1
    sarif = json.loads(capsys.readouterr().out)
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    run = sarif["runs"][0]
    [result] = run["results"]
    assert result["ruleId"] == "js:eval" and result["level"] == "error"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "web/app.js", "uriBaseId": "SRCROOT"}
    assert location["region"]["startLine"] == 3
    rule = run["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert rule["id"] == "js:eval" and "CWE-95" in rule["properties"]["tags"]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == tmp_path.resolve().as_uri() + "/"
    assert run["invocations"][0]["executionSuccessful"] is True
