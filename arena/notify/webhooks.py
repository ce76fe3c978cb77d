"""A webhook's URL checked, and its POST sent to the address that was checked.

An owner's URL must not become the arena's way into its own network (SSRF): only
``http``/``https``, no credentials in it, and every address its host resolves to must be a
public one (``NOTIFY_ALLOW_PRIVATE_HOSTS`` lets loopback and private networks through: the
demo and the tests). The name is resolved once per attempt and the connection made to the
address just checked, with the URL's host name only in ``Host`` and TLS's SNI and
certificate check, so a DNS answer that changes between the check and the connection
(rebinding) reaches nothing else. Redirects are never followed (a 3xx is a failed attempt),
and every socket operation has a time limit.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from django.conf import settings

#: at most this much of an answer's body is read (and the start of it kept for the log)
MAX_ANSWER_BYTES = 4096
USER_AGENT = "AgentAvenueArena-Webhook/1"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class WebhookRefused(ValueError):
    """A URL the arena will not send to (the message says why)."""


@dataclass(frozen=True)
class Target:
    url: SplitResult
    host: str
    port: int
    #: the address checked, which the connection goes to
    address: str
    path: str


@dataclass(frozen=True)
class Answer:
    status: int | None
    error: str = ""
    body: str = ""

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def check_url(url: str) -> SplitResult:
    """The URL's parts if its form is acceptable (without resolving its host)."""
    if not isinstance(url, str) or not url.strip():
        raise WebhookRefused("a webhook needs a URL")
    if len(url) > 2000:
        raise WebhookRefused("the URL is longer than 2000 characters")
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https"):
        raise WebhookRefused(f"the URL must start with http:// or https:// (not {parts.scheme!r})")
    if not parts.hostname:
        raise WebhookRefused("the URL has no host")
    if parts.username or parts.password:
        raise WebhookRefused("the URL must not hold a user name or password")
    try:
        _ = parts.port
    except ValueError as exc:
        raise WebhookRefused(f"the URL's port is not valid: {exc}") from None
    if any(c in url for c in "\r\n\t "):
        raise WebhookRefused("the URL must not contain spaces or line breaks")
    return parts


def _why_not_public(address: Address) -> str | None:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return _why_not_public(address.ipv4_mapped)
    for flag in ("loopback", "private", "link_local", "multicast", "reserved", "unspecified"):
        if getattr(address, f"is_{flag}"):
            return flag.replace("_", "-")
    if not address.is_global:
        return "not public"
    return None


def resolve(url: str) -> Target:
    """The URL checked and its host resolved; the first acceptable address is the one to
    connect to. Refused if any address of the host is not public (a name that resolves
    to a public and a private address could be raced into the private one)."""
    parts = check_url(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise WebhookRefused(f"the host {host!r} does not resolve: {exc}") from None
    addresses: list[Address] = []
    for info in infos:
        a = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if a not in addresses:
            addresses.append(a)
    if not addresses:
        raise WebhookRefused(f"the host {host!r} has no address")
    if not settings.NOTIFY_ALLOW_PRIVATE_HOSTS:
        for a in addresses:
            why = _why_not_public(a)
            if why is not None:
                raise WebhookRefused(
                    f"the host {host!r} resolves to {a}, a {why} address: webhooks go to "
                    "public addresses only"
                )
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts, host, port, str(addresses[0]), path)


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._address = target.address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(
            target.host, target.port, timeout=timeout, context=ssl.create_default_context()
        )
        self._address = target.address

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        # the certificate is checked against the URL's host name, not the address
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]


def post(url: str, body: bytes, headers: dict[str, str], timeout: float) -> Answer:
    """POST ``body`` to the URL (resolved and checked now); the answer, or why none came.
    Raises ``WebhookRefused`` for a URL that is not acceptable (now)."""
    target = resolve(url)
    cls = _PinnedHTTPS if target.url.scheme == "https" else _PinnedHTTP
    conn = cls(target, timeout)
    try:
        conn.request(
            "POST", target.path, body=body,
            headers={"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers},
        )  # fmt: skip
        response = conn.getresponse()
        text = response.read(MAX_ANSWER_BYTES).decode("utf-8", "replace")
        return Answer(response.status, "", text[:200])
    except (OSError, http.client.HTTPException) as exc:
        return Answer(None, f"{type(exc).__name__}: {exc}"[:300])
    finally:
        conn.close()
