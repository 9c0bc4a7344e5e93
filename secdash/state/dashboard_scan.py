"""The Dashboard's Security Scan tab: start, follow (its live job log) and stop a code scan."""

from __future__ import annotations

from typing import Any

import reflex as rx

from secdash.models import ScanView, UserPublic
from secdash.models.jobs_public import JobLogPublic
from secdash.services.errors import DomainError
from secdash.services.reads import page_reads
from secdash.services.scanning import scans
from secdash.services.scoped import in_session
from secdash.state.base import protected
from secdash.state.dashboard_base import DashboardState, failed_toast
from secdash.state.job_log_view import LogLine, job_log_step

SCAN_LOG_KEPT = 12  # log lines a tab shows


ScanLogLine = LogLine  # the scan's log, as every job log


class ScanTab(DashboardState):
    """Security Scan: start, follow and stop a code scan."""

    scan_status: str = "idle"  # idle | running | complete | stopped | failed
    scan_type: str = ""
    scan_total_lines: int = 0
    scan_total_files: int = 0
    scan_lines: int = 0
    scan_files: int = 0
    scan_current_file: str = ""
    scan_threats: int = 0
    scan_vulnerabilities: int = 0
    scan_eta: str = ""
    scan_error: str = ""
    scan_agents: int = 0
    target_lines: int = 0
    target_files: int = 0
    # The scan's log as the job writes it: read from the last line this tab has, the newest kept.
    scan_log: list[ScanLogLine] = []
    _log_job: int = 0
    _log_seq: int = 0
    # The finished scan the user put away with "New scan": refreshes keep showing the idle screen.
    _dismissed_scan_id: int = 0

    def _read_filters(self) -> dict[str, Any] | None:
        return {"log_job": self._log_job, "log_after": self._log_seq}

    @rx.var
    def scan_percent(self) -> int:
        """Rounded down: only a scan that read every line shows a full bar."""
        return min(100, self.scan_lines * 100 // self.scan_total_lines) if self.scan_total_lines else 0

    @rx.var
    def scan_outcome(self) -> str:
        """What a stopped scan really covered (empty otherwise)."""
        if self.scan_status != "stopped":
            return ""
        return (
            f"Stopped at {self.scan_percent}%: {self.scan_files} of {self.scan_total_files} files, "
            f"{self.scan_lines} of {self.scan_total_lines} lines scanned"
        )

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        if "target" in reads:
            self.target_files, self.target_lines = reads["target"]
        if "scan" in reads:
            self._apply_scan(reads["scan"])
        if "scan_log" in reads:
            self._apply_log(*reads["scan_log"])

    def _apply_log(self, job_id: int, lines: list[JobLogPublic]) -> None:
        # another scan: its log from the start
        self._log_job, self._log_seq, log = job_log_step(
            self._log_job, self._log_seq, self.scan_log, job_id, lines, kept=SCAN_LOG_KEPT
        )
        if log is not None:
            self.scan_log = log

    def _apply_scan(self, job: ScanView | None) -> None:
        if job is None or (job.id == self._dismissed_scan_id and job.status != "running"):
            self.scan_status = "idle"
            return
        self.scan_status = job.status
        self.scan_type, self.scan_error = job.scan_type, job.error or ""
        self.scan_total_lines, self.scan_total_files = job.total_lines, job.total_files
        self.scan_lines, self.scan_files, self.scan_current_file = job.lines_scanned, job.files_scanned, job.current_file
        self.scan_threats, self.scan_vulnerabilities = job.threats_found, job.vulnerabilities
        self.scan_agents = scans.agents_scanning(job)
        self.scan_eta = scans.time_left(job)

    @protected
    async def start_scan(self, user: UserPublic, scan_type: str):
        try:
            job = await in_session(scans.start_scan, actor=user, scan_type=scan_type)
        except DomainError as exc:
            return failed_toast(exc)
        self._apply_scan(job)
        return None

    @protected
    async def stop_scan(self, user: UserPublic):
        try:
            await in_session(scans.stop_scan, actor=user)
        except DomainError as exc:
            return failed_toast(exc)
        return None

    @protected(reads_only=True)
    async def new_scan(self):
        """Back to the idle screen after a finished scan."""
        if self.scan_status != "running":
            reads = await page_reads.dashboard_reads({"scan", "target"})
            job = reads["scan"]
            self._dismissed_scan_id = job.id if job and job.id else 0
            self._apply_reads(reads)
        return None
