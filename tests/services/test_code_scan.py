"""The scanner finds planted secrets and unsafe code, and stays quiet on clean code."""

from __future__ import annotations

from pathlib import Path

from secdash.core.config import get_settings
from secdash.services.code_scan import collect_targets, scan_files, total_lines

FAKE_AWS_KEY = "AKIAZ7QWERTYU2ASDF3G"


def _write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _scan(root: Path, scan_type: str):
    return scan_files(collect_targets([root]), scan_type).findings  # semgrep starts once for all the files


def test_planted_secret_is_found_without_revealing_it(tmp_path):
    _write(tmp_path, "app/config.py", f'REGION = "eu"\nAWS_ACCESS_KEY_ID = "{FAKE_AWS_KEY}"\n')
    _write(tmp_path, "deploy/.env.txt", f"AWS_KEY={FAKE_AWS_KEY}\n")
    findings = _scan(tmp_path, "quick")
    secrets = [f for f in findings if f.rule == "secret:AWS Access Key"]
    assert {(f.file, f.line) for f in secrets} == {("app/config.py", 2), ("deploy/.env.txt", 1)}
    assert all(FAKE_AWS_KEY not in f.message for f in findings)
    assert all(f.severity == "high" and f.tool == "detect-secrets" for f in secrets)


def test_bandit_findings_by_severity(tmp_path):
    _write(
        tmp_path,
        "ops.py",
        "import subprocess\nimport pickle\n\n\ndef run(cmd, blob):\n"
        "    subprocess.call(cmd, shell=True)\n    return pickle.loads(blob)\n",
    )
    full = {(f.rule, f.line, f.severity) for f in _scan(tmp_path, "full")}
    assert ("bandit:B602", 6, "high") in full
    assert ("bandit:B301", 7, "medium") in full
    quick = {f.rule for f in _scan(tmp_path, "quick")}
    assert {"bandit:B602", "bandit:B301"} <= quick  # a quick scan is the fast engines at every severity


def test_web_rules(tmp_path):
    _write(tmp_path, "ui.js", 'const x = eval(input);\nel.innerHTML = name;\nconst q = "SELECT * FROM users WHERE id = " + id;\n')
    _write(tmp_path, "page.html", '<button onclick="go()">Go</button>\n<script>document.write(greeting)</script>\n')
    full = {(f.file, f.rule, f.line) for f in _scan(tmp_path, "full")}
    assert {
        ("ui.js", "js:eval", 1),
        ("ui.js", "js:innerHTML", 2),
        ("ui.js", "js:sql-concatenation", 3),
        ("page.html", "html:inline-event-handler", 1),
        ("page.html", "js:document.write", 2),
    } <= full
    quick = {f.rule for f in _scan(tmp_path, "quick")}
    assert quick == {"js:eval", "js:innerHTML", "js:sql-concatenation", "html:inline-event-handler", "js:document.write"}


def test_clean_code_has_no_findings(tmp_path):
    _write(tmp_path, "clean.py", "def add(a: int, b: int) -> int:\n    return a + b\n")
    _write(tmp_path, "clean.js", "export const add = (a, b) => a + b;\ndocument.title = 'ok';\n")
    assert _scan(tmp_path, "full") == []


def test_targets_skip_vendored_and_binary_files_and_count_lines(tmp_path):
    _write(tmp_path, "src/a.py", "a = 1\nb = 2\nc = 3\n")
    _write(tmp_path, "node_modules/lib/index.js", "eval(x)\n")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\0\0binary")
    targets = collect_targets([tmp_path])
    assert [t.display for t in targets] == ["src/a.py"]
    assert total_lines(targets) == 3


def test_default_scan_target_is_the_demo_sites_with_their_planted_issues():
    targets = collect_targets(get_settings().scan_paths)
    assert {t.display.split("/")[0] for t in targets} == {"stock", "tour", "gem", "shares"}
    findings = scan_files(targets, "full").findings
    assert {"secret:AWS Access Key", "bandit:B602", "js:eval", "js:innerHTML", "js:sql-concatenation"} <= {
        f.rule for f in findings
    }
    assert [f for f in findings if f.file.startswith("stock/")] == []  # the strong-posture site is clean


def test_findings_carry_the_normalised_code_they_flag_not_just_a_line(tmp_path):
    _write(tmp_path, "ui.js", "\n\n   eval(   input );\n")
    _write(tmp_path, "config.py", f'\nAWS_ACCESS_KEY_ID = "{FAKE_AWS_KEY}"\n')
    by_rule = {f.rule: f for f in _scan(tmp_path, "full")}
    assert by_rule["js:eval"].code == "eval( input );" and by_rule["js:eval"].line == 3
    secret = by_rule["secret:AWS Access Key"]
    assert secret.code and FAKE_AWS_KEY not in secret.code  # detect-secrets' hash of the secret, never the secret
