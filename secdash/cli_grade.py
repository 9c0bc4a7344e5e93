"""`python -m secdash grade [--scheme https|http] [--host HOST] FILE...`: grade header sets before deploying them.

Each FILE holds a response head: `Name: value` lines (Set-Cookie repeated as needed; an `HTTP/1.1 200 OK` status
line first is allowed, a line starting with a space continues the previous value), optionally followed by a blank
line and the HTML body (its `<meta http-equiv>` policies and scripts are graded too; with a body and no
Content-Type, the answer is taken to be text/html). One JSON object per file is printed on its own line, in argument
order: {"file", "grade", "score", "tests": {test name: {"result", "modifier", "pass"}}}, or {"file", "error"} for a
file that cannot be read (the exit status is then 1). The default scheme is https, graded as if the site redirects
http to https on its own host; with --scheme http the site is graded as one without HTTPS.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from secdash.services.observatory import Exchange, grade

MAX_FILE_BYTES = 5_000_000


class HeadError(ValueError):
    """The file is not a response head."""


def parse_response(text: str) -> tuple[list[tuple[str, str]], str | None]:
    """(headers, body) of a response head file; HeadError saying which line is wrong."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    head, separator, body = text.partition("\n\n")
    headers: list[tuple[str, str]] = []
    for number, line in enumerate(head.split("\n"), start=1):
        if not line.strip():
            continue
        if number == 1 and line.startswith("HTTP/"):
            continue
        if line[0] in " \t":
            if not headers:
                raise HeadError(f"line {number}: a continuation line before any header")
            name, value = headers[-1]
            headers[-1] = (name, f"{value} {line.strip()}")
            continue
        name, colon, value = line.partition(":")
        if not colon or not name.strip() or any(ch in name for ch in " \t"):
            raise HeadError(f"line {number}: expected 'Name: value', got {line[:80]!r}")
        headers.append((name.strip(), value.strip()))
    body_text = body if separator and body.strip() else None
    if body_text is not None and not any(name.lower() == "content-type" for name, _ in headers):
        headers.append(("Content-Type", "text/html"))
    return headers, body_text


def grade_file(path: str, *, scheme: str, host: str | None) -> dict[str, object]:
    try:
        data = Path(path).read_bytes()
        if len(data) > MAX_FILE_BYTES:
            raise HeadError(f"larger than {MAX_FILE_BYTES:,} bytes")
        headers, body = parse_response(data.decode("utf-8", errors="replace"))
    except (OSError, HeadError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return {"file": path, "error": reason}
    report = grade(Exchange(headers=tuple(headers), scheme=scheme, body=body, host=host))
    return {
        "file": path,
        "grade": report.grade,
        "score": report.score,
        "tests": {test.name: test.as_json() for test in report.tests},
    }


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "grade",
        help="grade response headers as the MDN HTTP Observatory does (JSON lines)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--scheme", choices=["https", "http"], default="https", help="how the response was fetched (default https)"
    )
    parser.add_argument("--host", default=None, help="the site's host name (cookie domains, script origins)")
    parser.add_argument("files", nargs="+", metavar="FILE")


def run(args: argparse.Namespace) -> int:
    failed = False
    for path in args.files:
        line = grade_file(path, scheme=args.scheme, host=args.host)
        failed = failed or "error" in line
        sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()
    return 1 if failed else 0
