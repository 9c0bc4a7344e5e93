"""AI Systems (/ai-systems): the four platforms, re-read when a site is probed, or an event, an AI activity or a
model call is recorded (and at least every MAX_STALENESS_SECONDS, in case a change notice was lost)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from typing import ClassVar

from secdash.core import notify
from secdash.models import UserPublic, as_utc, utcnow
from secdash.models.ai_systems_public import AiSystemsPublic, PlatformPublic
from secdash.services.agents import activities, ai_calls, ai_systems
from secdash.services.monitoring import sites
from secdash.services.problems import events
from secdash.services.scoped import in_session
from secdash.state import follow
from secdash.state.auth import AuthState
from secdash.state.base import protected
from secdash.state.followed_page import FollowedPage

PAGE = "ai-systems"
TOPICS = (sites.TOPIC, events.TOPIC, activities.TOPIC, ai_calls.TOPIC)
MAX_STALENESS_SECONDS = 15.0


@dataclasses.dataclass
class ActivityRow:
    id: int
    kind: str
    description: str
    time_label: str


@dataclasses.dataclass
class PlatformView:
    id: str
    name: str
    agent_name: str
    agent_status: str
    domain: str
    online: str  # up, down, unknown
    status_label: str
    site_status: str
    response_time: str
    uptime_hours: str
    uptime_since: str
    uptime_percent: str
    uptime_bar: int
    checks: str
    code_lines: str
    threats_detected: int
    threats_blocked: int
    false_positives: int
    ai_calls: str
    ai_tokens: str
    ai_latency: str
    users: str
    data_size: str
    models: str
    datasets: str
    accuracy: str
    memory_percent: int
    frameworks: list[str]
    activities: list[ActivityRow]


@dataclasses.dataclass
class TrainingView:
    platform: str
    specialization: str
    samples: str
    features: str
    storage: str


def code_lines_label(lines: int) -> tuple[str, str]:
    """A measured line count as the card shows it: whole below a million ("150"), else in millions."""
    if lines >= 1_000_000:
        return f"{lines / 1_000_000:.2f}M", f"{lines:,} lines counted"
    return f"{lines:,}", "lines counted"


def _duration(hours: float) -> str:
    minutes = round(hours * 60)
    if minutes < 1:
        return "Under a minute"
    if minutes < 60:
        return f"{minutes} min"
    whole_hours, minutes = divmod(minutes, 60)
    if whole_hours < 24:
        return f"{whole_hours} h {minutes} min" if minutes else f"{whole_hours} h"
    days, whole_hours = divmod(whole_hours, 24)
    return f"{days} d {whole_hours} h" if whole_hours else f"{days} d"


def uptime_label(hours: float | None, since: datetime | None, since_first_check: bool, now: datetime) -> tuple[str, str]:
    """The uptime figure and what it counts from: the monitor's first check, or the check after a failure."""
    if hours is None:
        return "-", ""
    if since is None:
        return "Down", "at the newest check"
    when = as_utc(since).strftime("%H:%M UTC" if as_utc(now) - as_utc(since) < timedelta(days=1) else "%b %d, %H:%M UTC")
    return _duration(hours), f"since {when}, " + ("the monitor's first check" if since_first_check else "after a failed check")


def platform_view(p: PlatformPublic) -> PlatformView:
    online = "unknown" if p.online is None else ("up" if p.online else "down")
    status_label = {"up": "Online", "down": "Down"}.get(online, "No site" if p.site_id is None else "Not checked yet")
    known = p.ai.calls_with_tokens
    uptime = uptime_label(p.uptime_hours, p.uptime_since, p.uptime_since_first_check, utcnow())
    return PlatformView(
        id=p.id,
        name=p.name,
        agent_name=p.agent_name,
        agent_status=p.agent_status.value,
        domain=p.domain or "-",
        online=online,
        status_label=status_label,
        site_status=p.site_status.value if p.site_status else "",
        response_time=f"{p.response_time} ms" if p.response_time is not None else "-",
        uptime_hours=uptime[0],
        uptime_since=uptime[1],
        uptime_percent=f"{p.uptime_percent:.2f}%" if p.uptime_percent is not None else "No checks yet",
        uptime_bar=round(p.uptime_percent or 0),
        checks=f"{p.checks:,}",
        code_lines=f"{p.code_lines:,}" if p.code_lines is not None else "No code root",
        threats_detected=p.threats_detected,
        threats_blocked=p.threats_blocked,
        false_positives=p.false_positives,
        ai_calls=f"{p.ai.calls:,}" + (f" ({p.ai.errors} failed)" if p.ai.errors else ""),
        ai_tokens="not reported"
        if p.ai.calls and not known
        else f"{p.ai.prompt_tokens + p.ai.completion_tokens:,}"
        + (f" in {known} of {p.ai.calls} calls" if known < p.ai.calls else ""),
        ai_latency=f"{p.ai.avg_latency_ms:,} ms" if p.ai.avg_latency_ms is not None else "-",
        users=f"{p.profile.users:,}",
        data_size=p.profile.data_size,
        models=str(p.profile.models),
        datasets=str(p.profile.datasets),
        accuracy=f"{p.profile.accuracy:.1f}%",
        memory_percent=p.profile.memory_percent,
        frameworks=list(p.profile.frameworks),
        activities=[
            ActivityRow(
                id=a.id,
                kind=a.activity_type.value,
                description=a.description,
                time_label=a.created_at.strftime("%b %d, %H:%M:%S"),
            )
            for a in p.recent_activities
        ],
    )


async def read_page() -> AiSystemsPublic:
    return await in_session(ai_systems.read)


class AiSystemsState(FollowedPage, AuthState):
    """State of /ai-systems."""

    _follow_page: ClassVar[str] = PAGE

    loading: bool = True
    operational: bool = False
    status_label: str = ""
    total_data: str = ""
    code_lines_millions: str = ""
    code_lines: str = ""
    ai_models: int = 0
    active_users: str = ""
    platforms: list[PlatformView] = []
    training: list[TrainingView] = []
    updated_label: str = ""

    def _apply(self, data: AiSystemsPublic) -> None:
        summary = data.summary
        self.operational, self.status_label = data.status.operational, data.status.label
        self.total_data = f"{summary.total_data_tb:.1f} TB"
        self.code_lines_millions, self.code_lines = code_lines_label(summary.code_lines)
        self.ai_models = summary.ai_models
        self.active_users = f"{summary.active_users:,}"
        self.platforms = [platform_view(p) for p in data.platforms]
        self.training = [
            TrainingView(
                platform=row.platform,
                specialization=row.specialization,
                samples=f"{row.samples:,}",
                features=f"{row.features:,}",
                storage=row.storage,
            )
            for row in data.training
        ]
        self.updated_label = data.generated_at.strftime("%H:%M:%S UTC")
        self.loading = False

    @protected(reads_only=True)
    async def load(self, user: UserPublic):
        self._apply(await read_page())
        return AiSystemsState.follow_changes

    @protected(reads_only=True, background=True)
    async def follow_changes(self):
        """Re-read when a site is probed, an event or an AI activity is recorded, or every few seconds."""
        async for out in follow.signed_in_rounds(
            self, PAGE, *TOPICS, timeout=MAX_STALENESS_SECONDS, each_round=self._follow_round
        ):
            yield out

    async def _follow_round(self, _user: UserPublic, _changed: notify.Changed) -> None:
        data = await read_page()  # outside the state lock
        async with self:
            self._apply(data)
