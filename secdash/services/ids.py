"""Ids as users send them: a positive whole number that fits the database's INTEGER columns."""

from __future__ import annotations

from typing import Any

from secdash.services.errors import Invalid

MAX_ID = 2**31 - 1  # a larger number names no row, and PostgreSQL would refuse it as an INTEGER (not a 404: a 500)
MAX_DIGITS = 12  # what an id or a cursor may be sent as (leading zeros included)


def is_digits(text: str, most: int = MAX_DIGITS) -> bool:
    """Whether `text` is 1 to `most` ASCII digits (str.isdigit() also says yes to "²" and "①", which int() refuses)."""
    return 0 < len(text) <= most and text.isascii() and text.isdigit()


def parse_id(value: Any, name: str = "id") -> int:
    """`value` as an id; Invalid (naming `name`) for anything else: text, booleans, 0, negatives, too large."""
    text = str(value).strip() if value is not None and not isinstance(value, bool) else ""
    if not is_digits(text) or not 1 <= int(text) <= MAX_ID:
        raise Invalid(f"{name} must be a positive whole number (at most {MAX_ID})")
    return int(text)
