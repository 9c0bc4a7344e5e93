"""`python -m secdash scan PATH`: the Security Scan's engines on any folder, for CI pipelines.

Prints JSON (default) or SARIF 2.1.0 on standard output and the files it skipped or could not read on standard
error; exits 1 when a finding is at or above --fail-on (default: low, any finding), 2 when there is none but the
scan was incomplete (an engine missing or out of budget), 0 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from secdash.services.code_scan import collect, report, skips
from secdash.services.code_scan.project import scan


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "scan",
        help="scan a folder or file for vulnerabilities (JSON or SARIF; CI exit code)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", nargs="?", type=Path, help="folder or file to scan")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="fast engines only (detect-secrets, bandit, templates, semgrep with SecDash's rules), every severity",
    )
    parser.add_argument("--format", choices=("json", "sarif"), default="json")
    parser.add_argument(
        "--fail-on",
        choices=(*report.SEVERITIES, "never"),
        default="low",
        help="exit 1 on a finding of this severity or above (default: low, any finding)",
    )
    parser.add_argument(
        "--no-skip",
        action="append",
        default=[],
        choices=(*skips.CATEGORIES, "all"),
        metavar="CATEGORY",
        help=f"also scan files a skip rule leaves out ({', '.join(skips.CATEGORIES)}, all); repeatable",
    )
    parser.add_argument("--list-skips", action="store_true", help="print the skip rules as JSON and exit")


def run(args: argparse.Namespace) -> int:
    if args.list_skips:
        print(json.dumps(skips.describe(), indent=2))
        return 0
    if args.path is None:
        print("error: PATH is required", file=sys.stderr)
        return 2
    root = args.path.resolve()
    if not root.exists():
        print(f"error: {args.path} does not exist", file=sys.stderr)
        return 2
    keep = skips.CATEGORIES if "all" in args.no_skip else tuple(args.no_skip)
    collected = collect([root], keep=keep)
    result = asyncio.run(scan(collected.targets, "quick" if args.quick else "full", collected.skipped))
    if args.format == "sarif":
        base = root if root.is_dir() else root.parent
        print(json.dumps(report.as_sarif(result, base.as_uri() + "/"), indent=2))
    else:
        print(json.dumps(report.as_json(result, str(args.path)), indent=2))
    for problem in result.problems:
        print(f"secdash scan: {problem}", file=sys.stderr)
    for file, why in sorted(result.not_scanned.items()):
        print(f"secdash scan: {file}: {why}", file=sys.stderr)
    if collected.skipped:
        counts: dict[str, int] = {}
        for skipped in collected.skipped:
            counts[skipped.category] = counts.get(skipped.category, 0) + 1
        listed = ", ".join(f"{n} {category}" for category, n in counts.items())
        print(f"secdash scan: skipped {len(collected.skipped)} files ({listed}); --no-skip CATEGORY scans them", file=sys.stderr)
    return report.exit_code(result, args.fail_on)
