"""The offline fix recipes against the demo sites' real findings: each diff validates, applies, and the re-scan
no longer reports the finding where it was."""

from __future__ import annotations

import ast
import difflib
import re
import shutil
from pathlib import Path

import pytest

from secdash.services.code_scan import Finding, ScanTarget, collect_targets, scan_file
from secdash.services.diff.patch import split_lines
from secdash.services.fix.patches import validate_patch
from secdash.services.fix.recipes import RECIPES, propose, recipe_for
from secdash.services.scanning.code_roots import DEMO_SOURCES

# Findings the offline engine leaves to a person or a model, on purpose: none in the demo sites.
NO_RECIPE: set[tuple[str, str]] = set()
# New findings a fix brings (the re-scan must show nothing else new; Fix Mode flags these to the reviewer): an
# argument list is bandit's "subprocess without shell" note (B603) and "tar" is found by PATH (B607); the split
# also exposes the "/tmp/" literal that the shell string hid (B108, a predictable temp path: still a real flaw).
EXPECTED_NEW = {"bandit:B602": {"bandit:B603": "low", "bandit:B607": "low", "bandit:B108": "medium"}}


def _demo_findings() -> list[Finding]:
    return [finding for target in collect_targets([DEMO_SOURCES]) for finding in scan_file(target, "full")]


DEMO_FINDINGS = _demo_findings()


def _rescan(root: Path, relative: str) -> list[Finding]:
    path = root / relative
    return scan_file(ScanTarget(path=path, display=relative, lines=len(split_lines(path.read_text()))), "full")


