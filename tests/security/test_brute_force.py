"""Brute force: the lockout holds under concurrency, an attacker cannot lock out the real user from
their own address, and X-Forwarded-For counts only when it comes from a trusted proxy."""

from __future__ import annotations

import asyncio
import ipaddress

import httpx
import pytest
from sqlmodel import select

from secdash.api.main import create_api
from secdash.core.client_address import client_address, parse_trusted_proxies
from secdash.core.config import Settings, get_settings
from secdash.core.db import session_scope
from secdash.models import HistoryLog
from secdash.services.errors import AuthFailed, RateLimited
from secdash.services.identity import auth
from tests.factories import DEFAULT_PASSWORD, make_user

EMAIL = "ops@example.com"
ATTACKER = "203.0.113.66"
USER_ADDRESS = "198.51.100.20"
PEER = "198.51.100.7"  # the address the API test client connects from
WRONG = "wrong-password"  # noqa: S105 (a guess)


@pytest.fixture
def verifications(monkeypatch) -> list[str]:
    """Every password the service actually checked (an attacker's guesses that got through)."""
    checked: list[str] = []
    real = auth.verify_password_async

    async def counting(password, password_hash):
        checked.append(password)
        return await real(password, password_hash)

    monkeypatch.setattr(auth, "verify_password_async", counting)
    return checked


async def _attempt(settings: Settings, *, email: str = EMAIL, password: str = WRONG, ip: str = ATTACKER):
    """One login on its own database session, as a separate request would make it: 200, 401 or 429."""
    async with session_scope() as db:
        try:
            await auth.login(session=db, settings=settings, email=email, password=password, ip=ip)
        except AuthFailed:
            return 401
        except RateLimited:
            return 429
    return 200


def test_default_limits():
    settings = Settings()
    assert (settings.LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_IP, settings.LOGIN_ACCOUNT_AND_IP_WINDOW_SECONDS) == (5, 300)
    assert (settings.LOGIN_MAX_FAILURES_PER_IP, settings.LOGIN_IP_WINDOW_SECONDS) == (20, 60)
    assert (settings.LOGIN_MAX_FAILURES_PER_ACCOUNT, settings.LOGIN_ACCOUNT_WINDOW_SECONDS) == (50, 900)
    assert settings.TRUSTED_PROXIES == ""


async def test_concurrent_guesses_get_at_most_the_limit_checked(session, settings, verifications):
    await make_user(session, EMAIL)
    limit = settings.LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_IP
    results = await asyncio.gather(*(_attempt(settings) for _ in range(19)))
    assert results.count(401) <= limit
    assert len(verifications) <= limit
    assert results.count(429) == 19 - results.count(401)
    # Whatever the interleaving, the address gets exactly `limit` guesses in the window, no more.
    guesses = results.count(401)
    while (status := await _attempt(settings)) == 401:
        guesses += 1
    assert status == 429
    assert guesses == limit
    assert len(verifications) == limit


async def test_concurrent_guesses_across_accounts_respect_the_address_limit(session, settings, verifications):
    limit = settings.LOGIN_MAX_FAILURES_PER_IP
    results = await asyncio.gather(*(_attempt(settings, email=f"u{n}@example.com") for n in range(limit + 6)))
    assert results.count(401) <= limit
    assert len(verifications) <= limit
    assert set(results) <= {401, 429}


async def test_concurrent_guesses_from_many_addresses_respect_the_account_limit(session, settings, verifications):
    await make_user(session, EMAIL)
    strict = settings.model_copy(update={"LOGIN_MAX_FAILURES_PER_ACCOUNT": 8})
    results = await asyncio.gather(*(_attempt(strict, ip=f"192.0.2.{n}") for n in range(1, 20)))
    assert results.count(401) <= 8
    assert len(verifications) <= 8


