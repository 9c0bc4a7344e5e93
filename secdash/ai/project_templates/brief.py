"""What a builder prompt says, read without a model: the project's name, its topic and the parts it asks for.

"a landing page for a coffee shop called Bean There with a menu, opening hours and a contact section" gives
the name "Bean There", the topic "coffee shop" and the parts ("Menu", "Opening Hours", "Contact"). Every text
taken from the prompt is cleaned (`clean`): letters, digits, spaces and a few punctuation marks only, so it can
go into a page (HTML-escaped) without becoming markup, code or an attribute.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_NAME = 60
MAX_WORD = 20  # longer "words" (hashes, keys, junk) are dropped
_KEY_LIKE = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9+/=_-]{12,}$")  # letters and digits mixed: a key or id
MAX_PARTS = 4

ARTICLES = frozenset("a an the my our your their his her its this that some".split())
STOP = ARTICLES | frozenset(
    """
about after all also am and any are as at be been build but by called can could create do does for from get give have
help i if in into is it just let like make me need of on one or please should so than then there these to up us
using want we which who will with would you named titled
""".split()
)
FILLER = frozenset(
    """
simple small basic modern nice beautiful responsive clean minimal minimalist cool new little single quick tiny
fancy pretty great good awesome professional elegant stylish static interactive working fun classic plain
""".split()
)
TYPE_WORDS = frozenset(
    """
landing page pages website site web homepage home app application project form forms dashboard dashboards
game games api apis rest restful endpoint endpoints server backend service chart charts graph graphs
""".split()
)
_HARD_STOP = frozenset("with that which where using who to featuring including where".split())
_SOFT_STOP = frozenset("and for in on of at by from".split())
_JOINERS = frozenset("and of".split())  # inside a capitalised name: 'Salt and Pepper', 'Bank of Tea'
_GENERIC_TAIL = frozenset("section sections area part block page panel".split())
_QUOTED = re.compile(r"\"([^\"\n]{2,80})\"|“([^”\n]{2,80})”|(?:(?<=\s)|^)'([^'\n]{2,80})'(?=[\s,.;:!?]|$)")
_CALLED = re.compile(r"\b(?:called|named|titled|name it|call it|title it)\s+(?P<rest>\S.*)", re.I | re.S)
_WITH = re.compile(r"\b(?:with|including|featuring|that has|which has)\s+(?P<rest>.+)", re.I | re.S)
_TOPIC_START = re.compile(r"\b(?:for|about|of|showing|tracking|to manage|managing)\s+(?P<rest>.+)", re.I | re.S)
_WORD = re.compile(r"[^\W_][\w'’-]*", re.UNICODE)
_UNSAFE = re.compile(r"[^\w\s'’.,!?&:/@#+©-]", re.UNICODE)


def clean(text: str, limit: int = MAX_NAME) -> str:
    """Only letters, digits, spaces and . , ! ? & : / @ # + © ' - (no quotes, brackets, '<' or '='); words longer
    than MAX_WORD and words that look like keys (12+ characters mixing letters and digits) dropped, so nothing
    from a prompt reads as a secret to a scanner; at most `limit` characters."""
    text = _UNSAFE.sub(" ", (text or "").replace("_", " ")).replace("’", "'")
    words = [word for word in text.split() if len(word) <= MAX_WORD and not _KEY_LIKE.match(word)]
    out = ""
    for word in words:
        if len(out) + len(word) + (1 if out else 0) > limit:
            break
        out = f"{out} {word}" if out else word
    return out.strip(" .,!?&:/@#+'-")


def title_case(text: str) -> str:
    """'bean there' -> 'Bean There'; words already holding a capital keep their spelling ('iPhone')."""
    return " ".join(word if any(c.isupper() for c in word) else word[:1].upper() + word[1:] for word in text.split())


def words(text: str) -> list[str]:
    """The prompt's words, lower-cased: "Bob's dashboard!" -> ["bob's", "dashboard"]."""
    return [word.replace("’", "'").lower() for word in _WORD.findall(text or "")]


def _take_phrase(text: str, max_words: int) -> tuple[str, int]:
    """The leading phrase of `text` and where it ends: stops at punctuation, at 'with'/'that'/..., and at
    'and'/'for'/... unless a capitalised word follows ('Salt and Pepper' stays whole)."""
    tokens = list(re.finditer(r"\S+", text))
    taken: list[tuple[str, int]] = []
    for index, match in enumerate(tokens):
        token = match.group()
        bare = token.strip("\"“”'.,;:!?()[]")
        lower = bare.lower()
        if not bare or lower in _HARD_STOP:
            break
        following = tokens[index + 1].group() if index + 1 < len(tokens) else ""
        if lower in _SOFT_STOP and not (lower in _JOINERS and following[:1].isupper()):
            break
        taken.append((bare, match.end()))
        if len(taken) >= max_words or re.search(r"[.,;:!?]$", token):
            break
    while taken and taken[-1][0].lower() in _SOFT_STOP | ARTICLES:
        taken.pop()
    return " ".join(word for word, _ in taken), (taken[-1][1] if taken else 0)


