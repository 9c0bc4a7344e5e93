"""Operator questions about this deployment, told apart from questions about a threat in general.

Five intents are answered from the live data rather than from one knowledge-base entry:

- `fix_priority`: "what should I fix first?" (the open problems ranked);
- `site_topic:<topic>`: a site named with an attack topic, "is there a DDoS risk for our Stock site?";
- `flapping`: a pattern in a site's checks, "why is Shares flapping?";
- `compare_sites`: two sites (or all of them) side by side;
- `changes_since`: "what changed since yesterday?".

`route` gives the intent, or else the topic retrieval finds (`retrieval.retrieve`), or "(no match)".
Rules are phrase patterns over the lower-cased question, checked in the order above's reverse of
generality: a pattern question first, then changes, comparisons, rankings, and a site + topic last.
Tests: tests/ai/test_paraphrase.py (OPERATOR_QUESTIONS).
"""

from __future__ import annotations

import re

from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS, AgentProfile
from secdash.ai.knowledge import BY_ID
from secdash.ai.retrieval import INDEX, retrieve, tokens
from secdash.ai.situation import Situation

# The knowledge-base topics a site can be drilled on and defended against (Battle Station's attack types).
SITE_TOPICS = ("ddos", "brute_force", "sql_injection", "xss", "malware", "phishing")
TOPIC_SCORE = 4.0  # a topic not named outright must match at least this well (BM25) without the site's name

_FLAPPING = re.compile(
    r"flap|intermittent|unstable|flaky|up and down|down and up|on and off|off and on|now and then|comes and goes|"
    r"come and go|alternat|keeps? (?:going|switching|flipping|dropping|failing|bouncing|toggling|changing)|"
    r"switch(?:es|ing)? between|every (?:few|couple|\d+|other) (?:minutes?|hours?|checks?|seconds?)|drops? out|"
    r"how often (?:does|do|is|did) .*(?:fail|down|drop)|(?:fail|down)s? (?:on and off|randomly|sometimes)|"
    r"pattern (?:in|of) (?:the )?(?:checks|failures|outages)|is there a pattern|periodic|rhythm|recurring|"
    r"(?:again and again|over and over|repeatedly)|(?:up|down|online|offline),? (?:then|and then) (?:down|up|offline|online)|"
    r"(?:offline|down|drops?|fails?|failing|crash\w*|restarts?) (?:every|each|once an?) (?:hour|day|minute|night|few)"
)
_CHANGES = re.compile(
    r"since (?:yesterday|last night|this morning|i (?:last|was)|we (?:last|were)|my last|our last|the last (?:time|check))|"
    r"overnight|(?:in|over|during) the (?:last|past) (?:24 ?h(?:ours)?|day|twenty[- ]four hours)|(?:last|past) 24 ?h|"
    r"what(?:'s| has| is)? changed|what(?:'s| is) (?:new|different)|anything (?:new|changed|happen)|"
    r"catch me up|(?:did|have) (?:i|we) miss|while i was (?:away|out|off)|daily (?:briefing|summary|digest|report)|"
    r"morning (?:briefing|summary|report)|"
    r"(?:today|yesterday)(?:'s)? (?:changes|news|events)|"
    r"(?:changed|opened|closed|fixed|happened|resolved)\b.*\b(?:today|yesterday|last day)\b|"
    r"\b(?:today|yesterday)\b.*\b(?:changed|opened|closed|fixed|happened|resolved)\b"
)
_COMPARE_WORDS = re.compile(
    r"compar|\bvs\.?\b|versus|\bthan\b|differen|differ\b|stack(?:s)? up|better|worse|safer|riskier|faster|slower|"
    r"weaker|stronger|\bwhich\b|side[- ]by[- ]side|head[- ]to[- ]head|\bmore (?:secure|stable|exposed|work)|"
    r"\bless (?:secure|stable|exposed)"
)
_ALL_SITES_RANKED = re.compile(
    r"(?:which|what) (?:of (?:our|the|all) )?(?:\w+ )?sites? .*(?:weakest|strongest|safest|worst|best|most|least|"
    r"riskiest|slowest|fastest)|rank (?:our |the |all |all of )*(?:\w+ )?sites|compare (?:our |all |the |all the )*"
    r"(?:\w+ )?sites|sites? (?:side by side|against each other)|compar\w* .*\bsites\b"
)
_PRIORITY = re.compile(
    r"\b(?:fix|tackle|start with|work on|handle|address|patch|do|look at|focus on)\b (?:\w+ ){0,3}?(?:first|next)\b|"
    r"where (?:do|should|can) (?:i|we) (?:start|begin)|\btop (?:\d+|three|five|ten|few|priorit)|"
    r"most (?:urgent|important|critical|pressing|dangerous)|highest[- ]priority|biggest (?:\w+ )?(?:risks?|problems?|"
    r"issues?|threats?|holes?|gaps?)|priorit|\brank\b.*\b(?:problems?|findings?|issues?|alerts?|vulnerabilit\w*|"
    r"risks?)|triage|matters? most|needs? (?:my |our )?attention|fix(?:es)? (?:are |is )?ready|ready to (?:apply|fix)|"
    r"only have (?:an? |one )?(?:hour|day|afternoon|few minutes)|what should (?:i|we) (?:work on|fix|do) (?:today|now)|"
    r"order should (?:i|we) fix|worst (?:problems?|issues?|findings?) first|"
    r"(?:fix|patch|do|handle|tackle) (?:\w+ ){0,3}?before (?:the )?(?:others?|rest|anything)|"
    r"(?:worst|most serious|most severe|riskiest) (?:\w+ )?(?:problems?|issues?|findings?|vulnerabilit\w*|holes?)|"
    r"(?:order|sort|rank|list) (?:\w+ ){0,4}?by (?:urgency|risk|severity|priority|importance|impact)|"
    r"spend (?:its|our|my|the|their) (?:time|effort|day|week)|to-?do list|what(?:'s| is) (?:most )?urgent"
)


