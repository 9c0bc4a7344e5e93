"""Static security scanning of source files: detect-secrets, bandit, a template check and semgrep (SecDash's rules,
njsscan's)."""

from secdash.services.code_scan.engine import (
    ENGINES,
    BatchResult,
    Finding,
    ScanTarget,
    ScanType,
    collect,
    collect_targets,
    covers,
    merge,
    normalise_code,
    not_scanned_reason,
    scan_batch_bounded,
    scan_file,
    scan_file_bounded,
    scan_files,
    total_lines,
)
from secdash.services.code_scan.semgrep import EngineMissing

__all__ = [
    "ENGINES",
    "BatchResult",
    "EngineMissing",
    "Finding",
    "ScanTarget",
    "ScanType",
    "collect",
    "collect_targets",
    "covers",
    "merge",
    "normalise_code",
    "not_scanned_reason",
    "scan_batch_bounded",
    "scan_file",
    "scan_file_bounded",
    "scan_files",
    "total_lines",
]
