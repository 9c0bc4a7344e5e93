"""Battle Station (/battle-station): trigger drills, watch the running one, read the Defense History.

The page follows the "battle" topic (operations, running drills, defenses, the simulated-threat
announcement; the drill job kind publishes it too with every log line and progress save) and re-reads
at least every MAX_STALENESS_SECONDS, which is also how late the 300 s duration of an active drill
is noticed. The drill's log is read from the last line this tab has, never re-sent whole.

The state machine of spec section 4: SECURE until the user triggers an attack, the server reports a
running drill (anyone's, or a simulated one) or a defend request failed; DEFENDING ends when no drill
runs (or the shown one's duration ran out), or 3 s after a failed defend request.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from typing import ClassVar

import reflex as rx

from secdash.core import notify
from secdash.models import OperationStatus, UserPublic, as_utc
from secdash.models.battle_public import ActiveBattlePublic, OperationPublic
from secdash.models.jobs_public import JobLogPublic
from secdash.services.battle import attacks, defense, drills, operations, station, threats
from secdash.services.battle.station import SiteDefense, StationRead
from secdash.services.errors import DomainError, PermissionDenied
from secdash.services.scoped import in_session
from secdash.state import follow
from secdash.state.auth import AuthState
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.followed_page import FollowedPage
from secdash.state.job_log_view import LogLine, job_log_step

PAGE = "battle-station"
TOPICS = (operations.TOPIC,)
MAX_STALENESS_SECONDS = 3.0  # the spec's battle-list polling interval, as an upper bound
LOG_KEPT = 60  # log lines a tab shows
FALLBACK_RESET_SECONDS = 3.0  # spec section 9: fallback reset delay
GREEN_ABOVE = 70
SITE_NAMES = operations.SITE_NAMES
SUCCESS_STATUSES = (OperationStatus.defended, OperationStatus.partial)
_rng = random.Random()

# Shown in the defense-code block when a defend request fails: what really happened, and what stays in force.
FALLBACK_CODE = """# EMERGENCY FALLBACK - no AI defense was deployed
# {reason}
#
# Nothing new was written to the demo site's defense: it keeps the rules it had
# before this request (see "Demo site defenses": revision and source).
# Fallback protocol: the existing rules stay in force; start the drill again
# once the site is free, or reset the site's defense (administrators)."""


@dataclasses.dataclass
class OperationView:
    id: int = 0
    label: str = ""
    status: str = ""
    defended: bool = False
    measured: bool = False
    effectiveness_label: str = ""
    effectiveness_bar: int = 0
    effectiveness_high: bool = False
    strategy: str = ""
    code_head: str = ""
    source: str = ""
    site: str = ""
    time_label: str = ""
    counts: str = ""
    mitre_id: str = ""
    mitre_name: str = ""
    mitre_url: str = ""
    simulated: bool = False


@dataclasses.dataclass
class DefenseRow:
    slug: str = ""
    name: str = ""
    revision: int = 0
    source: str = ""
    updated: str = ""


def operation_view(op: OperationPublic) -> OperationView:
    measured = op.effectiveness is not None
    effectiveness = op.effectiveness or 0
    after = op.after
    if measured:
        counts = (
            f"blocked {after.attack_blocked}/{after.attack_sent} attack, "
            f"served {after.benign_sent - after.benign_blocked}/{after.benign_sent} benign"
        )
    elif op.status == OperationStatus.running:
        counts = "measuring..."
    else:
        counts = f"not measured: {op.error or op.status.value}"
    return OperationView(
        id=op.id,
        label=op.label,
        status=op.status.value,
        defended=op.status == OperationStatus.defended,
        measured=measured,
        effectiveness_label=f"{effectiveness}%" if measured else "-",
        effectiveness_bar=max(0, min(100, effectiveness)),
        effectiveness_high=effectiveness > GREEN_ABOVE,
        strategy=op.defense_strategy or ("Writing the defense..." if op.status == OperationStatus.running else "-"),
        code_head="\n".join(op.defense_code.splitlines()[:3]),
        source=op.attack_source or "Unknown",
        site=op.site_name,
        time_label=as_utc(op.timestamp).strftime("%b %d, %Y %H:%M:%S UTC"),
        counts=counts,
        mitre_id=op.mitre.id,
        mitre_name=op.mitre.name,
        mitre_url=op.mitre.url,
        simulated=op.simulated,
    )


def defense_row(site: SiteDefense) -> DefenseRow:
    updated = site.updated_at[:19].replace("T", " ") + " UTC" if site.updated_at else "never deployed"
    return DefenseRow(
        slug=site.slug, name=SITE_NAMES.get(site.slug, site.slug), revision=site.revision, source=site.source, updated=updated
    )


