"""`python -m secdash ship --site NAME --token-file F [--url URL] PATH...`: send access logs to SecDash.

Follows each PATH (rotation by rename or copytruncate included) and posts its new lines to URL's ingest endpoint
with the site's ingest token (read from --token-file, which should be readable by its owner only), in gzip batches.
The shipped position of each file is kept in --state-dir (default ~/.local/state/secdash-ship/NAME.json), so a
restart neither loses nor repeats lines. --once ships what the files hold now and exits (cron, tests).

Exit status: 0 after --once, 1 when the server refuses the token (revoked, or another site's), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import stat
import sys
from pathlib import Path

import httpx

from secdash.services.traffic.shipper import Shipper, ShipperStopped


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "ship",
        help="follow access-log files and send them to SecDash's ingest endpoint",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="access-log files to follow")
    parser.add_argument("--site", required=True, help="the site's name (names the state file)")
    parser.add_argument("--token-file", required=True, help="a file holding the site's ingest token (sdi_...)")
    parser.add_argument("--url", default="http://127.0.0.1:3000", help="SecDash's address (http://127.0.0.1:3000)")
    parser.add_argument("--state-dir", default=None, help="where the shipped positions are kept")
    parser.add_argument("--once", action="store_true", help="ship what the files hold now, then exit")
    parser.add_argument("--cacert", default=None, help="trust the certificate authorities in this PEM file")


def _state_dir(given: str | None) -> Path:
    if given:
        return Path(given)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "secdash-ship"


async def _run(args: argparse.Namespace, token: str, state_file: Path) -> int:
    verify: str | bool = args.cacert or True
    async with httpx.AsyncClient(timeout=30, verify=verify) as client:
        shipper = Shipper(url=args.url, token=token, paths=[Path(p) for p in args.paths], state_file=state_file, client=client)
        shipper.load()
        try:
            if args.once:
                await shipper.ship_available()
            else:
                await shipper.follow()
        except ShipperStopped as exc:
            print(f"ship: the server refused the token: {exc}", file=sys.stderr)
            return 1
        print(f"ship: {shipper.shipped:,} requests stored", file=sys.stderr)
    return 0


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="ship: %(message)s")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}", args.site):
        print("error: --site: letters, digits, '.', '_' or '-'", file=sys.stderr)
        return 2
    try:
        token_path = Path(args.token_file)
        token = token_path.read_text().strip()
        if token_path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            print(f"ship: warning: {token_path} is readable by others; chmod 600 it", file=sys.stderr)
    except OSError as exc:
        print(f"error: --token-file: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if not token.startswith("sdi_"):
        print("error: --token-file does not hold an ingest token (sdi_...)", file=sys.stderr)
        return 2
    state_dir = _state_dir(args.state_dir)
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        return asyncio.run(_run(args, token, state_dir / f"{args.site}.json"))
    except KeyboardInterrupt:
        return 0
