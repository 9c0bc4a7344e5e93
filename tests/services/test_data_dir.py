"""A data directory belongs to one database: a server on another database refuses to start on it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from secdash.core import data_dir
from secdash.core.config import PROJECT_ROOT


def secdash_cli(command: str, *, data: os.PathLike, database: os.PathLike) -> subprocess.CompletedProcess:
    env = {**os.environ, "SECDASH_DATA_DIR": str(data), "SECDASH_DATABASE_URL": f"sqlite:///{database}"}
    return subprocess.run(
        [sys.executable, "-m", "secdash", command], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_a_second_database_cannot_share_a_data_directory(tmp_path):
    shared = tmp_path / "shared-data"
    first = secdash_cli("migrate", data=shared, database=tmp_path / "first.db")
    assert first.returncode == 0, first.stderr
    # A workspace made under the first database (as an applied fix makes it).
    (shared / "workspaces" / "0123456789abcdef").mkdir(parents=True)

    second = secdash_cli("migrate", data=shared, database=tmp_path / "second.db")
    assert second.returncode == 1
    assert "SecDash will not start" in second.stderr and "belongs to another database" in second.stderr
    assert "SECDASH_DATA_DIR" in second.stderr

    again = secdash_cli("migrate", data=shared, database=tmp_path / "first.db")  # its own database: fine
    assert again.returncode == 0, again.stderr
    own = secdash_cli("migrate", data=tmp_path / "second-data", database=tmp_path / "second.db")  # its own directory
    assert own.returncode == 0, own.stderr
    assert (tmp_path / "second-data" / data_dir.MARK).read_text() != (shared / data_dir.MARK).read_text()


def test_the_database_id_is_recorded_once(tmp_path, migrated_db):
    own = data_dir.bind(tmp_path, migrated_db)
    assert (tmp_path / data_dir.MARK).read_text() == own
    assert data_dir.bind(tmp_path, migrated_db) == own
    (tmp_path / data_dir.MARK).write_text("another-database")
    with pytest.raises(data_dir.DataDirMismatch, match="belongs to another database"):
        data_dir.bind(tmp_path, migrated_db)


def test_a_database_not_migrated_yet_is_refused(tmp_path):
    with pytest.raises(data_dir.DataDirMismatch, match="migrate"):
        data_dir.bind(tmp_path / "data", f"sqlite:///{tmp_path / 'empty.db'}")
    assert not (tmp_path / "data" / data_dir.MARK).exists()