def _site_names(situation: Situation | None) -> list[str]:
    names = {AGENTS[agent_id].platform for agent_id in PLATFORM_AGENT_IDS}
    names |= {site.name for site in (situation.sites if situation else ())}
    return sorted(names, key=lambda name: (-len(name), name))


def sites_in(question: str, situation: Situation | None = None) -> list[str]:
    """The site names the question mentions as words, in the order they appear."""
    lowered = question.lower()
    found = []
    for name in _site_names(situation):
        match = re.search(rf"(?<![a-z0-9]){re.escape(name.lower())}(?![a-z0-9])", lowered)
        if match:
            found.append((match.start(), name))
    return [name for _start, name in sorted(found)]


def _without_sites(question: str, situation: Situation | None) -> str:
    text = question
    for name in _site_names(situation):
        text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(name)}(?:'s)?(?![A-Za-z0-9])", " ", text, flags=re.IGNORECASE)
    return text


def _named_topics(text: str) -> list[str]:
    """The attack topics the text names by one of their own keywords ("ddos", "injection", "brute force")."""
    lowered = text.lower()
    return [
        topic
        for topic in SITE_TOPICS
        if any(re.search(rf"(?<![a-z0-9]){re.escape(word)}", lowered) for word in BY_ID[topic].keywords)
    ]


def site_topic(question: str, agent: AgentProfile, situation: Situation | None = None) -> str | None:
    """The attack topic of a question that names a site, or None."""
    if not sites_in(question, situation):
        return None
    text = _without_sites(question, situation)
    alone = retrieve(text, agent, limit=3)
    named = _named_topics(text)
    if named:  # the topic is named outright: the one retrieval ranks first among those named
        return next((entry.id for entry in alone if entry.id in named), named[0])
    # otherwise the topic must hold on its own (the question without the site's name) and be among what the
    # whole question reaches next to the site's status ("what's wrong with Gem?" is about Gem, not passwords)
    whole = {entry.id for entry in retrieve(question, agent, limit=3, situation=situation)}
    if not alone or alone[0].id not in SITE_TOPICS or alone[0].id not in whole:
        return None
    return alone[0].id if _top_score(text) >= TOPIC_SCORE else None


def _top_score(text: str) -> float:
    return max(INDEX.scores(text, tokens(text)), default=0.0)


# Cue words (stemmed) for questions the phrase patterns miss: an intent wins when its cues add up to CUE_THRESHOLD.
CUE_THRESHOLD = 3.0
_CUES: dict[str, dict[str, float]] = {
    "flapping": {
        "flap": 3,
        "intermitt": 3,
        "unstabl": 3,
        "flaki": 3,
        "unreli": 3,
        "period": 3,
        "rhythm": 3,
        "recur": 3,
        "sporad": 3,
        "erratic": 3,
        "altern": 3,
        "pattern": 2,
        "repeat": 2,
        "again": 1.5,
        "keep": 1,
        "outag": 1,
        "failur": 1,
        "why": 0.5,
    },
    "fix_priority": {
        "priorit": 3,
        "prioriti": 3,
        "urgent": 3,
        "urgenc": 3,
        "triag": 3,
        "first": 2,
        "worst": 2,
        "rank": 2,
        "decid": 2,
        "quick": 1.5,
        "win": 1.5,
        "wait": 1.5,
        "danger": 1.5,
        "critic": 1,
        "top": 1,
        "order": 1,
        "import": 1,
        "broken": 1,
        "matter": 1,
        "work": 1,
    },
    "changes_since": {
        "yesterday": 3,
        "overnight": 3,
        "since": 2,
        "today": 1.5,
        "recent": 1.5,
        "new": 1,
        "happen": 1,
        "chang": 1,
        "fix": 0.5,
        "resolv": 1,
        "came": 1,
    },
}
_CUE_PHRASES: dict[str, re.Pattern[str]] = {
    "flapping": re.compile(
        r"\b(?:twice|two|three|four|five|several|multiple|many|\d+) times\b|on[- /]off|"
        r"same time (?:every|each)|every now and (?:then|again)"
    ),
    "fix_priority": re.compile(r"\b(?:problems?|issues?|findings?|vulnerabilit\w*|alerts?|fix(?:es)?|risks?)\b"),
    "changes_since": re.compile(r"(?:last|past) (?:day|24 ?h\w*|twenty-four hours)|came in"),
}
_NOT_PRIORITY = re.compile(r"first (?:steps?|thing to do|response)|call first|\battacks?\b|\bthreats?\b")


def _cue_intent(question: str, lowered: str) -> str | None:
    words = tokens(question)
    scores = {}
    for intent, cues in _CUES.items():
        score = sum(cues.get(word, 0.0) for word in set(words))
        if _CUE_PHRASES[intent].search(lowered):
            score += 3 if intent != "fix_priority" else 1
        scores[intent] = score
    if _NOT_PRIORITY.search(lowered):
        scores["fix_priority"] = 0.0
    best = max(scores, key=lambda intent: scores[intent])
    return best if scores[best] >= CUE_THRESHOLD else None


def classify(question: str, agent: AgentProfile, situation: Situation | None = None) -> str | None:
    """The operator intent of a question ("site_topic:ddos" for a site + topic), or None."""
    lowered = " ".join(question.lower().replace("’", "'").split())
    named = sites_in(question, situation)
    if _FLAPPING.search(lowered):
        return "flapping"
    if _CHANGES.search(lowered):
        return "changes_since"
    if (len(set(named)) >= 2 and _COMPARE_WORDS.search(lowered)) or _ALL_SITES_RANKED.search(lowered):
        return "compare_sites"
    if _PRIORITY.search(lowered) and not _NOT_PRIORITY.search(lowered):
        return "fix_priority"
    topic = site_topic(question, agent, situation)
    if topic:
        return f"site_topic:{topic}"
    return _cue_intent(question, lowered)


def route(question: str, agent: AgentProfile, situation: Situation | None = None) -> str:
    """The intent, else the knowledge-base topic, else "(no match)"."""
    intent = classify(question, agent, situation)
    if intent:
        return intent
    found = retrieve(question, agent, situation=situation)
    return found[0].id if found else "(no match)"
