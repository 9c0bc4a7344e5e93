"""The Live Code Builder's testing stage finds what would break a project, with file and line, and nothing else."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from secdash.services.builder import checks
from secdash.services.builder.checks import CheckReport, run_checks

FAKE_AWS_KEY = "AKIAZ7QWERTYU2ASDF3G"

CLEAN = {
    "index.html": """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Counter</title>
  <link rel="stylesheet" href="style.css">
</head>
<body>
  <ul><li>one<li>two</ul>
  <p>Clicks: <span id="out">0</span>
  <p><a href="#top">top</a> <a href="mailto:me@example.com">mail</a> <img src="data:image/png;base64,AA==" alt="">
  <button id="add">Add</button>
  <script src="app.js?v=2"></script>
  <script>
    document.title = "Counter";
  </script>
</body>
</html>
""",
    "style.css": "body { font-family: sans-serif; background: url('img/dot.svg'); }\n",
    "img/dot.svg": '<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"></svg>\n',
    "app.js": "let count = 0;\ndocument.querySelector('#add').addEventListener('click', () => {\n"
    "  count += 1;\n  document.querySelector('#out').textContent = String(count);\n});\n",
    "main.py": "def add(a: int, b: int) -> int:\n    return a + b\n",
}


def _write(root: Path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return list(files)


async def _check(root: Path, files: dict[str, str], **kwargs) -> CheckReport:
    report = await run_checks(root, _write(root, files), **kwargs)
    assert all(str(root) not in finding.message for finding in report.findings)
    return report


def _seen(report: CheckReport) -> set[tuple[str, str, str, int | None]]:
    return {(f.check, f.level, f.file, f.line) for f in report.findings}


async def test_clean_project_passes_every_check(tmp_path):
    report = await _check(tmp_path, CLEAN)
    assert report.findings == ()
    assert report.ok and report.errors == 0
    assert report.counts == {"html": 1, "links": 2, "javascript": 2, "python": 1, "scan": 5}


async def test_unclosed_and_mismatched_elements_by_line(tmp_path):
    page = "<main>\n  <div class='card'>\n    <span>hi\n  </div>\n  <section>\n</main>\n<div>\n  <p>text\n"
    report = await _check(tmp_path, {"index.html": page}, scan=False)
    assert not report.ok
    messages = {(f.line, f.message) for f in report.findings}
    assert (3, "<span> opened on line 3 is not closed before </div> on line 4") in messages
    assert (5, "<section> opened on line 5 is not closed before </main> on line 6") in messages
    assert (7, "<div> opened on line 7 is never closed") in messages
    assert report.errors == 3  # the open <p> may be left open: its end tag is optional


async def test_stray_end_tag_is_an_error(tmp_path):
    report = await _check(tmp_path, {"index.html": "<div>a</div>\n</span>\n"}, scan=False)
    assert [(f.check, f.line, f.message) for f in report.findings] == [("html", 2, "</span> closes nothing: no <span> is open")]


async def test_missing_script_is_an_error_with_file_and_line(tmp_path):
    page = "<html><body>\n<h1>Hi</h1>\n<script src='js/app.js'></script>\n<script src=\"lib.js\"></script>\n</body></html>\n"
    report = await _check(tmp_path, {"index.html": page, "js/app.js": "console.log(1);\n"}, scan=False)
    assert not report.ok
    assert [str(f) for f in report.findings] == ["index.html:4 references missing file lib.js"]


async def test_references_resolve_relative_to_the_page(tmp_path):
    files = {
        "pages/about.html": '<link rel="stylesheet" href="../css/site.css">\n<img src="logo.png">\n<a href="../">home</a>\n',
        "css/site.css": ".a { background: url(../pages/logo.png) }\n",
        "pages/logo.png": "png\n",
        "index.html": "<p>home\n",
    }
    report = await _check(tmp_path, files, scan=False)
    assert report.findings == ()


async def test_missing_file_in_css_is_reported_with_the_css_line(tmp_path):
    files = {
        "index.html": '<link rel="stylesheet" href="style.css">\n<div style="background: url(bg.png)"></div>\n',
        "style.css": "/* url(old.png) */\nbody {\n  background: url('hero.jpg');\n}\n",
    }
    report = await _check(tmp_path, files, scan=False)
    assert [str(f) for f in report.findings] == [
        "index.html:2 references missing file bg.png",
        "style.css:3 references missing file hero.jpg",
    ]


async def test_root_relative_reference_is_a_warning(tmp_path):
    files = {"index.html": '<body>\n<img src="/logo.png" alt="">\n</body>\n', "logo.png": "png\n"}
    report = await _check(tmp_path, files, scan=False)
    assert report.ok
    assert _seen(report) == {("links", "warning", "index.html", 2)}
    assert "/logo.png" in report.findings[0].message and "preview" in report.findings[0].message


async def test_network_reference_is_a_warning(tmp_path):
    page = (
        '<head>\n<script src="https://cdn.jsdelivr.net/npm/vue@3/dist/vue.global.js"></script>\n'
        '<link rel="stylesheet" href="//fonts.example.com/font.css">\n</head>\n'
    )
    report = await _check(tmp_path, {"index.html": page}, scan=False)
    assert report.ok
    assert _seen(report) == {("links", "warning", "index.html", 2), ("links", "warning", "index.html", 3)}
    assert all("the preview has no network" in f.message for f in report.findings)


async def test_javascript_syntax_error_with_its_line(tmp_path):
    files = {"app.js": "const a = 1;\nfunction add(x, y) {\n  return x + ;\n}\n", "ok.mjs": "export const b = 2;\n"}
    report = await _check(tmp_path, files, scan=False)
    assert not report.ok
    assert _seen(report) == {("javascript", "error", "app.js", 3)}
    assert report.findings[0].message.startswith("SyntaxError")
    assert report.counts["javascript"] == 2


async def test_inline_script_error_is_mapped_to_the_html_line(tmp_path):
    page = (
        "<!doctype html>\n<html><body>\n<p>text</p>\n<script>\n  const a = 1;\n  if (a {\n  }\n</script>\n"
        '<script type="module">import { x } from "./mod.js";\n  export const y = ;\n</script>\n</body></html>\n'
    )
    report = await _check(tmp_path, {"index.html": page, "mod.js": "export const x = 1;\n"}, scan=False)
    assert {(f.file, f.line) for f in report.findings if f.check == "javascript"} == {("index.html", 6), ("index.html", 10)}
    assert all("inline <script>" in f.message for f in report.findings)


async def test_python_syntax_error_with_its_line(tmp_path):
    files = {"main.py": "import os\n\n\ndef main():\n    print(os.getcwd()\n\n\nmain()\n", "ok.py": "x = 1\n"}
    report = await _check(tmp_path, files, scan=False)
    assert [(f.check, f.file, f.line) for f in report.findings] == [("python", "main.py", 5)]
    assert report.counts["python"] == 2


async def test_python_is_compiled_not_run(tmp_path):
    marker = tmp_path / "ran"
    report = await _check(tmp_path, {"main.py": f"open({str(marker)!r}, 'w').write('x')\n"}, scan=False)
    assert report.ok and not marker.exists()


async def test_scan_finds_planted_key_and_eval(tmp_path):
    files = {
        "config.js": f'const region = "eu";\nconst awsKey = "{FAKE_AWS_KEY}";\n',
        "app.js": "const input = location.hash;\nconst value = eval(input);\n",
        "tool.py": "import subprocess\n\n\ndef run(cmd):\n    subprocess.call(cmd, shell=True)\n",
    }
    report = await _check(tmp_path, files)
    assert {("scan", "error", "config.js", 2), ("scan", "error", "app.js", 2), ("scan", "error", "tool.py", 5)} <= _seen(report)
    by_place = {(f.file, f.line): f.message for f in report.findings if f.check == "scan"}
    assert "AWS Access Key" in by_place[("config.js", 2)] and FAKE_AWS_KEY not in by_place[("config.js", 2)]
    assert by_place[("app.js", 2)].startswith("js:eval")
    assert by_place[("tool.py", 5)].startswith("B602 ") and by_place[("tool.py", 5)].endswith("(high)")


async def test_scan_can_be_left_out(tmp_path):
    report = await _check(tmp_path, {"app.js": "eval(location.hash);\n"}, scan=False)
    assert report.ok and report.counts["scan"] == 0


async def test_reference_leaving_the_project_is_missing_and_never_read(tmp_path, monkeypatch):
    """The file outside is a FIFO with no writer: opening it would hang the check until its budget ran out."""
    root = tmp_path / "project"
    root.mkdir()
    os.mkfifo(tmp_path / "secret.js")
    monkeypatch.setattr(checks, "REVIEW_SECONDS", 20.0)
    page = '<script src="../secret.js"></script>\n<script src="js/../../secret.js"></script>\n'
    report = await _check(root, {"index.html": page})
    assert [str(f) for f in report.findings] == [
        "index.html:1 references missing file ../secret.js (outside the project)",
        "index.html:2 references missing file js/../../secret.js (outside the project)",
    ]


async def test_symlink_out_of_the_project_is_not_read(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "outside.py").write_text("def broken(:\n")
    (root / "main.py").symlink_to(tmp_path / "outside.py")
    report = await run_checks(root, ["main.py"])
    assert [(f.file, f.level, f.message) for f in report.findings] == [
        ("main.py", "error", "leads outside the project; not checked")
    ]
    assert report.counts["python"] == 0


async def test_node_missing_is_one_warning(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: None)
    files = {"index.html": "<p>x</p>\n<script>let a = ;</script>\n", "app.js": "let b = ;\n", "c.js": "let c = ;\n"}
    report = await _check(tmp_path, files, scan=False)
    assert report.ok
    assert [(f.check, f.level) for f in report.findings] == [("javascript", "warning")]
    assert "not syntax-checked" in report.findings[0].message
    assert report.counts["javascript"] == 0


async def test_hanging_syntax_check_is_stopped(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "node"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: str(fake))
    monkeypatch.setattr(checks, "NODE_TIMEOUT", 0.3)
    report = await _check(tmp_path / "bin", {"app.js": "let a = 1;\n"}, scan=False)
    assert [(f.check, f.level, f.file) for f in report.findings] == [("javascript", "warning", "app.js")]
    assert "did not finish" in report.findings[0].message


async def test_at_most_two_syntax_checks_at_a_time_on_the_server(tmp_path, monkeypatch):
    """Three projects checked at once: their `node --check` runs share the server's two check workers."""
    running, log = tmp_path / "running", tmp_path / "log"
    running.mkdir()
    fake = tmp_path / "node"
    fake.write_text(f"#!/bin/sh\ntouch {running}/$$\nls {running} | wc -l >> {log}\nsleep 0.3\nrm {running}/$$\n")
    fake.chmod(0o755)
    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: str(fake))
    projects = [tmp_path / f"project{n}" for n in range(3)]
    for project in projects:
        project.mkdir()
    reports = await asyncio.gather(
        *(_check(project, {f"f{n}.js": "let a = 1;\n" for n in range(2)}, scan=False) for project in projects)
    )
    assert all(report.ok and report.counts["javascript"] == 2 for report in reports)
    assert max(int(line) for line in log.read_text().split()) == 2


