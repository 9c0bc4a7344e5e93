"""Validating and applying unified diffs against a code root, byte for byte, without writing anything.

A proposed fix (from a model or the offline recipes) is untrusted text. Before anyone reviews it, it must parse,
stay inside the site's code root, stay small, and apply exactly to the files as they are now: a diff that only
applies "with fuzz" no longer says what it will change. Line endings and a missing final newline are kept
exactly, so the `before` bytes returned here are what a revert writes back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from unidiff import PatchedFile, PatchSet
from unidiff.constants import DEV_NULL, LINE_TYPE_ADDED, LINE_TYPE_CONTEXT, LINE_TYPE_NO_NEWLINE, LINE_TYPE_REMOVED
from unidiff.errors import UnidiffParseError

from secdash.services.diff.patch import split_lines

MAX_PATCH_BYTES = 64 * 1024
MAX_CHANGED_LINES = 400
MAX_FILES = 20
_DRIVE = re.compile(r"^[A-Za-z]:")


class PatchRefused(ValueError):
    """A diff that may not be applied; the message says why, in words a reviewer (or a model retrying) can act on."""


@dataclass(frozen=True)
class FilePatch:
    """One existing file under the root, as it is now (`before`) and as the diff would leave it (`after`)."""

    path: str
    before: bytes
    after: bytes
    added: int
    removed: int


def _relative_path(patched: PatchedFile) -> str:
    """The file's path relative to the root, refused when it is not an existing file changed in place."""
    if patched.is_binary_file:
        raise PatchRefused(f"{patched.path}: binary changes are not accepted; send a text diff.")
    if patched.source_file == DEV_NULL or patched.is_added_file:
        raise PatchRefused(f"{patched.target_file}: creating files is not allowed; a fix changes existing files only.")
    if patched.target_file == DEV_NULL or patched.is_removed_file:
        raise PatchRefused(f"{patched.source_file}: deleting files is not allowed; a fix changes existing files only.")
    source, target = (_strip_prefix(name, prefix) for name, prefix in ((patched.source_file, "a/"), (patched.target_file, "b/")))
    if source != target:
        raise PatchRefused(f"{source} -> {target}: renaming files is not allowed; a fix changes files in place.")
    if patched.source_mode != patched.target_mode:
        raise PatchRefused(f"{source}: changing a file's mode is not allowed.")
    if patched.is_symlink or patched.is_submodule:
        raise PatchRefused(f"{source}: symbolic links and submodules cannot be patched.")
    return _safe_relative(source)


def _strip_prefix(name: str, prefix: str) -> str:
    if name.startswith('"') and name.endswith('"'):
        name = name[1:-1]
    return name[len(prefix) :] if name.startswith(prefix) else name


def _safe_relative(name: str) -> str:
    if not name or "\0" in name:
        raise PatchRefused("A file in the diff has no usable name.")
    if name.startswith(("/", "\\", "~")) or _DRIVE.match(name):
        raise PatchRefused(f"{name}: absolute paths are not allowed; name files relative to the code root.")
    if "\\" in name:
        raise PatchRefused(f"{name}: backslashes are not allowed in paths; use forward slashes.")
    parts = PurePosixPath(name).parts
    if ".." in parts:
        raise PatchRefused(f"{name}: '..' is not allowed in paths; a fix stays inside the code root.")
    return PurePosixPath(*parts).as_posix()


def _resolve_inside(root: Path, relative: str) -> Path:
    """The file under the real root; symbolic links that lead outside it are refused."""
    real_root = root.resolve()
    target = (root / relative).resolve()
    if target != real_root and real_root not in target.parents:
        raise PatchRefused(f"{relative}: the path leads outside the code root.")
    if not target.is_file():
        raise PatchRefused(f"{relative}: no such file under the code root.")
    return target


