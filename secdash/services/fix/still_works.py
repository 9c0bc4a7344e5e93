"""Does the code still work after a fix? A fix is verified only when the finding is gone AND nothing got worse:

- the changed files still parse or compile (HTML structure and references, `node --check`, Python `compile`,
  through the Live Code Builder's checks, in a bounded worker): an error the folder did not have before the fix is
  a regression;
- every page the change belongs to still loads as before in headless Chromium (services/fix/page_check.py).

The "before" side is a copy of the changed files' folder with the fix's previous bytes written back; the "after"
side is the folder as the fix left it. Both are checked the same way, so what was already broken before the fix
is never blamed on it.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from secdash.core.config import get_settings
from secdash.core.files import make_private_dir
from secdash.services.builder import checks
from secdash.services.code_scan.engine import SKIP_DIRS
from secdash.services.fix import page_check

MAX_FOLDER_FILES = 500  # a folder with more files is not copied for the comparison


def _folder_of(files: list[str]) -> str:
    """The site folder the changed files live in: their common top folder ("" for a project's own root)."""
    tops = {PurePosixPath(name).parts[0] if len(PurePosixPath(name).parts) > 1 else "" for name in files}
    return tops.pop() if len(tops) == 1 else ""


def _listing(folder: Path) -> list[str]:
    names = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_file() and not any(part in SKIP_DIRS for part in relative.parts[:-1]):
            names.append(relative.as_posix())
    return names


def _scratch_folder() -> Path:
    """A new private folder under the data directory's scratch space (the caller removes it)."""
    return Path(tempfile.mkdtemp(prefix="fix-before-", dir=make_private_dir(get_settings().scratch_dir)))


def _copy_before(after: Path, before: Path, previous: Mapping[str, bytes]) -> None:
    shutil.copytree(after, before, ignore=shutil.ignore_patterns(*SKIP_DIRS))
    for name, data in previous.items():
        target = before / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


async def _new_errors(before: Path, after: Path, names: list[str], owner: int | None) -> list[str]:
    old, new = await asyncio.gather(
        checks.run_checks(before, names, scan=False, owner=owner), checks.run_checks(after, names, scan=False, owner=owner)
    )
    if any(not finding.file and finding.level == "warning" for finding in (*old.findings, *new.findings)):
        unchecked = next(f.message for f in (*new.findings, *old.findings) if not f.file)
        return [f"the changed files could not be checked: {unchecked}"]
    had = {(finding.file, finding.check, finding.message) for finding in old.findings if finding.level == "error"}
    return [
        str(finding)
        for finding in new.findings
        if finding.level == "error" and (finding.file, finding.check, finding.message) not in had
    ]


async def regressions(source: Path, files: list[str], previous: Mapping[str, bytes], *, owner: int | None = None) -> list[str]:
    """Why the fixed code may no longer work ([] when it works as before): new syntax or structure errors in the
    changed files' folder, then what its pages report in a browser and did not before. `files` and `previous`
    (each changed file's bytes before the fix) are paths relative to `source`, the folder the fix wrote."""
    base = _folder_of(files)
    after = source / base if base else source
    names = await asyncio.to_thread(_listing, after)
    if len(names) > MAX_FOLDER_FILES:
        return [f"{base or 'the project'} has more than {MAX_FOLDER_FILES} files: the fixed code was not re-checked"]
    inside = {str(PurePosixPath(name).relative_to(base)) if base else name: data for name, data in previous.items()}
    folder = await asyncio.to_thread(_scratch_folder)
    try:
        before = folder / "site"
        await asyncio.to_thread(_copy_before, after, before, inside)
        found = await _new_errors(before, after, names, owner)
        pages = page_check.pages_of(sorted(inside), names)
        if pages and not found:
            try:
                found += await page_check.regressions(before, after, pages)
            except page_check.CheckUnavailable as exc:
                found.append(str(exc))
    finally:
        await asyncio.to_thread(shutil.rmtree, folder, True)
    return found
