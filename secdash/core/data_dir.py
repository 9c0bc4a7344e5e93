"""A data directory belongs to one database: the files SecDash writes there (Fix Mode's workspaces, the builder's
project directories, the demo sites' databases, the secret key, the first admin's password) only mean something
beside the rows that describe them.

The database holds a random id (table `installation`, made by its migration); the data directory records the id
of the database it belongs to in `DATA_DIR/database-id` the first time a server starts on it. Every start-up
(`python -m secdash migrate` / `init`, which `make run` runs before serving) compares the two and refuses a data
directory that belongs to another database, so a server on one database never serves, scans or reverts the
files of another (docs/configuration.md, "Data directory").
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from secdash.core.config import read_or_create_secret_file

MARK = "database-id"
TABLE = "installation"  # made and read here only (its migration): no model maps it


def compared_by_autogenerate(obj, name, type_, reflected, compare_to) -> bool:
    """Alembic's include_object: autogenerate (and the models-agree test) leaves the installation table alone."""
    return not (type_ == "table" and name == TABLE)


class DataDirMismatch(RuntimeError):
    """The data directory belongs to another database."""


def database_id(database_url: str) -> str:
    """The id the (migrated) database holds."""
    engine = create_engine(database_url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            query = text(f"SELECT database_id FROM {TABLE} WHERE id = 1")  # noqa: S608 (a constant, no input)
            row = connection.execute(query).first()
    except DBAPIError:  # no such table: a database not migrated yet
        row = None
    finally:
        engine.dispose()
    if row is None:
        raise DataDirMismatch("the database has no id yet: run `python -m secdash migrate` (or init) first")
    return str(row[0])


def bind(data_dir: Path, database_url: str) -> str:
    """Record the database's id in a data directory that has none; refuse one that belongs to another database.
    Returns the id."""
    own = database_id(database_url)
    recorded = read_or_create_secret_file(data_dir / MARK, lambda: own)
    if recorded != own:
        raise DataDirMismatch(
            f"the data directory {data_dir} belongs to another database (it records database id {recorded}; "
            f"the configured database's id is {own}). Workspaces, projects and keys there describe that database, "
            "not this one: give this database its own SECDASH_DATA_DIR, or point SECDASH_DATABASE_URL back at the "
            "database this directory belongs to"
        )
    return own
