"""Rows that must exist once: INSERT ... ON CONFLICT DO NOTHING, so concurrent first calls cannot duplicate them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession


async def insert_missing(session: AsyncSession, rows: Sequence[SQLModel], key: str) -> list[Any]:
    """Insert the rows (one table) whose unique `key` is not taken yet, in the session's transaction (the caller
    commits). Returns the keys this call inserted: a row another session inserted first is skipped, not an error."""
    if not rows:
        return []
    table = type(rows[0]).__table__  # type: ignore[attr-defined]
    values = [{name: value for name, value in row.model_dump().items() if not (name == "id" and value is None)} for row in rows]
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = insert(table).values(values).on_conflict_do_nothing(index_elements=[key]).returning(table.c[key])
    return list((await session.execute(statement)).scalars())
