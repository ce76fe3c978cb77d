"""The relay between match runners and gateways (see ``arena.adapters.relay.base``).

``runner_relay()`` and ``gateway_relay()`` pick the implementation from the settings:
Redis when ``REDIS_URL`` is set (distributed mode), else the process's in-process relay
(embedded mode: the gateway and the runners must then live in one process).
"""

from __future__ import annotations

from django.conf import settings

from arena.adapters.relay.base import (
    Delivery,
    DeliveryKind,
    DropCounts,
    GatewayRelay,
    Inbound,
    InboundKind,
    Reach,
    RelayError,
    RunnerRelay,
)
from arena.adapters.relay.local import InProcessRelay, shared_relay

__all__ = [
    "Delivery",
    "DeliveryKind",
    "DropCounts",
    "GatewayRelay",
    "InProcessRelay",
    "Inbound",
    "InboundKind",
    "Reach",
    "RelayError",
    "RunnerRelay",
    "gateway_relay",
    "runner_relay",
]


def runner_relay() -> RunnerRelay:
    if settings.REDIS_URL:
        from arena.adapters.relay.redis import RedisRunnerRelay

        return RedisRunnerRelay(settings.REDIS_URL, settings.RELAY_PREFIX)
    return shared_relay()


def gateway_relay() -> GatewayRelay:
    if settings.REDIS_URL:
        from arena.adapters.relay.redis_gateway import DirectConfig, RedisGatewayRelay

        bind = settings.RELAY_DIRECT_BIND.strip()
        direct = (
            None
            if bind.lower() in ("", "off")
            else DirectConfig(bind, str(settings.SECRET_KEY), settings.RELAY_DIRECT_HOST)
        )
        return RedisGatewayRelay(settings.REDIS_URL, settings.RELAY_PREFIX, direct=direct)
    return shared_relay()
