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


def test_a_projects_build_log_becomes_its_newest_jobs_log_and_comes_back_on_downgrade(tmp_path):
    env = {**os.environ, "SECDASH_DATA_DIR": str(tmp_path), "SECDASH_DATABASE_URL": f"sqlite:///{tmp_path / 'old.db'}"}
    _alembic(env, "upgrade", "e6b2d9f4a8c1-1")
    diff = "--- a/app.js\n+++ b/app.js\n" + "+x\n" * 600  # longer than the old 1000 characters of a job log line
    with sqlite3.connect(tmp_path / "old.db") as db:
        db.execute(
            "INSERT INTO users (email, password_hash, role, first_name, is_active, created_at) VALUES "
            "('b@example.com', 'h', 'limited', '', 1, '2026-11-01 00:00:00')"
        )
        job = (
            "INSERT INTO jobs (kind, status, params, progress, result, owner_email, stop_requested, worker, attempts, "
            "log_seq, created_at, heartbeat_at) VALUES ('build', 'done', ?, '{}', '{}', '', 0, '', 1, ?, "
            "'2026-11-01', '2026-11-01')"
        )
        db.execute(job, ('{"projectId": 1}', 0))  # an older build of the project
        db.execute(job, ('{"projectId": 1}', 1))  # its newest, with one line of its own already
        db.execute(
            "INSERT INTO job_logs (job_id, seq, level, message, created_at) VALUES (2, 1, 'error', 'Failed', '2026-11-01')"
        )
        db.execute(
            "INSERT INTO code_projects (owner_user_id, name, description, prompt, status, job_id, engine, model, checks, "
            "created_at, updated_at) VALUES (1, 'P', '', 'p', 'complete', 2, '', '', '{}', '2026-11-01', '2026-11-01')"
        )
        line = "INSERT INTO build_logs (project_id, type, message, created_at) VALUES (1, ?, ?, '2026-11-01')"
        db.execute(line, ("info", "Build started: p"))
        db.execute(line, ("code", diff))
        db.execute(line, ("success", "Build complete"))
    _alembic(env, "upgrade", "head")
    with sqlite3.connect(tmp_path / "old.db") as db:
        assert db.execute("SELECT job_id, seq, level, message FROM job_logs ORDER BY id").fetchall() == [
            (2, 1, "error", "Failed"),
            (2, 2, "info", "Build started: p"),
            (2, 3, "code", diff),
            (2, 4, "success", "Build complete"),
        ]
        assert db.execute("SELECT id, log_seq FROM jobs ORDER BY id").fetchall() == [(1, 0), (2, 4)]
        assert db.execute("SELECT name FROM sqlite_master WHERE name = 'build_logs'").fetchall() == []
    _alembic(env, "downgrade", "e6b2d9f4a8c1-1")  # the newer migrations come down on the way
    with sqlite3.connect(tmp_path / "old.db") as db:
        assert db.execute("SELECT project_id, type, message FROM build_logs ORDER BY id").fetchall() == [
            (1, "error", "Failed"),
            (1, "info", "Build started: p"),
            (1, "code", diff),
            (1, "success", "Build complete"),
        ]
        assert db.execute("SELECT level, length(message) FROM job_logs WHERE seq = 3").fetchone() == ("info", 1000)
    _alembic(env, "upgrade", "head")
