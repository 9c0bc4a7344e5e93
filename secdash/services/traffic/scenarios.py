"""Detection scenarios as data: YAML files, one per scenario, read and checked here.

The bundled ones (scenarios/*.yaml) follow CrowdSec's base HTTP collection, with its lists (scenarios/lists/);
a folder of the operator's own (`SECDASH_DATA_DIR/scenarios`, or `--scenarios DIR` on the command line) adds
scenarios and replaces bundled ones of the same name. A scenario:

    name: http-probing              # unique; a file of the same name in the operator's folder replaces it
    family: probing                 # what it detects, for reports (probing, sqli, brute-force, ...)
    follows: crowdsecurity/...      # the CrowdSec scenario it implements, when it implements one
    description: ...                # one line, shown with every detection
    kind: leaky                     # leaky (a bucket that overflows) or trigger (the first match fires)
    enabled: true                   # `name: X` with `enabled: false` alone turns scenario X off
    match:                          # every condition must hold; an empty match takes every request
      status: [404, 403]            # one of these statuses
      static: false                 # the file is (not) an image, style, script, font or media file
      path_contains: [...]          # <field>_<test>[_nocase]: a list (any entry may match), see below
      any: [{...}, {...}]           # at least one of these condition sets holds
      all: [{...}, {...}]           # every one holds (to test one field twice)
    groupby: address                # address, or address_host (per client and site)
    distinct: path                  # optional: path, request, args or file_name; a repeated value is not counted
    cache_size: 5                   # optional: the distinct check looks at the newest N counted requests only
    capacity: 10                    # leaky: it overflows on the (capacity + 1)-th request within the leak
    leakspeed: 10s                  # leaky: one request leaks out every leakspeed
    blackhole: 5m                   # after it fires for a client, the same client is not reported again for this long
    decision: {type: ban, duration: 4h}

Field tests are <field>_<test>, or <field>_<test>_nocase to compare in any case (CrowdSec's Upper()):
    fields: method, path (the target as logged, query included), path_unescaped (percent-decoded), request (the
            target before its last '?'), args (after it), args_decoded (form-decoded: %XX and '+'; list entries are
            decoded alike), file_name (the last path segment), user_agent, referer
    tests:  contains, starts_with, ends_with, is (the whole value), matches (an RE2 regular expression, unanchored)

A list can be given inline or as {file: NAME} (one entry per line; lines starting with '#' and blank lines are
skipped), read from scenarios/lists/ or the operator's folder. Regular expressions are RE2 (Go's syntax, as in
CrowdSec), searched unanchored.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, unquote_plus

import re2
import yaml

from secdash.services.traffic.fields import HttpFields
from secdash.services.traffic.logformats import Request

BUNDLED_DIR = Path(__file__).with_name("scenarios")
LISTS_DIR = "lists"
KINDS = ("leaky", "trigger")
GROUPBY = ("address", "address_host")
DISTINCT = ("path", "request", "args", "file_name")
DECISION_TYPES = ("ban", "throttle")
DEFAULT_DECISION = {"type": "ban", "duration": "4h"}  # CrowdSec's default profile
MAX_SCENARIO_BYTES = 200_000
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h|d)$")
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}

Predicate = Callable[[Request, HttpFields], bool]


class ScenarioError(ValueError):
    """A scenario file that cannot be used (the message names the file and the field)."""


@dataclass(frozen=True)
class Scenario:
    name: str
    family: str
    description: str
    kind: str
    matches: Predicate = field(repr=False, compare=False)
    groupby: str = "address"
    distinct: str | None = None
    cache_size: int | None = None
    capacity: int = 0
    leakspeed: float = 1.0  # seconds
    blackhole: float = 0.0  # seconds
    decision_type: str = "ban"
    decision_seconds: float = 4 * 3600
    follows: str = ""
    enabled: bool = True
    source: str = ""


def parse_duration(value: Any, name: str) -> float:
    """'10s', '0.5s', '5m', '4h', '1d' or '200ms' as seconds."""
    match = _DURATION.match(str(value).strip())
    if not match:
        raise ScenarioError(f"{name}: {value!r} is not a duration like 10s, 5m or 4h")
    return float(match.group(1)) * _UNITS[match.group(2)]


def _lines(value: Any, name: str, folders: list[Path]) -> list[str]:
    if isinstance(value, dict) and set(value) == {"file"}:
        file_name = str(value["file"])
        if "/" in file_name or file_name.startswith("."):
            raise ScenarioError(f"{name}: a list file is named without a folder: {file_name!r}")
        for folder in folders:
            path = folder / LISTS_DIR / file_name
            if path.is_file():
                text = path.read_text(encoding="utf-8", errors="replace")
                return [line.rstrip("\r") for line in text.split("\n") if line.strip() and not line.startswith("#")]
        raise ScenarioError(f"{name}: list file {file_name!r} not found in {', '.join(map(str, folders))}")
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    raise ScenarioError(f"{name}: expected a string, a list of strings or {{file: NAME}}")


def _regex(patterns: Iterable[str], name: str, *, nocase: bool = False) -> Any:
    joined = "|".join(f"(?:{pattern})" for pattern in patterns)
    if not joined:
        raise ScenarioError(f"{name}: an empty list")
    try:
        return re2.compile(("(?i)" if nocase else "") + joined)
    except re2.error as exc:
        raise ScenarioError(f"{name}: not an RE2 regular expression ({exc})") from None


_FIELD_CONDITION = re.compile(
    r"^(method|path|path_unescaped|request|args|args_decoded|file_name|user_agent|referer)_(contains|starts_with|ends_with|is|matches)"
    r"(_nocase)?$"
)


def _field_value(name: str) -> Callable[[Request, HttpFields], str]:
    if name == "method":
        return lambda r, f: r.method
    if name == "user_agent":
        return lambda r, f: r.user_agent
    if name == "referer":
        return lambda r, f: r.referer
    if name == "path_unescaped":
        return lambda r, f: unquote(f.path)
    if name == "args_decoded":
        return lambda r, f: unquote_plus(f.args)
    return lambda r, f: getattr(f, name)


def _field_condition(match: re.Match[str], value: Any, where: str, folders: list[Path]) -> Predicate:
    """<field>_<contains|starts_with|ends_with|is|matches>[_nocase]; nocase compares in upper case, as CrowdSec's
    Upper() does (a regular expression gets (?i))."""
    read, operation, nocase = _field_value(match.group(1)), match.group(2), bool(match.group(3))
    items = _lines(value, where, folders)
    if match.group(1) == "args_decoded" and operation != "matches":  # a list written encoded is decoded alike
        items = [unquote_plus(item) for item in items]
    if nocase and operation != "matches":
        items = [item.upper() for item in items]
    if operation == "is":
        allowed = frozenset(items)
        if nocase:
            return lambda r, f: read(r, f).upper() in allowed
        return lambda r, f: read(r, f) in allowed
    if operation == "matches":
        pattern = _regex(items, where, nocase=nocase)
    else:
        literals = (re2.escape(item) for item in items)
        pattern = _regex(literals, where)
        if operation == "starts_with":
            pattern = _regex([f"^(?:{pattern.pattern})"], where)
        elif operation == "ends_with":
            pattern = _regex([f"(?:{pattern.pattern})$"], where)
    if nocase and operation != "matches":
        return lambda r, f: pattern.search(read(r, f).upper()) is not None
    return lambda r, f: pattern.search(read(r, f)) is not None


def _condition(key: str, value: Any, name: str, folders: list[Path]) -> Predicate:
    where = f"{name}: match.{key}"
    field_match = _FIELD_CONDITION.match(key)
    if field_match:
        return _field_condition(field_match, value, where, folders)
    if key == "status":
        if not isinstance(value, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in value):
            raise ScenarioError(f"{where}: a list of status numbers")
        statuses = frozenset(value)
        return lambda r, f: r.status in statuses
    if key == "static":
        if not isinstance(value, bool):
            raise ScenarioError(f"{where}: true or false")
        return lambda r, f: f.static is value
    if key in ("any", "all"):
        if not isinstance(value, list) or not value:
            raise ScenarioError(f"{where}: a list of condition sets")
        options = [_conditions(option, f"{where}[{i}]", folders) for i, option in enumerate(value)]
        if key == "all":
            return lambda r, f: all(option(r, f) for option in options)
        return lambda r, f: any(option(r, f) for option in options)
    raise ScenarioError(f"{where}: unknown condition (see the scenario format in the documentation)")


def _conditions(value: Any, name: str, folders: list[Path]) -> Predicate:
    if not isinstance(value, dict):
        raise ScenarioError(f"{name}: match is a mapping of conditions")
    checks = [_condition(str(key), item, name, folders) for key, item in value.items()]
    return lambda r, f: all(check(r, f) for check in checks)


def _choice(raw: dict[str, Any], key: str, options: tuple[str, ...], source: str, default: str | None) -> str | None:
    value = raw.get(key, default)
    if value is not None and value not in options:
        raise ScenarioError(f"{source}: {key} is one of {', '.join(options)}, not {value!r}")
    return value


def compile_scenario(raw: Any, source: str, folders: list[Path]) -> Scenario:
    """One scenario from its YAML mapping; ScenarioError names the file and the field."""
    if not isinstance(raw, dict):
        raise ScenarioError(f"{source}: a scenario is a mapping")
    name = raw.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,80}", name):
        raise ScenarioError(f"{source}: name: 1 to 81 letters, digits, '.', '_' or '-'")
    where = f"{source} ({name})"
    if raw.get("enabled", True) is False:  # `name: X` and `enabled: false` is enough to turn a bundled one off
        return Scenario(name=name, family="", description="", kind="leaky", matches=lambda r, f: False, enabled=False)
    kind = _choice(raw, "kind", KINDS, where, "leaky")
    capacity = raw.get("capacity", 0 if kind == "trigger" else None)
    if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 0 or capacity > 1_000_000:
        raise ScenarioError(f"{where}: capacity is a whole number from 0 to 1,000,000")
    decision = raw.get("decision") or DEFAULT_DECISION
    if not isinstance(decision, dict):
        raise ScenarioError(f"{where}: decision is {{type: ban|throttle, duration: 4h}}")
    cache_size = raw.get("cache_size")
    if cache_size is not None and (not isinstance(cache_size, int) or isinstance(cache_size, bool) or cache_size < 1):
        raise ScenarioError(f"{where}: cache_size is a whole number from 1")
    return Scenario(
        name=name,
        family=str(raw.get("family") or name),
        description=str(raw.get("description") or name),
        kind=str(kind),
        matches=_conditions(raw.get("match") or {}, where, folders),
        groupby=str(_choice(raw, "groupby", GROUPBY, where, "address")),
        distinct=_choice(raw, "distinct", DISTINCT, where, None),
        cache_size=cache_size,
        capacity=capacity,
        leakspeed=parse_duration(raw.get("leakspeed", "1s"), f"{where}: leakspeed"),
        blackhole=parse_duration(raw.get("blackhole", "0s"), f"{where}: blackhole"),
        decision_type=str(_choice(decision, "type", DECISION_TYPES, f"{where}: decision", "ban")),
        decision_seconds=parse_duration(decision.get("duration", "4h"), f"{where}: decision.duration"),
        follows=str(raw.get("follows") or ""),
        source=source,
    )


def load_scenarios(extra_dir: Path | None = None) -> list[Scenario]:
    """The bundled scenarios, with those in extra_dir added or replacing them by name (enabled ones only)."""
    folders = [extra_dir, BUNDLED_DIR] if extra_dir else [BUNDLED_DIR]
    by_name: dict[str, Scenario] = {}
    for folder in reversed(folders):
        for path in sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml")):
            data = path.read_bytes()
            if len(data) > MAX_SCENARIO_BYTES:
                raise ScenarioError(f"{path.name}: larger than {MAX_SCENARIO_BYTES:,} bytes")
            try:
                documents = [doc for doc in yaml.safe_load_all(data) if doc is not None]
            except yaml.YAMLError as exc:
                raise ScenarioError(f"{path.name}: not YAML ({exc})") from None
            for document in documents:
                scenario = compile_scenario(document, path.name, folders)
                by_name[scenario.name] = scenario
    return [scenario for scenario in by_name.values() if scenario.enabled]