async def test_a_locked_out_address_does_not_lock_the_account_elsewhere(session, settings, verifications):
    await make_user(session, EMAIL)
    # The attacker keeps hammering long after the lockout...
    results = [await _attempt(settings) for _ in range(60)]
    assert results.count(401) == settings.LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_IP
    assert set(results[settings.LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_IP :]) == {429}
    # ...even the right password is refused from the attacker's address...
    assert await _attempt(settings, password=DEFAULT_PASSWORD) == 429
    # ...but the real user signs in from their own address.
    assert await _attempt(settings, password=DEFAULT_PASSWORD, ip=USER_ADDRESS) == 200
    assert len(verifications) == settings.LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_IP + 1


async def test_refused_requests_do_not_count_towards_the_account_limit(session, settings):
    """A single address flooding concurrently cannot push the account over its global limit."""
    await make_user(session, EMAIL)
    strict = settings.model_copy(update={"LOGIN_MAX_FAILURES_PER_ACCOUNT": 6})
    for _ in range(3):
        await asyncio.gather(*(_attempt(strict) for _ in range(12)))
    assert await _attempt(strict, password=DEFAULT_PASSWORD, ip=USER_ADDRESS) == 200


async def test_the_account_limit_needs_many_addresses(session, settings):
    await make_user(session, EMAIL)
    strict = settings.model_copy(update={"LOGIN_MAX_FAILURES_PER_ACCOUNT": 10})
    for address in ("192.0.2.1", "192.0.2.2"):
        for _ in range(5):
            assert await _attempt(strict, ip=address) == 401
    with pytest.raises(RateLimited) as locked:
        await auth.login(session=session, settings=strict, email=EMAIL, password=DEFAULT_PASSWORD, ip=USER_ADDRESS)
    assert 1 <= locked.value.retry_after <= strict.LOGIN_ACCOUNT_WINDOW_SECONDS
    lockouts = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Login locked out"))).all()
    assert any(EMAIL in log.description and "all addresses" in log.description for log in lockouts)


async def test_success_resets_only_that_address(session, settings):
    await make_user(session, EMAIL)
    for _ in range(4):
        assert await _attempt(settings, ip=USER_ADDRESS) == 401
    assert await _attempt(settings, password=DEFAULT_PASSWORD, ip=USER_ADDRESS) == 200
    for _ in range(5):  # a fresh budget for this address
        assert await _attempt(settings, ip=USER_ADDRESS) == 401
    assert await _attempt(settings, ip=USER_ADDRESS) == 429


async def test_an_ipv6_attacker_cannot_rotate_addresses_within_a_64(session, settings):
    """One subscriber's IPv6 LAN (a /64) has more addresses than any budget: it counts as one address."""
    await make_user(session, EMAIL)
    for n in range(1, 6):
        assert await _attempt(settings, ip=f"2001:db8:1:2::{n}") == 401
    assert await _attempt(settings, ip="2001:db8:1:2:ffff::99") == 429
    assert await _attempt(settings, password=DEFAULT_PASSWORD, ip="2001:db8:1:3::1") == 200
    lockouts = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Login locked out"))).all()
    assert any("2001:db8:1:2::/64" in log.description for log in lockouts)


# --- Client address behind proxies --------------------------------------------------------------

TRUSTED = parse_trusted_proxies("10.0.0.0/8, 198.51.100.7, 2001:db8::/32")


