"""The threat level of a chat message (low, medium, high or critical), from the message *and* the
situation, by transparent rules. Table-tested in tests/ai/test_threat_rules.py.

1. Topic. Words say what the message is about and the level they imply on their own:
   critical: breach, ransomware, exfiltration, data leak, compromised, hacked, rootkit, backdoor, wiper;
   high: DDoS and floods, request rates, injection, XSS, malware, brute force, failed logins,
   password spraying, credential stuffing, phishing and impersonation, exploits, attacks, SSRF, RCE,
   leaked keys; medium: suspicious activity, port scans, vulnerabilities, CVEs, misconfiguration,
   outdated components, expiring certificates, missing headers, outages, scraping, enumeration.
2. Mode. The message is cut into clauses (at sentence ends, ";", ":" and ", ").
   - A clause is a *question* when it starts with a question word or a request for knowledge
     (what, how, is, are, do, why, which, explain, tell me, ...) or ends with "?"; it is
     *hypothetical* when it starts with a modal (can, could, would, should, might, may, will) or speaks
     of a possibility (risk, if, in case, prevent, protect against, avoid, best practice).
     Any other clause is a *statement*.
   - active: a statement describes an attack going on: quantities of attack units or rates ("5000
     failed logins per minute", "thousands of requests", "50x normal"), present tense or "now" ("we
     see", "are hitting", "is encrypting", "hit by", "right now", "currently", "ongoing", "is down").
     In a question only the strong signs count: quantities and first-person observation ("why are we
     seeing 5000 failed logins per minute?"); in a hypothetical clause nothing counts.
     An active message keeps its topic's level; with harm (a site down or overwhelmed, an outage,
     files encrypted, data stolen or leaking) it goes one level up (at least high).
   - reported: no sign of "now", but a statement names a topic ("Staff received a phishing email",
     "an attack on the stock api"): the topic's own level.
   - hypothetical: the topic appears only in questions or hypothetical clauses ("is there a DDoS
     risk?", "what is XSS?", "explain credential stuffing"): low, whatever the topic. A question about
     knowledge is not an incident.
   - none: no topic at all ("good morning"): low.
3. Situation. The live state of the agent's site(s) (the general agent: every site) sets a floor:
   a site in ALERT (status critical) makes it at least high; a site CHECKING (status warning) after
   at least one probe makes it at least medium; an open high-severity attack event on those sites
   makes it at least medium. A floor never lowers a level; a site not probed yet sets none. When the
   message names some of those sites ("is our Tour site safe?"), only the sites named count.
4. Model. With a model configured, its structured judgement may raise the rules' level, except
   that it cannot turn a hypothetical into an incident: there its level is capped at medium (the
   situation's floor still applies). The model never lowers the rules' level.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from secdash.ai.situation import Situation

LEVELS = ("low", "medium", "high", "critical")


def _words(*patterns: str) -> re.Pattern[str]:
    """One case-insensitive pattern; each alternative starts at a word boundary."""
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(patterns) + ")", re.IGNORECASE)


# 1. Topic: (level, pattern); alternatives ending in \b are whole words, the others are prefixes.
TOPICS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "critical",
        _words(
            r"breach",
            r"ransom",
            r"exfiltrat",
            r"compromised\b",
            r"data leak",
            r"leaked data",
            r"data (?:was |were |got )?stolen",
            r"stole (?:our|the) data",
            r"hacked\b",
            r"rootkit",
            r"backdoor",
            r"wiper\b",
        ),
    ),
    (
        "high",
        _words(
            r"d?dos\b",
            r"denial of service",
            r"flood",
            r"traffic spike",
            r"spiked?\b",
            r"requests? (?:per|a|an|/)\s*(?:second|sec|s|minute|min|hour)\b",
            r"[rq]ps\b",
            r"sql ?injection",
            r"sqli\b",
            r"inject",
            r"xss\b",
            r"cross.site scripting",
            r"malware",
            r"virus",
            r"trojan",
            r"worm\b",
            r"spyware",
            r"web ?shell",
            r"infected\b",
            r"brute.?forc",
            r"failed (?:log.?ins?|sign.?ins?|logins?|passwords?|authentication)",
            r"log.?in failures?",
            r"wrong passwords?",
            r"password (?:guess|spray)",
            r"guess(?:ing|es|ed)? (?:the )?passwords?",
            r"spraying\b",
            r"credential stuff",
            r"phish",
            r"spoof",
            r"impersonat",
            r"pretend(?:s|ing|ed)? to be",
            r"exploit",
            r"attack",
            r"intru",
            r"botnet",
            r"ssrf\b",
            r"remote code execution",
            r"rce\b",
            r"malicious",
            r"hijack",
            r"takeover",
            r"(?:aws|api|secret|access) keys?\b",
            r"leaked (?:key|token|secret|password)",
            r"hard.?coded",
        ),
    ),
    (
        "medium",
        _words(
            r"suspicious",
            r"port ?scan",
            r"scanning",
            r"vulnerab",
            r"misconfig",
            r"weak passwords?",
            r"outdated",
            r"cve\b",
            r"cve-",
            r"anomal",
            r"unusual",
            r"unpatched",
            r"expired? certificate",
            r"certificate expir",
            r"expir(?:es|ing|ed)\b",
            r"missing headers?",
            r"headers? missing",
            r"debug mode",
            r"publicly (?:readable|accessible|open)",
            r"open bucket",
            r"exposed\b",
            r"down\b",
            r"outage",
            r"offline\b",
            r"unavailable",
            r"unreachable",
            r"enumerat",
            r"scrap(?:e|ing|ed|er)",
            r"bots?\b",
            r"spam",
            r"locked out",
            r"lockouts?\b",
        ),
    ),
)

# 2. Mode.
_CLAUSES = re.compile(r"(?<=[.!?])\s+|[;:\n]+|,\s+|\s+-{1,2}\s+|\s+(?:but|so)\s+")
_FILLER = re.compile(r"^(?:(?:so|and|but|ok|okay|hi|hey|hello|please|well|also|then|guys)\b[\s,!]*)+", re.IGNORECASE)
_QUESTION_START = re.compile(
    r"^(?:what|what's|whats|how|how's|is|are|am|was|were|do|does|did|why|when|where|which|who|whom|whose|any|"
    r"anything|explain|describe|tell|show|list|give|help|define|compare|summari[sz]e|teach|suggest|recommend|"
    r"i (?:want|would like|wonder|need) to (?:know|understand|learn))\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"^(?:can|could|would|should|might|may|will|shall)\b|(?<![a-z])(?:risks?|risky|if|in case|what if|prevent\w*|"
    r"protect\w*|avoid\w*|defend\w*|best practices?|hypothetical\w*|theoretical\w*|in general|how to|could|might|"
    r"would|ever)\b",
    re.IGNORECASE,
)
# Strong signs of "now": count in statements and in questions.
_STRONG = _words(
    r"\d[\d,.]*\s*(?:k|m|x|%|\+)?\s+(?:\w+\s+){0,2}?(?:failed|log.?ins?|sign.?ins?|attempts?|requests?|reqs?|"
    r"connections?|hits?|packets?|queries|errors?|bots?|ips?|addresses|emails?|messages?|accounts?|passwords?|"
    r"sessions?|calls?|users?|times|hosts?|machines?|servers?|files?)\b",
    r"\d[\d,.]*\s*(?:k|m)?\s*(?:[rq]ps|req/s|/s|/sec|/min|(?:per|a|an) (?:second|sec|minute|min|hour|hr|day))\b",
    r"\d+(?:\.\d+)?\s*x\b",
    r"(?:tens of )?(?:thousands|hundreds|millions|dozens|billions) of",
    r"(?:we|i)(?:'re| are| am|'m)? (?:see|seeing|get|getting|got|observe|observing|notice|noticing|detect|detecting)\b",
    r"(?:are|do) we (?:see|seeing|get|getting)\b",
    r"we(?:'ve| have) (?:got|been getting|been seeing)\b",
)
# Weak signs of "now": count in statements only.
_WEAK = _words(
    r"right now",
    r"now\b",
    r"currently",
    r"at the moment",
    r"as we speak",
    r"on.?going",
    r"in progress",
    r"still\b",
    r"keeps?\b",
    r"continu",
    r"today\b",
    r"this (?:morning|evening|afternoon)",
    r"tonight",
    r"live\b",
    r"(?:is|are|went|goes|going) down\b",
    r"(?:is|are) offline",
    r"(?:is|are|got|was|were) hit\b",
    r"hit by",
    r"under attack",
    r"being attacked",
    r"(?:is|are) being",
    r"(?:is|are) happening",
    r"can(?:'t|not) keep up",
    r"overloaded",
    r"(?:lots|tons|loads|a lot|a flood|a wave|a burst|a spike) of",
    r"many\b",
    r"(?:attacking|encrypting|spreading|scanning|scraping|guessing|probing|targeting|trying|spamming|"
    r"brute.?forcing|exfiltrating|stealing|leaking|dumping|flooding|hitting|hammering|crashing|failing|"
    r"enumerating|sending|posting|slamming|overwhelming)\b",
)
_HARM = _words(
    r"down\b",
    r"outage",
    r"offline\b",
    r"unavailable",
    r"unreachable",
    r"crash",
    r"can(?:'t|not) keep up",
    r"overloaded",
    r"overwhelm",
    r"not loading",
    r"encrypt",
    r"ransom",
    r"exfiltrat",
    r"stol(?:e|en)\b",
    r"steal",
    r"leak",
    r"dumped",
    r"deleted",
    r"defaced",
    r"wiped",
)


@dataclass(frozen=True)
class Judgement:
    """A level and why: the topic's own level, the mode, the situation's floor and the reasons."""

    level: str
    mode: str  # hypothetical | active | reported | none
    topic_level: str
    floor: str
    hits: tuple[str, ...]
    reasons: tuple[str, ...]


def highest(*levels: str) -> str:
    return max(levels, key=LEVELS.index)


def _topic(text: str) -> tuple[str, list[str]]:
    for level, pattern in TOPICS:
        hits = [match.group(0).lower() for match in pattern.finditer(text)]
        if hits:
            return level, list(dict.fromkeys(hits))
    return "low", []


def _clauses(text: str) -> list[tuple[str, str]]:
    """(kind, clause) with kind question | hypothetical | statement."""
    found = []
    for raw in _CLAUSES.split(text or ""):
        clause = _FILLER.sub("", raw.strip()).strip()
        if not clause:
            continue
        if _HYPOTHETICAL.search(clause):
            kind = "hypothetical"
        elif _QUESTION_START.match(clause) or clause.endswith("?"):
            kind = "question"
        else:
            kind = "statement"
        found.append((kind, clause))
    return found


def situation_floor(situation: Situation | None, text: str = "") -> tuple[str, list[str]]:
    """The lowest level the agent's live data allows (only the sites the text names, if it names any), and why."""
    if situation is None:
        return "low", []
    floor, reasons = "low", []
    sites = situation.sites_named(text) or situation.sites
    names = {site.name for site in sites}
    for site in sites:
        if site.status == "critical":
            floor = highest(floor, "high")
            reasons.append(f"{site.name} is ALERT" + (f" ({site.last_error})" if site.last_error else ""))
        elif site.status == "warning" and site.probed:
            floor = highest(floor, "medium")
            reasons.append(f"{site.name} is CHECKING" + (f" (grade {site.grade})" if site.grade else ""))
    attacks = [
        e
        for e in situation.events
        if e.event_type == "attack_detected" and e.severity == "high" and (e.site in names or len(sites) == len(situation.sites))
    ]
    if attacks:
        floor = highest(floor, "medium")
        reasons.append(
            f"{len(attacks)} open high-severity attack event(s)" + (f" on {attacks[0].site}" if attacks[0].site else "")
        )
    return floor, reasons


