"""`python -m secdash detect [--format json|text] LOGFILE...`: replay access logs through the detection scenarios.

The logs are read in the order given (plain or gzip; '-' is standard input), in any accepted format (combined,
common, Caddy JSON, NDJSON; --log-format to insist on one), through the same parser and scenarios as live traffic,
on the logs' own timestamps (as CrowdSec's replay mode does). One JSON object per detection is printed with
--format json: {"address", "scenario", "family", "firstSeen", "lastSeen", "events", "host", "description",
"decision", "samples"}; a table with --format text (the default). A summary (lines read, lines that could not be
read, with examples) goes to standard error. Requests from loopback and private networks are not reported
(CrowdSec's default whitelist) unless --no-default-allow is given; --allow adds networks.

Exit status: 0 when every file was read, 1 when a file could not be opened or read, 2 for a usage error (a bad
scenario file included).
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path

from secdash.services.traffic.detector import DEFAULT_ALLOW, Detection, Detector, allow_list
from secdash.services.traffic.logfiles import Tally, read_requests
from secdash.services.traffic.logformats import FORMATS
from secdash.services.traffic.scenarios import ScenarioError, load_scenarios


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `detect` on `python -m secdash`'s sub-commands."""
    parser = sub.add_parser(
        "detect",
        help="replay access logs through the detection scenarios; print the detections",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument("logs", nargs="+", metavar="LOGFILE", help="access log files (gzip too; '-' for stdin)")
    parser.add_argument("--format", choices=["text", "json"], default="text", help="the output (text)")
    parser.add_argument("--log-format", choices=FORMATS, default="auto", help="the logs' format (auto)")
    parser.add_argument("--scenarios", metavar="DIR", help="a folder of scenarios that add to or replace the bundled")
    parser.add_argument("--site", default="", help="the site the logs belong to (per-site scenarios group by it)")
    parser.add_argument("--allow", action="append", default=[], metavar="CIDR", help="never report these addresses")
    parser.add_argument("--no-default-allow", action="store_true", help="report loopback and private addresses too")


def _text(detection: Detection) -> str:
    first = detection.first_seen.strftime("%Y-%m-%d %H:%M:%S")
    last = detection.last_seen.strftime("%H:%M:%S")
    return f"{detection.address:<39} {detection.scenario.name:<30} {detection.events:>6}  {first} - {last}"


def run(args: argparse.Namespace) -> int:
    """Replay the logs, print the detections, return the exit status."""
    try:
        scenarios = load_scenarios(Path(args.scenarios) if args.scenarios else None)
        allow = allow_list(args.allow) + (() if args.no_default_allow else DEFAULT_ALLOW)
    except (ScenarioError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    detector = Detector(scenarios, allow=allow, site=args.site)
    tally = Tally()
    failed = False
    if args.format == "text":
        print(f"{'ADDRESS':<39} {'SCENARIO':<30} {'EVENTS':>6}  FIRST SEEN - LAST SEEN (UTC)")
    for path in args.logs:
        try:
            for request in read_requests(path, tally, args.log_format):
                for detection in detector.feed(request):
                    line = json.dumps(detection.as_json()) if args.format == "json" else _text(detection)
                    sys.stdout.write(line + "\n")
        except (OSError, EOFError, zlib.error) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
            print(f"error: {path}: {reason}", file=sys.stderr)
            failed = True
    sys.stdout.flush()
    print(f"detect: {tally.summary()}; {detector.requests:,} requests", file=sys.stderr)
    return 1 if failed else 0
