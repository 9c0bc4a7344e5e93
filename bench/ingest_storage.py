"""The ingest benchmark's databases (bench/traffic_ingest.py): the server's SQLite file or a PostgreSQL database made
for the run, as the bench reads them (the detector's cursor, table and index sizes), and the disk figures printed.

    SECDASH_INGEST_PG_URL=postgresql://postgres@127.0.0.1:5432   where the run's database is made and dropped
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

PG_URL = os.environ.get("SECDASH_INGEST_PG_URL", "postgresql://postgres@127.0.0.1:5432").rstrip("/")
MILLION = 1_000_000


class Database(ABC):
    """The server's database as the bench reads it (sizes, the detector's cursor)."""

    kind = ""

    def env(self) -> dict[str, str]:
        return {}

    @abstractmethod
    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """(each database answers in its own words)"""

    def cursor(self) -> int:
        rows = self.query("SELECT data FROM live_snapshots WHERE name = 'traffic-detection'")
        if not rows:
            return 0
        data = rows[0][0]
        return int((json.loads(data) if isinstance(data, str) else data).get("cursor", 0))

    def newest(self) -> int:
        return int(self.query("SELECT coalesce(max(id), 0) FROM traffic_requests")[0][0])

    def count(self, table: str) -> int:
        return int(self.query(f"SELECT count(*) FROM {table}")[0][0])  # noqa: S608 (our table names)

    @abstractmethod
    def table_bytes(self) -> dict[str, int]:
        """(each database answers in its own words)"""

    @abstractmethod
    def parts(self, table: str) -> dict[str, int]:
        """(each database answers in its own words)"""

    @abstractmethod
    def total_bytes(self) -> int:
        """(each database answers in its own words)"""

    def close(self) -> None:  # noqa: B027 (most databases hold nothing to close)
        return None


class SQLite(Database):
    kind = "SQLite"

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / "secdash.db"

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.path, timeout=30) as connection:
            return connection.execute(sql, params).fetchall()

    def checkpoint(self) -> None:
        self.query("PRAGMA wal_checkpoint(TRUNCATE)")

    def total_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())

    def table_bytes(self) -> dict[str, int]:
        """Bytes of each table with its indexes (pages in use, from the dbstat table)."""
        self.checkpoint()
        rows = self.query(
            "SELECT m.tbl_name, sum(s.pgsize) FROM dbstat s JOIN sqlite_master m ON m.name = s.name GROUP BY m.tbl_name"
        )
        return {name: int(size) for name, size in rows}

    def parts(self, table: str) -> dict[str, int]:
        """Bytes of the table and of each of its indexes."""
        rows = self.query(
            "SELECT s.name, sum(s.pgsize) FROM dbstat s JOIN sqlite_master m ON m.name = s.name"
            " WHERE m.tbl_name = ? GROUP BY s.name",
            (table,),
        )
        return {name: int(size) for name, size in rows}


class PostgreSQL(Database):
    kind = "PostgreSQL"

    def __init__(self) -> None:
        import psycopg

        self.name = "secdash_ingest_" + secrets.token_hex(4)
        with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{self.name}"')
        self.url = f"{PG_URL}/{self.name}"
        self.connection = psycopg.connect(self.url, autocommit=True)

    def env(self) -> dict[str, str]:
        return {"SECDASH_DATABASE_URL": self.url}

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return list(self.connection.execute(sql, params).fetchall())  # type: ignore[arg-type]

    def total_bytes(self) -> int:
        return int(self.query("SELECT pg_database_size(current_database())")[0][0])

    def table_bytes(self) -> dict[str, int]:
        rows = self.query(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE c.relkind = 'r' AND n.nspname = 'public'"
        )
        return {name: int(size) for name, size in rows}

    def parts(self, table: str) -> dict[str, int]:
        """Bytes of the table (heap and TOAST) and of each of its indexes."""
        rows = self.query(
            "SELECT %s, pg_table_size(%s::regclass) UNION ALL"
            " SELECT indexrelid::regclass::text, pg_relation_size(indexrelid) FROM pg_index WHERE indrelid = %s::regclass",
            (table, table, table),
        )
        return {name: int(size) for name, size in rows}

    def close(self) -> None:
        import psycopg

        self.connection.close()
        with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


# --- the corpus and the peers --------------------------------------------------------------------------------------


def disk(db: Database, before_total: int, requests: int) -> dict[str, float]:
    sizes = db.table_bytes()
    raw_rows, minute_rows = db.count("traffic_requests"), db.count("traffic_minutes")
    raw, minutes = sizes.get("traffic_requests", 0), sizes.get("traffic_minutes", 0)
    growth = db.total_bytes() - before_total
    how = "after a WAL checkpoint, pages in use (dbstat)" if db.kind == "SQLite" else "pg_total_relation_size"
    print(f"   {db.kind} ({how}):")
    print(
        f"      traffic_requests: {raw_rows:,} rows, {raw / 1e6:.1f} MB with its indexes:"
        f" {raw / raw_rows:,.0f} B per request, {raw / raw_rows * MILLION / 1e6:,.0f} MB per million"
    )
    split = ", ".join(f"{name} {size / raw_rows:,.0f} B" for name, size in sorted(db.parts("traffic_requests").items()))
    print(f"         per request: {split}")
    print(
        f"      traffic_minutes: {minute_rows:,} rows, {minutes / 1e3:.0f} KB:"
        f" {minutes / max(minute_rows, 1):,.0f} B per site-minute;"
        f" {minutes / requests * MILLION / 1e6:.2f} MB per million requests at this log's rate"
        f" ({requests / max(minute_rows, 1):,.0f} requests a minute)"
    )
    print(f"      whole database grew {growth / 1e6:.1f} MB (detections, decisions and free pages included)")
    return {"raw_per_million": raw / raw_rows * MILLION, "minutes_per_row": minutes / max(minute_rows, 1)}
