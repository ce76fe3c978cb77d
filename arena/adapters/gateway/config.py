"""Limits and timings one gateway enforces (defaults from the settings)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from arena.adapters.gateway.tls import TlsFiles, tls_files


@dataclass(frozen=True)
class GatewayConfig:
    heartbeat_s: float = 10.0
    heartbeat_timeout_s: float = 30.0
    max_message_bytes: int = 64 * 1024
    rate_per_s: float = 20.0
    rate_burst: int = 40
    max_concurrent_matches: int = 16
    #: a stream must say Hello within this time after it opens
    hello_timeout_s: float = 10.0
    #: time given to open streams to close on shutdown
    shutdown_grace_s: float = 5.0
    #: failed token attempts per peer address: the bucket refills at this rate...
    auth_failures_per_minute: float = 20.0
    #: ...up to this many attempts in a burst (arena.adapters.gateway.limits)
    auth_failure_burst: int = 20
    #: open streams' tokens are checked again this often (arena.adapters.gateway.recheck)
    token_recheck_s: float = 60.0
    #: serve TLS with this certificate and key (plain text when None)
    tls: TlsFiles | None = None

    @classmethod
    def from_settings(cls, **overrides: object) -> GatewayConfig:
        values: dict[str, object] = {
            "heartbeat_s": settings.GATEWAY_HEARTBEAT_SECONDS,
            "heartbeat_timeout_s": settings.GATEWAY_HEARTBEAT_TIMEOUT_SECONDS,
            "max_message_bytes": settings.GATEWAY_MAX_MESSAGE_BYTES,
            "rate_per_s": settings.GATEWAY_RATE_LIMIT_PER_SECOND,
            "rate_burst": settings.GATEWAY_RATE_LIMIT_BURST,
            "max_concurrent_matches": settings.GATEWAY_MAX_CONCURRENT_MATCHES,
            "auth_failures_per_minute": settings.GATEWAY_AUTH_FAILURES_PER_MINUTE,
            "auth_failure_burst": settings.GATEWAY_AUTH_FAILURE_BURST,
            "tls": tls_files(settings.GATEWAY_TLS_CERT, settings.GATEWAY_TLS_KEY),
            "token_recheck_s": settings.GATEWAY_TOKEN_RECHECK_SECONDS,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if "tls" in overrides:  # None there means plain text, not "the settings' default"
            values["tls"] = overrides["tls"]
        return cls(**values)  # type: ignore[arg-type]
