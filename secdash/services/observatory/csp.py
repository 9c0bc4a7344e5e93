"""Content Security Policy: the reference's policy parser and its content-security-policy test.

Policies from every Content-Security-Policy header and every `<meta http-equiv>` are combined the way the reference
combines them (a source counts only when each policy allows it), directives are case-insensitive, a repeated
directive (other than report-uri/report-to) makes the policy invalid, a source list with no source means 'none'.
`<meta>` policies cannot carry frame-ancestors, report-uri or sandbox. 'unsafe-inline' beside a nonce or hash is
ignored (browsers ignore it), and with 'strict-dynamic' and a nonce or hash, 'self', 'unsafe-inline' and scheme or
host sources in script-src are ignored too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote

from secdash.services.observatory.inputs import Exchange

SHORTEST_POLICY = len("img-src") - 1
NOT_IN_META = ("frame-ancestors", "report-uri", "sandbox")
ALLOWED_DUPLICATES = frozenset({"report-uri", "report-to"})
DUPLICATES = "_duplicate_report_directives"

DANGEROUSLY_BROAD = frozenset({"ftp:", "http:", "https:", "*", "http://*", "http://*.*", "https://*", "https://*.*"})
UNSAFE_INLINE = frozenset({"'unsafe-inline'", "data:"})
BROAD_OR_INLINE = DANGEROUSLY_BROAD | UNSAFE_INLINE
PASSIVE = ("img-src", "media-src")
NONCES_HASHES = ("'sha256-", "'sha384-", "'sha512-", "'nonce-")

# The order in which the reference sorts sources (a locale collation: punctuation, then digits, then letters).
_COLLATION = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_RANK = {char: index for index, char in enumerate(_COLLATION)}
_WS = re.compile(r"\s+")


class InvalidPolicy(ValueError):
    """The policy cannot be parsed (the reference's csp-header-invalid)."""


def _collation_key(text: str) -> tuple[int, ...]:
    return tuple(_RANK.get(char, len(_RANK) + ord(char)) for char in text)


def _decode(piece: str) -> str:
    """decodeURIComponent: a malformed escape is an error, as it is for the reference."""
    if re.search(r"%(?![0-9A-Fa-f]{2})", piece):
        raise InvalidPolicy(f"malformed escape in {piece!r}")
    try:
        return unquote(piece, errors="strict")
    except UnicodeDecodeError as exc:
        raise InvalidPolicy(f"malformed escape in {piece!r}") from exc


def _path_part_match(a: str, b: str) -> bool:
    if not a:
        return True
    if a == "/" and not b:
        return True
    exact = not a.endswith("/")
    parts_a, parts_b = a.split("/"), b.split("/")
    if len(parts_a) > len(parts_b) or (exact and len(parts_a) != len(parts_b)):
        return False
    if not exact:
        parts_a.pop()
    return all(_decode(x) == _decode(y) for x, y in zip(parts_a, parts_b, strict=False))


@dataclass
class _Source:
    source: str
    index: int
    keep: bool


def parse_policies(policies: list[str]) -> dict[str, set[str]]:
    """Several policies as one directive -> sources map (InvalidPolicy when one cannot be parsed)."""
    clean = [re.sub(r"[\r\n]", "", policy).strip() for policy in policies]
    if not clean:
        return {}
    for policy in clean:
        if len(policy) < SHORTEST_POLICY:
            raise InvalidPolicy(f"invalid policy {policy!r}")
    csp: dict[str, list[_Source]] = {}
    duplicates: set[str] = set()
    for index, policy in enumerate(clean):
        seen: set[str] = set()
        for entry in policy.split(";"):
            directive_entry, *values = _WS.split(entry.strip())
            if not directive_entry:
                continue
            directive = directive_entry.lower()
            if directive in seen:
                if directive not in ALLOWED_DUPLICATES:
                    raise InvalidPolicy(f"duplicate directive {directive} in policy {index}")
                duplicates.add(directive)
            seen.add(directive)
            keep = index == 0
            sources = [_Source(value.strip().lower(), index, keep) for value in values]
            if not values and directive.endswith("-src"):
                sources = [_Source("'none'", index, keep)]
            combined = sources if index == 0 else [*csp.get(directive, []), *sources]
            combined.sort(key=lambda item: _collation_key(item.source))
            for position in range(1, len(combined)):
                source, previous = combined[position], combined[position - 1]
                if source.index == previous.index and source.source.startswith(previous.source):
                    source.keep = False  # a longer form of a source this policy already allows
                if source.index != previous.index and _path_part_match(previous.source, source.source):
                    source.keep = True  # allowed by both policies
            csp[directive] = [item for item in combined if item.keep]
            if index == 0 and len(policies) > 1:
                for item in csp[directive]:
                    item.keep = False
    parsed = {directive: ({item.source for item in items} or {"'none'"}) for directive, items in csp.items()}
    if duplicates:
        parsed[DUPLICATES] = duplicates
    return parsed


def parse_meta_policies(policies: list[str]) -> dict[str, set[str]]:
    parsed = parse_policies(policies)
    for directive in NOT_IN_META:
        parsed.pop(directive, None)
    return parsed


@dataclass
class CspFindings:
    result: str
    passed: bool = False
    directives: dict[str, list[str]] | None = None  # the combined policy (None when not implemented or invalid)
    policy: dict[str, bool] = field(default_factory=dict)
    http: bool = False
    meta: bool = False


def _first(csp: dict[str, set[str]], *directives: str, missing: set[str] | None = None) -> set[str]:
    """The first of these directives the policy has (the set itself, not a copy), else `missing` (default {"*"})."""
    for directive in directives:
        if directive in csp:
            return csp[directive]
    return {"*"} if missing is None else missing


def _nonce_or_hash(sources: set[str]) -> bool:
    return any(source.startswith(NONCES_HASHES) for source in sources)


def csp_test(exchange: Exchange) -> CspFindings:
    http_policies = exchange.values("content-security-policy")
    meta_policies = exchange.equiv().get("content-security-policy", [])
    try:
        csp = parse_policies([*http_policies, *meta_policies])
    except InvalidPolicy:
        return CspFindings("csp-header-invalid")
    try:
        header_only = parse_policies(http_policies)
    except InvalidPolicy:
        header_only = {}
    try:
        meta_only = parse_meta_policies(meta_policies)
    except InvalidPolicy:
        meta_only = {}
    if not header_only and not meta_only:
        reporting = exchange.first("content-security-policy-report-only")
        return CspFindings("csp-not-implemented-but-reporting-enabled" if reporting else "csp-not-implemented")

    found = CspFindings("", http=bool(http_policies), meta=bool(meta_policies))
    result: str | None = None
    base_uri = _first(csp, "base-uri")
    frame_ancestors = _first(header_only, "frame-ancestors")
    form_action = _first(csp, "form-action")
    # The same set objects as in the combined policy: what is dropped from one is dropped from it (as for the
    # reference, whose script-src without its own directive is default-src itself).
    object_src = _first(csp, "object-src", "default-src")
    script_src = _first(csp, "script-src", "default-src")
    style_src = _first(csp, "style-src", "default-src")
    for sources in (script_src, style_src):
        if _nonce_or_hash(sources):
            sources.discard("'unsafe-inline'")
    strict_dynamic = False
    if _nonce_or_hash(script_src) and "'strict-dynamic'" in script_src:
        for source in list(script_src):
            if source.startswith(tuple(DANGEROUSLY_BROAD)) or source in ("'self'", "'unsafe-inline'"):
                script_src.discard(source)
        strict_dynamic = True
    elif "'strict-dynamic'" in script_src:
        result = "csp-header-invalid"
    active = [
        source
        for directive, sources in csp.items()
        if directive not in PASSIVE and directive != "script-src"
        for source in sources
    ] + list(script_src)
    passive = [source for directive in PASSIVE for source in _first(csp, directive, "default-src", missing=set())]
    insecure = ("http:", "ftp:")

    unsafe_inline = bool(script_src & BROAD_OR_INLINE) or bool(object_src & DANGEROUSLY_BROAD)
    if unsafe_inline and result is None:
        result = "csp-implemented-with-unsafe-inline"
    insecure_active = exchange.https and any(source.startswith(insecure) for source in active)
    if insecure_active and result is None:
        result = "csp-implemented-with-insecure-scheme"
    unsafe_eval = "'unsafe-eval'" in script_src or "'unsafe-eval'" in style_src
    if unsafe_eval and result is None:
        result = "csp-implemented-with-unsafe-eval"
    insecure_passive = exchange.https and any(source.startswith(insecure) for source in passive)
    if insecure_passive and result is None:
        result = "csp-implemented-with-insecure-scheme-in-passive-content-only"
    unsafe_style = bool(style_src & BROAD_OR_INLINE)
    if unsafe_style and result is None:
        result = "csp-implemented-with-unsafe-inline-in-style-src-only"
    default_src = csp.get("default-src")
    default_none = default_src is not None and default_src == {"'none'"}
    if result is None:
        result = "csp-implemented-with-no-unsafe-default-src-none" if default_none else "csp-implemented-with-no-unsafe"

    found.policy = {
        "antiClickjacking": not (frame_ancestors & DANGEROUSLY_BROAD),
        "defaultNone": default_none,
        "insecureBaseUri": bool(base_uri & BROAD_OR_INLINE),
        "insecureFormAction": bool(form_action & DANGEROUSLY_BROAD),
        "insecureSchemeActive": insecure_active,
        "insecureSchemePassive": insecure_passive,
        "strictDynamic": strict_dynamic,
        "unsafeEval": unsafe_eval,
        "unsafeInline": unsafe_inline,
        "unsafeInlineStyle": unsafe_style,
        "unsafeObjects": bool(object_src & DANGEROUSLY_BROAD),
    }
    if result in (
        "csp-implemented-with-no-unsafe",
        "csp-implemented-with-no-unsafe-default-src-none",
        "csp-implemented-with-unsafe-inline-in-style-src-only",
        "csp-implemented-with-insecure-scheme-in-passive-content-only",
    ):
        found.passed = True
        if DUPLICATES in csp:
            result = "csp-implemented-but-duplicate-directives"
    found.result = result
    found.directives = {directive: sorted(sources) for directive, sources in csp.items() if directive != DUPLICATES}
    return found
