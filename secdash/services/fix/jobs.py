"""The "fix" job: the agent writes a proposal (step "propose", services/fix/proposing.py), or an applied fix is
checked (step "verify", services/fix/verifying.py). This module registers the job kind and runs the step; a
job that ends without closing its fix (a crash, a stop, a lost worker) leaves the fix failed or not verified.
"""

from __future__ import annotations

from typing import Any

from secdash.core.db import session_scope
from secdash.jobs import JobContext, JobEnding, register
from secdash.models import SecurityEvent, Site, User, UserPublic
from secdash.models.fixes import Fix, FixStatus
from secdash.models.jobs import JobLevel
from secdash.services.fix import problems, proposing, verifying
from secdash.services.fix.job_kind import KIND, TOPIC, FixFailed, update
from secdash.services.fix.problems import ProblemFacts


async def _load(fix_id: int) -> tuple[Fix, ProblemFacts, UserPublic | None]:
    async with session_scope() as session:
        fix = await session.get(Fix, fix_id)
        if fix is None:
            raise FixFailed(f"Fix #{fix_id} no longer exists")
        event = await session.get(SecurityEvent, fix.event_id)
        if event is None:
            raise FixFailed(f"Problem #{fix.event_id} no longer exists")
        site = await session.get(Site, event.site_id) if event.site_id is not None else None
        user = await session.get(User, fix.proposed_by) if fix.proposed_by else None
        return fix, problems.facts_of(event, site), UserPublic.from_user(user) if user else None


async def _ended(ending: JobEnding) -> None:
    """The job ended without the proposal or verification closing its fix (a crash, a stop, a lost worker)."""
    failed = FixStatus.failed if ending.params.get("step", "propose") == "propose" else FixStatus.not_verified
    reason = (
        "The fix job was stopped with the server (run it again)"
        if ending.status == "interrupted"
        else "The fix job failed on the server (see the server log)"
    )
    await update(int(ending.params["fixId"]), status=failed, error=reason)


@register(KIND, topic=TOPIC, shared=True, on_end=_ended)
async def run_fix(ctx: JobContext) -> dict[str, Any]:
    fix_id, step = int(ctx.params["fixId"]), ctx.params.get("step", "propose")
    failed = FixStatus.failed if step == "propose" else FixStatus.not_verified
    try:
        fix, facts, owner = await _load(fix_id)
        if step == "propose":
            await proposing.propose(ctx, fix, facts, owner)
        else:
            await verifying.verify(ctx, fix, facts)
        return {"fixId": fix_id, "step": step}
    except FixFailed as exc:
        await ctx.log(str(exc), JobLevel.error)
        await update(
            fix_id,
            status=failed,
            error=str(exc)[:1000],
            **({"verification": {"fixed": False, "stillSeen": [], "error": str(exc)[:500]}} if step == "verify" else {}),
        )
        return {"fixId": fix_id, "step": step, "error": str(exc)}
