"""An owner's event told to the bot's open stream too (``ArenaMessage.notice``), where it
makes sense (``arena.notify.outbox.STREAM_KINDS``), as lichess's event stream tells a
connected bot of a challenge.

The domain does not call this: ``arena.notify`` sends ``arena.signals.bot_notice`` after
the commit that recorded the event, which ``connect()`` (run by the adapters' app when
Django starts) ties to ``announce_notice``, in the process that committed it:

* distributed mode: a ``{"t": "n"}`` message on the bot's relay channel
  (``{p}:bot:{bot_id}``, ``arena.adapters.relay.wire``), which only the gateway holding the
  bot's stream subscribes to; its payload is the serialized ``ArenaMessage``, written to
  that stream as it is;
* embedded mode: the process's in-process relay hands it to the bot's session.

Either way it goes only to the stream of the bot it is about (the channel, or the route,
is the bot's, and the stream was opened with the bot's token), once: one message per
event, and an event is recorded once per key. Nothing waits for the bot, and nothing is
kept for a bot that is not connected: the owner's webhook and e-mail are the durable
channels. A failure (Redis down) is logged and changes nothing else.
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import datetime
from typing import Any

import redis
from django.conf import settings

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.relay.local import shared_relay
from arena.adapters.relay.wire import NOTICE, Keys, pack
from arena.signals import bot_notice

logger = logging.getLogger(__name__)

#: the most of an event's JSON a notice carries (its fields are capped where they are
#: made; this bounds what one notice can take of a stream)
MAX_DATA_BYTES = 8192
MAX_TEXT = 300

_clients: dict[str, redis.Redis] = {}
_clients_lock = threading.Lock()


def connect() -> None:
    """Push every event the domain signals to its bot's stream (idempotent)."""
    bot_notice.connect(_on_notice, dispatch_uid="arena.adapters.relay.botnotices")


def _on_notice(
    sender: object,
    *,
    bot_id: int | str,
    event_id: str,
    kind: str,
    text: str,
    data: dict[str, Any],
    created_at: datetime,
    **_: object,
) -> None:
    announce_notice(bot_id, notice_message(event_id, kind, text, data, created_at))


def notice_message(
    event_id: str, kind: str, text: str, data: dict[str, Any], created_at: datetime
) -> bytes:
    """The serialized ``ArenaMessage`` carrying the event."""
    data_json = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    if len(data_json.encode()) > MAX_DATA_BYTES:
        small = {k: data[k] for k in ("bot", "path") if k in data}
        data_json = json.dumps({**small, "truncated": True}, sort_keys=True, default=str)
    notice = pb.Notice(
        event_id=event_id,
        kind=kind,
        text=text[:MAX_TEXT],
        data_json=data_json,
        created_at_ms=int(created_at.timestamp() * 1000),
    )
    return pb.ArenaMessage(notice=notice).SerializeToString()


def announce_notice(bot_id: int | str, payload: bytes) -> None:
    """Hand ``payload`` (a serialized ``ArenaMessage``) to the bot's stream, wherever it
    is; returns at once (a Redis ``PUBLISH``, with short timeouts, at most)."""
    bot_id = str(bot_id)
    shared_relay().notice(bot_id, payload)
    if not settings.REDIS_URL:
        return
    channel = Keys(settings.RELAY_PREFIX).bot(bot_id)
    try:
        _client(str(settings.REDIS_URL)).publish(channel, pack({"t": NOTICE}, payload))
    except redis.RedisError as exc:
        logger.warning("could not pass a notice to bot %s's gateway: %s", bot_id, exc)


def _client(url: str) -> redis.Redis:
    """One pooled client per Redis URL for the process (a notice is a single command)."""
    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
            _clients[url] = client
        return client