def _new_lines_for(before: str, after: str, line: int) -> range:
    """The 1-based lines of `after` that took the place of `line` in `before`."""
    matcher = difflib.SequenceMatcher(a=split_lines(before), b=split_lines(after), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if i1 <= line - 1 < i2:
            return range(j1 + (line - 1 - i1) + 1, j1 + (line - 1 - i1) + 2) if tag == "equal" else range(j1 + 1, j2 + 1)
    raise AssertionError(f"line {line} not found")


def test_the_demo_sources_have_findings_of_every_kind_the_recipes_cover() -> None:
    rules = {finding.rule for finding in DEMO_FINDINGS}
    assert {"js:eval", "js:innerHTML", "js:document.write", "js:sql-concatenation", "bandit:B602"} <= rules
    assert any(rule.startswith("secret:") for rule in rules)


def test_findings_without_a_recipe_are_exactly_the_listed_ones() -> None:
    missing = {(finding.file, finding.rule) for finding in DEMO_FINDINGS if recipe_for(finding.rule) is None}
    assert missing == NO_RECIPE
    for finding in DEMO_FINDINGS:
        if (finding.file, finding.rule) in NO_RECIPE:
            assert propose((DEMO_SOURCES / finding.file).read_bytes().decode(), finding) is None


@pytest.mark.parametrize(
    "finding", [f for f in DEMO_FINDINGS if (f.file, f.rule) not in NO_RECIPE], ids=lambda f: f"{f.file}:{f.line}:{f.rule}"
)
def test_recipe_fixes_the_demo_finding(finding: Finding, tmp_path: Path) -> None:
    root = tmp_path / "sources"
    shutil.copytree(DEMO_SOURCES, root)
    before_text = (root / finding.file).read_bytes().decode()

    diff = propose(before_text, finding)
    assert diff, f"no diff for {finding}"
    [change] = validate_patch(diff, root, allowed_files={finding.file})
    assert change.path == finding.file and change.before == before_text.encode()
    (root / finding.file).write_bytes(change.after)

    after = _rescan(root, finding.file)
    moved_to = _new_lines_for(before_text, change.after.decode(), finding.line)
    assert not [f for f in after if f.rule == finding.rule and f.line in moved_to], after
    original = [f for f in DEMO_FINDINGS if f.file == finding.file]
    assert sum(f.rule == finding.rule for f in after) < sum(f.rule == finding.rule for f in original)
    if finding.code.startswith("secret-sha1:"):
        assert all(f.code != finding.code for f in after)
    introduced = {f.rule: f.severity for f in after if f.rule not in {o.rule for o in original}}
    assert introduced == EXPECTED_NEW.get(finding.rule, {})


def _finding(file: str, line: int, rule: str, code: str = "") -> Finding:
    return Finding(file, line, rule, "high", "", "test", code=code)


def test_every_recipe_explains_itself_and_names_a_risk() -> None:
    for recipe in RECIPES:
        assert recipe.explanation.strip() and recipe.risk.strip()
        assert recipe_for(recipe.rule_prefix + ("AWS Access Key" if recipe.rule_prefix.endswith(":") else "")) is recipe


def test_new_function_returning_data_becomes_json_parse_and_other_shapes_are_left_alone() -> None:
    text = 'const settings = new Function("return " + body)();\n'
    assert propose(text, _finding("a.js", 1, "js:new-function")) is not None
    assert recipe_for("js:new-function")(text, _finding("a.js", 1, "js:new-function")) == ("const settings = JSON.parse(body);\n")
    assert propose('const f = new Function("a", "b", code);\n', _finding("a.js", 1, "js:new-function")) is None


def test_a_secret_in_javascript_becomes_process_env_and_elsewhere_has_no_recipe() -> None:
    text = 'const stripeKey = "sk_live_abc";\r\nconsole.log(1);\r\n'
    fixed = recipe_for("secret:Secret Keyword")(text, _finding("pay.js", 1, "secret:Secret Keyword"))
    assert fixed == "const stripeKey = process.env.STRIPE_KEY;\r\nconsole.log(1);\r\n"
    assert propose('<meta content="sk_live_abc">\n', _finding("a.html", 1, "secret:Secret Keyword")) is None


def test_shell_commands_that_need_a_shell_have_no_recipe() -> None:
    text = 'import subprocess\nsubprocess.call("ls " + folder + " | wc -l", shell=True)\n'
    assert propose(text, _finding("job.py", 2, "bandit:B602")) is None
    text = 'import subprocess\nsubprocess.run(f"rm {path}", shell=True, check=True)\n'
    assert recipe_for("bandit:B602")(text, _finding("job.py", 2, "bandit:B602")) == (
        'import subprocess\nsubprocess.run(["rm", str(path)], check=True)\n'
    )


def test_sql_concatenation_passed_straight_to_the_call_gets_its_parameters_there() -> None:
    text = "db.get('SELECT * FROM users WHERE id = ' + id + ' AND name = \\'' + name + '\\'', done);\n"
    fixed = recipe_for("js:sql-concatenation")(text, _finding("u.js", 1, "js:sql-concatenation"))
    assert fixed == "db.get('SELECT * FROM users WHERE id = ? AND name = ?', [id, name], done);\n"


# --- what the shell fix leaves on gem/settings.py (B108, B603, B607), the import's B404, and the whole loop -------

SETTINGS = "gem/settings.py"


def _copy_sources(tmp_path: Path) -> Path:
    root = tmp_path / "sources"
    shutil.copytree(DEMO_SOURCES, root)
    return root


def _apply(root: Path, finding: Finding) -> tuple[str, str]:
    """Proposes the recipe's diff, validates it against the files and writes it: (text before, text after)."""
    before = (root / finding.file).read_bytes().decode()
    diff = propose(before, finding)
    assert diff, f"no diff for {finding}"
    [change] = validate_patch(diff, root, allowed_files={finding.file})
    assert change.path == finding.file and change.before == before.encode()
    (root / finding.file).write_bytes(change.after)
    return before, change.after.decode()


def _settings_after_the_shell_fix(root: Path) -> list[Finding]:
    [shell] = [f for f in _rescan(root, SETTINGS) if f.rule == "bandit:B602"]
    _apply(root, shell)
    return _rescan(root, SETTINGS)


def _imports(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("import ")]


@pytest.mark.parametrize("rule", ["bandit:B108", "bandit:B603", "bandit:B607", "bandit:B404"])
def test_recipe_fixes_what_the_shell_fix_leaves_on_the_gem_settings(rule: str, tmp_path: Path) -> None:
    if rule == "bandit:B607" and shutil.which("tar") is None:
        pytest.skip("tar is not installed on this machine, so there is no absolute path to use")
    root = _copy_sources(tmp_path)
    findings = _settings_after_the_shell_fix(root)
    assert {"bandit:B108", "bandit:B603", "bandit:B607", "bandit:B404"} <= {f.rule for f in findings}
    [finding] = [f for f in findings if f.rule == rule]

    before, after = _apply(root, finding)

    rescanned = _rescan(root, SETTINGS)
    assert rule not in {f.rule for f in rescanned}, rescanned
    others = list(findings)
    others.remove(finding)
    assert sorted(f.rule for f in rescanned) == sorted(f.rule for f in others)  # nothing else comes or goes
    [line] = _new_lines_for(before, after, finding.line)
    changed = split_lines(after)[line - 1].rstrip("\n")
    if rule == "bandit:B108":
        assert 'os.path.join(tempfile.gettempdir(), "") + name + ".tgz"' in changed
        assert _imports(after) == ["import os", "import subprocess", "import tempfile"]
    elif rule == "bandit:B607":
        assert f'subprocess.call(["{shutil.which("tar")}", "czf", ' in changed
    else:  # B603 and B404: only a comment is added, the program is the same
        assert changed == split_lines(before)[finding.line - 1].rstrip("\n") + f"  # nosec {rule[-4:]}"
        assert ast.dump(ast.parse(after)) == ast.dump(ast.parse(before))


def test_the_offline_engine_alone_fixes_every_finding_in_the_demo_sites(tmp_path: Path) -> None:
    """What an admin does in Fix Mode with no model: scan, apply the first offered fix, scan again, until done."""
    root = _copy_sources(tmp_path)
    applied: list[tuple[str, str]] = []
    # One full scan, then only the file a fix changed is scanned again (a fix touches its own file only).
    by_file = {target.display: scan_file(target, "full") for target in collect_targets([root])}
    for _ in range(200):
        findings = [finding for file in sorted(by_file) for finding in by_file[file]]
        for finding in findings:
            before = (root / finding.file).read_bytes().decode()
            diff = propose(before, finding)
            if diff is None:
                continue
            [change] = validate_patch(diff, root, allowed_files={finding.file})  # raises if it does not validate
            assert change.before == before.encode() and change.after != change.before
            (root / finding.file).write_bytes(change.after)
            applied.append((finding.file, finding.rule))
            by_file[finding.file] = _rescan(root, finding.file)
            break
        else:
            break
    rescanned = [f for target in collect_targets([root]) for f in scan_file(target, "full")]  # a full scan agrees
    assert sorted((f.file, f.line, f.rule) for f in findings) == sorted((f.file, f.line, f.rule) for f in rescanned)
    # Only a missing `tar` (no absolute path to find) would leave a finding the offline engine cannot fix.
    unfixable = [] if shutil.which("tar") else [(SETTINGS, "bandit:B607")]
    assert [(f.file, f.rule) for f in findings] == unfixable, applied
    assert {(SETTINGS, rule) for rule in ("bandit:B602", "bandit:B108", "bandit:B603", "bandit:B404")} <= set(applied)


def _scan_text(tmp_path: Path, text: str) -> tuple[Path, list[Finding]]:
    (tmp_path / "job.py").write_text(text)
    return tmp_path, _rescan(tmp_path, "job.py")


def _fix_in_place(root: Path, rule: str, line: int) -> list[Finding]:
    finding = next(f for f in _rescan(root, "job.py") if f.rule == rule and f.line == line)  # one per literal
    _apply(root, finding)
    return _rescan(root, "job.py")


def test_reviewed_markers_keep_comments_join_an_existing_nosec_and_bandit_honours_them(tmp_path: Path) -> None:
    root, findings = _scan_text(
        tmp_path,
        (
            "from subprocess import run  # the one call we need\n"
            "run(['/bin/ls', '-l'], check=True)  # list the files\n"
            "run(['ls', 'café'], check=True)  # nosec B607\n"
            "run(\n"
            "    ['/bin/ls'],\n"
            "    shell=False,\n"
            ")\n"
        ),
    )
    assert {(f.line, f.rule) for f in findings} >= {
        (1, "bandit:B404"),
        (2, "bandit:B603"),
        (3, "bandit:B603"),
        (6, "bandit:B603"),
    }
    _fix_in_place(root, "bandit:B404", 1)
    _fix_in_place(root, "bandit:B603", 2)
    _fix_in_place(root, "bandit:B603", 3)
    after = _fix_in_place(root, "bandit:B603", 6)
    assert not [f for f in after if f.rule in ("bandit:B404", "bandit:B603")], after
    assert (root / "job.py").read_text().splitlines() == [
        "from subprocess import run  # the one call we need  # nosec B404",
        "run(['/bin/ls', '-l'], check=True)  # list the files  # nosec B603",
        "run(['ls', 'café'], check=True)  # nosec B607, B603",
        "run(",
        "    ['/bin/ls'],",
        "    shell=False,  # nosec B603",
        ")",
    ]


def test_no_reviewed_marker_for_a_shell_a_command_string_or_a_line_inside_a_string() -> None:
    marker = recipe_for("bandit:B603")
    for text in (
        'subprocess.run(["ls"], shell=True)\n',
        'subprocess.run(["ls"], shell=use_shell)\n',
        'subprocess.run(["ls"], **options)\n',
        'subprocess.run("ls -l")\n',
        "subprocess.run(command)\n",
        'subprocess.run(["/bin/echo", """one\ntwo"""])\n',
    ):
        assert marker(text, _finding("job.py", 1, "bandit:B603")) is None, text
    assert recipe_for("bandit:B404")("import os\n", _finding("job.py", 1, "bandit:B404")) is None


def test_partial_path_has_no_recipe_when_the_program_is_not_on_this_server() -> None:
    text = 'import subprocess\nsubprocess.run(["secdash-no-such-program", "--version"], check=True)\n'
    assert propose(text, _finding("job.py", 2, "bandit:B607")) is None


def test_partial_path_in_a_command_string_becomes_absolute_too(tmp_path: Path) -> None:
    ls = shutil.which("ls")
    if ls is None:
        pytest.skip("ls is not installed on this machine")
    root, _ = _scan_text(tmp_path, 'import os\nos.system("ls -l")\n')
    after = _fix_in_place(root, "bandit:B607", 2)
    assert (root / "job.py").read_text() == f'import os\nos.system("{ls} -l")\n'
    assert "bandit:B607" not in {f.rule for f in after}


def test_tmp_literals_follow_the_temp_directory_and_docstrings_stay(tmp_path: Path) -> None:
    root, _ = _scan_text(
        tmp_path,
        (
            '"""Writes logs under /tmp/ (this docstring is left alone)."""\n'
            "import json\n"
            "\n"
            'LOGS = [f"/tmp/{NAME}.log", "/tmp", "/tmpfiles"]\n'
        ),
    )
    after = _fix_in_place(root, "bandit:B108", 4)
    assert (root / "job.py").read_text() == (
        '"""Writes logs under /tmp/ (this docstring is left alone)."""\n'
        "import json\n"
        "import os\n"
        "import tempfile\n"
        "\n"
        'LOGS = [os.path.join(tempfile.gettempdir(), f"{NAME}.log"), tempfile.gettempdir(), "/tmpfiles"]\n'
    )
    assert [(f.line, f.rule) for f in after if f.rule == "bandit:B108"] == [(6, "bandit:B108")]  # "/tmpfiles"


def test_an_inline_handler_moves_into_the_pages_own_script_so_a_strict_csp_still_runs_it(tmp_path: Path) -> None:
    """Tour's Translate button: after the CSP header fix (script-src 'self') and this fix, every script the page
    runs comes from a file of the site (the done-means run saw the button dead: the handler had become an inline
    script block, which that CSP blocks)."""
    from secdash.services.fix import scope
    from secdash.services.fix.recipes import propose_files

    root = _copy_sources(tmp_path)
    page = "tour/index.html"
    [finding] = [f for f in _rescan(root, page) if f.rule == "html:inline-event-handler"]
    before = (root / page).read_text()

    def read(relative: str) -> str | None:
        path = root / relative
        return path.read_text() if path.is_file() else None

    diff = propose_files(before, finding, path=page, read=read)
    assert diff is not None
    assert scope.allowed_files(root, page) == {page, "tour/translate.js"}
    changes = {change.path: change for change in validate_patch(diff, root, allowed_files=scope.allowed_files(root, page))}
    assert set(changes) == {page, "tour/translate.js"}
    for path, change in changes.items():
        (root / path).write_bytes(change.after)
    html_after, script_after = (root / page).read_text(), (root / "tour/translate.js").read_text()
    assert "onclick" not in html_after.lower() and "<script>" not in html_after.lower()  # nothing inline is left
    assert 'addEventListener("click", function (event) { translatePhrase(); });' in script_after
    button_id = re.search(r'<button id="([^"]+)"', html_after).group(1)
    assert f'document.getElementById("{button_id}")' in script_after
    assert html_after.index(f'id="{button_id}"') < html_after.index('src="translate.js"')  # the element exists first
    assert not [f for f in _rescan(root, page) if f.rule == "html:inline-event-handler"]
    assert not [
        f
        for f in _rescan(root, "tour/translate.js")
        if f.rule not in {o.rule for o in DEMO_FINDINGS if o.file == "tour/translate.js"}
    ]


def test_a_page_without_a_script_file_after_the_element_keeps_the_script_block(tmp_path: Path) -> None:
    from secdash.services.fix.recipes import propose_files

    text = '<html><body>\n<script src="early.js"></script>\n<button onclick="go()">Go</button>\n</body></html>\n'
    finding = _finding("page.html", 3, "html:inline-event-handler")
    diff = propose_files(text, finding, path="page.html", read=lambda _path: "function go() {}\n")
    assert diff is not None and "early.js" not in diff.split("\n", 2)[0] and "+++ b/early.js" not in diff
    assert "<script>document.getElementById" in diff


GEM_PAGE_STUB = """
const shown = {};
globalThis.document = {getElementById: (id) => ({set textContent(value) { shown[id] = value; }})};
"""


def _gem_appraisal(script: str) -> str:
    """What Gem's appraise.js writes into the page, run in node with a stub document (the script as a page runs it)."""
    import subprocess

    program = GEM_PAGE_STUB + script + "\nprocess.stdout.write(JSON.stringify(shown));\n"
    result = subprocess.run(["node", "-e", program], capture_output=True, text=True, timeout=30, check=False)
    assert result.returncode == 0, result.stderr[-500:]
    return result.stdout


def test_the_eval_recipe_keeps_the_gem_page_computing_its_value() -> None:
    """Regression (issue 22, section 4): the recipe turned `eval(formula)` into JSON.parse(formula), which throws on
    every load of the Gem page; the fix was shown VERIFIED. It must write the arithmetic itself."""
    finding = next(f for f in DEMO_FINDINGS if f.rule == "js:eval" and f.file.endswith("appraise.js"))
    before = (DEMO_SOURCES / finding.file).read_text()
    after = recipe_for("js:eval")(before, finding)
    assert after is not None and "eval(" not in after and "JSON.parse" not in after
    assert _gem_appraisal(after) == _gem_appraisal(before) == '{"appraisal":"Estimated value: $2340"}'
