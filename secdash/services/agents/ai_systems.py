"""AI Systems (GET /api/ai-systems and /ai-systems): the four platforms on measured figures.

Measured, per platform (the default site of that slug and its agent):
- status and response time: the monitor's newest check of the site (stored on the site row);
- uptime %: the share of the site's stored checks (kept a week) in which it answered (no error, HTTP below
  500); uptime hours: from the first answered check after the newest failed one (or the oldest stored
  check) to the newest check; 0 while the newest check failed;
- code lines: the lines of the text files under the site's stored code root (its workspace copy when a
  fix made one), counted as the Security Scan counts them and cached for CODE_LINES_TTL_SECONDS (the
  bundled demo sites' roots are stored here if no scan has stored them yet);
- threats detected, blocked and false positives: events.counts_by_site, the one query every screen's per-site
  figure comes from (the Dashboard's "Threats Blocked" sums the same blocked requests);
- recent activities: the newest real (not simulated) AI activities that name the site;
- model calls, tokens and latency: the agent's rows in ai_calls.
Everything else (users, data size, datasets, accuracy, memory, models, ML frameworks, training samples and
features) is the platform's fixed profile (spec section 9's agent figures plus PROFILES below), marked
"profile"; nothing here is random.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import and_, case, func, or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS
from secdash.core.unit import commit
from secdash.models import AgentRecord, AiActivity, AiCall, Site, SiteCheck, as_utc, utcnow
from secdash.models.ai_systems_public import (
    AgentCallsPublic,
    AiSummaryPublic,
    AiSystemsPublic,
    PlatformProfilePublic,
    PlatformPublic,
    SystemsStatusPublic,
    TrainingRowPublic,
)
from secdash.models.public import ActivityPublic
from secdash.models.scans import CodeRoot
from secdash.services.code_scan.engine import collect_targets, total_lines
from secdash.services.problems import events
from secdash.services.scanning import code_roots

ACTIVITIES_PER_PLATFORM = 4  # spec: four recent activities per card
CODE_LINES_TTL_SECONDS = 60.0
OPERATIONAL = "All Systems Operational"

# The stored profile per platform: figures nothing measures (display only, fixed, never random).
PROFILES: dict[str, dict[str, Any]] = {
    "stock": {
        "models": 3,
        "datasets": 12,
        "accuracy": 97.8,
        "memory_percent": 68,
        "frameworks": ["TensorFlow", "PyTorch", "Scikit-learn"],
        "training_samples": 2_400_000,
        "training_features": 847,
    },
    "tour": {
        "models": 3,
        "datasets": 9,
        "accuracy": 96.4,
        "memory_percent": 54,
        "frameworks": ["PyTorch", "Transformers", "spaCy"],
        "training_samples": 1_800_000,
        "training_features": 623,
    },
    "gem": {
        "models": 4,
        "datasets": 11,
        "accuracy": 98.2,
        "memory_percent": 72,
        "frameworks": ["TensorFlow", "OpenCV", "XGBoost"],
        "training_samples": 2_100_000,
        "training_features": 912,
    },
    "shares": {
        "models": 3,
        "datasets": 8,
        "accuracy": 95.9,
        "memory_percent": 61,
        "frameworks": ["PyTorch", "LightGBM", "Scikit-learn"],
        "training_samples": 1_600_000,
        "training_features": 534,
    },
}

clock = time.monotonic  # tests move it instead of sleeping
_line_cache: dict[str, tuple[float, int]] = {}


def profile_of(platform: str) -> PlatformProfilePublic:
    agent = AGENTS[platform]
    return PlatformProfilePublic(
        specialization=agent.specialization,
        users=agent.users,
        data_size=agent.data_size,
        data_tb=float(agent.data_size.removesuffix("TB")),
        **PROFILES[platform],
    )


def count_code_lines(root: Path) -> int | None:
    """Lines of the text files under a code root (its patched workspace when there is one), as the scan counts;
    None when the folder is gone."""
    if not root.exists():
        return None
    return total_lines(collect_targets([code_roots.source_of(root)]))


async def code_lines_of(root: str) -> int | None:
    """The root's line count, counted at most once per CODE_LINES_TTL_SECONDS; None when the folder is gone."""
    cached = _line_cache.get(root)
    if cached is not None and clock() - cached[0] < CODE_LINES_TTL_SECONDS:
        return cached[1]
    lines = await asyncio.to_thread(count_code_lines, Path(root))
    if lines is None:
        _line_cache.pop(root, None)
    else:
        _line_cache[root] = (clock(), lines)
    return lines


