"""A demo site's defense configuration: the schema (validated data, never code), its checks, storage and reset.

A configuration says what the demo site's defense layer refuses:

- `patterns`: regular expressions matched against a request's path, query or body (SQL injection, XSS);
- `rate_limits`: at most N requests per client in a window, on some or all endpoints (DDoS, brute force);
- `uploads`: byte signatures (the EICAR test string), blocked file extensions, a size cap (malware);
- `urls`: checks on links reported to the site: punycode, look-alikes of protected domains, blocked domains.

Every pattern is compiled with the `regex` engine and matched with a timeout; patterns that can backtrack
catastrophically (a repeat inside a repeat, or slow on probe inputs) are refused, as are absurd limits and
configurations larger than MAX_CONFIG_BYTES. The weak default (`weak_default()`) refuses nothing, so a
first drill shows real damage. No row stored for a site means the weak default.
"""

from __future__ import annotations

import json
import re
import time
from datetime import datetime
from functools import lru_cache
from typing import Annotated, Any, Literal

import regex
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.demo_sites import SLUGS
from secdash.core.unit import commit, mark_changed
from secdash.models import DemoDefense, LogCategory, LogSeverity, UserPublic, as_utc, utcnow
from secdash.services import audit
from secdash.services.errors import Invalid, NotFound
from secdash.services.identity.permissions import require_admin

try:  # Python 3.11+: the standard library's regular-expression parser, used to read a pattern's structure
    from re import _parser as re_parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_parse as re_parser  # type: ignore[no-redef]

TOPIC = "battle"
DEMO_SLUGS = SLUGS  # the four demo sites (core/demo_sites.py)
Endpoint = Literal["pages", "login", "search", "comment", "upload", "report"]
ENDPOINTS: tuple[str, ...] = ("pages", "login", "search", "comment", "upload", "report")

MAX_CONFIG_BYTES = 16 * 1024
MAX_PATTERNS = 25
MAX_PATTERN_LENGTH = 200
MAX_RATE_LIMITS = 10
MAX_RATE_REQUESTS = 10_000
MAX_RATE_WINDOW_SECONDS = 3600
MAX_SIGNATURES = 20
MAX_SIGNATURE_LENGTH = 256
MAX_UPLOAD_BYTES = 64 * 1024  # the demo sites' own hard cap on an upload; a defense may only lower it
MAX_DOMAINS = 100
# Matching budget: one pattern against one request part, and a pattern's probe when it is validated.
MATCH_TIMEOUT_SECONDS = 0.05
PROBE_TIMEOUT_SECONDS = 0.05
PROBE_LENGTH = 3000
# A repeat inside a repeat is refused when either can repeat this often or more (or without bound).
NESTED_REPEAT_LIMIT = 16

