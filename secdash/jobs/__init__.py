"""One job system for every long piece of work (scans now; drills, fixes, builds and artifacts later).

- `registry`: one handler per kind (`@register("scan")`).
- `context`: what a handler gets: `log`, `progress`, `should_stop`.
- `store`: the stored jobs and their ordered logs (any worker can show, follow and stop any job).
- `runner`: hands a job to a worker: in this process by default, through saq on Redis when configured;
  marks jobs whose worker died as interrupted (or queues them again where the kind allows).
"""

from secdash.jobs.context import JobContext
from secdash.jobs.registry import JobEnding, JobKind, register

__all__ = ["JobContext", "JobEnding", "JobKind", "register"]
