"""Diff validation for Fix Mode: what may never be applied, and exact bytes for what may."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from secdash.services.diff.patch import unified_diff
from secdash.services.fix.patches import (
    MAX_CHANGED_LINES,
    MAX_PATCH_BYTES,
    PatchRefused,
    apply_patch,
    validate_patch,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "lib").mkdir(parents=True)
    (root / "app.js").write_bytes(b"const a = 1;\nconst b = eval(data);\nconsole.log(a);\n")
    (root / "lib" / "win.py").write_bytes(b"x = 1\r\ny = 2\r\nz = 3")  # CRLF, no final newline
    (tmp_path / "outside.txt").write_bytes(b"secret\n")
    return root


def _refused(diff: str, root: Path, match: str, **kwargs) -> None:
    with pytest.raises(PatchRefused, match=match):
        validate_patch(diff, root, **kwargs)


def test_a_valid_diff_gives_exact_before_and_after_without_writing(root: Path) -> None:
    diff = unified_diff("app.js", (root / "app.js").read_text(), "const a = 1;\nconst b = JSON.parse(data);\nconsole.log(a);\n")
    changes = apply_patch(diff, root)
    assert changes == {
        "app.js": (
            b"const a = 1;\nconst b = eval(data);\nconsole.log(a);\n",
            b"const a = 1;\nconst b = JSON.parse(data);\nconsole.log(a);\n",
        )
    }
    assert b"eval" in (root / "app.js").read_bytes()  # pure: nothing written


def test_crlf_and_a_missing_final_newline_survive_both_ways(root: Path) -> None:
    before = (root / "lib" / "win.py").read_bytes()
    after = b"x = 1\r\ny = 20\r\nz = 3"
    diff = unified_diff("lib/win.py", before.decode(), after.decode())
    assert "\\ No newline at end of file" in diff
    [change] = validate_patch(diff, root)
    assert (change.before, change.after) == (before, after)
    (root / "lib" / "win.py").write_bytes(change.after)  # applied; now the reverse diff must restore the bytes
    back = apply_patch(unified_diff("lib/win.py", after.decode(), before.decode()), root)
    assert back["lib/win.py"][1] == before
    added_newline = apply_patch(unified_diff("lib/win.py", after.decode(), after.decode() + "\r\n"), root)
    assert added_newline["lib/win.py"][1] == after + b"\r\n"


def test_git_apply_accepts_our_diffs(root: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(root, repo)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    cases = {"app.js": "const a = 2;\nconst b = eval(data);\nconsole.log(a);\n", "lib/win.py": "x = 1\r\ny = 2\r\n"}
    for path, after in cases.items():
        diff = unified_diff(path, (repo / path).read_bytes().decode(), after)
        (tmp_path / "fix.patch").write_bytes(diff.encode())
        subprocess.run(["git", "apply", "--check", str(tmp_path / "fix.patch")], cwd=repo, check=True)
        subprocess.run(["git", "apply", str(tmp_path / "fix.patch")], cwd=repo, check=True)
        assert (repo / path).read_bytes() == after.encode()


def _diff_for(path: str, old: str = "const a = 1;", new: str = "const a = 2;") -> str:
    return f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n+{new}\n"


def test_paths_outside_the_root_are_refused(root: Path) -> None:
    _refused(_diff_for("../outside.txt", "secret", "leak"), root, r"'\.\.' is not allowed")
    _refused(_diff_for("lib/../../outside.txt", "secret", "leak"), root, r"'\.\.' is not allowed")
    _refused("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-root\n+toor\n", root, "absolute paths")
    _refused(_diff_for("C:/Windows/win.ini"), root, "absolute paths")
    (root / "link.txt").symlink_to(root.parent / "outside.txt")
    _refused(_diff_for("link.txt", "secret", "leak"), root, "outside the code root")


def test_new_deleted_renamed_and_unlisted_files_are_refused(root: Path) -> None:
    _refused("--- /dev/null\n+++ b/new.js\n@@ -0,0 +1 @@\n+alert(1);\n", root, "creating files")
    _refused(
        "--- a/app.js\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-const a = 1;\n-const b = eval(data);\n-console.log(a);\n",
        root,
        "deleting files",
    )
    _refused("--- a/app.js\n+++ b/other.js\n@@ -1 +1 @@\n-const a = 1;\n+const a = 2;\n", root, "renaming")
    _refused(_diff_for("app.js"), root, r"may only change lib/win\.py", allowed_files={"lib/win.py"})
    assert validate_patch(_diff_for("app.js"), root, allowed_files={"app.js"})[0].path == "app.js"


def test_a_diff_that_does_not_apply_exactly_is_refused_naming_the_hunk(root: Path) -> None:
    _refused(_diff_for("app.js", "const a = 3;"), root, r"app\.js, hunk 1 .* does not apply")
    shifted = "--- a/app.js\n+++ b/app.js\n@@ -2 +2 @@\n-const a = 1;\n+const a = 2;\n"  # right text, wrong line
    _refused(shifted, root, "hunk 1 .* does not apply")
    crlf_blind = "--- a/lib/win.py\n+++ b/lib/win.py\n@@ -1 +1 @@\n-x = 1\n+x = 10\n"  # loses the \r
    _refused(crlf_blind, root, "does not apply")
    _refused(_diff_for("missing.js"), root, "no such file")


def test_empty_garbage_oversized_and_binary_diffs_are_refused(root: Path) -> None:
    _refused("", root, "empty")
    _refused("please fix the bug", root, "not a unified diff")
    _refused("--- a/app.js\n+++ b/app.js\n@@ -1,5 +1,5 @@\n-const a = 1;\n", root, "could not be read")
    big = "x" * MAX_PATCH_BYTES
    _refused(_diff_for("app.js", new=big), root, f"at most {MAX_PATCH_BYTES} bytes")
    many = "".join(f"+line {n}\n" for n in range(MAX_CHANGED_LINES + 1))
    _refused(
        f"--- a/app.js\n+++ b/app.js\n@@ -1 +1,{MAX_CHANGED_LINES + 2} @@\n const a = 1;\n{many}",
        root,
        f"at most {MAX_CHANGED_LINES} are accepted",
    )
    _refused(
        "diff --git a/logo.png b/logo.png\nindex 1234567..89abcde 100644\nBinary files a/logo.png and b/logo.png differ\n",
        root,
        "binary",
    )
    (root / "blob.js").write_bytes(b"const a = 1;\n\x00\x01")
    _refused(_diff_for("blob.js"), root, "binary")
