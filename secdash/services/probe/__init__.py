"""The site probe, an engine (no Reflex, no database): what a user waits for, TLS expiry and the header grade
of one URL, under the monitor's outbound rules. `python -m secdash probe URL` runs it alone (cli.py).

    addresses     which URLs and addresses may be reached (shared with alerting's outbound checks)
    network       the pinned connections (DNS resolved once, every address checked, no rebinding)
    certificates  TLS expiry instants, verified or read again without verifying
    fetch         probe_site: hops, times, body, grade
    result        ProbeResult, site_status, the JSON report
"""

from secdash.services.probe.addresses import (
    MAX_URL_LENGTH,
    AddressRefused,
    ProbeRefused,
    address_problem,
    is_public_address,
    validate_target,
)
from secdash.services.probe.fetch import probe_site
from secdash.services.probe.network import POOL_KEY, PinnedBackend, ProbeClient, ProbeClients, Resolver, resolve
from secdash.services.probe.result import Hop, ProbeResult, report, site_status

__all__ = [
    "MAX_URL_LENGTH",
    "POOL_KEY",
    "AddressRefused",
    "Hop",
    "PinnedBackend",
    "ProbeClient",
    "ProbeClients",
    "ProbeRefused",
    "ProbeResult",
    "Resolver",
    "address_problem",
    "is_public_address",
    "probe_site",
    "report",
    "resolve",
    "site_status",
    "validate_target",
]
