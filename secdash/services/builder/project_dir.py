"""A project's files on disk (`DATA_DIR/projects/<id>/`): what the checks and the code scan read.

The database holds the files; after every build or continue the directory is rewritten from them (each file
atomically, files no longer in the project removed, under the directory's lock in services/workspaces.py, the
one Fix Mode takes too), so it never holds a half-written file.

An administrator's project is also a code root of the Security Scan (a mark file `<id>.code-root` beside the
directory says so): its findings reach the Problem Database and Fix Mode, which writes an applied fix into the
directory itself (a project root is its own workspace) and into the project's files. A limited user's project
stays private: only its own build log shows its findings."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from secdash.ai.files import safe_path, tool_file_reason
from secdash.core.config import get_settings
from secdash.core.files import make_private_dir
from secdash.services import workspaces

LANGUAGES = {
    ".html": "html",
    ".htm": "html",
    ".css": "css",
    ".js": "javascript",
    ".mjs": "javascript",
    ".ts": "typescript",
    ".json": "json",
    ".py": "python",
    ".md": "markdown",
    ".txt": "text",
    ".svg": "svg",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".sh": "shell",
    ".jsx": "javascript",
    ".tsx": "typescript",
}


def language_of(path: str) -> str:
    return LANGUAGES.get(PurePosixPath(path).suffix.lower(), "text")


def projects_dir() -> Path:
    return get_settings().DATA_DIR / "projects"


def dir_of(project_id: int) -> Path:
    return projects_dir() / str(int(project_id))


ROOT_MARK = ".code-root"


def is_project_root(root: Path) -> bool:
    """Whether `root` is a project's directory (as a code root it is its own workspace)."""
    return root.parent.resolve() == projects_dir().resolve() and root.name.isdigit()


def project_of(root: Path) -> int | None:
    return int(root.name) if is_project_root(root) else None


def code_roots() -> list[Path]:
    """The project directories the Security Scan reads (marked, still there), in project order."""
    if not projects_dir().is_dir():
        return []
    marked = [mark.name.removesuffix(ROOT_MARK) for mark in projects_dir().glob(f"*{ROOT_MARK}")]
    return [
        dir_of(int(name))
        for name in sorted(marked, key=lambda n: int(n) if n.isdigit() else 0)
        if name.isdigit() and dir_of(int(name)).is_dir()
    ]


def mark_code_root(project_id: int, on: bool) -> bool:
    """Make the project a code root of the Security Scan, or not; True when that changed."""
    mark = projects_dir() / f"{int(project_id)}{ROOT_MARK}"
    if on == mark.exists():
        return False
    if on:
        mark.touch()
    else:
        mark.unlink(missing_ok=True)
    return True


def write(project_id: int, files: Mapping[str, str]) -> Path:
    """Make the project's directory hold exactly `files` (safe relative paths only, never a file that tools run by
    themselves: secdash/ai/files.py `tool_file_reason`); returns it."""
    root = dir_of(project_id)
    make_private_dir(projects_dir())
    with workspaces.locked(root):  # the lock Fix Mode takes to write into a project's directory
        _write(root, files)
    return root


def _write(root: Path, files: Mapping[str, str]) -> None:
    root.mkdir(mode=0o700, exist_ok=True)
    wanted = {path for path in files if safe_path(path) == path and tool_file_reason(path) is None}
    for existing in sorted(root.rglob("*"), reverse=True):
        relative = existing.relative_to(root).as_posix()
        if existing.is_symlink() or (existing.is_file() and relative not in wanted):
            existing.unlink()
        elif existing.is_dir() and not any(existing.iterdir()):
            existing.rmdir()
    for path in sorted(wanted):
        target = root / path
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
                out.write(files[path])
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def remove(*project_ids: int) -> None:
    """Delete the projects' directories, each under its workspace lock (a Fix Mode write in progress finishes
    first). Blocking file work: call it through `asyncio.to_thread`."""
    for project_id in project_ids:
        mark_code_root(project_id, False)
        root = dir_of(project_id)
        with workspaces.locked(root):
            shutil.rmtree(root, ignore_errors=True)
        workspaces.lock_file(root).unlink(missing_ok=True)
