"""granian's server respawns failed workers by default once rxconfig.py has called respawn.enable() (Reflex builds the
server without that option); GRANIAN_RESPAWN_FAILED_WORKERS=false turns it off, and a caller's own choice wins."""

from __future__ import annotations

import granian.server

from secdash.core import respawn


def test_the_server_reflex_builds_respawns_failed_workers_unless_turned_off(monkeypatch):
    assert respawn.enable() and respawn.enable()  # idempotent: rxconfig.py may be imported more than once
    server_class = granian.server.Server
    assert server_class.__name__ in ("MPServer", "MTServer") and getattr(server_class, "secdash_respawn", False)
    monkeypatch.delenv(respawn.ENV, raising=False)
    assert server_class(target="secdash.secdash:app", workers=2).respawn_failed_workers is True
    monkeypatch.setenv(respawn.ENV, "false")
    assert server_class(target="secdash.secdash:app").respawn_failed_workers is False
    monkeypatch.setenv(respawn.ENV, "1")
    assert server_class(target="x:app", respawn_failed_workers=False).respawn_failed_workers is False