def _decode(relative: str, data: bytes) -> str:
    if b"\0" in data:
        raise PatchRefused(f"{relative}: the file is binary and cannot be patched.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PatchRefused(f"{relative}: the file is not UTF-8 text and cannot be patched.") from exc


def _hunk_sides(patched: PatchedFile, hunk_index: int) -> tuple[list[str], list[str]]:
    """The exact source and target lines of one hunk, with "No newline" markers applied to the line before."""
    source: list[str] = []
    target: list[str] = []
    previous: str | None = None
    for line in patched[hunk_index]:
        if line.line_type == LINE_TYPE_NO_NEWLINE:
            if previous in (LINE_TYPE_CONTEXT, LINE_TYPE_REMOVED) and source and source[-1].endswith("\n"):
                source[-1] = source[-1][:-1]
            if previous in (LINE_TYPE_CONTEXT, LINE_TYPE_ADDED) and target and target[-1].endswith("\n"):
                target[-1] = target[-1][:-1]
            continue
        if line.line_type in (LINE_TYPE_CONTEXT, LINE_TYPE_REMOVED):
            source.append(line.value)
        if line.line_type in (LINE_TYPE_CONTEXT, LINE_TYPE_ADDED):
            target.append(line.value)
        if line.line_type in (LINE_TYPE_CONTEXT, LINE_TYPE_REMOVED, LINE_TYPE_ADDED):
            previous = line.line_type
    return source, target


def _apply_hunks(relative: str, patched: PatchedFile, text: str) -> str:
    """The file's new text; every hunk must match the current lines exactly at the position it names."""
    lines = split_lines(text)
    result: list[str] = []
    cursor = 0
    for index, hunk in enumerate(patched):
        source, target = _hunk_sides(patched, index)
        start = hunk.source_start if hunk.source_length == 0 else hunk.source_start - 1
        where = f"{relative}, hunk {index + 1} (@@ -{hunk.source_start},{hunk.source_length} @@)"
        if start < cursor:
            raise PatchRefused(f"{where}: hunks overlap or are out of order.")
        if lines[start : start + len(source)] != source:
            raise PatchRefused(
                f"{where}: does not apply; the file's lines there differ from the diff's "
                "context (the file changed since it was scanned, or the diff is wrong)."
            )
        result += lines[cursor:start] + target
        cursor = start + len(source)
    return "".join(result + lines[cursor:])


def _parse(diff_text: str) -> PatchSet:
    if not diff_text or not diff_text.strip():
        raise PatchRefused("The diff is empty.")
    size = len(diff_text.encode("utf-8", errors="replace"))
    if size > MAX_PATCH_BYTES:
        raise PatchRefused(f"The diff is {size} bytes; at most {MAX_PATCH_BYTES} bytes are accepted.")
    if "\0" in diff_text:
        raise PatchRefused("The diff contains NUL bytes; binary changes are not accepted.")
    try:
        patch = PatchSet(diff_text)
    except UnidiffParseError as exc:
        raise PatchRefused(f"The diff could not be read: {exc}.") from exc
    if not patch:
        raise PatchRefused("The text is not a unified diff (no '--- a/file' / '+++ b/file' headers with hunks).")
    if len(patch) > MAX_FILES:
        raise PatchRefused(f"The diff changes {len(patch)} files; at most {MAX_FILES} are accepted.")
    changed = sum(patched.added + patched.removed for patched in patch)
    if changed > MAX_CHANGED_LINES:
        raise PatchRefused(f"The diff changes {changed} lines; at most {MAX_CHANGED_LINES} are accepted.")
    return patch


def validate_patch(diff_text: str, root: Path, *, allowed_files: set[str] | None = None) -> list[FilePatch]:
    """Every file the diff changes, before and after, or PatchRefused with the first reason it may not apply.

    `allowed_files` (paths relative to `root`) narrows a fix to the files of the finding it answers.
    """
    patch = _parse(diff_text)
    allowed = None if allowed_files is None else {PurePosixPath(name).as_posix() for name in allowed_files}
    results: list[FilePatch] = []
    seen: set[str] = set()
    for patched in patch:
        relative = _relative_path(patched)
        if relative in seen:
            raise PatchRefused(f"{relative}: the file appears twice in the diff; send one section per file.")
        seen.add(relative)
        if allowed is not None and relative not in allowed:
            raise PatchRefused(f"{relative}: this fix may only change {', '.join(sorted(allowed)) or 'no files'}.")
        if not len(patched):
            raise PatchRefused(f"{relative}: the diff names the file but changes nothing in it.")
        before = _resolve_inside(root, relative).read_bytes()
        after = _apply_hunks(relative, patched, _decode(relative, before)).encode("utf-8")
        if after == before:
            raise PatchRefused(f"{relative}: the diff leaves the file unchanged.")
        results.append(FilePatch(relative, before, after, patched.added, patched.removed))
    return results


def apply_patch(diff_text: str, root: Path) -> dict[str, tuple[bytes, bytes]]:
    """{relative path: (before, after)} for a valid diff; nothing is written (the caller keeps `before` to revert)."""
    return {change.path: (change.before, change.after) for change in validate_patch(diff_text, root)}
