"""Reading a file of sites to import (pure: no database, no DNS): CSV or JSON, as site_import.py describes.

A file that cannot be read as a whole (over MAX_FILE_BYTES, not UTF-8, bad CSV or JSON, no header, over MAX_ROWS
rows) raises one Invalid (TooLarge for the size) and nothing is created; a row that cannot be read is kept with the
reason, which the import reports for that row.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Literal

from secdash.services.errors import Invalid, TooLarge

MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_ROWS = 10_000
COLUMNS = ("name", "url", "allowPrivate", "tags", "capacityRpm", "signupRoute")
_NAMES = {column.lower(): column for column in COLUMNS} | {
    "allow_private": "allowPrivate",
    "capacity_rpm": "capacityRpm",
    "signup_route": "signupRoute",
}
# A spreadsheet runs a cell that starts with one of these as a formula: the export writes it after a "'", which the
# import takes away again (site_export.py).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
Kind = Literal["csv", "json"]


@dataclass(frozen=True)
class RawRow:
    """A row as read from the file: its number, its values by column (CSV: text; JSON: as given), or why it could not
    be read."""

    number: int
    values: dict[str, Any]
    problem: str | None = None


def parse_file(data: bytes, kind: Kind | None = None) -> list[RawRow]:
    """The rows of a CSV or JSON file (kind None: JSON when it starts with [ or {). A file that cannot be read as a
    whole raises Invalid (TooLarge over MAX_FILE_BYTES) with one message."""
    if len(data) > MAX_FILE_BYTES:
        raise TooLarge(f"the file is {len(data) / 1024 / 1024:.1f} MB; at most {MAX_FILE_BYTES // 1024 // 1024} MB")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise Invalid("the file is UTF-16 text; save it as UTF-8 (CSV UTF-8 or JSON)")
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark, as spreadsheets write it, is dropped
    except UnicodeDecodeError as exc:
        raise Invalid(f"the file is not UTF-8 text (byte {exc.start + 1}); save it as UTF-8 (CSV UTF-8 or JSON)") from None
    if "\x00" in text:
        raise Invalid("the file holds a NUL character: it is not a CSV or JSON text file")
    if not text.strip():
        raise Invalid("the file is empty")
    if kind is None:
        kind = "json" if text.lstrip()[:1] in ("[", "{") else "csv"
    rows = parse_json(text) if kind == "json" else parse_csv(text)
    if not rows:
        raise Invalid("the file holds no sites")
    return rows


def parse_json(text: str) -> list[RawRow]:
    """A list of objects, or {"sites": [...]}."""
    try:
        parsed = json.loads(text)
    except RecursionError:
        raise Invalid("the file is not valid JSON (nested too deeply)") from None
    except ValueError as exc:
        where = f" (line {exc.lineno}, column {exc.colno}: {exc.msg})" if isinstance(exc, json.JSONDecodeError) else ""
        raise Invalid(f"the file is not valid JSON{where}") from None
    if isinstance(parsed, dict) and isinstance(parsed.get("sites"), list):
        parsed = parsed["sites"]
    if not isinstance(parsed, list):
        raise Invalid('a JSON file must hold a list of sites (objects with name and url), or {"sites": [...]}')
    _check_count(len(parsed))
    rows = []
    for number, item in enumerate(parsed, start=1):
        if not isinstance(item, dict):
            rows.append(RawRow(number, {}, "not an object with name and url"))
            continue
        values = {_NAMES[key.lower()]: value for key, value in item.items() if key.lower() in _NAMES}
        rows.append(RawRow(number, values))
    return rows


def _delimiter(header_line: str) -> str:
    counts = {mark: header_line.count(mark) for mark in (",", ";", "\t")}
    best = max(counts, key=lambda mark: counts[mark])
    return best if counts[best] else ","


def parse_csv(text: str) -> list[RawRow]:
    """A header naming the columns (in any order and case; unknown ones ignored), then one site a row; the delimiter
    is the header's: a comma, a semicolon or a tab. Blank rows are skipped."""
    first_line = text.lstrip("\r\n").split("\n", 1)[0]
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(first_line), strict=True)
    rows: list[RawRow] = []
    header: list[str | None] | None = None
    number = 0
    try:
        for cells in reader:
            number += 1
            if not any(cell.strip() for cell in cells):
                continue
            if header is None:
                header = _header(cells)
                continue
            if len(rows) >= MAX_ROWS:
                _check_count(MAX_ROWS + 1)
            rows.append(_csv_row(number, header, cells))
    except csv.Error as exc:
        raise Invalid(f"the file is not valid CSV (row {reader.line_num}: {exc})") from None
    if header is None:
        raise Invalid("the file holds no sites")
    return rows


def _header(cells: list[str]) -> list[str | None]:
    names = [_NAMES.get(cell.strip().lstrip("\ufeff").lower()) for cell in cells]
    if "name" not in names or "url" not in names:
        raise Invalid(
            "the first row must be a header naming the columns: name and url, and optionally "
            "allowPrivate, tags, capacityRpm and signupRoute"
        )
    repeated = sorted({name for name in names if name is not None and names.count(name) > 1})
    if repeated:
        raise Invalid(f"the header names the column {repeated[0]} twice")
    return names


def _csv_row(number: int, header: list[str | None], cells: list[str]) -> RawRow:
    while len(cells) > len(header) and not cells[-1].strip():
        cells = cells[:-1]
    values = {name: _unescape(cell) for name, cell in zip(header, cells, strict=False) if name is not None}
    if len(cells) > len(header):
        return RawRow(number, values, f"has {len(cells)} cells; the header names {len(header)} columns")
    return RawRow(number, values)


def _unescape(cell: str) -> str:
    """A cell the export wrote after a "'" (site_export.py), as it was."""
    return cell[1:] if cell[:1] == "'" and (cell[1:2] in FORMULA_STARTS or cell[1:2] == "'") else cell


def _check_count(count: int) -> None:
    if count > MAX_ROWS:
        raise Invalid(f"at most {MAX_ROWS:,} sites per file; split it into smaller files")
