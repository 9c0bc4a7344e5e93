"""XSS: script tags, event handlers, javascript: URLs, svg/onload and entity-encoded variants in a comment's
`text`; honest comments carry harmless formatting (<b>, <i>). Stopped by request patterns."""

from __future__ import annotations

import re

from secdash.services.battle.defense import DefenseConfig, PatternRule
from secdash.services.battle.traffic import Attack, DrillRequest, Requests, Technique, attack, benign, visitor

PAYLOADS: tuple[tuple[str, str], ...] = (
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
BENIGN: tuple[str, ...] = (
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
PATTERNS = (
    # Tags that run or load code (harmless formatting like <b>, <i>, <em> stays allowed).
    ("xss-code-tags", r"<\s*/?\s*(script|iframe|frame|object|embed|svg|math|style|base|meta|link|form|applet)\b"),
    # An event handler attribute inside a tag: <img src=x onerror=...>, <svg/onload=...>.
    ("xss-event-handler", r"<[a-z][^>]*[\s/\"']on[a-z]+\s*="),
    # A script URL or a numeric entity (hiding one) inside a tag.
    ("xss-script-url", r"<[a-z][^>]*(script\s*:|&#|data\s*:)"),
)
_TAG = re.compile(r"<[a-zA-Z/!]")


def requests(_slug: str) -> Requests:
    attacks = [
        attack(i % 3, "GET", "/comment", label, params=(("text", payload),))
        for rounds in range(4)
        for i, (payload, label) in enumerate(PAYLOADS)
    ]
    honest = [
        benign(
            visitor(i),
            "GET",
            "/comment",
            f"comment {BENIGN[i % len(BENIGN)][:30]!r}",
            params=(("text", BENIGN[i % len(BENIGN)]),),
        )
        for i in range(48)
    ]
    return attacks, honest


def recipe(_slug: str) -> tuple[DefenseConfig, str]:
    config = DefenseConfig(
        patterns=[PatternRule(name=name, pattern=p, targets=["query"], endpoints=["comment"]) for name, p in PATTERNS]
    )
    return config, (
        "Refuse comments carrying script: code-running tags (script, iframe, svg, object...), event-handler "
        "attributes, and script: or entity-hidden URLs inside tags. Formatting tags such as <b> and <i> stay allowed."
    )


def damage(request: DrillRequest, status: int, body: str, _slug: str) -> str | None:
    text = dict(request.params).get("text", "")
    return "script reflected unescaped" if status == 200 and _TAG.search(text) and text in body else None


# ATT&CK has no XSS technique; script injected into a page that visitors' browsers run is its drive-by.
ATTACK = Attack(
    id="xss",
    label="XSS Attack",
    icon="code",
    description="Script tags, event handlers, javascript: URLs and encoded variants posted as comments",
    technique=Technique("T1189", "Drive-by Compromise", "https://attack.mitre.org/techniques/T1189/"),
    specialist="tour",
    endpoint="comment",
    defense_part="patterns",
    requests=requests,
    recipe=recipe,
    damage=damage,
)
