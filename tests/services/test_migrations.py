"""Data migrations on a database an older version wrote."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

from secdash.core.config import PROJECT_ROOT


def _alembic(env: dict[str, str], *args: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "alembic", *args], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr


def test_site_domains_written_with_a_path_become_host_and_port(tmp_path):
    env = {**os.environ, "SECDASH_DATA_DIR": str(tmp_path), "SECDASH_DATABASE_URL": f"sqlite:///{tmp_path / 'old.db'}"}
    _alembic(env, "upgrade", "d56fbec1f9a1")
    with sqlite3.connect(tmp_path / "old.db") as db:
        db.execute(
            "INSERT INTO sites (name, domain, url, status, is_demo, allow_private, created_at) VALUES "
            "('Meta', '169.254.169.254/latest/meta-data', 'http://169.254.169.254/latest/meta-data/', "
            "'warning', 0, 1, '2026-11-01 00:00:00')"
        )
    _alembic(env, "upgrade", "head")
    with sqlite3.connect(tmp_path / "old.db") as db:
        assert db.execute("SELECT domain FROM sites").fetchone() == ("169.254.169.254",)


def test_duplicated_default_sites_and_running_scans_are_made_to_fit_the_exactly_one_rules(tmp_path):
    env = {**os.environ, "SECDASH_DATA_DIR": str(tmp_path), "SECDASH_DATABASE_URL": f"sqlite:///{tmp_path / 'old.db'}"}
    _alembic(env, "upgrade", "a3f1d2c4b5e6")
    site = (
        "INSERT INTO sites (name, domain, url, status, is_demo, allow_private, created_at) VALUES "
        "(?, 'h:3000', ?, 'warning', ?, 0, '2026-11-01 00:00:00')"
    )
    with sqlite3.connect(tmp_path / "old.db") as db:
        for _ in range(3):
            for name, slug in (("Stock", "stock"), ("Tour", "tour"), ("Gem", "gem"), ("Shares", "shares")):
                db.execute(site, (name, f"http://h:3000/demo/{slug}/", 1))
        db.execute(site, ("Mine", "http://h:3000/demo/gem/", 0))
        db.execute("INSERT INTO site_checks (site_id, status, checked_at) VALUES (5, 'secure', '2026-11-01 00:00:00')")
        for _ in range(3):
            db.execute(
                "INSERT INTO scan_jobs (scan_type, status, started_at, started_by, total_files, total_lines, "
                "files_scanned, lines_scanned, current_file, threats_found, vulnerabilities, stop_requested, "
                "heartbeat_at) VALUES ('quick', 'running', '2026-11-01', '', 0, 0, 0, 0, '', 0, 0, 0, '2026-11-01')"
            )
    _alembic(env, "upgrade", "head")
    with sqlite3.connect(tmp_path / "old.db") as db:
        assert db.execute("SELECT id, name, default_slug FROM sites ORDER BY id").fetchall() == [
            (1, "Stock", "stock"),
            (2, "Tour", "tour"),
            (3, "Gem", "gem"),
            (4, "Shares", "shares"),
            (13, "Mine", None),
        ]
        assert db.execute("SELECT count(*) FROM site_checks").fetchone() == (0,)
        # scans are jobs now: the one running scan keeps the "scan" key of the one-active-scan rule
        assert db.execute("SELECT id, kind, status, singleton_key FROM jobs ORDER BY id").fetchall() == [
            (1, "scan", "failed", None),
            (2, "scan", "failed", None),
            (3, "scan", "running", "scan"),
        ]
    _alembic(env, "downgrade", "a3f1d2c4b5e6")
    _alembic(env, "upgrade", "head")
