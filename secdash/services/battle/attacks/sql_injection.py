"""SQL injection: tautologies, UNION reads of `members` and `sqlite_master`, comment tricks in the search `q`;
honest searches are the site's own words (apostrophes and percent signs included). Stopped by request patterns."""

from __future__ import annotations

import re

from secdash.services.battle import demo_app
from secdash.services.battle.defense import DefenseConfig, PatternRule
from secdash.services.battle.traffic import Attack, DrillRequest, Requests, Technique, attack, benign, visitor

# Each payload closes the LIKE string of `... WHERE hidden = 0 AND name LIKE '%{q}%'` and changes the query.
PAYLOADS: tuple[tuple[str, str], ...] = (
    ("%' OR 1=1 --", "tautology OR 1=1"),
    ("' OR 1=1 --", "tautology OR 1=1 (bare)"),
    ("' OR '1'='1' --", "tautology '1'='1'"),
    ("' OR 'a'='a' --", "tautology 'a'='a'"),
    ("' OR 1=1 OR '", "tautology without comment"),
    ("' or true --", "tautology OR true"),
    ("' OR hidden=1 --", "hidden rows OR hidden=1"),
    ("' OR 2>1 --", "tautology OR 2>1"),
    ("x' OR name LIKE '%", "tautology via LIKE"),
    ("%' OR 1=1 /*", "tautology, block comment"),
    ("'/**/OR/**/1=1/**/--", "comment-spaced OR"),
    ("' UNION SELECT username, password_hash FROM members --", "UNION SELECT members"),
    ("' union select username, password_hash from members --", "union select members (lower case)"),
    ("' UnIoN SeLeCt username, password_hash FrOm members --", "UNION SELECT members (mixed case)"),
    ("'/**/UNION/**/SELECT/**/username,password_hash/**/FROM/**/members--", "UNION SELECT members, comment-spaced"),
    ("' UNION ALL SELECT username, password_hash FROM members --", "UNION ALL SELECT members"),
    ("' UNION SELECT group_concat(username), 1 FROM members --", "UNION group_concat usernames"),
    ("' UNION SELECT username, 1 FROM members WHERE '1'='1", "UNION members, no comment"),
    ("' UNION SELECT name, sql FROM sqlite_master --", "UNION SELECT sqlite_master"),
    ("' UNION SELECT tbl_name, type FROM sqlite_master --", "UNION sqlite_master table names"),
    ("' UNION SELECT name, price FROM products WHERE hidden=1 --", "UNION hidden products"),
    ("' AND 1=2 UNION SELECT username, password_hash FROM members --", "AND 1=2 UNION members"),
    ("') OR ('1'='1", "parenthesised tautology"),
    ("' OR 1=1; --", "stacked-query tautology"),
    ("' ORDER BY 3 --", "ORDER BY column probe"),
    ("' AND substr((SELECT password_hash FROM members LIMIT 1),1,1)='a' --", "blind substr probe"),
)
BENIGN: dict[str, tuple[str, ...]] = {
    "stock": ("Market", "Portfolio", "Dividend", "tracker", "report", "screener", "pulse", "Union Pacific"),
    "tour": ("City", "Alpine", "Beach", "walk", "planner", "pass", "guide", "Union Square walk"),
    "gem": ("Ring", "Stone", "Vault", "appraisal", "certificate", "storage", "rock 'n' roll", "select cut"),
    "shares": ("Design", "Template", "Creator", "pack", "bundle", "plan", "children's plan", "50% off"),
}
PATTERNS = (
    # A quote that closes the string, followed by SQL (a keyword, a comment, a parenthesis or a statement end).
    ("sqli-quote-break", r"'\s*(\)|;|--|/\*|#|\b(or|and|union|order|group|having|limit)\b)"),
    # UNION ... SELECT with any spacing or comments between the words.
    ("sqli-union-select", r"\bunion\b[\s\S]{0,40}\bselect\b"),
    # Names that only an attacker asks for.
    ("sqli-system-tables", r"\b(sqlite_master|sqlite_schema|password_hash|information_schema)\b"),
    ("sqli-comment", r"/\*|\*/"),
)
_HASH = re.compile(r"\b[0-9a-f]{64}\b")


def requests(slug: str) -> Requests:
    attacks = [
        attack(i % 3, "GET", "/search", label, params=(("q", payload),))
        for rounds in range(4)
        for i, (payload, label) in enumerate(PAYLOADS)
    ]
    terms = BENIGN[slug]
    honest = [
        benign(visitor(i), "GET", "/search", f"search {terms[i % len(terms)]!r}", params=(("q", terms[i % len(terms)]),))
        for i in range(48)
    ]
    return attacks, honest


def recipe(_slug: str) -> tuple[DefenseConfig, str]:
    config = DefenseConfig(
        patterns=[PatternRule(name=name, pattern=p, targets=["query"], endpoints=["search"]) for name, p in PATTERNS]
    )
    return config, (
        "Refuse search queries that break out of the SQL string: a quote followed by SQL, UNION SELECT, "
        "system-table names and SQL comments. Honest searches (words, apostrophes in names, percent signs) pass."
    )


def _hidden_names(slug: str) -> list[str]:
    # The fake catalogue's hidden rows (private to the demo site; read here only to recognise a leak).
    return [name for name, _price, hidden in demo_app._PRODUCTS.get(slug, []) if hidden]


def _members() -> list[str]:
    return [user for user, _password in demo_app._MEMBERS]


def damage(_request: DrillRequest, status: int, body: str, slug: str) -> str | None:
    if status != 200:
        return None
    if _HASH.search(body) or any(f"<li>{user}:" in body or f"<li>{user}," in body for user in _members()):
        return "member table read"
    if "CREATE TABLE" in body or "<li>members:" in body:
        return "database schema read"
    if any(name in body for name in _hidden_names(slug)):
        return "hidden rows exposed"
    return None


ATTACK = Attack(
    id="sql_injection",
    label="SQL Injection",
    icon="database",
    description="Tautologies, UNION reads of the member table and the schema, comment tricks in the site search",
    technique=Technique("T1190", "Exploit Public-Facing Application", "https://attack.mitre.org/techniques/T1190/"),
    specialist="shares",
    endpoint="search",
    defense_part="patterns",
    requests=requests,
    recipe=recipe,
    damage=damage,
)
