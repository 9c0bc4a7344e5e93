"""Which URLs and addresses the probe may reach: http(s) URLs without credentials, and global addresses
unless a site is allowed private ones (the monitor's rules, shared by the alerting's outbound checks)."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

import httpx

MAX_URL_LENGTH = 2048


class ProbeRefused(ValueError):
    """The URL may not be probed (scheme, credentials, private address)."""


class AddressRefused(ProbeRefused):
    """The target resolves to an address this probe may not reach."""


def validate_target(url: str) -> str:
    """Accept only absolute http(s) URLs with a host and no credentials; return it normalised."""
    url = (url or "").strip()
    if len(url) > MAX_URL_LENGTH:
        raise ProbeRefused(f"the URL is longer than {MAX_URL_LENGTH:,} characters")
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise ProbeRefused("only http and https URLs can be monitored")
    if not parts.hostname:
        raise ProbeRefused("the URL has no host")
    if parts.username is not None or parts.password is not None:
        raise ProbeRefused("credentials in the URL are not allowed")
    try:
        parts.port  # noqa: B018 (raises on a port out of range)
    except ValueError:
        raise ProbeRefused("the URL has an invalid port") from None
    normalised = parts._replace(scheme=parts.scheme.lower(), path=parts.path or "/").geturl()
    try:
        httpx.URL(normalised)  # what the client will parse (it refuses e.g. 0177.0.0.1)
    except httpx.InvalidURL as exc:
        raise ProbeRefused(f"the URL is not valid ({exc})") from None
    return normalised


Address = ipaddress.IPv4Address | ipaddress.IPv6Address
CARRIER_GRADE_NAT = ipaddress.ip_network("100.64.0.0/10")
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # well-known prefix: the low 32 bits are IPv4
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215 local-use: never global
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated IPv4-compatible IPv6 (and ::, ::1)


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (mapped, 6to4, Teredo, NAT64): they are checked too."""
    found = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
    if ip in NAT64 or ip in IPV4_COMPATIBLE:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return [v4 for v4 in found if v4 is not None]


def _kind(ip: Address) -> str | None:
    """Why an address may not be reached without permission ("a loopback address"), or None when it is global."""
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in CARRIER_GRADE_NAT:
        return "a carrier-grade NAT address"
    if ip.is_private:
        return "a private address"
    if not ip.is_global or ip.is_reserved or (isinstance(ip, ipaddress.IPv6Address) and ip in LOCAL_NAT64):
        return "a reserved address"
    return None


def address_problem(address: str) -> str | None:
    """None for an address the monitor may reach without "allow private"; else what it is, e.g.
    "a loopback address" or "a loopback address (it carries 127.0.0.1)" for 6to4, NAT64, mapped ones."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and not (ip.is_loopback or ip.is_unspecified):
        for v4 in _embedded_ipv4(ip):
            kind = _kind(v4)
            if kind is not None:
                return kind if ip.ipv4_mapped == v4 else f"{kind} (it carries {v4})"
        if ip in IPV4_COMPATIBLE:
            return "a reserved address"
        if ip in NAT64:  # a translated global IPv4 address (Python counts the prefix as reserved)
            return None
    return _kind(ip)


def is_public_address(address: str) -> bool:
    return address_problem(address) is None
