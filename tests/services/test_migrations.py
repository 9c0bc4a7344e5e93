"""Data migrations on a database an older version wrote."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

from secdash.core.config import PROJECT_ROOT


def _alembic(env: dict[str, str], *args: str) -> None:
    result = subprocess.run([sys.executable, "-m", "alembic", *args], env=env, cwd=PROJECT_ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_site_domains_written_with_a_path_become_host_and_port(tmp_path):
    env = {**os.environ, "SECDASH_DATA_DIR": str(tmp_path), "SECDASH_DATABASE_URL": f"sqlite:///{tmp_path / 'old.db'}"}
    _alembic(env, "upgrade", "d56fbec1f9a1")
    with sqlite3.connect(tmp_path / "old.db") as db:
        db.execute("INSERT INTO sites (name, domain, url, status, is_demo, allow_private, created_at) VALUES "
                   "('Meta', '169.254.169.254/latest/meta-data', 'http://169.254.169.254/latest/meta-data/', "
                   "'warning', 0, 1, '2026-11-01 00:00:00')")
    _alembic(env, "upgrade", "head")
    with sqlite3.connect(tmp_path / "old.db") as db:
        assert db.execute("SELECT domain FROM sites").fetchone() == ("169.254.169.254",)
