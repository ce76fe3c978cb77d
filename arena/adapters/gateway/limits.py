"""Failed token attempts, counted per peer address.

A bot token is a bearer secret: without a limit, anyone who can reach the gateway may try
tokens as fast as the database answers (1,000 wrong ones in 4.4 s went unnoticed). Each
failed attempt takes one token from its peer's bucket; while the bucket is empty, every
stream from that peer is refused with ``RESOURCE_EXHAUSTED`` before its token is looked
at, so guessing costs time and a valid token cannot be told apart from a wrong one.
Peers are keyed by host (the port changes with every connection).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from arena.adapters.gateway.session import TokenBucket

logger = logging.getLogger(__name__)

#: buckets kept at most; the fullest (oldest) are dropped first, a refilled bucket and a
#: missing one being the same thing
MAX_PEERS = 10_000


def peer_host(peer: str | None) -> str:
    """``ipv4:1.2.3.4:5678`` -> ``ipv4:1.2.3.4``; ``ipv6:[::1]:5678`` -> ``ipv6:[::1]``."""
    if not peer:
        return "unknown"
    host, sep, port = peer.rpartition(":")
    return host if sep and port.isdigit() and ":" in host else peer


@dataclass
class _Peer:
    bucket: TokenBucket
    failures: int = 0
    limited_logged: bool = False


class FailedAuthLimiter:
    """Token buckets of failed attempts; called on the gateway's event loop only."""

    def __init__(self, per_minute: float, burst: int) -> None:
        self.rate = per_minute / 60.0
        self.burst = burst
        self._peers: dict[str, _Peer] = {}

    def retry_after(self, peer: str, now: float) -> float:
        """0 if ``peer`` may try a token now, else the seconds until it may."""
        state = self._peers.get(peer)
        if state is None:
            return 0.0
        bucket = state.bucket
        tokens = min(bucket.burst, bucket.tokens + (now - bucket.stamp) * bucket.rate)
        if tokens >= 1.0:
            return 0.0
        if not state.limited_logged:
            state.limited_logged = True
            logger.warning(
                "refusing token attempts from %s for now: %d failed attempts",
                peer,
                state.failures,
            )
        return (1.0 - tokens) / self.rate

    def failed(self, peer: str, now: float, why: str) -> None:
        """Charge a failed attempt (logged with the peer and why, never the token)."""
        state = self._peers.get(peer)
        if state is None:
            if len(self._peers) >= MAX_PEERS:
                self._forget_oldest()
            state = self._peers[peer] = _Peer(TokenBucket(self.rate, self.burst, now))
        state.bucket.take(now)
        state.failures += 1
        state.limited_logged = False
        logger.warning("refused a bot stream from %s: %s (failure %d)", peer, why, state.failures)

    def _forget_oldest(self) -> None:
        oldest = sorted(self._peers, key=lambda p: self._peers[p].bucket.stamp)
        for peer in oldest[: len(oldest) // 2]:
            del self._peers[peer]
