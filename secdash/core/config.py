"""One Settings object for the whole app, read from the environment (and an optional .env)."""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from secdash.core.client_address import IPNetwork, parse_trusted_proxies

PROJECT_ROOT = Path(__file__).resolve().parents[2]
MIN_SECRET_KEY_LENGTH = 32


class Settings(BaseSettings):
    """Runtime configuration; every field has a safe default for a fresh machine."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    PORT: int = Field(3000, validation_alias=AliasChoices("PORT"))
    DATA_DIR: Path = Field(PROJECT_ROOT / "data", validation_alias=AliasChoices("SECDASH_DATA_DIR"))
    DATABASE_URL: str = Field("", validation_alias=AliasChoices("SECDASH_DATABASE_URL"))
    REDIS_URL: str = Field("", validation_alias=AliasChoices("REFLEX_REDIS_URL"))
    SECRET_KEY: str = Field("", validation_alias=AliasChoices("SECDASH_SECRET_KEY"))
    ADMIN_EMAIL: str = Field("", validation_alias=AliasChoices("SECDASH_ADMIN_EMAIL"))
    ADMIN_PASSWORD: str = Field("", validation_alias=AliasChoices("SECDASH_ADMIN_PASSWORD"))
    TOKEN_TTL_HOURS: float = Field(12, validation_alias=AliasChoices("SECDASH_TOKEN_TTL_HOURS"))
    COOKIE_SECURE: bool = Field(False, validation_alias=AliasChoices("SECDASH_COOKIE_SECURE"))
    MONITOR_INTERVAL_SECONDS: float = Field(30, validation_alias=AliasChoices("SECDASH_MONITOR_INTERVAL"))
    MONITOR_ENABLED: bool = Field(True, validation_alias=AliasChoices("SECDASH_MONITOR"))
    # A round is spread over its interval: one slice of the sites starts every this many seconds (rounds.py).
    MONITOR_SLICE_SECONDS: float = Field(1.0, gt=0, le=3600, validation_alias=AliasChoices("SECDASH_MONITOR_SLICE_SECONDS"))
    SIMULATION: str = Field("on", validation_alias=AliasChoices("SECDASH_SIMULATION"))
    # Battle Station's simulated threats (real drills started at random): on with the simulation unless "off".
    THREAT_SIMULATION: str = Field("on", validation_alias=AliasChoices("SECDASH_THREAT_SIMULATION"))
    # The simulated Live Traffic and User Scan figures (below the real ones from the sites' logs, labelled): off
    # unless asked for, now that the sites' own requests give the real ones.
    TRAFFIC_SIMULATION: str = Field("off", validation_alias=AliasChoices("SECDASH_TRAFFIC_SIMULATION"))
    SCAN_PATHS: str = Field("", validation_alias=AliasChoices("SECDASH_SCAN_PATHS"))
    # A pause after each scanned file, so a long scan leaves the CPU to the monitor on a small server.
    SCAN_PAUSE_MS: int = Field(0, ge=0, le=10_000, validation_alias=AliasChoices("SECDASH_SCAN_PAUSE_MS"))
    # The Shares demo site's outage: "schedule" (500 during the first minute of every five), "down" or "up".
    DEMO_SHARES_OUTAGE: Literal["schedule", "down", "up"] = Field(
        "schedule", validation_alias=AliasChoices("SECDASH_DEMO_SHARES_OUTAGE")
    )
    # Name the worker process that answered in an X-Served-By header on the jobs API (operators, CI).
    SERVED_BY_HEADER: bool = Field(False, validation_alias=AliasChoices("SECDASH_SERVED_BY_HEADER"))
    # Where this server can reach its own demo sites (default: http://127.0.0.1:PORT).
    DEMO_BASE_URL: str = Field("", validation_alias=AliasChoices("SECDASH_DEMO_BASE_URL"))
    # LLM: any OpenAI-compatible server; unset means the built-in offline engine.
    LLM_BASE_URL: str = Field("", validation_alias=AliasChoices("SECDASH_LLM_BASE_URL"))
    LLM_API_KEY: str = Field("", validation_alias=AliasChoices("SECDASH_LLM_API_KEY", "OPENAI_API_KEY"))
    LLM_MODEL: str = Field("gpt-4o-mini", validation_alias=AliasChoices("SECDASH_LLM_MODEL"))
    LLM_TIMEOUT_SECONDS: float = Field(60, validation_alias=AliasChoices("SECDASH_LLM_TIMEOUT"))
    # Origins a browser may call the app from with credentials (CORS and the websocket's Origin
    # check). Default: this machine's loopback origins on PORT. "*" is refused (credentials).
    CORS_ALLOWED_ORIGINS: str = Field("", validation_alias=AliasChoices("REFLEX_CORS_ALLOWED_ORIGINS"))
    # How long a tab's page state lives after its last event (Reflex's token expiration);
    # 0: the idle timeout plus five minutes, so a page never outlives its session by much.
    STATE_TTL_SECONDS: int = Field(0, ge=0, validation_alias=AliasChoices("SECDASH_STATE_TTL_SECONDS"))
    # Model calls (chat replies and later AI jobs) one user may start, over the API and the UI together.
    AI_CALLS_PER_MINUTE: int = Field(20, ge=1, validation_alias=AliasChoices("SECDASH_AI_CALLS_PER_MINUTE"))
    AI_CALLS_PER_HOUR: int = Field(200, ge=1, validation_alias=AliasChoices("SECDASH_AI_CALLS_PER_HOUR"))
    # What one user may store: HTML artifact versions and code project files together (services/storage.py).
    USER_STORAGE_MB: int = Field(100, ge=1, le=1_000_000, validation_alias=AliasChoices("SECDASH_USER_STORAGE_MB"))
    # Largest request body accepted under /api/ (413 above it); every API body is small JSON.
    API_MAX_BODY_BYTES: int = Field(256 * 1024, ge=1024, validation_alias=AliasChoices("SECDASH_API_MAX_BODY_BYTES"))
    # Websocket connections one client address may hold at once, and open per minute.
    WS_CONNECTIONS_PER_CLIENT: int = Field(40, ge=1, validation_alias=AliasChoices("SECDASH_WS_CONNECTIONS_PER_CLIENT"))
    WS_CONNECTS_PER_MINUTE: int = Field(120, ge=1, validation_alias=AliasChoices("SECDASH_WS_CONNECTS_PER_MINUTE"))
    # Failed-login budgets (README, Security model): per account and client address (fast), per client
    # address over all accounts, and per account over all addresses (slow; needs many addresses).
    LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_IP: int = Field(
        5, ge=1, validation_alias=AliasChoices("SECDASH_LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_IP")
    )
    LOGIN_ACCOUNT_AND_IP_WINDOW_SECONDS: int = Field(
        300, ge=1, validation_alias=AliasChoices("SECDASH_LOGIN_ACCOUNT_AND_IP_WINDOW_SECONDS")
    )
    LOGIN_MAX_FAILURES_PER_IP: int = Field(
        20, ge=1, validation_alias=AliasChoices("SECDASH_LOGIN_MAX_FAILURES_PER_IP", "LOGIN_MAX_FAILURES_PER_IP")
    )
    LOGIN_IP_WINDOW_SECONDS: int = Field(
        60, ge=1, validation_alias=AliasChoices("SECDASH_LOGIN_IP_WINDOW_SECONDS", "LOGIN_IP_WINDOW_SECONDS")
    )
    LOGIN_MAX_FAILURES_PER_ACCOUNT: int = Field(50, ge=1, validation_alias=AliasChoices("SECDASH_LOGIN_MAX_FAILURES_PER_ACCOUNT"))
    LOGIN_ACCOUNT_WINDOW_SECONDS: int = Field(900, ge=1, validation_alias=AliasChoices("SECDASH_LOGIN_ACCOUNT_WINDOW_SECONDS"))
    # The AI activity feed's real lines (a monitor's state change, a drill, a fix) are kept this many days: a demo
    # site's designed outage alone writes two an outage, about 576 a day. The screens list only the newest few.
    AI_ACTIVITY_DAYS: int = Field(30, ge=1, le=3650, validation_alias=AliasChoices("SECDASH_AI_ACTIVITY_DAYS"))
    # Traffic (services/traffic): raw requests are kept this many hours, per-minute figures this many days; addresses
    # are personal data, so they can be stored truncated (IPv4 to /24, IPv6 to /48) instead of whole.
    TRAFFIC_RAW_HOURS: int = Field(24, ge=1, le=24 * 90, validation_alias=AliasChoices("SECDASH_TRAFFIC_RAW_HOURS"))
    TRAFFIC_MINUTE_DAYS: int = Field(30, ge=1, le=3650, validation_alias=AliasChoices("SECDASH_TRAFFIC_MINUTE_DAYS"))
    TRAFFIC_TRUNCATE_ADDRESSES: bool = Field(False, validation_alias=AliasChoices("SECDASH_TRAFFIC_TRUNCATE_ADDRESSES"))
    # The largest log batch one ingest request may send (gzip: compressed; unpacked it may be 8 times as large).
    TRAFFIC_INGEST_MAX_BYTES: int = Field(
        8 * 1024 * 1024, ge=64 * 1024, le=256 * 1024 * 1024, validation_alias=AliasChoices("SECDASH_TRAFFIC_INGEST_MAX_BYTES")
    )
    # Addresses detection never reports (comma-separated IPs/CIDRs: the office, a health checker), besides
    # loopback and private networks (unless SECDASH_TRAFFIC_REPORT_PRIVATE).
    TRAFFIC_ALLOW: str = Field("", validation_alias=AliasChoices("SECDASH_TRAFFIC_ALLOW"))
    TRAFFIC_REPORT_PRIVATE: bool = Field(False, validation_alias=AliasChoices("SECDASH_TRAFFIC_REPORT_PRIVATE"))
    # Reverse proxies whose X-Forwarded-For is believed (comma-separated IPs/CIDRs); empty: none.
    TRUSTED_PROXIES: str = Field("", validation_alias=AliasChoices("SECDASH_TRUSTED_PROXIES"))
    # A session unused (by the user, not by background refreshes) this long is signed out.
    IDLE_TIMEOUT_MINUTES: float = Field(30, gt=0, validation_alias=AliasChoices("SECDASH_IDLE_TIMEOUT_MINUTES"))

    @field_validator("SECRET_KEY")
    @classmethod
    def _secret_key_long_enough(cls, value: str) -> str:
        if value and len(value) < MIN_SECRET_KEY_LENGTH:
            raise ValueError(
                f"SECDASH_SECRET_KEY must be at least {MIN_SECRET_KEY_LENGTH} characters (it has {len(value)});"
                " generate one with: python -c 'import secrets; print(secrets.token_urlsafe(48))'"
            )
        return value

    @field_validator("TRAFFIC_ALLOW")
    @classmethod
    def _traffic_allow_parse(cls, value: str) -> str:
        parse_trusted_proxies(value, "SECDASH_TRAFFIC_ALLOW")  # the same form: addresses and networks
        return value

    @property
    def traffic_allow(self) -> tuple[IPNetwork, ...]:
        return parse_trusted_proxies(self.TRAFFIC_ALLOW, "SECDASH_TRAFFIC_ALLOW")

    @field_validator("TRUSTED_PROXIES")
    @classmethod
    def _trusted_proxies_parse(cls, value: str) -> str:
        parse_trusted_proxies(value)
        return value

    @property
    def trusted_proxies(self) -> tuple[IPNetwork, ...]:
        return parse_trusted_proxies(self.TRUSTED_PROXIES)

    @property
    def idle_timeout(self) -> timedelta:
        return timedelta(minutes=self.IDLE_TIMEOUT_MINUTES)

    @property
    def login_attempt_retention_seconds(self) -> int:
        """How long a failed login matters: the longest of the lockout windows."""
        return max(self.LOGIN_ACCOUNT_AND_IP_WINDOW_SECONDS, self.LOGIN_IP_WINDOW_SECONDS, self.LOGIN_ACCOUNT_WINDOW_SECONDS)

    @property
    def database_url(self) -> str:
        """The synchronous SQLAlchemy URL (alembic, CLI)."""
        url = self.DATABASE_URL or f"sqlite:///{self.DATA_DIR / 'secdash.db'}"
        if url.startswith("postgres://"):
            url = "postgresql://" + url.removeprefix("postgres://")
        if url.startswith("postgresql://"):
            url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
        return url

    @property
    def async_database_url(self) -> str:
        """The asyncio SQLAlchemy URL the app and services use."""
        url = self.database_url
        if url.startswith("sqlite:"):
            return "sqlite+aiosqlite:" + url.removeprefix("sqlite:")
        if url.startswith("postgresql+psycopg://"):
            return "postgresql+asyncpg://" + url.removeprefix("postgresql+psycopg://")
        return url

    @property
    def state_ttl_seconds(self) -> int:
        return self.STATE_TTL_SECONDS or int(self.IDLE_TIMEOUT_MINUTES * 60) + 300

    @property
    def cors_origins(self) -> list[str]:
        """The allowed browser origins; never a wildcard, since requests carry credentials."""
        listed = [o.strip().rstrip("/") for o in self.CORS_ALLOWED_ORIGINS.split(",") if o.strip()]
        if any(o in ("*", "null") or "*" in o for o in listed):
            raise ValueError(
                "REFLEX_CORS_ALLOWED_ORIGINS must list exact origins (https://host[:port]); "
                "'*' and 'null' are refused because the app's requests carry credentials"
            )
        return listed or [f"http://127.0.0.1:{self.PORT}", f"http://localhost:{self.PORT}"]

    @property
    def simulation_enabled(self) -> bool:
        return self.SIMULATION.strip().lower() not in {"off", "0", "false", "no"}

    @property
    def traffic_simulation_enabled(self) -> bool:
        return self.simulation_enabled and self.TRAFFIC_SIMULATION.strip().lower() not in {"off", "0", "false", "no"}

    @property
    def threat_simulation_enabled(self) -> bool:
        return self.simulation_enabled and self.THREAT_SIMULATION.strip().lower() not in {"off", "0", "false", "no"}

    @property
    def llm_configured(self) -> bool:
        return bool(self.LLM_BASE_URL or self.LLM_API_KEY)

    @property
    def demo_base_url(self) -> str:
        return (self.DEMO_BASE_URL or f"http://127.0.0.1:{self.PORT}").rstrip("/")

    @property
    def scan_paths(self) -> list[Path]:
        """Code the Security Scan reads: SECDASH_SCAN_PATHS (os.pathsep-separated) or the demo sites' sources."""
        if self.SCAN_PATHS.strip():
            return [Path(part).expanduser() for part in self.SCAN_PATHS.split(os.pathsep) if part.strip()]
        return [PROJECT_ROOT / "secdash" / "demo_sites" / "sources"]

    @property
    def scratch_dir(self) -> Path:
        """Short-lived files (a page under check, a fix's "before" copy): in the data directory, never the
        system's shared temp directory."""
        return self.DATA_DIR / "tmp"

    @property
    def token_ttl_seconds(self) -> int:
        return int(self.TOKEN_TTL_HOURS * 3600)

    def secret_key(self) -> str:
        """The JWT signing key: from the environment, else generated once under DATA_DIR (0600)."""
        if self.SECRET_KEY:
            return self.SECRET_KEY
        return read_or_create_secret_file(self.DATA_DIR / "secret_key", lambda: secrets.token_urlsafe(48))


def read_or_create_secret_file(path: Path, make) -> str:
    """Return the file's content, creating it atomically (0600) if absent; safe across workers."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not path.exists():
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(make())
        try:
            os.link(tmp, path)  # atomic: the first writer wins, with its content complete
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    return path.read_text().strip()


@lru_cache
def get_settings() -> Settings:
    return Settings()
