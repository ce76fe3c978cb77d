"""Limits and timings one gateway enforces (defaults from the settings)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings


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

    @classmethod
    def from_settings(cls, **overrides: float) -> GatewayConfig:
        values: dict[str, float] = {
            "heartbeat_s": settings.GATEWAY_HEARTBEAT_SECONDS,
            "heartbeat_timeout_s": settings.GATEWAY_HEARTBEAT_TIMEOUT_SECONDS,
            "max_message_bytes": settings.GATEWAY_MAX_MESSAGE_BYTES,
            "rate_per_s": settings.GATEWAY_RATE_LIMIT_PER_SECOND,
            "rate_burst": settings.GATEWAY_RATE_LIMIT_BURST,
            "max_concurrent_matches": settings.GATEWAY_MAX_CONCURRENT_MATCHES,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