def threat_name(label: str) -> str:
    """The panel's "<label> Attack in Progress" without a doubled word ("DDoS Attack" reads "DDoS Attack in ...")."""
    return label.removesuffix(" Attack")


def type_title(attack_type: str) -> str:
    """The trigger toast's TYPE: the attack type upper-case, "_" as a space."""
    return attack_type.upper().replace("_", " ")


async def read_page(viewer: UserPublic, log_job: int = 0, log_after: int = 0) -> StationRead:
    return await station.read_station(viewer=viewer, log_job=log_job, log_after=log_after)


class BattleState(FollowedPage, AuthState):
    """State of /battle-station."""

    _follow_page: ClassVar[str] = PAGE

    loading: bool = True
    operations: list[OperationView] = []
    defending: bool = False
    pending: bool = False  # this tab's defend request has not been answered (its drill has not ended)
    has_active: bool = False  # a running drill is shown in the panel
    active_label: str = ""  # the attack's label without a trailing "Attack" (the panel adds "Attack in Progress")
    active_site: str = ""
    active_phase: str = ""
    active_percent: int = 0
    active_code: str = ""
    active_simulated: bool = False
    fallback_code: str = ""  # non-empty: a defend request failed (shown for FALLBACK_RESET_SECONDS)
    fallback_label: str = ""  # the attack type of the failed request
    log: list[LogLine] = []
    defenses: list[DefenseRow] = []
    _log_job: int = 0
    _log_seq: int = 0
    _own: list[int] = []  # operations this tab started and whose end it has not seen
    _watched: list[int] = []  # operations whose end gets a toast here (own and simulated ones)
    _announcement_at: str = ""
    _announcement_known: bool = False
    _fallback_seq: int = 0

    # --- applying reads -------------------------------------------------------------------------------

    def _apply(self, data: StationRead) -> list[rx.event.EventSpec]:
        """Apply a read; return the toasts (and timers) it calls for."""
        out: list[rx.event.EventSpec] = []
        out += self._announce(data.announcement)
        self.operations = [operation_view(op) for op in data.operations]
        self.defenses = [defense_row(site) for site in data.defenses]
        live = [drill for drill in data.active if operations.still_running(drill.start_time)]
        for drill in live:  # a simulated drill's outcome is toasted like the user's own
            if drill.simulated and drill.operation_id not in self._watched:
                self._watched = [*self._watched, drill.operation_id]
        out += self._outcomes(data.operations, live)
        if data.log_job:
            self._apply_log(data.log_job, data.log)
        own = [drill for drill in live if drill.operation_id in self._own]
        shown = own[0] if own else (live[0] if live else None)
        self._show(shown)
        self.pending = bool(self._own)
        self.defending = bool(live) or self.pending or bool(self.fallback_code)
        self.loading = False
        return out

    def _announce(self, announcement: dict | None) -> list[rx.event.EventSpec]:
        """A new simulated-threat announcement: the warning toast, once per page (not for one seen at load)."""
        at = str((announcement or {}).get("at") or "")
        known, self._announcement_known = self._announcement_known, True
        if not at or at == self._announcement_at:
            return []
        self._announcement_at = at
        if not known:
            return []
        label = str((announcement or {}).get("label") or "Unknown attack")[:60]
        return [toast.warning("THREAT DETECTED", description=f"{label} incoming - AI defense activating")]

    def _outcomes(self, operations: list[OperationPublic], live: list[ActiveBattlePublic]) -> list[rx.event.EventSpec]:
        """The toasts for watched operations that ended since the last read."""
        out: list[rx.event.EventSpec] = []
        by_id = {op.id: op for op in operations}
        live_ids = {drill.operation_id for drill in live}
        for op_id in list(self._watched):
            op = by_id.get(op_id)
            if op is None or op.status == OperationStatus.running:
                continue
            self._watched = [i for i in self._watched if i != op_id]
            if op.status in SUCCESS_STATUSES and op.effectiveness is not None:
                # A success always carries its measured figure, so the spec's "or 85" fallback never applies here.
                out.append(
                    toast.success(
                        "Defense Activated!", description=f"Enterprise defense deployed with {op.effectiveness}% effectiveness"
                    )
                )
            else:
                out += self._fail(op.label, op.error or f"The drill ended {op.status.value} before its defense was measured")
        self._own = [i for i in self._own if i in live_ids]  # ended, or its duration ran out
        return out

    def _apply_log(self, job_id: int, lines: list[JobLogPublic]) -> None:
        # another drill: its log from the start
        self._log_job, self._log_seq, log = job_log_step(self._log_job, self._log_seq, self.log, job_id, lines, kept=LOG_KEPT)
        if log is not None:
            self.log = log

    def _show(self, drill: ActiveBattlePublic | None) -> None:
        self.has_active = drill is not None
        if drill is None:
            return
        self.active_label, self.active_site = threat_name(drill.label), SITE_NAMES.get(drill.site, drill.site)
        self.active_phase, self.active_percent = drill.phase, max(0, min(100, drill.percent))
        self.active_code, self.active_simulated = drill.defense_code, drill.simulated
        if drill.job_id and drill.job_id != self._log_job:  # the panel shows another drill: read its log next
            self._log_job, self._log_seq, self.log = drill.job_id, 0, []

    def _fail(self, label: str, reason: str) -> list[rx.event.EventSpec]:
        """A failed defend request: the fallback text, the System Alert, and SECURE again after 3 s."""
        self.fallback_code = FALLBACK_CODE.format(reason=f"Reason: {reason}"[:300])
        self.fallback_label = threat_name(label)
        self.defending = True
        self._fallback_seq += 1
        return [
            toast.error("System Alert", description="Defense systems operational - fallback protocols engaged"),
            BattleState.end_fallback,
        ]

    # --- handlers -------------------------------------------------------------------------------------

    @protected(reads_only=True)
    async def load(self, user: UserPublic):
        self._announcement_known = False  # an announcement older than this visit is not toasted
        self._apply(await read_page(user, self._log_job, self._log_seq))
        return BattleState.follow_changes

    @protected
    async def trigger(self, user: UserPublic, attack_type: str):
        """Start a drill of `attack_type` (the server picks its defender, checks the role and conflicts)."""
        if attack_type not in attacks.IDS:
            return toast.error("Error", description=f"attackType must be one of: {', '.join(attacks.IDS)}")
        if self.pending:  # this tab's request is still running (a double click)
            return None
        label = attacks.label(attack_type)
        detected = toast.warning(
            f"{type_title(attack_type)} ATTACK DETECTED", description="Activating enterprise defense systems..."
        )
        try:
            op = await in_session(
                drills.start_drill,
                actor=user,
                attack_type=attack_type,
                attack_source=threats.made_up_source(_rng),
            )
        except PermissionDenied as exc:  # a limited user: nothing changes
            return toast.error("Access denied", description=exc.message)
        except DomainError as exc:  # a drill already runs on that site, or the request was refused
            return [detected, *self._fail(label, exc.message)]
        assert op.id is not None
        self._own, self._watched = [*self._own, op.id], [*self._watched, op.id]
        self.pending = self.defending = self.has_active = True
        self.fallback_code = ""
        self.active_label, self.active_site = threat_name(label), SITE_NAMES.get(op.site, op.site)
        self.active_phase, self.active_percent, self.active_code, self.active_simulated = "queued", 0, "", False
        if op.job_id:
            self._log_job, self._log_seq, self.log = op.job_id, 0, []
        return detected

    @protected(reads_only=True, background=True)
    async def end_fallback(self):
        """FALLBACK_RESET_SECONDS after a failed defend request: the fallback goes, and DEFENDING with it unless a
        drill runs (a newer failure restarts the wait)."""
        async with self:
            seq = self._fallback_seq
        await asyncio.sleep(FALLBACK_RESET_SECONDS)
        async with self:
            if self._fallback_seq == seq and self.fallback_code:
                self.fallback_code = ""
                self.defending = self.has_active or self.pending

    @protected
    async def reset_defense(self, user: UserPublic, slug: str):
        """Admins: put a demo site's weak default defense back (the service checks the role)."""
        try:
            view = await in_session(defense.reset_defense, slug=str(slug)[:16], actor=user)
        except DomainError as exc:
            return toast.error("Error", description=exc.message)
        self._apply(await read_page(user, self._log_job, self._log_seq))
        name = SITE_NAMES.get(view.slug, view.slug)
        return toast.success(
            "Defense reset", description=f"{name} runs its weak default defense again (revision {view.revision})"
        )

    @protected(reads_only=True, background=True)
    async def follow_changes(self):
        """Re-read on every battle change (operations, drills, their logs, defenses, threats), or every few seconds.
        While it runs, a signed-in user is watching: the threat simulation runs only then (threats.py)."""
        tab = self.router.session.client_token
        await threats.note_watching(tab)
        said = time.monotonic()

        async def each_round(user: UserPublic, _changed: notify.Changed) -> list[rx.event.EventSpec]:
            nonlocal said
            if time.monotonic() - said >= threats.WATCH_EVERY_SECONDS:
                await threats.note_watching(tab)
                said = time.monotonic()
            async with self:
                log_job, log_seq = self._log_job, self._log_seq
            data = await read_page(user, log_job, log_seq)  # outside the state lock
            async with self:
                if self._log_job != log_job:  # a trigger ran meanwhile: this read is older than it (its commit
                    return []  # published a change, so a fresh read follows)
                return self._apply(data)

        async for out in follow.signed_in_rounds(self, PAGE, *TOPICS, timeout=MAX_STALENESS_SECONDS, each_round=each_round):
            yield out
