"""Reflex configuration; SecDash's own settings live in secdash/core/config.py."""

import os

# Files this process creates (page-state files, SQLite, generated secrets, the build) are private
# to the service account: 0700 directories, 0600 files.
os.umask(0o077)

import reflex as rx  # noqa: E402

from secdash.core import respawn  # noqa: E402
from secdash.core.config import get_settings  # noqa: E402

# A server worker that dies is replaced (granian's respawn_failed_workers, which Reflex does not pass itself; off with
# GRANIAN_RESPAWN_FAILED_WORKERS=false): see secdash/core/respawn.py.
respawn.enable()

_settings = get_settings()

config = rx.Config(
    app_name="secdash",
    db_url=_settings.database_url,
    async_db_url=_settings.async_database_url,
    telemetry_enabled=False,
    show_built_with_reflex=False,
    default_color_mode="dark",
    # CORS and the websocket's Origin check: this deployment's own origins only (never "*").
    cors_allowed_origins=_settings.cors_origins,
    # Without Redis (one worker) page state stays in memory: nothing pickled to disk. With Redis,
    # Reflex keeps it there. Either way a tab's state expires this long after its last event.
    state_manager_mode="redis" if _settings.REDIS_URL else "memory",
    redis_token_expiration=_settings.state_ttl_seconds,
    plugins=[
        rx.plugins.TailwindV4Plugin(),
        rx.plugins.RadixThemesPlugin(theme=rx.theme(appearance="dark", accent_color="cyan")),
    ],
    disable_plugins=[rx.plugins.SitemapPlugin],
    # Toasts and the sign-in/sign-out hand-over, done by code in the bundle (no eval; see the module).
    extra_overlay_function="secdash.components.browser_actions.browser_actions",
)
