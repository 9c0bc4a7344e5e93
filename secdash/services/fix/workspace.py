"""The workspace: a patched copy of a code root in the data directory, written only by applied fixes.

The first applied fix copies the root (skipping vendored and build folders) into `code_roots.workspace_for(root)`
under a temporary name and renames it into place, so a scan never reads a half-made copy. From then on the scan
reads the workspace (and the bundled demo sites serve theirs). Files are replaced atomically, and every change
happens under the workspace's file lock (services/workspaces.py, the one the builder's project directories take
too), so two requests or two workers applying fixes to one root take turns. The copying and the writing run in
a worker thread: a large root never stalls the event loop.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from secdash.services import workspaces
from secdash.services.code_scan.engine import SKIP_DIRS
from secdash.services.scanning import code_roots


@asynccontextmanager
async def locked(root: Path) -> AsyncIterator[Path]:
    """Hold the root's workspace lock (across threads and processes, waited for off the loop); yields the
    workspace path (it may not exist yet)."""
    workspace = code_roots.workspace_for(root)
    async with workspaces.locked_async(workspace):
        yield workspace


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
    """Write files (paths relative to the root, already validated) into the workspace, copying the root first
    when there is no workspace yet; the caller holds `locked` and runs this in a worker thread (`write`)."""
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


async def write(root: Path, files: dict[str, bytes]) -> None:
    """`write_files` off the event loop; the caller holds `locked`."""
    await asyncio.to_thread(write_files, root, files)