@pytest.mark.parametrize(
    ("peer", "forwarded", "expected"),
    [
        ("203.0.113.5", "", "203.0.113.5"),
        ("203.0.113.5", "192.0.2.1", "203.0.113.5"),  # an untrusted peer's header is ignored
        ("10.1.2.3", "", "10.1.2.3"),
        ("10.1.2.3", "192.0.2.1", "192.0.2.1"),
        ("10.1.2.3", "192.0.2.99, 192.0.2.1", "192.0.2.1"),  # a client-made entry on the left is ignored
        ("10.1.2.3", "192.0.2.1, 10.9.9.9", "192.0.2.1"),  # trusted hops on the right are skipped
        ("10.1.2.3", "192.0.2.1,10.9.9.9, 198.51.100.7", "192.0.2.1"),
        ("10.1.2.3", "10.9.9.9, 10.8.8.8", "10.9.9.9"),  # every hop trusted: the left-most
        ("10.1.2.3", "not-an-address", "10.1.2.3"),  # garbage where the client should be: the proxy
        ("10.1.2.3", "192.0.2.1:5123", "192.0.2.1"),
        ("10.1.2.3", "[2001:db9::1]:443", "2001:db9::1"),
        ("::ffff:10.1.2.3", "192.0.2.1", "192.0.2.1"),  # IPv4-mapped peer
        ("2001:db8::5", "2001:db9::7", "2001:db9::7"),
        ("", "192.0.2.1", ""),
    ],
)
def test_client_address(peer, forwarded, expected):
    assert client_address(peer, forwarded, TRUSTED) == expected


def test_client_address_without_trusted_proxies_is_the_peer():
    assert client_address("10.1.2.3", "192.0.2.1", ()) == "10.1.2.3"


def test_bad_trusted_proxy_setting_is_refused(monkeypatch):
    monkeypatch.setenv("SECDASH_TRUSTED_PROXIES", "10.0.0.0/8, not-a-network")
    with pytest.raises(ValueError, match="not-a-network"):
        Settings()


def test_trusted_proxy_setting_is_parsed(monkeypatch):
    monkeypatch.setenv("SECDASH_TRUSTED_PROXIES", " 10.0.0.0/8,198.51.100.7 ,, ")
    assert Settings().trusted_proxies == (ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("198.51.100.7/32"))


@pytest.fixture
def trusted_proxies(monkeypatch):
    """Set SECDASH_TRUSTED_PROXIES for the API under test; the cached settings are rebuilt around it."""

    def set_to(value: str) -> None:
        monkeypatch.setenv("SECDASH_TRUSTED_PROXIES", value)
        get_settings.cache_clear()

    yield set_to
    monkeypatch.delenv("SECDASH_TRUSTED_PROXIES", raising=False)
    get_settings.cache_clear()


@pytest.fixture
async def api(session):
    transport = httpx.ASGITransport(app=create_api(), client=(PEER, 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


async def _api_login(api, forwarded_for: str | None, password: str = WRONG) -> int:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for is not None else {}
    response = await api.post("/api/auth/login", json={"email": EMAIL, "password": password}, headers=headers)
    return response.status_code


async def _failed_login_addresses(session) -> set[str]:
    logs = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Login failed"))).all()
    return {log.details["ip"] for log in logs}


async def test_forwarded_for_is_ignored_without_trusted_proxies(api, session, trusted_proxies):
    trusted_proxies("")
    await make_user(session, EMAIL)
    for n in range(5):
        assert await _api_login(api, f"192.0.2.{n}") == 401
    # A new X-Forwarded-For value does not buy a new budget: the peer is the client.
    assert await _api_login(api, "192.0.2.200", DEFAULT_PASSWORD) == 429
    assert await _failed_login_addresses(session) == {PEER}


async def test_forwarded_for_from_a_trusted_proxy_names_the_client(api, session, trusted_proxies):
    trusted_proxies("198.51.100.0/24")
    await make_user(session, EMAIL)
    for _ in range(5):
        assert await _api_login(api, "192.0.2.1") == 401
    assert await _api_login(api, "192.0.2.1") == 429
    # The client cannot escape by prepending an address of its choice...
    assert await _api_login(api, "192.0.2.77, 192.0.2.1") == 429
    # ...while another client behind the same proxy signs in.
    assert await _api_login(api, "192.0.2.2, 198.51.100.9", DEFAULT_PASSWORD) == 200
    assert await _failed_login_addresses(session) == {"192.0.2.1"}
