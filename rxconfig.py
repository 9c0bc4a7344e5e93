"""Reflex configuration; SecDash's own settings live in secdash/core/config.py."""

import reflex as rx

from secdash.core.config import get_settings

_settings = get_settings()

config = rx.Config(
    app_name="secdash",
    db_url=_settings.database_url,
    async_db_url=_settings.async_database_url,
    telemetry_enabled=False,
    show_built_with_reflex=False,
    default_color_mode="dark",
    plugins=[
        rx.plugins.TailwindV4Plugin(),
        rx.plugins.RadixThemesPlugin(theme=rx.theme(appearance="dark", accent_color="cyan")),
    ],
    disable_plugins=[rx.plugins.SitemapPlugin],
)
