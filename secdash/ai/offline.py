"""The built-in offline engine: answers from the bundled knowledge base by retrieval, per agent.

Deterministic (same question, same answer), needs no network, and says what it is through the
provider name shown in the UI ("offline")."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence

from secdash.ai.agents import AGENTS, AgentProfile
from secdash.ai.base import ChatTurn
from secdash.ai.knowledge import BY_ID, ENTRIES, Entry

_WORD = re.compile(r"[a-z0-9][a-z0-9'.-]*")


def retrieve(question: str, agent: AgentProfile, limit: int = 2) -> list[Entry]:
    """The entries whose keywords best match the question (the agent's focus breaks ties)."""
    text = question.lower()
    words = set(_WORD.findall(text))
    scored = []
    for entry in ENTRIES:
        score = 0.0
        for keyword in entry.keywords:
            if " " in keyword or not keyword.isalnum():
                score += 3 if keyword in text else 0
            elif keyword in words:
                score += 2
        if score and entry.id in agent.focus_topics:
            score += 0.5
        if score:
            scored.append((score, entry.id))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [BY_ID[entry_id] for _score, entry_id in scored[:limit]]


def compose_answer(question: str, agent: AgentProfile) -> str:
    """A Markdown answer built only from the knowledge base."""
    found = retrieve(question, agent)
    lines = [f"**{agent.name}** · {agent.specialization}", ""]
    if not found:
        focus = [BY_ID[topic] for topic in agent.focus_topics]
        lines += [
            "I could not match your question to a known threat in my knowledge base. "
            "Describe what you see (symptoms, affected site, logs) and I can be specific.",
            "",
            f"Meanwhile, {agent.platform} priorities:",
            *[f"- **{entry.title}:** {entry.mitigations[0]}" for entry in focus],
        ]
        return "\n".join(lines)
    main = found[0]
    lines += [f"### {main.title}", main.summary, "", "**Recommended actions:**"]
    lines += [f"{n}. {step}" for n, step in enumerate(main.mitigations, start=1)]
    for extra in found[1:]:
        lines += ["", f"**Related: {extra.title}.** {extra.mitigations[0]}."]
    return "\n".join(lines)


class OfflineEngine:
    """Provider used when no model is configured."""

    name = "offline"
    model = "secdash-knowledge-base"

    async def stream_chat(
        self, turns: Sequence[ChatTurn], *, agent_id: str = "general", system: str = ""
    ) -> AsyncIterator[str]:
        agent = AGENTS.get(agent_id, AGENTS["general"])
        question = next((turn.content for turn in reversed(turns) if turn.role == "user"), "")
        answer = compose_answer(question, agent)
        for piece in re.findall(r"\S+\s*", answer):  # word by word, like a model's stream
            yield piece