def judge(text: str, situation: Situation | None = None) -> Judgement:
    """The level of a message in its situation, by the rules in this module's docstring."""
    topic_level, hits = _topic(text or "")
    clauses = _clauses(text or "")
    signs: list[str] = []
    harmed = False
    named = False  # a statement (or a question with strong signs) names the topic
    for kind, clause in clauses:
        if kind == "hypothetical":
            continue
        strong = [m.group(0) for m in _STRONG.finditer(clause)]
        weak = [m.group(0) for m in _WEAK.finditer(clause)] if kind == "statement" else []
        if kind == "question" and not strong:
            continue
        signs += strong + weak
        harmed = harmed or bool(_HARM.search(clause))
        named = named or bool(_topic(clause)[1])
    reasons: list[str] = []
    if signs and topic_level != "low":
        mode, level = "active", topic_level
        reasons.append(f"active: {', '.join(dict.fromkeys(s.strip() for s in signs))}")
        if harmed:
            level = highest("high", LEVELS[min(LEVELS.index(level) + 1, len(LEVELS) - 1)])
            reasons.append("with harm (down, overwhelmed, encrypted or stolen)")
    elif named:
        mode, level = "reported", topic_level
        reasons.append(f"reported: {', '.join(hits)}")
    elif hits:
        mode, level = "hypothetical", "low"
        reasons.append(f"a question or hypothetical about {', '.join(hits)}: not an incident")
    else:
        mode, level = "none", "low"
    floor, why = situation_floor(situation, text or "")
    if LEVELS.index(floor) > LEVELS.index(level):
        reasons += why
    return Judgement(
        level=highest(level, floor), mode=mode, topic_level=topic_level, floor=floor, hits=tuple(hits), reasons=tuple(reasons)
    )


def with_model(judgement: Judgement, model_level: str) -> str:
    """The rules' level raised by a model's judgement; a hypothetical stays below high."""
    if model_level not in LEVELS:
        return judgement.level
    if judgement.mode == "hypothetical":
        model_level = min(model_level, "medium", key=LEVELS.index)
    return highest(judgement.level, model_level)


def assess(text: str, situation: Situation | None = None) -> tuple[str, list[str]]:
    """The level and the topic words (the earlier API; `judge` says more)."""
    judged = judge(text, situation)
    return judged.level, list(judged.hits)
