"""The client's address behind reverse proxies: X-Forwarded-For counts only from trusted proxies.

Pure functions (no Reflex, no FastAPI): the API's `client_ip` and the Reflex login handler both call
`client_address(peer, forwarded_for, settings.trusted_proxies)`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_trusted_proxies(value: str, setting: str = "SECDASH_TRUSTED_PROXIES") -> tuple[IPNetwork, ...]:
    """Comma-separated IP addresses and CIDR networks; ValueError naming the setting and the first bad entry."""
    networks = []
    for part in (value or "").split(","):
        entry = part.strip()
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"{setting}: {entry!r} is not an IP address or CIDR network") from None
    return tuple(networks)


def _parse_address(value: str) -> IPAddress | None:
    """An address as a proxy writes it: bare, `v4:port` or `[v6]:port`; None if it is not one."""
    text = value.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _is_trusted(address: IPAddress, trusted: Iterable[IPNetwork]) -> bool:
    return any(address.version == network.version and address in network for network in trusted)


def client_address(peer: str | None, forwarded_for: str | Sequence[str] | None, trusted: Sequence[IPNetwork]) -> str:
    """The address to attribute a request to.

    The peer (the TCP connection's address), unless the peer is a trusted proxy: then the right-most
    X-Forwarded-For entry that is not itself a trusted proxy (entries to its left may be made up by
    the client). If every entry is trusted, the left-most; if that entry is not an address, the peer.
    `forwarded_for` is the header's value, or the values of several such headers in order.
    """
    peer_text = (peer or "").strip()
    peer_address = _parse_address(peer_text)
    if peer_address is None:
        return peer_text
    if not trusted or not forwarded_for or not _is_trusted(peer_address, trusted):
        return str(peer_address)
    joined = forwarded_for if isinstance(forwarded_for, str) else ",".join(forwarded_for)
    hops = [part for part in joined.split(",") if part.strip()]
    chosen = peer_address
    for hop in reversed(hops):
        address = _parse_address(hop)
        if address is None:
            break  # not written by a proxy we trust: attribute the request to the last trusted hop
        chosen = address
        if not _is_trusted(address, trusted):
            break
    return str(chosen)
