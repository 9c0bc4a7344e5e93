"""The workspace: a patched copy of a code root in the data directory, written only by applied fixes.

The first applied fix copies the root (skipping vendored and build folders) into `code_roots.workspace_for(root)`
under a temporary name and renames it into place, so a scan never reads a half-made copy. From then on the scan
reads the workspace (and the bundled demo sites serve theirs). Files are replaced atomically, and every change
happens under a per-root file lock, so two workers applying fixes to one root take turns.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from secdash.services.code_scan.engine import SKIP_DIRS
from secdash.services.scanning import code_roots


@contextmanager
def locked(root: Path) -> Iterator[Path]:
    """Hold the root's workspace lock (across processes); yields the workspace path (it may not exist yet)."""
    workspace = code_roots.workspace_for(root)
    workspace.parent.mkdir(parents=True, exist_ok=True)
    with open(workspace.with_name(workspace.name + ".lock"), "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield workspace
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _ensure(root: Path, workspace: Path) -> None:
    if workspace.is_dir():
        return
    staging = Path(tempfile.mkdtemp(prefix=workspace.name + ".", dir=workspace.parent))
    try:
        shutil.copytree(root, staging / "copy", symlinks=True, ignore=shutil.ignore_patterns(*SKIP_DIRS))
        os.rename(staging / "copy", workspace)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def current_bytes(root: Path, relative: str) -> bytes:
    """A file as the scan reads it now (the workspace's copy when there is a workspace)."""
    return (code_roots.source_of(root) / relative).read_bytes()


def write_files(root: Path, files: dict[str, bytes]) -> None:
    """Write files (paths relative to the root, already validated) into the workspace; caller holds `locked`."""
    workspace = code_roots.workspace_for(root)
    _ensure(root, workspace)
    real = workspace.resolve()
    for relative, data in files.items():
        target = (workspace / relative).resolve()
        if real not in target.parents:
            raise ValueError(f"{relative} is outside the workspace")
        handle, temporary = tempfile.mkstemp(prefix=".fix-", dir=target.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            if target.exists():
                shutil.copymode(target, temporary)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