Name = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9][A-Za-z0-9 _.:-]*$")]
_DOMAIN = re.compile(r"^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PatternRule(_Strict):
    """Block a request whose path, query or body matches `pattern` (on `endpoints`, or all of them)."""

    name: Name
    pattern: str = Field(min_length=1, max_length=MAX_PATTERN_LENGTH)
    targets: list[Literal["path", "query", "body"]] = Field(default=["query", "body"], min_length=1, max_length=3)
    endpoints: list[Endpoint] | None = Field(default=None, min_length=1, max_length=len(ENDPOINTS))
    ignore_case: bool = True

    @field_validator("pattern")
    @classmethod
    def _safe_pattern(cls, value: str) -> str:
        check_pattern(value)
        return value


class RateLimit(_Strict):
    """At most `requests` requests per client within `window_seconds` (on `endpoints`, or all of them)."""

    name: Name
    requests: int = Field(ge=1, le=MAX_RATE_REQUESTS)
    window_seconds: int = Field(ge=1, le=MAX_RATE_WINDOW_SECONDS)
    endpoints: list[Endpoint] | None = Field(default=None, min_length=1, max_length=len(ENDPOINTS))


class UploadSignature(_Strict):
    """Refuse an upload whose bytes contain `text` (e.g. the EICAR test string)."""

    name: Name
    text: str = Field(min_length=4, max_length=MAX_SIGNATURE_LENGTH)


class UploadRules(_Strict):
    signatures: list[UploadSignature] = Field(default=[], max_length=MAX_SIGNATURES)
    blocked_extensions: list[Annotated[str, Field(pattern=r"^\.[a-z0-9]{1,10}$")]] = Field(default=[], max_length=40)
    max_bytes: int | None = Field(default=None, ge=1, le=MAX_UPLOAD_BYTES)


class UrlRules(_Strict):
    """Checks on a link reported to the site; `protected_domains` empty means the four platforms' domains."""

    block_punycode: bool = False
    block_lookalikes: bool = False
    protected_domains: list[str] = Field(default=[], max_length=20)
    blocked_domains: list[str] = Field(default=[], max_length=MAX_DOMAINS)

    @field_validator("protected_domains", "blocked_domains")
    @classmethod
    def _domains(cls, values: list[str]) -> list[str]:
        cleaned = []
        for value in values:
            domain = value.strip().lower().rstrip(".")
            if not _DOMAIN.match(domain):
                raise ValueError(f"{value[:80]!r} is not a domain name (like example.com)")
            cleaned.append(domain)
        return cleaned


class DefenseConfig(_Strict):
    """What a demo site's defense layer refuses (the whole configuration is data)."""

    patterns: list[PatternRule] = Field(default=[], max_length=MAX_PATTERNS)
    rate_limits: list[RateLimit] = Field(default=[], max_length=MAX_RATE_LIMITS)
    uploads: UploadRules = UploadRules()
    urls: UrlRules = UrlRules()


class DefenseView(BaseModel):
    """A site's current defense as the drills and the page read it."""

    slug: str
    config: DefenseConfig
    revision: int
    source: str
    operation_id: str | None
    updated_at: datetime | None


def weak_default() -> DefenseConfig:
    """The starting defense: nothing is refused (so a first drill shows real damage)."""
    return DefenseConfig()


# --- pattern safety ------------------------------------------------------------------------------------


def _max_of(value: int) -> int:
    return NESTED_REPEAT_LIMIT if value >= re_parser.MAXREPEAT else value


def _nested_repeat(items: Any, outer: int = 1) -> bool:
    """True if a repeat sits inside another and both repeat often (the shape of `(a+)+`)."""
    repeats = {re_parser.MAX_REPEAT, re_parser.MIN_REPEAT, getattr(re_parser, "POSSESSIVE_REPEAT", None)}
    for op, av in items:
        if op in repeats:
            _low, high, sub = av
            high = _max_of(high)
            if outer > 1 and high > 1 and (outer >= NESTED_REPEAT_LIMIT or high >= NESTED_REPEAT_LIMIT):
                return True
            if _nested_repeat(sub, max(outer, high)):
                return True
        elif op is re_parser.SUBPATTERN:
            if _nested_repeat(av[-1], outer):
                return True
        elif op is re_parser.BRANCH:
            if any(_nested_repeat(branch, outer) for branch in av[1]):
                return True
        elif op in (re_parser.ASSERT, re_parser.ASSERT_NOT):
            if _nested_repeat(av[1], outer):
                return True
        elif op is getattr(re_parser, "ATOMIC_GROUP", None):
            if _nested_repeat(av, outer):
                return True
        elif op is re_parser.GROUPREF_EXISTS:
            if any(part is not None and _nested_repeat(part, outer) for part in av[1:]):
                return True
    return False


def _uses_backreference(items: Any) -> bool:
    for op, av in items:
        if op in (re_parser.GROUPREF, re_parser.GROUPREF_EXISTS):
            return True
        children: list[Any] = []
        if op in (re_parser.MAX_REPEAT, re_parser.MIN_REPEAT, getattr(re_parser, "POSSESSIVE_REPEAT", None)):
            children = [av[2]]
        elif op is re_parser.SUBPATTERN:
            children = [av[-1]]
        elif op is re_parser.BRANCH:
            children = list(av[1])
        elif op in (re_parser.ASSERT, re_parser.ASSERT_NOT):
            children = [av[1]]
        if any(_uses_backreference(child) for child in children):
            return True
    return False


def _probe_inputs(pattern: str) -> list[str]:
    """Long runs of the characters the pattern names (and common ones), each ending in a character that
    forces a failed match: the inputs on which a backtracking pattern takes exponential time."""
    chars = {c for c in pattern if c.isprintable() and c not in "\\()[]{}|*+?^$."} | set("a1 <'-_x")
    probes = []
    for char in sorted(chars)[:40]:
        probes.append(char * PROBE_LENGTH + "\x00")
        probes.append((char + " ") * (PROBE_LENGTH // 2) + "\x00")
    return probes


def check_pattern(pattern: str) -> None:
    """Refuse (ValueError, a clear message) a pattern that is too long, does not compile, or may backtrack badly."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise ValueError(f"pattern is longer than {MAX_PATTERN_LENGTH} characters")
    try:
        compiled = regex.compile(pattern, regex.IGNORECASE | regex.VERSION0)
    except regex.error as exc:
        raise ValueError(f"pattern does not compile: {exc}") from None
    try:
        parsed = re_parser.parse(pattern)
    except (re.error, OverflowError, RecursionError) as exc:
        raise ValueError(f"pattern uses syntax outside the supported (standard) subset: {exc}") from None
    if _nested_repeat(parsed):
        raise ValueError("pattern nests a repeat inside a repeat (like (a+)+), which can backtrack catastrophically")
    if _uses_backreference(parsed):
        raise ValueError("pattern uses a backreference, which can backtrack catastrophically")
    started = time.monotonic()
    for probe in _probe_inputs(pattern):
        try:
            compiled.search(probe, timeout=PROBE_TIMEOUT_SECONDS)
        except TimeoutError:
            raise ValueError("pattern is too slow on a long input (catastrophic backtracking); simplify it") from None
        if time.monotonic() - started > 0.5:
            raise ValueError("pattern is too slow to check; simplify it")


@lru_cache(maxsize=512)
def compiled_pattern(pattern: str, ignore_case: bool) -> regex.Pattern[str]:
    flags = regex.VERSION0 | (regex.IGNORECASE if ignore_case else 0)
    return regex.compile(pattern, flags)


# --- parsing ---------------------------------------------------------------------------------------------


def _location(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "configuration"


def parse_config(data: Any) -> DefenseConfig:
    """A validated configuration from a dict (or its JSON text); Invalid says what is wrong and where."""
    if isinstance(data, DefenseConfig):
        data = data.model_dump()
    if isinstance(data, str | bytes):
        if len(data) > MAX_CONFIG_BYTES:
            raise Invalid(f"defense configuration is larger than {MAX_CONFIG_BYTES} bytes")
        try:
            data = json.loads(data)
        except (ValueError, RecursionError):
            raise Invalid("defense configuration is not valid JSON") from None
    if not isinstance(data, dict):
        raise Invalid("defense configuration must be an object")
    try:
        size = len(json.dumps(data))
    except (TypeError, ValueError, RecursionError):
        raise Invalid("defense configuration must be plain JSON data") from None
    if size > MAX_CONFIG_BYTES:
        raise Invalid(f"defense configuration is larger than {MAX_CONFIG_BYTES} bytes")
    try:
        return DefenseConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
        raise Invalid(f"defense configuration: {_location(tuple(first.get('loc', ())))}: {message}") from None


@lru_cache(maxsize=64)
def _parse_stored(text: str) -> DefenseConfig:
    return DefenseConfig.model_validate_json(text)


def stored_config(raw: dict[str, Any]) -> DefenseConfig:
    """A stored configuration (validated when it was deployed; parsed again, cached, never trusted blindly)."""
    try:
        return _parse_stored(json.dumps(raw, sort_keys=True))
    except ValidationError:
        return weak_default()


# --- storage -------------------------------------------------------------------------------------------


def check_slug(slug: str) -> str:
    if slug not in DEMO_SLUGS:
        raise NotFound(f"no demo site {slug[:40]!r}; demo sites: {', '.join(DEMO_SLUGS)}")
    return slug


async def get_defense(session: AsyncSession, slug: str) -> DefenseView:
    """The defense the site enforces now (the weak default until a first deploy)."""
    check_slug(slug)
    row = await session.get(DemoDefense, slug)
    if row is None:
        return DefenseView(slug=slug, config=weak_default(), revision=0, source="default", operation_id=None, updated_at=None)
    return DefenseView(
        slug=slug,
        config=stored_config(row.config),
        revision=row.revision,
        source=row.source,
        operation_id=row.operation_id,
        updated_at=as_utc(row.updated_at),
    )


async def _store(
    session: AsyncSession, slug: str, config: DefenseConfig, *, source: str, operation_id: str | None, actor_id: int | None
) -> DemoDefense:
    row = await session.get(DemoDefense, slug)
    if row is None:
        row = DemoDefense(slug=slug, config={}, revision=0)
    row.config = config.model_dump(mode="json")
    row.revision += 1
    row.source = source
    row.operation_id = operation_id
    row.updated_by = actor_id
    row.updated_at = utcnow()
    session.add(row)
    mark_changed(session, TOPIC)
    return row


async def deploy_defense(
    session: AsyncSession,
    slug: str,
    data: Any,
    *,
    source: str = "drill",
    operation_id: str | None = None,
    actor_id: int | None = None,
) -> DefenseView:
    """Validate a configuration and make it the site's defense (committed). Who may deploy is the caller's
    rule (a drill started by an admin); the audit entry is the drill's."""
    check_slug(slug)
    config = parse_config(data)
    await _store(session, slug, config, source=source, operation_id=operation_id, actor_id=actor_id)
    await commit(session)
    return await get_defense(session, slug)


async def reset_defense(session: AsyncSession, slug: str, actor: UserPublic) -> DefenseView:
    """Admins only: put the weak default back (audited in the battle category)."""
    require_admin(actor, "reset a demo site's defense")
    check_slug(slug)
    before = await get_defense(session, slug)
    await _store(session, slug, weak_default(), source="reset", operation_id=None, actor_id=actor.id)
    audit.record(
        session,
        category=LogCategory.battle,
        action="Defense reset",
        severity=LogSeverity.warning,
        description=f"The {slug} demo site's defense was reset to the weak default",
        actor_user_id=actor.id,
        details={"site": slug, "previous_revision": before.revision, "previous_source": before.source},
    )
    await commit(session)
    return await get_defense(session, slug)
