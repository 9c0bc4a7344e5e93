"""Where SecDash keeps files of its own: private to the service account."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

PRIVATE_UMASK = 0o077


def make_private_dir(path: Path) -> Path:
    """Create `path` (0700), or narrow an existing one and the files directly in it (0600)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        path.chmod(0o700)
    for child in path.iterdir():
        if child.is_file() and not child.is_symlink() and stat.S_IMODE(child.stat().st_mode) & 0o077:
            child.chmod(0o600)
    return path


def restrict_process_umask() -> None:
    """Everything this process creates from now on is 0700/0600."""
    os.umask(PRIVATE_UMASK)


def remove_stale_state_files(project_root: Path) -> bool:
    """Delete Reflex's on-disk page states (.states/) left by older versions: they held live tokens.
    SecDash keeps page state in memory (one worker) or Redis (several)."""
    states = project_root / ".states"
    if states.is_dir() and not states.is_symlink():
        shutil.rmtree(states)
        return True
    return False
