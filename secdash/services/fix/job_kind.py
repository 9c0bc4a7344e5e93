"""The "fix" job's kind and change topic, its failure, and the update of a fix row that its steps share
(services/fix/jobs.py runs the steps: proposing.py, verifying.py).
"""

from __future__ import annotations

from typing import Any

from secdash.core.db import session_scope
from secdash.core.unit import commit, mark_changed
from secdash.models import utcnow
from secdash.models.fixes import Fix

KIND = "fix"
TOPIC = "fixes"


class FixFailed(Exception):
    """No valid fix: the message is stored on the fix and shown to the reviewer."""


async def update(fix_id: int, **fields: Any) -> None:
    """Set fields of a fix (and its updated_at) in a unit of work of its own; nothing when the fix is gone."""
    async with session_scope() as session:
        fix = await session.get(Fix, fix_id)
        if fix is None:
            return
        for name, value in fields.items():
            setattr(fix, name, value)
        fix.updated_at = utcnow()
        session.add(fix)
        mark_changed(session, TOPIC)
        await commit(session)
