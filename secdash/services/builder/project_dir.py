"""A project's files on disk (`DATA_DIR/projects/<id>/`): what the checks and the code scan read.

The database holds the files; after every build or continue the directory is rewritten from them (each file
atomically, files no longer in the project removed), so it never holds a half-written file."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from secdash.ai.files import safe_path
from secdash.core.config import get_settings
from secdash.core.files import make_private_dir

LANGUAGES = {
    ".html": "html", ".htm": "html", ".css": "css", ".js": "javascript", ".mjs": "javascript", ".ts": "typescript",
    ".json": "json", ".py": "python", ".md": "markdown", ".txt": "text", ".svg": "svg", ".toml": "toml",
    ".yaml": "yaml", ".yml": "yaml", ".sh": "shell", ".jsx": "javascript", ".tsx": "typescript",
}


def language_of(path: str) -> str:
    return LANGUAGES.get(PurePosixPath(path).suffix.lower(), "text")


def projects_dir() -> Path:
    return get_settings().DATA_DIR / "projects"


def dir_of(project_id: int) -> Path:
    return projects_dir() / str(int(project_id))


def write(project_id: int, files: Mapping[str, str]) -> Path:
    """Make the project's directory hold exactly `files` (safe relative paths only); returns it."""
    root = dir_of(project_id)
    make_private_dir(projects_dir())
    root.mkdir(mode=0o700, exist_ok=True)
    wanted = {path for path in files if safe_path(path) == path}
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
    return root


def remove(project_id: int) -> None:
    shutil.rmtree(dir_of(project_id), ignore_errors=True)