async def test_inline_scripts_past_the_cap_are_named_not_checked(tmp_path):
    """A page of thousands of inline scripts starts a bounded number of node processes."""
    page = "<p>x</p>\n" + "<script>let a = 1;</script>\n" * (checks.MAX_INLINE_SCRIPTS + 5)
    report = await _check(tmp_path, {"index.html": page}, scan=False)
    assert report.ok and report.counts["javascript"] == checks.MAX_INLINE_SCRIPTS
    assert [str(f) for f in report.findings] == [
        f"index.html:{checks.MAX_INLINE_SCRIPTS + 2} 5 more inline <script> blocks were not syntax-checked "
        f"(at most {checks.MAX_INLINE_SCRIPTS} per check)"
    ]


async def test_big_files_are_skipped_with_a_warning(tmp_path):
    files = {"big.js": "let a = ;\n" + "// filler\n" * 60_000, "main.py": "x = 1\n"}
    report = await _check(tmp_path, files, scan=False)
    assert report.ok
    assert [(f.file, f.level) for f in report.findings] == [("big.js", "warning")]
    assert "512 KB" in report.findings[0].message


async def test_findings_are_capped_keeping_errors(tmp_path):
    page = "".join(f'<img src="https://img.example.com/{n}.png">\n' for n in range(250)) + "<p>\n" + "<div>\n" * 3
    report = await _check(tmp_path, {"index.html": page}, scan=False)
    assert len(report.findings) == checks.MAX_FINDINGS + 1
    assert str(report.findings[-1]) == "... and 53 more (0 errors)"
    assert {f.line for f in report.findings if f.check == "html"} == {252, 253, 254}  # kept though they come last
    assert report.errors == 3


@pytest.mark.parametrize("bad", ["../escape.py", "/etc/hosts.py"])
async def test_unsafe_paths_are_refused(tmp_path, bad):
    report = await run_checks(tmp_path, [bad])
    assert [(f.file, f.level) for f in report.findings] == [("", "error")]
    assert report.counts["python"] == 0