def explicit_name(prompt: str) -> tuple[str, str]:
    """The name the prompt gives (quoted, or after 'called'/'named'/...), and the prompt without it."""
    quoted = _QUOTED.search(prompt or "")
    if quoted:
        name = clean(next(group for group in quoted.groups() if group))
        if name:
            return name, prompt[: quoted.start()] + " " + prompt[quoted.end() :]
    called = _CALLED.search(prompt or "")
    if called:
        phrase, end = _take_phrase(called.group("rest"), 6)
        name = clean(phrase)
        if name and name.lower() not in STOP | FILLER:
            name = title_case(name) if name == name.lower() else name
            return name, prompt[: called.start()] + " " + prompt[called.start("rest") + end :]
    return "", prompt or ""


def _content(tokens: list[str], drop: frozenset[str]) -> list[str]:
    """The leading run of content words (articles skipped at the start, stop at the first other small word)."""
    run: list[str] = []
    for token in tokens:
        if token in ARTICLES and not run:
            continue
        if token in STOP or token in TYPE_WORDS:
            break
        if token in FILLER or token in drop:
            continue
        run.append(token)
    return run


def topic(prompt: str, drop: frozenset[str] = frozenset()) -> str:
    """The main nouns, lower-case: 'a landing page for a coffee shop' -> 'coffee shop'; '' when there are none."""
    for match in _TOPIC_START.finditer(prompt or ""):
        found = _content(words(_take_phrase(match.group("rest"), 8)[0]), drop)
        if found:
            return clean(" ".join(found[:4]))
    tokens = words(re.split(r"\b(?:with|that|which|including|featuring)\b", prompt or "", maxsplit=1, flags=re.I)[0])
    first_type = next((i for i, token in enumerate(tokens) if token in TYPE_WORDS), len(tokens))
    before = [t for t in tokens[:first_type] if t not in STOP and t not in FILLER and t not in drop]
    if before:
        return clean(" ".join(before[-4:]))
    return clean(" ".join(_content(tokens[first_type + 1 :], drop)[:4]))


def parts(prompt: str, limit: int = MAX_PARTS) -> tuple[str, ...]:
    """What the prompt lists after 'with': 'with a menu, opening hours and a contact section' ->
    ('Menu', 'Opening Hours', 'Contact'), title-cased, at most `limit`."""
    found = _WITH.search(prompt or "")
    if not found:
        return ()
    rest = re.split(r"[.;:!?\n]", found.group("rest"), maxsplit=1)[0]
    items = []
    for piece in re.split(r",|\band\b|&|\bplus\b|\bor\b", rest, flags=re.I):
        tokens = [t for t in words(piece) if t not in ARTICLES and t not in FILLER]
        while len(tokens) > 1 and tokens[-1] in _GENERIC_TAIL:
            tokens.pop()
        text = clean(" ".join(tokens[:4]), 40)
        if text and text.lower() not in STOP:
            item = title_case(text)
            if item not in items:
                items.append(item)
    return tuple(items[:limit])


@dataclass(frozen=True)
class Brief:
    """What a template fills itself from."""

    prompt: str
    name: str  # the project's name, never empty
    topic: str  # lower-case main nouns, '' when the prompt names none
    parts: tuple[str, ...]  # what it asks for after 'with', title-cased
    named: bool = False  # the prompt gave the name ("called Bean There")
    rest: str = ""  # the prompt without the name it gives (for reading other wishes, such as colours)

    @property
    def subject(self) -> str:
        """What the project is about, for copy: the topic, else the name."""
        return self.topic or self.name


def read_brief(prompt: str, default_name: str, drop: frozenset[str] = frozenset(), max_parts: int = MAX_PARTS) -> Brief:
    """The name (given, else the topic in Title Case, else `default_name`), the topic and the parts; `drop`:
    words that name the kind of project (a template's keywords: 'snake'), never part of the topic."""
    prompt = (prompt or "")[:4000]
    name, rest = explicit_name(prompt)
    about = topic(rest, drop)
    named = bool(name)
    if not name:
        name = title_case(about) if about else default_name
    return Brief(
        prompt=prompt,
        name=clean(name, MAX_NAME) or default_name,
        topic=about,
        parts=parts(rest, max_parts),
        named=named,
        rest=rest,
    )