def clear_cache() -> None:
    _line_cache.clear()


def _answered():
    """A check in which the site answered: no error and an HTTP status below 500."""
    return and_(col(SiteCheck.error).is_(None), col(SiteCheck.status_code).is_not(None), col(SiteCheck.status_code) < 500)


class Uptime(NamedTuple):
    checks: int  # stored checks
    percent: float | None
    hours: float | None  # the current streak of answered checks, to the newest check (0: down at the newest)
    since: datetime | None = None  # the streak's first check
    since_first_check: bool = False  # ... which is the oldest stored check (no failure seen since)


async def _uptime(session: AsyncSession, site_id: int) -> Uptime:
    """Uptime from the site's stored checks."""
    up = _answered()
    total, answered, last_at = (
        await session.exec(
            select(func.count(), func.sum(case((up, 1), else_=0)), func.max(SiteCheck.checked_at)).where(
                SiteCheck.site_id == site_id
            )
        )
    ).one()
    if not total:
        return Uptime(0, None, None)
    percent = round(100.0 * (answered or 0) / total, 2)
    last_down = (await session.exec(select(func.max(SiteCheck.checked_at)).where(SiteCheck.site_id == site_id, ~up))).one()
    if last_down is not None and as_utc(last_down) >= as_utc(last_at):
        return Uptime(total, percent, 0.0)
    streak = select(func.min(SiteCheck.checked_at)).where(SiteCheck.site_id == site_id, up)
    if last_down is not None:
        streak = streak.where(col(SiteCheck.checked_at) > last_down)
    start = (await session.exec(streak)).one()
    if start is None:
        return Uptime(total, percent, 0.0)
    hours = (as_utc(last_at) - as_utc(start)).total_seconds() / 3600
    return Uptime(total, percent, round(hours, 2), as_utc(start), last_down is None)


async def _calls(session: AsyncSession) -> dict[str, AgentCallsPublic]:
    known = or_(col(AiCall.prompt_tokens).is_not(None), col(AiCall.completion_tokens).is_not(None))
    rows = await session.exec(
        select(  # type: ignore[call-overload]
            AiCall.agent,
            func.count(),
            func.sum(case((col(AiCall.outcome) == "error", 1), else_=0)),
            func.coalesce(func.sum(AiCall.prompt_tokens), 0),
            func.coalesce(func.sum(AiCall.completion_tokens), 0),
            func.sum(case((known, 1), else_=0)),
            func.avg(AiCall.total_ms),
            func.max(AiCall.created_at),
        )
        .where(col(AiCall.agent).in_(PLATFORM_AGENT_IDS))
        .group_by(AiCall.agent)
    )
    result = {}
    for agent, calls, errors, prompt, completion, with_tokens, avg_ms, last_at in rows:
        result[agent] = AgentCallsPublic(
            calls=calls,
            errors=int(errors or 0),
            prompt_tokens=int(prompt),
            completion_tokens=int(completion),
            calls_with_tokens=int(with_tokens or 0),
            avg_latency_ms=round(avg_ms) if avg_ms is not None else None,
            last_call_at=last_at,
        )
    return result


NO_CALLS = AgentCallsPublic(
    calls=0, errors=0, prompt_tokens=0, completion_tokens=0, calls_with_tokens=0, avg_latency_ms=None, last_call_at=None
)


async def _activities(session: AsyncSession, site: Site | None) -> list[ActivityPublic]:
    if site is None:
        return []
    query = (
        select(AiActivity)
        .where(AiActivity.target == site.name, AiActivity.simulated == False)  # noqa: E712
        .order_by(col(AiActivity.created_at).desc(), col(AiActivity.id).desc())
        .limit(ACTIVITIES_PER_PLATFORM)
    )
    return [ActivityPublic.of(activity) for activity in await session.exec(query)]


def _online(site: Site | None) -> bool | None:
    if site is None or site.last_checked_at is None:
        return None
    return site.last_error is None and site.status_code is not None and site.status_code < 500


