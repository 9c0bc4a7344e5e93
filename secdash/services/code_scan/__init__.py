"""Static security scanning of source files: secrets, Python (bandit) and web (JS/HTML) rules."""

from secdash.services.code_scan.engine import (
    Finding,
    ScanTarget,
    ScanType,
    collect_targets,
    covers,
    normalise_code,
    not_scanned_reason,
    scan_file,
    scan_file_bounded,
    total_lines,
)

__all__ = [
    "Finding", "ScanTarget", "ScanType", "collect_targets", "covers", "normalise_code", "not_scanned_reason", "scan_file",
    "scan_file_bounded", "total_lines",
]
