"""Which webhook URLs a registered bot may have: ``http`` or ``https``, a host whose *every* address is
public (not private, loopback, link-local, reserved, multicast…) unless
``settings.BOT_WEBHOOK_ALLOW_PRIVATE`` is on, and a port of ``settings.WEBHOOK_ALLOWED_PORTS`` (80 and 443
by default: ``http://8.8.8.8:6379/`` would reach a database, not a bot; any port with private addresses
allowed, which is for bots on the same machine). Checked when a bot is registered or changed, and again
before each call (``games.turns.webhooks``), which then connects to an address that was checked.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from .errors import InvalidWebhookUrl, WebhookAddressNotAllowed


@dataclass(frozen=True)
class Target:
    """A checked webhook URL: where to connect (an address that was checked) and what to ask for."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"


#: IPv6 prefixes that carry an IPv4 address in their last 32 bits, on the way to it (RFC 6052 NAT64).
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _address_allowed(address: str) -> bool:
    """A public address, and so is every IPv4 address it carries to (IPv4-mapped, 6to4, Teredo,
    NAT64): a NAT64 or 6to4 address of 169.254.169.254 reaches that address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    reached: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [ip]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            reached = [ip.ipv4_mapped]
        if ip.sixtofour is not None:
            reached.append(ip.sixtofour)
        if ip.teredo is not None:
            reached.extend(ip.teredo)
        if ip in _NAT64:
            reached.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return all(a.is_global and not a.is_multicast for a in reached)


def webhook_target(url: str, *, allow_private: bool) -> Target:
    """The checked target of a webhook URL; raises ``invalid_webhook_url`` or ``webhook_address_not_allowed``."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise InvalidWebhookUrl("The webhook URL cannot be parsed.") from None
    if parts.scheme not in ("http", "https"):
        raise InvalidWebhookUrl("A webhook URL is http:// or https://.")
    if not url.isascii():  # an HTTP request line and Host header carry ASCII only
        raise InvalidWebhookUrl(
            "A webhook URL is ASCII: percent-encode its path and query, and write an international host name "
            "as punycode (xn--…)."
        )
    if not parts.hostname or parts.username is not None or parts.password is not None:
        raise InvalidWebhookUrl("A webhook URL names a host and carries no credentials.")
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        found = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise InvalidWebhookUrl(f"The webhook's host {parts.hostname!r} does not resolve.") from None
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in found))
    if not addresses:
        raise InvalidWebhookUrl(f"The webhook's host {parts.hostname!r} does not resolve.")
    refused = [a for a in addresses if not _address_allowed(a)]
    if refused and not allow_private:
        raise WebhookAddressNotAllowed(
            f"The webhook's host resolves to {refused[0]}, which is not a public address.", address=refused[0]
        )
    if not allow_private and port not in settings.WEBHOOK_ALLOWED_PORTS:
        allowed = ", ".join(str(p) for p in sorted(settings.WEBHOOK_ALLOWED_PORTS))
        raise WebhookAddressNotAllowed(f"A webhook URL's port is one of {allowed} (this one names {port}).")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, parts.hostname, port, path, addresses)
