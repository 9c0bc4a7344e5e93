"""The offline engine's retrieval: which knowledge-base entries a question is about.

Okapi BM25 over the knowledge base, with words stemmed (Snowball, English) on both sides and each entry's document
made of its title, keywords, the words users say instead (`knowledge_aliases.ALIASES`) and its summary; a question
naming a monitored site counts as a word for the site-status entry. Paraphrases ("failed logins", "password
spraying", "credential stuffing") thus reach the same entry. Tests: tests/ai/test_paraphrase.py (a table of
natural questions). The answers built from what it finds are secdash/ai/offline.py's.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import snowballstemmer

from secdash.ai import threat
from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS, AgentProfile
from secdash.ai.knowledge import BY_ID, ENTRIES, SITE_TOKEN, Entry
from secdash.ai.knowledge_aliases import ALIASES
from secdash.ai.situation import Situation

K1, B = 1.2, 0.5  # BM25: term-frequency saturation, length normalisation (documents differ in length)
MIN_SCORE = 2.0  # below this a question matches nothing (small talk, "what should we prioritise?")
RELATED_SHARE = 0.6  # a second entry is mentioned when it scores at least this share of the first
PHRASE_BONUS = 1.0  # a multi-word keyword or alias found verbatim
FOCUS_BONUS = 0.25  # the agent's focus topics break ties

STOPWORDS = frozenset(
    """
a about above after again all also am an and any anyone anything are as at be been before being below between both
but by can cannot could did do does doing done each even every few for from further get gets give got had has have
having he her here hers him his how i if in into is it its itself just know let like me might more most much must my
need no nor not now of off on once only or other our ours ourselves out over own please same she should so some
someone something still such tell than that the their theirs them then there these they this those through to too
under until us very want was we we'll we're we've were what what's when where which while who whom why will with
would you your yours
""".split()
)
_WORD = re.compile(r"[a-z0-9]+")
_STEMMER = snowballstemmer.stemmer("english")
_STEM_LOCK = threading.Lock()


@lru_cache(maxsize=16384)
def _stem(word: str) -> str:
    with _STEM_LOCK:  # a Snowball stemmer object keeps state between calls
        return _STEMMER.stemWord(word)


def tokens(text: str) -> list[str]:
    """Lower-cased, stop words dropped, stemmed: 'failed logins' -> ['fail', 'login']."""
    words = _WORD.findall((text or "").lower().replace("’", "'").replace("'", ""))
    return [_stem(word) for word in words if word not in STOPWORDS and (len(word) > 1 or word.isdigit())]


def _document(entry: Entry) -> list[str]:
    aliases = " ".join(ALIASES.get(entry.id, ()))
    return tokens(entry.title) * 2 + tokens(" ".join(entry.keywords)) * 3 + tokens(aliases) * 2 + tokens(entry.summary)


class _Index:
    """BM25 statistics of the knowledge base, built once."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.entries = list(entries)
        self.freqs = [Counter(_document(entry)) for entry in self.entries]
        self.lengths = [sum(freq.values()) for freq in self.freqs]
        self.average = sum(self.lengths) / len(self.lengths)
        frequency = Counter(term for freq in self.freqs for term in freq)
        count = len(self.entries)
        self.idf = {term: math.log((count - df + 0.5) / (df + 0.5) + 1) for term, df in frequency.items()}
        self.phrases = [
            tuple(p.lower() for p in (*entry.keywords, *ALIASES.get(entry.id, ())) if " " in p or not p.isalnum())
            for entry in self.entries
        ]

    def scores(self, text: str, query: list[str]) -> list[float]:
        terms = set(query)
        lowered = text.lower()
        found = []
        for freq, length, phrases in zip(self.freqs, self.lengths, self.phrases, strict=True):
            score = 0.0
            for term in terms:
                tf = freq.get(term, 0)
                if tf:
                    score += self.idf[term] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / self.average))
            score += PHRASE_BONUS * sum(1 for phrase in phrases if phrase in lowered)
            found.append(score)
        return found


INDEX = _Index(ENTRIES)


def _names_a_site(question: str, situation: Situation | None) -> bool:
    names = {AGENTS[agent_id].platform.lower() for agent_id in PLATFORM_AGENT_IDS}
    names |= {site.name.lower() for site in (situation.sites if situation else ())}
    lowered = question.lower()
    return any(re.search(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])", lowered) for name in names if name)


def _reports_an_attack(question: str) -> bool:
    judged = threat.judge(question)
    return judged.mode in ("active", "reported") and judged.topic_level in ("high", "critical")


def retrieve(question: str, agent: AgentProfile, limit: int = 2, situation: Situation | None = None) -> list[Entry]:
    """The entries that best match the question (the agent's focus breaks ties); [] for small talk."""
    query = tokens(question)
    if _names_a_site(question, situation):
        query.append(_stem(SITE_TOKEN))
    if not query:
        return []
    scored = []
    for entry, score in zip(INDEX.entries, INDEX.scores(question, query), strict=True):
        if score and entry.id in agent.focus_topics:
            score += FOCUS_BONUS
        if score >= MIN_SCORE:
            scored.append((score, entry.id))
    scored.sort(key=lambda item: (-item[0], item[1]))
    if not scored:
        return []
    if scored[0][1] == "site_status" and len(scored) > 1 and _reports_an_attack(question):
        # "our site is down and flooded right now": the attack is the subject, the site's state the context
        scored.insert(0, scored.pop(1))
        return [BY_ID[entry_id] for _score, entry_id in scored[:limit]]
    top = scored[0][0]
    return [BY_ID[entry_id] for score, entry_id in scored[:limit] if score >= top * RELATED_SHARE]
