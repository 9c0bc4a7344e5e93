"""A server worker that dies (kill -9, the OOM killer, a crash in native code) is replaced, not left dead.

granian, the server Reflex runs in production, supervises its worker processes and can start a replacement for one
that exits unexpectedly (`respawn_failed_workers`; its CLI's `--respawn-failed-workers`, env
GRANIAN_RESPAWN_FAILED_WORKERS). Reflex 0.10 builds granian's `Server` itself (reflex/utils/exec.py,
`run_granian_backend_prod`) and passes neither that option nor reads the variable, so without this a deployment of N
workers that loses one serves on N-1 until someone restarts it ("Unexpected exit from worker-1" and nothing more).

`enable()` (called from rxconfig.py, which the `reflex run` process loads before it starts granian) swaps
`granian.server.Server` for a subclass whose only difference is that default: on, unless
GRANIAN_RESPAWN_FAILED_WORKERS says false/0/no/off. An explicit `respawn_failed_workers=` from the caller still wins.
granian's own guard stays: a worker that dies again within 5.5 s of its respawn is a crash loop and the server
exits. One worker or several, the same: a single worker killed is replaced too.
"""

from __future__ import annotations

import logging
import os
from typing import Any

log = logging.getLogger(__name__)

ENV = "GRANIAN_RESPAWN_FAILED_WORKERS"
_OFF = {"0", "false", "no", "off"}


def wanted() -> bool:
    return os.environ.get(ENV, "true").strip().lower() not in _OFF


def enable() -> bool:
    """Make granian's Server respawn failed workers by default; False when granian is not installed."""
    try:
        import granian.server as granian_server
    except ImportError:  # a development install without granian: nothing to do
        return False
    base = granian_server.Server
    if getattr(base, "secdash_respawn", False):  # already done (rxconfig.py is imported more than once)
        return True

    class Server(base):  # type: ignore[valid-type, misc]
        secdash_respawn = True

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("respawn_failed_workers", wanted())
            super().__init__(*args, **kwargs)

    Server.__qualname__ = Server.__name__ = base.__name__
    granian_server.Server = Server  # type: ignore[misc]
    return True
