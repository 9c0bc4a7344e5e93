"""The production password hash: the suite hashes with a cheap argon2 profile (tests/conftest.py), so this test is
what keeps the real one strong, and what checks that the cheap one never leaks into the app's own context."""

from __future__ import annotations

from passlib.hash import argon2

from secdash.core import security


def _parameters(password_hash: str) -> dict[str, int]:
    parsed = argon2.from_string(password_hash)
    return {"memory_kib": parsed.memory_cost, "time_cost": parsed.rounds, "lanes": parsed.parallelism}


def test_production_hashes_are_argon2id_with_a_memory_hard_profile():
    password_hash = security.PRODUCTION_CONTEXT.hash("correct-horse-battery-staple")
    assert password_hash.startswith("$argon2id$")
    # OWASP's floor for argon2id is 19 MiB with 2 passes; passlib's default (64 MiB, 3 passes) is above it.
    parameters = _parameters(password_hash)
    assert parameters["memory_kib"] >= 64 * 1024 and parameters["time_cost"] >= 2, parameters
    assert security.PRODUCTION_CONTEXT.verify("correct-horse-battery-staple", password_hash)
    assert not security.PRODUCTION_CONTEXT.verify("wrong", password_hash)


def test_a_hash_from_the_cheap_test_profile_still_verifies_under_production():
    """Stored hashes carry their own parameters: users created by either profile can sign in under the other."""
    cheap = security.hash_password("correct-horse-battery-staple")
    assert _parameters(cheap)["memory_kib"] < 64 * 1024  # the suite's profile is in use here
    assert security.PRODUCTION_CONTEXT.verify("correct-horse-battery-staple", cheap)
