"""Telling every gateway that a bot's token no longer holds (revoked or rotated).

The gateway checks a token when a stream opens; without this a stream opened with a token
that was revoked afterwards would play on for as long as it stays up. ``announce_revoked``
reaches the streams already open. The domain does not call it: it sends
``arena.signals.token_revoked`` after the commit, which ``connect()`` (run by the adapters'
app when Django starts) ties to it:

* distributed mode: a ``{"t": "r"}`` notice on the bot's relay channel
  (``{p}:bot:{bot_id}``), which exactly the gateways holding the bot subscribe to. It
  carries the connection counter's value at the time, so that a stream attached later
  (with the new token) is left alone;
* embedded mode: the process's in-process relay, whose gateway sessions close at once.

A stream that had its token checked just before the revocation and attaches just after
it misses the notice; the gateway checks the token once more after attaching for that.
"""

from __future__ import annotations

import logging

import redis
from django.conf import settings

from arena.adapters.relay.local import shared_relay
from arena.adapters.relay.wire import REVOKED, Keys, pack
from arena.signals import token_revoked

logger = logging.getLogger(__name__)


def connect() -> None:
    """Announce every revocation the domain signals (idempotent)."""
    token_revoked.connect(_on_revoked, dispatch_uid="arena.adapters.relay.revocation")


def _on_revoked(sender: object, *, bot_id: str | int, reason: str, **_: object) -> None:
    announce_revoked(bot_id, reason)


def announce_revoked(bot_id: str | int, reason: str) -> None:
    """End every open stream of ``bot_id``, on any gateway (call after the commit that
    changed the token). A Redis failure is logged, not raised: the token change stands,
    and the gateways' own checks catch up."""
    bot_id = str(bot_id)
    shared_relay().revoke(bot_id, reason)
    if not settings.REDIS_URL:
        return
    keys = Keys(settings.RELAY_PREFIX)
    client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=5)
    try:
        ceiling = int(client.get(keys.conn) or 0)  # type: ignore[arg-type]
        client.publish(keys.bot(bot_id), pack({"t": REVOKED, "c": ceiling, "d": reason}))
    except redis.RedisError:
        logger.exception("could not announce to the gateways that bot %s was revoked", bot_id)
    finally:
        client.close()
