"""`python -m secdash probe URL [--allow-private]`: probe one URL as the monitor does and print one JSON object.

The monitor's address rules apply (a private, loopback or link-local target, or a name resolving to one, is
refused) unless --allow-private is given. Exit status: 0 when the site answered with nothing wrong on the way
(the JSON's "error" is null), 1 when the probe failed or was refused (the reason is in "error"), 2 for a usage
error. No database and no server are needed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import ssl
import sys

from secdash.services.probe.fetch import probe_site
from secdash.services.probe.network import ProbeClient
from secdash.services.probe.result import ProbeResult, report


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `probe` on `python -m secdash`'s sub-commands."""
    parser = sub.add_parser(
        "probe",
        help="probe one URL as the monitor does; print one JSON object",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument("url", help="the http(s) URL to probe")
    parser.add_argument(
        "--allow-private",
        action="store_true",
        help="allow private, loopback and other non-global addresses (the site setting of that name)",
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds for each connect and read (10)")
    parser.add_argument("--budget", type=float, default=30.0, help="seconds for the whole probe, every hop and body (30)")
    parser.add_argument("--max-redirects", type=int, default=5, help="redirects followed at most (5)")
    parser.add_argument(
        "--cacert", metavar="FILE", help="trust the certificate authorities in this PEM file instead of the system's"
    )


async def probe(args: argparse.Namespace) -> ProbeResult:
    verify: ssl.SSLContext | bool = ssl.create_default_context(cafile=args.cacert) if args.cacert else True
    async with ProbeClient(allow_private=args.allow_private, verify=verify) as client:
        return await probe_site(
            args.url,
            client=client,
            allow_private=args.allow_private,
            timeout=args.timeout,
            budget=args.budget,
            max_redirects=args.max_redirects,
        )


def run(args: argparse.Namespace) -> int:
    """Probe, print the JSON object on one line, return the exit status."""
    if args.timeout <= 0 or args.budget <= 0 or args.max_redirects < 0:
        print("error: --timeout and --budget must be above 0, --max-redirects 0 or more", file=sys.stderr)
        return 2
    try:
        result = asyncio.run(probe(args))
    except (OSError, ssl.SSLError) as exc:  # the --cacert file could not be read
        print(f"error: cannot use --cacert {args.cacert}: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report(result)))
    return 0 if result.error is None else 1
