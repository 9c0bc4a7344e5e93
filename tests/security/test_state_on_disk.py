"""What the server leaves on disk: no page-state pickles with tokens, private data files, and
browser origins that never include a wildcard."""

from __future__ import annotations

import importlib
import os
import stat
import subprocess
import sys

import pytest

from secdash.core.config import Settings
from secdash.core.files import make_private_dir, remove_stale_state_files


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_cli_narrows_an_existing_world_readable_data_dir(tmp_path):
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    (data / "secdash.db").write_bytes(b"")
    (data / "secdash.db").chmod(0o644)
    env = {**os.environ, "SECDASH_DATA_DIR": str(data), "SECDASH_DATABASE_URL": f"sqlite:///{data / 'fresh.db'}"}
    result = subprocess.run([sys.executable, "-m", "secdash", "migrate"], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert _mode(data) == 0o700
    assert _mode(data / "secdash.db") == 0o600
    assert _mode(data / "fresh.db") == 0o600  # created by this run: private from the start


def test_make_private_dir_creates_0700(tmp_path):
    assert _mode(make_private_dir(tmp_path / "new" / "dir")) == 0o700


def test_stale_state_pickles_are_removed(tmp_path):
    states = tmp_path / ".states"
    states.mkdir()
    (states / "abc.pkl").write_bytes(b"token")
    assert remove_stale_state_files(tmp_path) is True
    assert not states.exists()
    assert remove_stale_state_files(tmp_path) is False


def _config(monkeypatch, **env: str):
    for key in ("REFLEX_REDIS_URL", "REFLEX_CORS_ALLOWED_ORIGINS"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    from secdash.core.config import get_settings

    get_settings.cache_clear()
    try:
        import rxconfig

        return importlib.reload(rxconfig).config
    finally:
        get_settings.cache_clear()


def test_page_state_stays_in_memory_without_redis_and_expires(monkeypatch):
    config = _config(monkeypatch, PORT="3999", SECDASH_STATE_TTL_SECONDS="900")
    assert config.state_manager_mode == "memory"  # nothing pickled to .states/
    assert config.redis_token_expiration == 900


def test_page_state_lives_a_little_longer_than_an_idle_session_by_default(monkeypatch):
    monkeypatch.delenv("SECDASH_STATE_TTL_SECONDS", raising=False)
    config = _config(monkeypatch, PORT="3999", SECDASH_IDLE_TIMEOUT_MINUTES="60")
    assert config.redis_token_expiration == 60 * 60 + 300


def test_browser_origins_default_to_this_deployment_only(monkeypatch):
    config = _config(monkeypatch, PORT="3999")
    assert set(config.cors_allowed_origins) == {"http://127.0.0.1:3999", "http://localhost:3999"}


@pytest.mark.parametrize("origins", ["*", "https://ok.example,*", "null", "https://*.example"])
def test_a_wildcard_origin_is_refused(origins):
    with pytest.raises(ValueError, match="exact origins"):
        _ = Settings(REFLEX_CORS_ALLOWED_ORIGINS=origins).cors_origins


def test_listed_origins_are_used_as_given():
    settings = Settings(REFLEX_CORS_ALLOWED_ORIGINS="https://secdash.example, https://ops.example:8443/")
    assert settings.cors_origins == ["https://secdash.example", "https://ops.example:8443"]
