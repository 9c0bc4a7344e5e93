"""The probe's times are what a user waits for: every redirect hop and the body, as `curl -w` counts them
(time_starttransfer, time_total, num_redirects), against local servers."""

from __future__ import annotations

from secdash.services.probe import probe_site, site_status
from tests.support.probe_servers import Step, StepServer, chain, redirect


async def test_three_redirect_hops_of_0_3_s_count_in_both_times():
    with StepServer(chain(3, 0.3)) as server:
        result = await probe_site(server.base + "/hop1", allow_private=True)
    assert result.status_code == 200 and result.error is None and result.final_url == server.base + "/final"
    assert result.redirects == 3
    assert 900 <= result.ttfb_ms < 1500  # curl: time_starttransfer about 0.90 s
    assert result.ttfb_ms <= result.response_ms < 1500
    assert [hop.status_code for hop in result.hops] == [302, 302, 302, 200]
    assert [hop.url.rsplit("/", 1)[1] for hop in result.hops] == ["hop1", "hop2", "hop3", "final"]


async def test_a_body_that_trickles_counts_in_the_total_not_in_the_first_byte():
    with StepServer({"/": Step(body=b"x" * 20_000, trickle=1.0)}) as server:
        result = await probe_site(server.base + "/", allow_private=True)
    assert result.status_code == 200 and result.redirects == 0
    assert result.ttfb_ms < 500
    assert 1000 <= result.response_ms < 2000  # curl: time_total about 1 s


async def test_the_body_is_timed_up_to_the_body_cap_only():
    """100 KB sent in ten pieces over 2 s: with a 15 KB cap the probe stops after the second piece."""
    with StepServer({"/": Step(body=b"x" * 100_000, trickle=2.0, chunks=10)}) as server:
        result = await probe_site(server.base + "/", allow_private=True, max_bytes=15_000)
    assert result.status_code == 200 and result.error is None
    assert 300 <= result.response_ms < 1500


async def test_a_body_still_arriving_at_the_budget_ends_the_probe_there_and_reads_slow():
    with StepServer({"/": Step(body=b"x" * 10_000, trickle=3.0)}) as server:
        result = await probe_site(server.base + "/", allow_private=True, budget=0.8)
    assert result.status_code == 200
    assert result.error == "The body was still arriving after 0.8s"
    assert 800 <= result.response_ms < 1500
    assert site_status(result, slow_ms=500) == "warning"


async def test_the_budget_covers_every_hop():
    # The first hop answers at once, the next ones after 3 s: the budget ends inside the second hop, however slow
    # a loaded machine is (with 0.4 s hops and a 0.6 s budget, CI once ran out of budget inside the first hop).
    with StepServer(chain(3, 3.0) | {"/hop1": redirect("/hop2")}) as server:
        result = await probe_site(server.base + "/hop1", allow_private=True, budget=1.5)
    assert result.status_code is None and result.error == "Timed out after 1.5s"
    assert result.redirects == 1  # the first hop answered, the second was cut short


async def test_a_fast_site_still_has_both_times():
    with StepServer({"/": Step()}) as server:
        result = await probe_site(server.base + "/", allow_private=True)
    assert 0 < result.ttfb_ms <= result.response_ms < 500 and result.redirects == 0
