"""A transparent rule set for the threat level of a message: low, medium, high or critical."""

from __future__ import annotations

import re

LEVELS = ("low", "medium", "high", "critical")
# Each rule: the level it implies and the words that trigger it; the highest match wins.
RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("critical", ("breach", "breached", "ransomware", "exfiltrat", "compromised", "data leak", "under attack",
                  "attack in progress", "rootkit", "backdoor", "wiper")),
    ("high", ("ddos", "denial of service", "sql injection", "sqli", "xss", "cross-site scripting", "malware",
              "brute force", "brute-force", "phishing", "credential stuffing", "exploit", "attack", "trojan",
              "botnet", "ssrf", "remote code execution", "rce")),
    ("medium", ("vulnerab", "suspicious", "port scan", "scanning", "misconfig", "weak password", "outdated", "cve-",
                "anomal", "unpatched", "expired certificate", "missing header")),
)


def assess(text: str) -> tuple[str, list[str]]:
    """The level and the words that decided it (empty for low)."""
    lowered = (text or "").lower()
    for level, words in RULES:
        hits = [word for word in words if re.search(rf"(?<![a-z]){re.escape(word)}", lowered)]
        if hits:
            return level, hits
    return "low", []


def highest(*levels: str) -> str:
    return max(levels, key=LEVELS.index)
