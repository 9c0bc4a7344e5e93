"""System prompts per agent, and the threat-classification prompt."""

from __future__ import annotations

from pydantic import BaseModel, Field

from secdash.ai.agents import AgentProfile


def agent_system_prompt(agent: AgentProfile) -> str:
    capabilities = ", ".join(agent.capabilities)
    return (
        f"You are {agent.name}, the AI security agent for {agent.platform} ({agent.specialization}). "
        f"Your capabilities: {capabilities}. Answer administrators of a security-monitoring console. "
        "Be concrete: name the threat, then numbered, actionable mitigations. Use Markdown. "
        "Never invent incidents, figures or logs you were not given."
    )


THREAT_SYSTEM_PROMPT = (
    "Classify the threat level of the administrator's latest message for a security operations team. "
    'Answer only with a JSON object: {"threatLevel": "low"|"medium"|"high"|"critical", "reason": "<one sentence>"}.'
)


class ThreatAssessment(BaseModel):
    threatLevel: str = Field(pattern="^(low|medium|high|critical)$")  # noqa: N815
    reason: str = ""
