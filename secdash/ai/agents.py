"""The defense agents: the general assistant and the four platform agents (spec section 9)."""

from __future__ import annotations

from dataclasses import dataclass

from secdash.core.demo_sites import NAME_OF, SLUGS


@dataclass(frozen=True)
class AgentProfile:
    id: str
    name: str
    platform: str
    specialization: str
    data_size: str
    code_lines: int
    users: int
    capabilities: tuple[str, ...]
    focus_topics: tuple[str, ...]  # knowledge-base entries this agent leans on


AGENTS: dict[str, AgentProfile] = {
    "general": AgentProfile(
        "general",
        "Defense Command",
        "all platforms",
        "Security operations across all four platforms",
        "12.7TB",
        109228,
        8948,
        ("Threat triage", "Incident response", "Security headers", "OWASP Top 10 guidance"),
        ("incident_response", "security_headers"),
    ),
    "stock": AgentProfile(
        "stock",
        f"{NAME_OF['stock']} Defense AI",
        NAME_OF["stock"],
        "Home safety and inventory intelligence",
        "3.2TB",
        28437,
        5837,
        ("Inventory anomaly detection", "IoT sensor integrity", "API abuse prevention", "Access control audits"),
        ("broken_access_control", "api_abuse"),
    ),
    "tour": AgentProfile(
        "tour",
        f"{NAME_OF['tour']} Defense AI",
        NAME_OF["tour"],
        "Travel security, communication and voice translation",
        "3.1TB",
        24892,
        1124,
        ("Traveler identity protection", "Booking fraud detection", "Voice channel security", "Phishing defense"),
        ("phishing", "xss"),
    ),
    "gem": AgentProfile(
        "gem",
        f"{NAME_OF['gem']} Defense AI",
        NAME_OF["gem"],
        "Jewelry, gemstone and asset protection and authentication",
        "3.4TB",
        29156,
        987,
        ("Certificate authenticity", "Asset provenance", "Secrets management", "Payment fraud detection"),
        ("secrets_exposure", "cryptographic_failures"),
    ),
    "shares": AgentProfile(
        "shares",
        f"{NAME_OF['shares']} Defense AI",
        NAME_OF["shares"],
        "Design, platform security, verification and authenticity",
        "3.0TB",
        26743,
        1000,
        ("Design verification", "Injection prevention", "Supply-chain checks", "Authenticity scoring"),
        ("sql_injection", "vulnerable_components"),
    ),
}
PLATFORM_AGENT_IDS = SLUGS
TOTAL_DATA = "12.7TB"


def get_agent(agent_id: str) -> AgentProfile | None:
    return AGENTS.get((agent_id or "").strip().lower())
