"""Periodic clean-up: dead sessions, old login attempts, and traffic and AI activity past their retention do not
pile up (one task per deployment)."""

from __future__ import annotations

import asyncio
import logging

from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.leader import run_as_leader
from secdash.services.agents import activities
from secdash.services.identity import auth
from secdash.services.traffic import ingest

log = logging.getLogger(__name__)

PURGE_EVERY_SECONDS = 600


async def purge_once() -> auth.PurgeResult:
    async with session_scope() as session:
        return await auth.purge_stale(session=session, settings=get_settings())


async def run_housekeeping() -> None:
    """Lifespan task: purge revoked, expired and idle sessions and stale login attempts."""

    async def lead(lost: asyncio.Event) -> None:
        while not lost.is_set():
            try:
                result = await purge_once()
                if result.sessions or result.login_attempts:
                    log.info("purged %d sessions and %d login attempts", result.sessions, result.login_attempts)
                async with session_scope() as session:
                    requests, minutes = await ingest.prune(session)
                    lines = await activities.prune(session)
                if requests or minutes:
                    log.info("dropped %d stored requests and %d minutes past their retention", requests, minutes)
                if lines:
                    log.info("dropped %d AI activity lines past their retention", lines)
            except Exception:
                log.exception("housekeeping failed")
            await asyncio.sleep(PURGE_EVERY_SECONDS)

    await run_as_leader("housekeeping", lead)
