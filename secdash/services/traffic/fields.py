"""What detection reads of a request: the fields CrowdSec's HTTP enricher (crowdsecurity/http-logs) derives.

path       the target as logged, query included (CrowdSec's evt.Meta.http_path)
request    the target before its last '?' (evt.Parsed.request; the enricher's greedy split)
args       what follows that '?', "" without one (evt.Parsed.http_args)
file_name  the request's last segment (evt.Parsed.file_name: DIR `^.*/`, FILE `[^/].*?`, EXT `\\.[^.]*$|$`)
static     the file's extension is an image, style, script, font or media one (evt.Parsed.static_ressource)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from secdash.services.traffic.logformats import Request

STATIC_EXTENSIONS = frozenset(
    ".JPG .CSS .JS .JPEG .PNG .SVG .MAP .ICO .OTF .GIF .MP3 .MP4 .WOFF .WOFF2 .TTF .EOT .WEBP .WAV .GZ .BROTLI .BVR "
    ".TS .BMP".split()
)
_FILE = re.compile(r"^.*/(?:([^/].*?)(\.[^.]*$|$))?")


@dataclass(frozen=True, slots=True)
class HttpFields:
    path: str
    request: str
    args: str
    file_name: str
    static: bool


def http_fields(request: Request) -> HttpFields:
    path = request.target
    before, question, after = path.rpartition("?")
    request_path, args = (before, after) if question else (path, "")
    file_name, static = "", False
    match = _FILE.match(request_path)
    if match and match.group(1) is not None:
        extension = match.group(2) or ""
        file_name = match.group(1) + extension
        static = extension.upper() in STATIC_EXTENSIONS
    return HttpFields(path=path, request=request_path, args=args, file_name=file_name, static=static)