def systems_status(platforms: list[PlatformPublic]) -> SystemsStatusPublic:
    """The badge: "All Systems Operational" only when every platform's site answered its newest check and is
    secure; otherwise what is down, degraded or not checked yet."""
    down = [p.name for p in platforms if p.online is False]
    unchecked = [p.name for p in platforms if p.online is None]
    degraded = [p.name for p in platforms if p.online and p.site_status != "secure"]
    if down:
        label = f"{len(down)} of {len(platforms)} Systems Down: {', '.join(down)}"
    elif degraded:
        label = f"{len(degraded)} of {len(platforms)} Systems Degraded: {', '.join(degraded)}"
    elif unchecked:
        label = f"Awaiting first check: {', '.join(unchecked)}"
    else:
        label = OPERATIONAL
    return SystemsStatusPublic(operational=label == OPERATIONAL, label=label, down=down, degraded=degraded, unchecked=unchecked)


async def _roots(session: AsyncSession, site_ids: list[int]) -> dict[int, str]:
    """Each site's stored code root (the first stored, when a site has several)."""
    roots: dict[int, str] = {}
    if site_ids:
        query = select(CodeRoot).where(col(CodeRoot.site_id).in_(site_ids)).order_by(col(CodeRoot.id))
        for root in await session.exec(query):
            roots.setdefault(root.site_id, root.path)  # type: ignore[arg-type]
    return roots


async def read(*, session: AsyncSession) -> AiSystemsPublic:
    """What /ai-systems shows, read now."""
    sites = {
        site.default_slug: site for site in await session.exec(select(Site).where(col(Site.default_slug).in_(PLATFORM_AGENT_IDS)))
    }
    site_ids = [site.id for site in sites.values() if site.id is not None]
    roots = await _roots(session, site_ids)
    if set(site_ids) - set(roots):  # the demo sites' roots are stored with the first scan: store them now
        await code_roots.ensure_code_roots(session)
        await commit(session)
        roots = await _roots(session, site_ids)
    agents = {row.id: row for row in await session.exec(select(AgentRecord))}
    counts = await events.counts_by_site(session=session, site_ids=site_ids)
    calls = await _calls(session)
    platforms = []
    for slug in PLATFORM_AGENT_IDS:
        site, agent = sites.get(slug), AGENTS[slug]
        record = agents.get(slug)
        uptime = await _uptime(session, site.id) if site and site.id else Uptime(0, None, None)
        root = roots.get(site.id) if site and site.id else None
        figures = counts.get(site.id, events.NO_COUNTS) if site and site.id else events.NO_COUNTS
        platforms.append(
            PlatformPublic(
                id=slug,
                name=agent.platform,
                agent_name=agent.name,
                agent_status=record.status if record else "monitoring",
                site_id=site.id if site else None,
                domain=site.domain if site else None,
                site_status=site.status if site and site.last_checked_at else None,
                online=_online(site),
                response_time=site.response_time_ms if site else None,
                last_checked_at=site.last_checked_at if site else None,
                checks=uptime.checks,
                uptime_percent=uptime.percent,
                uptime_hours=uptime.hours,
                uptime_since=uptime.since,
                uptime_since_first_check=uptime.since_first_check,
                code_lines=await code_lines_of(root) if root else None,
                code_root=_display_root(root),
                threats_detected=figures["detected"],
                threats_blocked=figures["blocked"],
                false_positives=figures["false"],
                recent_activities=await _activities(session, site),
                ai=calls.get(slug, NO_CALLS),
                profile=profile_of(slug),
            )
        )
    code_lines = sum(p.code_lines or 0 for p in platforms)
    summary = AiSummaryPublic(
        total_data_tb=round(sum(p.profile.data_tb for p in platforms), 1),
        code_lines=code_lines,
        code_lines_millions=round(code_lines / 1_000_000, 6),
        ai_models=len(PLATFORM_AGENT_IDS),
        active_users=sum(p.profile.users for p in platforms),
        profile_fields=["totalDataTb", "activeUsers"],
    )
    training = [
        TrainingRowPublic(
            platform=p.name,
            specialization=p.profile.specialization,
            samples=p.profile.training_samples,
            features=p.profile.training_features,
            storage=p.profile.data_size,
        )
        for p in platforms
    ]
    return AiSystemsPublic(
        generated_at=utcnow(), summary=summary, status=systems_status(platforms), platforms=platforms, training=training
    )


def _display_root(root: str | None) -> str | None:
    """The root as a short path (relative to the project when inside it): no server layout beyond that."""
    if root is None:
        return None
    path = Path(root)
    try:
        return path.resolve().relative_to(code_roots.PROJECT_ROOT.resolve()).as_posix()
    except ValueError:
        return path.name
