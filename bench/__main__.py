"""Run the benchmarks one per process (each prepares its own data directory and settings)."""

from __future__ import annotations

import subprocess
import sys

BENCHMARKS = {
    "overview": "bench.overview_load",
    "monitor": "bench.monitor_load",
    "latency": "bench.event_latency",
    "llm": "bench.llm_overhead",
    "fanout": "bench.fanout",
    "drill": "bench.drill_load",
    "builder": "bench.builder_load",
    "artifacts": "bench.artifact_load",
    "availability": "bench.availability",
    "probe": "bench.probe_vs_curl",
    "observatory": "bench.observatory_agreement",
    "scan": "bench.scan_agreement",
    "scan_reference": "bench.scan_reference",
    "detection": "bench.detection_agreement",
    "ingest": "bench.traffic_ingest",
    "site_list": "bench.site_list",
    "scale": "bench.scale_rounds",
}
# Benchmarks that take arguments (application folders): `python -m bench scan_reference PATH [PATH...]`.
WITH_ARGUMENTS = {"scan_reference"}


def main() -> int:
    chosen = sys.argv[1:] or list(BENCHMARKS)
    unknown = [name for name in chosen[:1] + ([] if chosen[0] in WITH_ARGUMENTS else chosen[1:]) if name not in BENCHMARKS]
    if unknown:  # --help included: an unknown name once re-ran this command for itself, without end
        print(f"usage: python -m bench [{'|'.join(BENCHMARKS)}] ...; unknown: {' '.join(unknown)}", file=sys.stderr)
        return 2
    if len(chosen) == 1 and chosen[0] in BENCHMARKS:
        module = __import__(BENCHMARKS[chosen[0]], fromlist=["run"])
        module.run()
        return 0
    if chosen and chosen[0] in WITH_ARGUMENTS:
        module = __import__(BENCHMARKS[chosen[0]], fromlist=["run"])
        module.run(chosen[1:])
        return 0
    status = 0
    for name in chosen:
        status |= subprocess.run([sys.executable, "-m", "bench", name], check=False).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
