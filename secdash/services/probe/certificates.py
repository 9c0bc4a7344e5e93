"""When a site's TLS certificate expires: read from the connection a response came on, or, when the
certificate was refused (expired, untrusted, another name), read again without verifying it over a
connection made like every other (resolved once, checked, pinned, the name as SNI)."""

from __future__ import annotations

import ssl
from datetime import datetime
from urllib.parse import urlsplit

import httpcore
import httpx
from cryptography import x509

from secdash.services.probe.addresses import ProbeRefused
from secdash.services.probe.network import PinnedBackend


def days_left(expires_at: datetime, now: datetime) -> float:
    """Days from `now` to the expiry, to one decimal (rounded, not floored: 2.99999 days is 3.0)."""
    return round((expires_at - now).total_seconds() / 86400, 1)


def _expiry(der: bytes | None) -> datetime | None:
    if not der:
        return None
    try:
        return x509.load_der_x509_certificate(der).not_valid_after_utc
    except ValueError:
        return None


def peer_expiry(response: httpx.Response) -> datetime | None:
    """The expiry instant of the certificate the server presented on this response's connection."""
    stream = response.extensions.get("network_stream")
    ssl_object = stream.get_extra_info("ssl_object") if stream else None
    return _expiry(ssl_object.getpeercert(binary_form=True)) if ssl_object else None


async def unverified_expiry(url: str, timeout: float, backend: PinnedBackend) -> datetime | None:
    """The expiry instant of the certificate a server presents, read without verifying it (None when the
    server cannot be reached again or sends no certificate)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        stream = await backend.connect_tcp(host, parts.port or 443, timeout=timeout)
    except (httpcore.ConnectError, httpcore.ConnectTimeout, ProbeRefused):
        return None
    try:
        stream = await stream.start_tls(context, server_hostname=host, timeout=timeout)
    except (httpcore.NetworkError, httpcore.TimeoutException, OSError):
        return None  # start_tls closed the connection
    try:
        ssl_object = stream.get_extra_info("ssl_object")
        return _expiry(ssl_object.getpeercert(binary_form=True)) if ssl_object else None
    finally:
        await stream.aclose()
