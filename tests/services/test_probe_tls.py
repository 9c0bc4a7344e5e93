"""TLS days to one decimal with the exact expiry instant; an expired certificate reads "expired" whether
or not its issuer is trusted."""

from __future__ import annotations

import pytest

from secdash.services.probe import ProbeClient, probe_site, site_status
from tests.support.probe_servers import Step, StepServer, UntrustedCA, expiring_in, leaf_context, redirect
from tests.support.web_servers import LocalCA


@pytest.fixture
def ca(tmp_path):
    return LocalCA(tmp_path)


async def _probe(url: str, ca: LocalCA):
    async with ProbeClient(allow_private=True, verify=ca.client_context()) as client:
        return await probe_site(url, client=client, allow_private=True)


async def test_three_days_left_reads_3_0_with_the_exact_expiry(ca):
    expires = expiring_in(3.0)
    with StepServer({"/": Step()}, tls=leaf_context(ca, expires, "three")) as server:
        result = await _probe(server.base + "/", ca)
    assert result.status_code == 200 and result.error is None
    assert result.tls_days_left == 3.0 and result.tls_expires_at == expires
    assert site_status(result) == "warning"  # under the 14 days' warning


async def test_a_certificate_expired_two_and_a_half_days_ago_reads_minus_2_5(ca):
    expires = expiring_in(-2.5)
    with StepServer({"/": Step()}, tls=leaf_context(ca, expires, "expired")) as server:
        result = await _probe(server.base + "/", ca)
    assert result.status_code is None and result.error == "TLS certificate expired"
    assert result.tls_days_left == -2.5 and result.tls_expires_at == expires
    assert site_status(result) == "critical"


async def test_an_expired_certificate_from_an_untrusted_ca_reads_expired(ca, tmp_path):
    expires = expiring_in(-2.5)
    with StepServer({"/": Step()}, tls=leaf_context(UntrustedCA(tmp_path / "other"), expires, "bad")) as server:
        result = await _probe(server.base + "/", ca)
    assert result.error == "TLS certificate expired"
    assert result.tls_days_left == -2.5 and result.tls_expires_at == expires


async def test_a_valid_certificate_from_an_untrusted_ca_reads_not_trusted(ca, tmp_path):
    expires = expiring_in(40.25)
    with StepServer({"/": Step()}, tls=leaf_context(UntrustedCA(tmp_path / "other"), expires, "stranger")) as server:
        result = await _probe(server.base + "/", ca)
    assert result.error == "TLS certificate not trusted"
    assert result.tls_days_left == 40.2 and result.tls_expires_at == expires  # 40.249... days by the time it is read


async def test_just_expired_is_expired_even_when_the_days_round_to_zero(ca):
    expires = expiring_in(-0.01)
    with StepServer({"/": Step()}, tls=leaf_context(ca, expires, "just")) as server:
        result = await _probe(server.base + "/", ca)
    assert result.error == "TLS certificate expired" and result.tls_days_left == 0.0
    assert site_status(result) == "critical"


async def test_the_soonest_expiry_of_the_redirect_chain_is_reported(ca):
    """https://a -> https://b: a user's browser needs both certificates; the one that runs out first counts."""
    later, sooner = expiring_in(90.0), expiring_in(5.0)
    with StepServer({"/": Step()}, tls=leaf_context(ca, later, "final")) as final:
        with StepServer({"/": redirect(final.base + "/")}, tls=leaf_context(ca, sooner, "first")) as first:
            result = await _probe(first.base + "/", ca)
    assert result.status_code == 200 and result.redirects == 1
    assert result.tls_expires_at == sooner and result.tls_days_left == 5.0


async def test_plain_http_has_no_certificate():
    with StepServer({"/": Step()}) as server:
        result = await probe_site(server.base + "/", allow_private=True)
    assert result.tls_days_left is None and result.tls_expires_at is None
