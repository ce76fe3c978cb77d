"""The Redis relay's wire format: its keys and messages, in one place.

Any client of the relay (the synchronous runner relay in ``arena.adapters.relay.redis``, the
gateway's in ``arena.adapters.relay.redis_gateway``, an asyncio runner) speaks exactly this.

Keys, all under a prefix (``RELAY_PREFIX``, so tests and deployments can share a Redis):

* ``{p}:bot:{bot_id}`` - pub/sub channel of a bot. Runners ``PUBLISH`` deliveries; the
  gateway holding the bot's stream is subscribed. ``PUBLISH`` answers how many gateways
  received it, so 0 tells the runner at once that the bot is not connected.
  Gateways also publish *supersede* notices there when the bot opens a newer stream,
  ``arena.adapters.relay.revocation`` *revoked* notices when its token changes, and
  ``arena.adapters.relay.botnotices`` the owner's events the bot is told of.
* ``{p}:inbox:{match_id}`` - list: the gateway ``RPUSH``es what the bot sends for the
  match (and renews the key's ``EXPIRE`` of ``INBOX_TTL`` s with it), the runner
  ``BLPOP``s it with the decision's deadline; the runner ``DEL``etes it when a match (or a
  new run of it) opens and when it closes.
* ``{p}:conn`` - counter (``INCR``) ordering every bot stream ever opened (newest wins,
  across gateways, whatever order the notices arrive in).
* ``{p}:presence`` - hash bot_id -> JSON ``{"gateway", "conn", "max_matches", "since"}``,
  for schedulers; the channel's subscriber count (``PUBSUB NUMSUB``) stays the authority
  on "connected".
* ``{p}:left`` - hash bot_id -> JSON ``{"at", "arena", "conn"}``: when the bot's last
  stream ended and whether the arena ended it (written with the presence entry's removal
  by the gateway's ``detach``, ``arena`` when it drains; by the first runner that finds a
  dead gateway's bot). ``Reach.left_at``: a match starting then waits for the bot.
* ``{p}:gw:{gateway_id}`` - a live gateway's heartbeat key (``arena.adapters.relay.presence``).
* ``{p}:gateway:{gateway_id}`` - a channel each gateway subscribes to first (nothing is
  published there).

Every message (on a channel or in an inbox) is one line of compact JSON, the *header*,
then ``\\n``, then the payload: raw protobuf bytes that the relay never parses.

On a bot's channel, by the header's ``t``:

* ``"d"`` delivery: ``k`` kind (``started`` | ``request`` | ``ended``), ``m`` match id,
  ``s`` seq (0 unless a request); payload: a serialized ``agent_avenue.v1.ArenaMessage``,
  written to the bot's stream as it is;
* ``"k"`` supersede: ``c`` the new stream's connection number (from ``{p}:conn``); a
  gateway holding an older stream of the bot closes it;
* ``"r"`` revoked: ``c`` the connection counter when the token changed, ``d`` the reason;
  a gateway closes the bot's stream if it is not newer than ``c``;
* ``"n"`` notice (``arena.adapters.relay.botnotices``): payload a serialized
  ``ArenaMessage`` with a ``Notice``, written to the bot's stream as it is (after anything
  queued for it; never to a hosted bot's stream, which is its bot host's).

In an inbox, one message a bot's gateway sends the match's runner (``Inbound``): ``k``
kind (``action`` | ``malformed`` | ``disconnected`` | ``too_large`` | ``seat_fault`` |
``host_failed``),
``b`` bot id, ``m`` match id, ``s`` seq, ``d`` detail, ``l`` the gateway's latency measure
in ms (or null), ``a`` whether the arena ended the stream, ``c`` the stream's connection
number; payload:
an ``action``'s serialized ``agent_avenue.v1.Action``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from arena.adapters.relay.base import Delivery, DeliveryKind, Inbound, InboundKind

#: seconds an inbox lives after its last push (a runner that died leaves nothing behind)
INBOX_TTL = 300

#: header types on a bot's channel
DELIVERY, SUPERSEDE, REVOKED, NOTICE = "d", "k", "r", "n"


class Keys:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.conn = f"{prefix}:conn"
        self.presence = f"{prefix}:presence"
        #: bot -> {"at": Unix time, "arena": bool, "conn": id} of its last stream's end
        self.left = f"{prefix}:left"
        self._bot = f"{prefix}:bot:"

    def bot(self, bot_id: str) -> str:
        return self._bot + bot_id

    def bot_of(self, channel: str) -> str:
        return channel[len(self._bot) :]

    def inbox(self, match_id: str) -> str:
        return f"{self.prefix}:inbox:{match_id}"

    def gateway_channel(self, gateway_id: str) -> str:
        return f"{self.prefix}:gateway:{gateway_id}"


def pack(header: Mapping[str, object], payload: bytes = b"") -> bytes:
    return json.dumps(header, separators=(",", ":")).encode() + b"\n" + payload


def unpack(data: bytes) -> tuple[dict[str, object], bytes]:
    """The header and the payload; ValueError when the header is not a JSON object."""
    head, _, payload = data.partition(b"\n")
    header = json.loads(head)
    if not isinstance(header, dict):
        raise ValueError(f"the header is a JSON {type(header).__name__}, not an object")
    return header, payload


def encode_delivery(delivery: Delivery) -> bytes:
    header = {"t": DELIVERY, "k": delivery.kind.value, "m": delivery.match_id, "s": delivery.seq}
    return pack(header, delivery.payload)


def delivery_of(header: Mapping[str, object], payload: bytes) -> Delivery:
    """The delivery a ``"d"`` message carries (``unpack`` gave header and payload)."""
    return Delivery(DeliveryKind(header["k"]), str(header["m"]), int(str(header["s"])), payload)


@dataclass(frozen=True)
class ChannelMessage:
    """A message on a bot's channel, read: its header type and what that type carries."""

    kind: str
    payload: bytes
    delivery: Delivery | None = None
    #: supersede, revoked: the stream (``{p}:conn``) it concerns
    conn: int = 0
    #: revoked: why
    detail: str = ""


def read_channel_message(data: bytes) -> ChannelMessage:
    """ValueError when ``data`` is not the wire format (its header not a JSON object, a
    field missing or of the wrong kind); an unknown type is read, to be ignored."""
    header, payload = unpack(data)
    try:
        kind = str(header["t"])
        return ChannelMessage(
            kind,
            payload,
            delivery_of(header, payload) if kind == DELIVERY else None,
            int(str(header["c"])) if kind in (SUPERSEDE, REVOKED) else 0,
            str(header["d"]) if kind == REVOKED else "",
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{type(exc).__name__} {exc}") from exc


def encode_inbound(inbound: Inbound) -> bytes:
    return pack(
        {
            "k": inbound.kind.value,
            "b": inbound.bot_id,
            "m": inbound.match_id,
            "s": inbound.seq,
            "d": inbound.detail,
            "l": inbound.latency_ms,
            "a": inbound.arena,
            "c": inbound.conn,
        },
        inbound.payload,
    )


def decode_inbound(data: bytes) -> Inbound:
    h, payload = unpack(data)
    latency = h.get("l")
    return Inbound(
        InboundKind(h["k"]),
        str(h["b"]),
        str(h["m"]),
        int(str(h["s"])),
        payload,
        str(h["d"]),
        None if latency is None else float(str(latency)),
        bool(h.get("a", False)),
        str(h.get("c", "")),
    )
