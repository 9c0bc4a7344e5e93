"""Brute force: one attacker guessing user "demo"'s password from a common-password list (the right one late in
the list) at the login form; honest sign-ins are members with the odd typo, spread over many visitors. Stopped by
a per-client rate limit."""

from __future__ import annotations

from secdash.services.battle.defense import DefenseConfig, RateLimit
from secdash.services.battle.traffic import Attack, DrillRequest, Requests, Technique, attack, benign, visitor

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
LOGIN_LIMIT = (5, 60)  # requests per client, window seconds


def requests(_slug: str) -> Requests:
    attacks = [
        attack(0, "POST", "/login", f"password guess {n + 1}", form=(("username", DEMO_USER), ("password", guess)))
        for n, guess in enumerate(PASSWORD_GUESSES)
    ]
    # 40 sign-ins over 20 visitors (at most 2 each), so no visitor trips a sensible per-client limit.
    honest = []
    for i in range(40):
        user, password = LOGIN_BENIGN[i % len(LOGIN_BENIGN)]
        honest.append(
            benign(visitor(i // 2), "POST", "/login", f"sign-in {user}", form=(("username", user), ("password", password)))
        )
    return attacks, honest


def recipe(_slug: str) -> tuple[DefenseConfig, str]:
    limit, window = LOGIN_LIMIT
    config = DefenseConfig(
        rate_limits=[RateLimit(name="login-guessing", requests=limit, window_seconds=window, endpoints=["login"])]
    )
    return config, (
        f"Rate-limit sign-in attempts to {limit} per client per {window} s: a password-guessing client is "
        "stopped after a few tries, while members who mistype once still get in."
    )


def damage(request: DrillRequest, status: int, body: str, _slug: str) -> str | None:
    username = dict(request.form).get("username", "")
    return f"account taken over ({username[:40]})" if status == 200 and "Welcome back" in body else None


ATTACK = Attack(
    id="brute_force",
    label="Brute Force",
    icon="key-round",
    description="One attacker guessing the demo account's password from a common-password list at the login form",
    technique=Technique("T1110.001", "Brute Force: Password Guessing", "https://attack.mitre.org/techniques/T1110/001/"),
    specialist="stock",
    endpoint="login",
    defense_part="rate_limits",
    requests=requests,
    recipe=recipe,
    damage=damage,
)
