"""A job's log line as the pages show it (the Security Scan, Battle Station and Fix Mode logs)."""

from __future__ import annotations

import dataclasses

from secdash.models import as_utc
from secdash.models.jobs_public import JobLogPublic


@dataclasses.dataclass
class LogLine:
    seq: int = 0
    level: str = "info"
    message: str = ""
    time: str = ""

    @classmethod
    def of(cls, line: JobLogPublic) -> LogLine:
        return cls(seq=line.seq, level=line.level.value, message=line.message, time=as_utc(line.created_at).strftime("%H:%M:%S"))
